#include "sentences.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "vocab.h"

struct SentenceList {
    int n;
    char **text;    // n sentences
    int *line;      // each one's line number
};

void sl_free(SentenceList *l) {
    if (!l) return;
    for (int i = 0; i < l->n; i++) free(l->text[i]);
    free(l->text);
    free(l->line);
    free(l);
}

int sl_count(const SentenceList *l) { return l->n; }
const char *sl_get(const SentenceList *l, int i) { return l->text[i]; }
int sl_line(const SentenceList *l, int i) { return l->line[i]; }

static bool is_blank(char c) { return c == ' ' || c == '\t'; }

SentenceList *sl_parse(const char *name, const char *text, size_t len, Error *err) {
    SentenceList *l = calloc(1, sizeof *l);
    if (!l) goto oom;
    size_t cap = 1;
    for (size_t i = 0; i < len; i++) cap += text[i] == '\n';
    l->text = malloc(cap * sizeof *l->text);
    l->line = malloc(cap * sizeof *l->line);
    if (!l->text || !l->line) goto oom;
    size_t at = 0;
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) at = 3;  // byte order mark
    for (int no = 1; at < len; no++) {
        const char *start = text + at, *nl = memchr(start, '\n', len - at);
        size_t n = nl ? (size_t)(nl - start) : len - at;
        at += n + (nl ? 1 : 0);
        if (n && start[n - 1] == '\r') n--;  // CRLF
        if (n > SL_MAX_LINE_BYTES) {
            err_set(err, "%s:%d: the line has %zu bytes; a sentence may have at most %d", name, no, n, SL_MAX_LINE_BYTES);
            goto fail;
        }
        long bad = voc_utf8_invalid_at(start, (long)n);
        if (bad >= 0) {
            err_set(err, "%s:%d: not valid UTF-8 (byte 0x%02X at column %ld)", name, no, (unsigned char)start[bad], bad + 1);
            goto fail;
        }
        uint32_t cp;
        long ctl = voc_forbidden_at(start, (long)n, VOC_ALLOW_TAB, &cp);
        if (ctl >= 0) {
            err_set(err, "%s:%d: a control character (U+%04X at column %ld)", name, no, (unsigned)cp, ctl + 1);
            goto fail;
        }
        while (n && is_blank(*start)) start++, n--;
        while (n && is_blank(start[n - 1])) n--;
        if (!n || *start == '#') continue;
        char *copy = malloc(n + 1);
        if (!copy) goto oom;
        memcpy(copy, start, n);
        copy[n] = '\0';
        l->text[l->n] = copy;
        l->line[l->n++] = no;
    }
    if (l->n == 0) {
        err_set(err, "%s: no sentences in the file (only blank lines and # comments)", name);
        goto fail;
    }
    return l;
oom:
    err_set(err, "%s: out of memory reading the sentences", name);
fail:
    sl_free(l);
    return NULL;
}

SentenceList *sl_load(const char *path, Error *err) {
    char *data;
    size_t len;
    if (fio_read_all(path, SL_MAX_FILE_BYTES, &data, &len, err)) return NULL;
    SentenceList *l = sl_parse(path, data, len, err);
    free(data);
    return l;
}
