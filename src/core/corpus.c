#include "corpus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "vocab.h"

struct Corpus {
    char *data;             // the file; columns end in NULs written over tabs and line ends
    CorpusPair *pairs;
    void **blocks;          // per pair: its token pointers, links and token text
    int n, cap;
    int skipped;
    char first_skip[sizeof(Error)];
};

// Tokens of text[0..len) separated by runs of spaces.
static int count_tokens(const char *text, size_t len) {
    int n = 0;
    for (size_t i = 0; i < len; i++)
        if (text[i] != ' ' && (i == 0 || text[i - 1] == ' ')) n++;
    return n;
}

// Copies text into buf with NULs for spaces and points toks at the words.
static void split_tokens(const char *text, size_t len, char *buf, const char **toks) {
    memcpy(buf, text, len);
    buf[len] = '\0';
    int n = 0;
    for (size_t i = 0; i < len; i++) {
        if (buf[i] == ' ') buf[i] = '\0';
        else if (i == 0 || text[i - 1] == ' ') toks[n++] = buf + i;
    }
}

static int compare_links(const void *a, const void *b) {
    const AlignLink *x = a, *y = b;
    if (x->src != y->src) return x->src < y->src ? -1 : 1;
    return (x->tgt > y->tgt) - (x->tgt < y->tgt);
}

// Parses the digits s[0..len) into *out; false if empty or not all digits.
// Huge numbers saturate: they are out of range anyway.
static bool parse_index(const char *s, size_t len, long *out) {
    if (len == 0) return false;
    long v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        v = v > 100000000L ? 1000000000L : v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
}

// Parses the alignment column into links (room for count_tokens links).
// Returns the number of links, or -1 with why filled.
static int parse_links(const char *text, size_t len, int n_src, int n_tgt, AlignLink *links, char *why, size_t why_size) {
    int n = 0;
    for (size_t i = 0; i < len;) {
        if (text[i] == ' ') {
            i++;
            continue;
        }
        size_t end = i;
        while (end < len && text[end] != ' ') end++;
        const char *link = text + i;
        int link_len = (int)(end - i);
        const char *dash = memchr(link, '-', (size_t)link_len);
        long s, t;
        if (!dash || !parse_index(link, (size_t)(dash - link), &s) ||
            !parse_index(dash + 1, (size_t)(link + link_len - dash - 1), &t)) {
            snprintf(why, why_size, "alignment link \"%.*s\" is not of the form i-j (source index, dash, target index)",
                     link_len > 40 ? 40 : link_len, link);
            return -1;
        }
        if (s >= n_src || t >= n_tgt) {
            bool bad_src = s >= n_src;
            const char *digits = bad_src ? link : dash + 1;
            int digits_len = bad_src ? (int)(dash - link) : (int)(link + link_len - dash - 1);
            int n = bad_src ? n_src : n_tgt;
            snprintf(why, why_size, "alignment link \"%.*s\": %s index %.*s is out of range (the %s has %d token%s)",
                     link_len > 40 ? 40 : link_len, link, bad_src ? "source" : "target", digits_len > 20 ? 20 : digits_len,
                     digits, bad_src ? "source" : "target", n, n == 1 ? "" : "s");
            return -1;
        }
        links[n++] = (AlignLink){(int)s, (int)t};
        i = end;
    }
    qsort(links, (size_t)n, sizeof *links, compare_links);
    int kept = 0;
    for (int i = 0; i < n; i++)
        if (kept == 0 || compare_links(&links[kept - 1], &links[i]) != 0) links[kept++] = links[i];
    return kept;
}

static int add_pair(Corpus *c, const CorpusPair *p, void *block) {
    if (c->n == c->cap) {
        int cap = c->cap ? c->cap * 2 : 256;
        CorpusPair *pairs = realloc(c->pairs, (size_t)cap * sizeof *pairs);
        if (pairs) c->pairs = pairs;
        void **blocks = realloc(c->blocks, (size_t)cap * sizeof *blocks);
        if (blocks) c->blocks = blocks;
        if (!pairs || !blocks) return -1;
        c->cap = cap;
    }
    c->pairs[c->n] = *p;
    c->blocks[c->n++] = block;
    return 0;
}

