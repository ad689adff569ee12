#include "gold.h"

#include <stdio.h>
#include <string.h>

enum { N_SPLITS = 3, MAX_FOLDERS = 4 };
static const char *const split_names[N_SPLITS] = {"train.tsv", "valid.tsv", "test.tsv"};

// Corpora read so far, by folder. A split that could not be read stays NULL
// and is not tried again: a missing corpus just means no gold.
static struct {
    char dir[1024];
    Corpus *split[N_SPLITS];
} cache[MAX_FOLDERS];
static int n_cached;

// The corpus folder of a shipped model, found like the model: beside its folder.
static bool corpus_dir(const char *model_path, char *buf, size_t size) {
    const char *slash = strrchr(model_path, '/'), *file = slash ? slash + 1 : model_path;
    const char *pair = !strcmp(file, "en-zh.safetensors") ? "en-zh" : !strcmp(file, "en-fr.safetensors") ? "en-fr" : NULL;
    if (!pair) return false;
    int dir_len = slash ? (int)(slash - model_path) : 1;
    int n = snprintf(buf, size, "%.*s/../corpus/%s", dir_len, slash ? model_path : ".", pair);
    return n > 0 && (size_t)n < size;
}

// The three splits of the corpus in dir (each NULL if unreadable), read on
// first use; NULL when the cache is full.
static Corpus *const *corpora(const char *dir) {
    for (int i = 0; i < n_cached; i++)
        if (!strcmp(cache[i].dir, dir)) return cache[i].split;
    if (n_cached == MAX_FOLDERS) return NULL;
    snprintf(cache[n_cached].dir, sizeof cache[n_cached].dir, "%s", dir);
    for (int k = 0; k < N_SPLITS; k++) {
        char path[1100];
        Error err;
        snprintf(path, sizeof path, "%s/%s", dir, split_names[k]);
        cache[n_cached].split[k] = corpus_read(path, true, &err);
    }
    return cache[n_cached++].split;
}

const CorpusPair *gold_find(const Model *m, const Trace *t, const char **file) {
    char dir[1024];
    if (!m->path || !corpus_dir(m->path, dir, sizeof dir)) return NULL;
    int src_step = trace_find(t, "src.tokens", 0, 0), n_out;
    const int *out = trace_output(t, &n_out);
    if (src_step < 0) return NULL;
    const Step *src = trace_step(t, src_step);
    Corpus *const *split = corpora(dir);
    for (int k = 0; split && k < N_SPLITS; k++)
        for (int i = 0; split[k] && i < corpus_size(split[k]); i++) {
            const CorpusPair *p = corpus_pair(split[k], i);
            if (!p->has_align || p->n_src != src->cols || p->n_tgt != n_out) continue;
            bool same = true;
            for (int j = 0; same && j < p->n_src; j++) same = !strcmp(p->src[j], src->col_labels[j]);
            for (int j = 0; same && j < p->n_tgt; j++) same = !strcmp(p->tgt[j], voc_token(m->tgt, out[j]));
            if (same) {
                if (file) *file = split_names[k];
                return p;
            }
        }
    return NULL;
}
