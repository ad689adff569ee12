#include "gold.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"

enum { N_SPLITS = 3, MAX_TOKENS = 256, MAX_LINKS = 1024, MAX_KEY = 2048 };
static const char *const split_names[N_SPLITS] = {"train.tsv", "valid.tsv", "test.tsv"};

// A pair parsed into its own storage.
struct GoldAlignment {
    const char *file;
    CorpusPair pair;
    char line[4096];        // the line, cut into tokens in place
    const char *src[MAX_TOKENS], *tgt[MAX_TOKENS];
    AlignLink links[MAX_LINKS];
};

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

// Parses "source <TAB> target <TAB> links" (line number no) into g; false
// when the line is not a pair with an alignment that fits.
static bool parse_pair(GoldAlignment *g, const char *text, size_t len, int no) {
    if (len >= sizeof g->line) return false;
    memcpy(g->line, text, len);
    g->line[len] = '\0';
    if (len && g->line[len - 1] == '\r') g->line[len - 1] = '\0';
    const char *col[3];
    if (split(g->line, '\t', col, 3) != 3 || !*col[2]) return false;
    CorpusPair *p = &g->pair;
    memset(p, 0, sizeof *p);
    p->n_src = split((char *)col[0], ' ', g->src, MAX_TOKENS);
    p->n_tgt = split((char *)col[1], ' ', g->tgt, MAX_TOKENS);
    const char *link[MAX_LINKS];
    int n = split((char *)col[2], ' ', link, MAX_LINKS);
    if (p->n_src < 1 || p->n_tgt < 1 || n < 1) return false;
    for (int i = 0; i < n; i++) {
        char end;
        AlignLink *l = &g->links[i];
        if (sscanf(link[i], "%d-%d%c", &l->src, &l->tgt, &end) != 2 || l->src < 0 || l->src >= p->n_src || l->tgt < 0 || l->tgt >= p->n_tgt)
            return false;
    }
    p->src = g->src;
    p->tgt = g->tgt;
    p->has_align = true;
    p->n_links = n;
    p->links = g->links;
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

// The line of text that starts with key (source, tab, target, tab), parsed
// into g; false when none. The text's first line is line number `first`.
static bool find_line(GoldAlignment *g, const char *text, size_t len, const char *key, int first) {
    size_t key_len = strlen(key);
    for (const char *at = text; at && (size_t)(at - text) + key_len <= len;) {
        const char *hit = find_bytes(at, len - (size_t)(at - text), key, key_len);
        if (!hit) return false;
        if (hit == text || hit[-1] == '\n') {
            const char *end = memchr(hit, '\n', len - (size_t)(hit - text));
            int no = first;
            for (const char *c = text; (c = memchr(c, '\n', (size_t)(hit - c))) != NULL; c++) no++;
            return parse_pair(g, hit, end ? (size_t)(end - hit) : len - (size_t)(hit - text), no);
        }
        at = hit + 1;
    }
    return false;
}

// The start of the pair's line as the corpus writes it: source, tab, target, tab. False when it does not fit.
static bool line_key(const char *const *src, int n_src, const char *const *tgt, int n_tgt, char *key, size_t size) {
    size_t n = 0;
    for (int j = 0; j < n_src && n < size; j++) n += (size_t)snprintf(key + n, size - n, j ? " %s" : "%s", src[j]);
    for (int j = 0; j < n_tgt && n < size; j++) n += (size_t)snprintf(key + n, size - n, j ? " %s" : "\t%s", tgt[j]);
    if (n + 1 >= size || n_src < 1 || n_tgt < 1) return false;
    key[n++] = '\t';
    key[n] = '\0';
    return true;
}

// Reads on past the end of a line that does not fit the buffer (far longer
// than any pair); what follows it is left at the buffer's start (*kept
// bytes). False at the end of the file or on a read error.
static bool skip_line(int fd, char *buf, size_t cap, size_t *kept) {
    for (;;) {
        ssize_t n = read(fd, buf, cap);
        if (n <= 0) return false;
        const char *nl = memchr(buf, '\n', (size_t)n);
        if (nl) {
            *kept = (size_t)n - (size_t)(nl + 1 - buf);
            memmove(buf, nl + 1, *kept);
            return true;
        }
    }
}

// Looks for key's line in the file at path a block at a time, up to the line
// found: the training split is 1.8 MB, and a picture's gold is one line of it.
// Read, not mapped: a corpus file cut short while mapped (rewritten in place,
// a copy in progress) would raise SIGBUS. Returns whether it was found; a
// file that cannot be read is no gold, and a line longer than a block is
// passed over (it is no pair).
static bool find_in_file(GoldAlignment *g, const char *path, const char *key, char *buf, size_t cap) {
    size_t size, kept = 0;  // kept: the start of a line carried over from the block before
    Error ferr;
    int fd = fio_open(path, CORPUS_MAX_FILE_BYTES, &size, &ferr), first = 1;
    if (fd < 0) return false;
    bool found = false;
    for (;;) {
        ssize_t n = read(fd, buf + kept, cap - kept);
        if (n < 0) break;
        size_t have = kept + (size_t)n;
        const char *last = n == 0 ? buf + have : NULL;  // at the end every line is whole
        for (size_t i = have; !last && i > 0; i--)
            if (buf[i - 1] == '\n') last = buf + i;
        if (!last && have < cap) {  // a short read: read on
            kept = have;
            continue;
        }
        if (!last) {  // a block with no line's end: a line far longer than any pair
            if (!skip_line(fd, buf, cap, &kept)) break;
            first++;
            continue;
        }
        size_t whole = (size_t)(last - buf);
        if ((found = find_line(g, buf, whole, key, first)) || n == 0) break;
        for (const char *c = buf; (c = memchr(c, '\n', whole - (size_t)(c - buf))) != NULL; c++) first++;
        kept = have - whole;
        memmove(buf, last, kept);
    }
    close(fd);
    return found;
}

int gold_find(const char *model_path, const char *const *src, int n_src, const char *const *tgt, int n_tgt, GoldAlignment **out,
              Error *err) {
    char dir[1024], key[MAX_KEY];
    *out = NULL;
    if (!model_path || !corpus_dir(model_path, dir, sizeof dir) || !line_key(src, n_src, tgt, n_tgt, key, sizeof key)) return 0;
    enum { BLOCK = 65536 };  // many lines: a line is under 4 KB (GoldAlignment.line)
    GoldAlignment *g = malloc(sizeof *g);
    char *buf = malloc(BLOCK);
    if (!g || !buf) {
        free(g);
        free(buf);
        return err_set(err, "gold alignment: out of memory");
    }
    // a split that cannot be read just means no gold from it
    for (int k = 0; k < N_SPLITS && !*out; k++) {
        char path[1100];
        snprintf(path, sizeof path, "%s/%s", dir, split_names[k]);
        if (find_in_file(g, path, key, buf, BLOCK)) {
            g->file = split_names[k];
            *out = g;
        }
    }
    free(buf);
    if (!*out) free(g);
    return 0;
}

void gold_free(GoldAlignment *g) { free(g); }

const CorpusPair *gold_pair(const GoldAlignment *g) { return &g->pair; }

const char *gold_file(const GoldAlignment *g) { return g->file; }

int *gold_word_counts(const char *model_path, const Vocab *v, int **next) {
    char dir[1024], path[1100], *text;
    size_t len;
    Error err;
    if (next) *next = NULL;
    if (!model_path || !v || !corpus_dir(model_path, dir, sizeof dir)) return NULL;
    snprintf(path, sizeof path, "%s/%s", dir, split_names[0]);
    if (fio_read_all(path, CORPUS_MAX_FILE_BYTES, &text, &len, &err)) return NULL;
    int V = voc_size(v), *counts = calloc((size_t)V + 1, sizeof *counts);
    // (V + 1) × V pairs: a vocabulary of tens of thousands may not have the
    // memory, and then the counts alone still rank the suggestions
    int *pairs = next ? calloc((size_t)(V + 1) * (size_t)V, sizeof *pairs) : NULL;
    if (!counts) {
        free(pairs);
        free(text);
        return NULL;
    }
    // the source side of each line: the words before the tab, cut in place
    for (char *line = text; line < text + len;) {
        char *end = memchr(line, '\n', (size_t)(text + len - line));
        if (!end) end = text + len;
        *end = '\0';
        char *tab = strchr(line, '\t');
        if (tab) {
            *tab = '\0';
            int prev = V;  // the start of the sentence
            for (char *w = line; *w;) {
                size_t n = strcspn(w, " \r");
                char *following = w + n + (w[n] != '\0');
                w[n] = '\0';
                int id = n ? voc_id(v, w) : -1;
                if (id >= 0 && id < V) {
                    counts[id]++;
                    if (pairs && prev >= 0) pairs[(size_t)prev * (size_t)V + (size_t)id]++;
                }
                if (n) prev = id >= 0 && id < V ? id : -1;
                w = following;
            }
        }
        line = end + 1;
    }
    free(text);
    if (next) *next = pairs;
    return counts;
}