// Checks one line (without its line end) and adds its pair. Returns 0, 1 for
// a bad line (why says what is wrong), or -1 when out of memory.
static int parse_line(Corpus *c, char *line, size_t len, int line_no, char *why, size_t why_size) {
    long bad = voc_utf8_invalid_at(line, (long)len);
    if (bad >= 0) {
        snprintf(why, why_size, "invalid UTF-8 (byte 0x%02X at column %ld)", (unsigned char)line[bad], bad + 1);
        return 1;
    }
    uint32_t cp;
    bad = voc_forbidden_at(line, (long)len, VOC_ALLOW_TAB, &cp);  // tab separates columns
    if (bad >= 0) {
        snprintf(why, why_size, "control character U+%04X at column %ld", (unsigned)cp, bad + 1);
        return 1;
    }
    char *cols[3];
    size_t col_len[3];
    int n_cols = 0;
    for (char *s = line, *end = line + len;;) {
        char *tab = memchr(s, '\t', (size_t)(end - s));
        if (n_cols == 3) {
            n_cols++;
            break;
        }
        cols[n_cols] = s;
        col_len[n_cols++] = (size_t)((tab ? tab : end) - s);
        if (!tab) break;
        s = tab + 1;
    }
    if (n_cols == 1) {
        snprintf(why, why_size, "no tab: expected source<TAB>target or source<TAB>target<TAB>alignment");
        return 1;
    }
    if (n_cols > 3) {
        snprintf(why, why_size, "more than 3 tab-separated columns: expected source, target and alignment");
        return 1;
    }
    int n_src = count_tokens(cols[0], col_len[0]), n_tgt = count_tokens(cols[1], col_len[1]);
    if (n_src == 0) {
        snprintf(why, why_size, "empty source sentence");
        return 1;
    }
    if (n_tgt == 0) {
        snprintf(why, why_size, "empty target sentence");
        return 1;
    }
    int max_links = n_cols == 3 ? count_tokens(cols[2], col_len[2]) : 0;

    // one block: token pointers, links, then the tokens' text
    size_t ptr_bytes = (size_t)(n_src + n_tgt) * sizeof(char *);
    size_t link_bytes = (size_t)max_links * sizeof(AlignLink);
    char *block = malloc(ptr_bytes + link_bytes + col_len[0] + col_len[1] + 2);
    if (!block) return -1;
    const char **toks = (const char **)(void *)block;
    AlignLink *links = (AlignLink *)(void *)(block + ptr_bytes);
    char *text = block + ptr_bytes + link_bytes;
    int n_links = 0;
    if (max_links > 0) {
        n_links = parse_links(cols[2], col_len[2], n_src, n_tgt, links, why, why_size);
        if (n_links < 0) {
            free(block);
            return 1;
        }
    }
    split_tokens(cols[0], col_len[0], text, toks);
    split_tokens(cols[1], col_len[1], text + col_len[0] + 1, toks + n_src);
    for (int i = 0; i < n_cols; i++) cols[i][col_len[i]] = '\0';

    CorpusPair p = {
        .src_text = cols[0], .tgt_text = cols[1], .n_src = n_src, .n_tgt = n_tgt,
        .src = toks, .tgt = toks + n_src, .has_align = max_links > 0,
        .n_links = n_links, .links = links, .line = line_no,
    };
    if (add_pair(c, &p, block) != 0) {
        free(block);
        return -1;
    }
    return 0;
}

Corpus *corpus_read(const char *path, bool skip_bad, Error *err) {
    Corpus *c = calloc(1, sizeof *c);
    if (!c) {
        err_set(err, "%s: out of memory", path);
        return NULL;
    }
    size_t size;
    if (fio_read_all(path, (size_t)CORPUS_MAX_FILE_BYTES, &c->data, &size, err) != 0) goto fail;
    char *s = c->data, *end = c->data + size;
    if (size >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) s += 3;  // byte order mark

    char why[sizeof c->first_skip - 64];
    for (long line_no = 1; s < end; line_no++) {
        char *nl = memchr(s, '\n', (size_t)(end - s));
        char *line_end = nl ? nl : end;
        size_t len = (size_t)(line_end - s);
        int rc = 0;
        if (len > (size_t)CORPUS_MAX_LINE_BYTES) {
            snprintf(why, sizeof why, "line is %zu bytes, longer than the limit of %ld bytes", len, CORPUS_MAX_LINE_BYTES);
            rc = 1;
        } else {
            if (len > 0 && s[len - 1] == '\r') len--;  // CRLF
            if (len > 0) rc = parse_line(c, s, len, (int)line_no, why, sizeof why);
        }
        if (rc < 0) {
            err_set(err, "%s:%ld: out of memory", path, line_no);
            goto fail;
        }
        if (rc > 0) {
            if (!skip_bad) {
                err_set(err, "%s:%ld: %s", path, line_no, why);
                goto fail;
            }
            if (c->skipped++ == 0) snprintf(c->first_skip, sizeof c->first_skip, "%s:%ld: %s", path, line_no, why);
        }
        s = line_end + (nl ? 1 : 0);
    }
    if (c->n == 0) {
        if (c->skipped)
            err_set(err, "%s: no sentence pairs (%d bad lines skipped; the first: %s)", path, c->skipped, c->first_skip);
        else
            err_set(err, "%s: no sentence pairs", path);
        goto fail;
    }
    return c;
fail:
    corpus_free(c);
    return NULL;
}

void corpus_free(Corpus *c) {
    if (!c) return;
    for (int i = 0; i < c->n; i++) free(c->blocks[i]);
    free(c->blocks);
    free(c->pairs);
    free(c->data);
    free(c);
}

int corpus_size(const Corpus *c) { return c->n; }

const CorpusPair *corpus_pair(const Corpus *c, int i) {
    return i >= 0 && i < c->n ? &c->pairs[i] : NULL;
}

int corpus_skipped(const Corpus *c) { return c->skipped; }

const char *corpus_first_skip(const Corpus *c) { return c->first_skip; }
