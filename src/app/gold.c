#include "gold.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "fileio.h"

enum { N_SPLITS = 3, MAX_TOKENS = 256, MAX_LINKS = 1024 };
static const char *const split_names[N_SPLITS] = {"train.tsv", "valid.tsv", "test.tsv"};

// The last pair found, parsed into its own storage; the window asks again on every redraw.
static struct {
    char key[2048];         // dir, source and output the pair was looked up by
    bool found;
    const char *file;
    CorpusPair pair;
    char line[4096];        // the line, cut into tokens in place
    const char *src[MAX_TOKENS], *tgt[MAX_TOKENS];
    AlignLink links[MAX_LINKS];
} last;

// The corpus folder of a shipped model, found like the model: beside its folder.
static bool corpus_dir(const char *model_path, char *buf, size_t size) {
    const char *slash = strrchr(model_path, '/'), *file = slash ? slash + 1 : model_path;
    const char *pair = !strcmp(file, "en-zh.safetensors") ? "en-zh" : !strcmp(file, "en-fr.safetensors") ? "en-fr" : NULL;
    if (!pair) return false;
    int dir_len = slash ? (int)(slash - model_path) : 1;
    int n = snprintf(buf, size, "%.*s/../corpus/%s", dir_len, slash ? model_path : ".", pair);
    return n > 0 && (size_t)n < size;
}

// Cuts s at each sep in place into at most most pieces; returns how many, or -1 if more.
static int split(char *s, char sep, const char **pieces, int most) {
    int n = 0;
    for (char *p = s; p;) {
        if (n == most) return -1;
        pieces[n++] = p;
        p = strchr(p, sep);
        if (p) *p++ = '\0';
    }
    return n;
}

// Parses "source <TAB> target <TAB> links" (line number no) into last; false
// when the line is not a pair with an alignment that fits.
static bool parse_pair(const char *text, size_t len, int no) {
    if (len >= sizeof last.line) return false;
    memcpy(last.line, text, len);
    last.line[len] = '\0';
    if (len && last.line[len - 1] == '\r') last.line[len - 1] = '\0';
    const char *col[3];
    if (split(last.line, '\t', col, 3) != 3 || !*col[2]) return false;
    CorpusPair *p = &last.pair;
    memset(p, 0, sizeof *p);
    p->n_src = split((char *)col[0], ' ', last.src, MAX_TOKENS);
    p->n_tgt = split((char *)col[1], ' ', last.tgt, MAX_TOKENS);
    const char *link[MAX_LINKS];
    int n = split((char *)col[2], ' ', link, MAX_LINKS);
    if (p->n_src < 1 || p->n_tgt < 1 || n < 1) return false;
    for (int i = 0; i < n; i++) {
        char end;
        if (sscanf(link[i], "%d-%d%c", &last.links[i].src, &last.links[i].tgt, &end) != 2 || last.links[i].src < 0 ||
            last.links[i].src >= p->n_src || last.links[i].tgt < 0 || last.links[i].tgt >= p->n_tgt)
            return false;
    }
    p->src = last.src;
    p->tgt = last.tgt;
    p->has_align = true;
    p->n_links = n;
    p->links = last.links;
    p->line = no;
    return true;
}

// The first place of key (key_len bytes) in text, or NULL (memmem is not C11 or POSIX).
static const char *find_bytes(const char *text, size_t len, const char *key, size_t key_len) {
    for (const char *at = text, *end = text + len; (size_t)(end - at) >= key_len; at++) {
        at = memchr(at, key[0], (size_t)(end - at) - key_len + 1);
        if (!at) return NULL;
        if (!memcmp(at, key, key_len)) return at;
    }
    return NULL;
}

// The line of text that starts with key (source, tab, target, tab), parsed; false when none.
static bool find_line(const char *text, size_t len, const char *key) {
    size_t key_len = strlen(key);
    for (const char *at = text; at && (size_t)(at - text) + key_len <= len;) {
        const char *hit = find_bytes(at, len - (size_t)(at - text), key, key_len);
        if (!hit) return false;
        if (hit == text || hit[-1] == '\n') {
            const char *end = memchr(hit, '\n', len - (size_t)(hit - text));
            int no = 1;
            for (const char *c = text; (c = memchr(c, '\n', (size_t)(hit - c))) != NULL; c++) no++;
            return parse_pair(hit, end ? (size_t)(end - hit) : len - (size_t)(hit - text), no);
        }
        at = hit + 1;
    }
    return false;
}

const CorpusPair *gold_find(const Model *m, const Trace *t, const char **file) {
    char dir[1024], key[2048];
    if (!m->path || !corpus_dir(m->path, dir, sizeof dir)) return NULL;
    int src_step = trace_find(t, "src.tokens", 0, 0), n_out;
    const int *out = trace_output(t, &n_out);
    if (src_step < 0) return NULL;
    const Step *src = trace_step(t, src_step);
    // the line's start: source and target as the corpus writes them
    size_t n = 0;
    for (int j = 0; j < src->cols && n < sizeof key; j++) n += (size_t)snprintf(key + n, sizeof key - n, j ? " %s" : "%s", src->col_labels[j]);
    for (int j = 0; j < n_out && n < sizeof key; j++) n += (size_t)snprintf(key + n, sizeof key - n, j ? " %s" : "\t%s", voc_token(m->tgt, out[j]));
    if (n + 1 >= sizeof key || n_out < 1) return NULL;
    key[n++] = '\t';
    key[n] = '\0';
    char id[sizeof last.key];
    if ((size_t)snprintf(id, sizeof id, "%s\n%s", dir, key) >= sizeof id) return NULL;
    if (strcmp(id, last.key)) {
        snprintf(last.key, sizeof last.key, "%s", id);
        last.found = false;
        // Each split is mapped for the search only, never kept: a corpus
        // file rewritten in place while mapped would fault on the next
        // access. A split that cannot be read just means no gold from it.
        for (int k = 0; k < N_SPLITS && !last.found; k++) {
            char path[1100];
            FioMap text;
            Error err;
            snprintf(path, sizeof path, "%s/%s", dir, split_names[k]);
            if (fio_map(path, CORPUS_MAX_FILE_BYTES, &text, &err)) continue;
            if (find_line(text.data, text.len, key)) {
                last.found = true;
                last.file = split_names[k];
            }
            fio_unmap(&text);
        }
    }
    if (!last.found) return NULL;
    if (file) *file = last.file;
    return &last.pair;
}
