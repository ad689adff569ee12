#include "vocab.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

struct Vocab {
    int n;
    char **tokens;
    int *table;          // open addressing: token id or -1
    int table_size;      // power of two
    int pad, bos, eos, unk;
    int max_bytes;
    int max_chars;       // longest token in code points, for longest match
};

static uint32_t hash_str(const char *s, size_t len) {
    uint32_t h = 2166136261u;  // FNV-1a
    for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static int lookup(const Vocab *v, const char *s, size_t len) {
    uint32_t mask = (uint32_t)v->table_size - 1;
    for (uint32_t h = hash_str(s, len) & mask;; h = (h + 1) & mask) {
        int id = v->table[h];
        if (id < 0) return -1;
        if (strlen(v->tokens[id]) == len && memcmp(v->tokens[id], s, len) == 0) return id;
    }
}

// Decodes one code point; returns its length in bytes, or 0 if invalid.
static int utf8_decode(const unsigned char *s, long avail, uint32_t *cp) {
    if (avail <= 0) return 0;
    unsigned c = s[0];
    if (c < 0x80) { *cp = c; return 1; }
    int len;
    uint32_t min;
    if ((c & 0xE0) == 0xC0) { len = 2; *cp = c & 0x1F; min = 0x80; }
    else if ((c & 0xF0) == 0xE0) { len = 3; *cp = c & 0x0F; min = 0x800; }
    else if ((c & 0xF8) == 0xF0) { len = 4; *cp = c & 0x07; min = 0x10000; }
    else return 0;
    if (avail < len) return 0;
    for (int i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        *cp = (*cp << 6) | (s[i] & 0x3F);
    }
    // no overlong forms, no surrogates, nothing past U+10FFFF
    if (*cp < min || *cp > 0x10FFFF || (*cp >= 0xD800 && *cp <= 0xDFFF)) return 0;
    return len;
}

long voc_utf8_invalid_at(const char *text, long len) {
    uint32_t cp;
    for (long i = 0; i < len;) {
        int k = utf8_decode((const unsigned char *)text + i, len - i, &cp);
        if (!k) return i;
        i += k;
    }
    return -1;
}

long voc_forbidden_at(const char *text, long len, int allow, uint32_t *cp) {
    uint32_t c;
    for (long i = 0; i < len;) {
        int k = utf8_decode((const unsigned char *)text + i, len - i, &c);
        if (!k) return -1;
        bool allowed = (c == '\t' && (allow & VOC_ALLOW_TAB)) || ((c == '\n' || c == '\r') && (allow & VOC_ALLOW_LINE_ENDS));
        bool control = c < 0x20 || (c >= 0x7F && c <= 0x9F);
        bool layout = c == 0x2028 || c == 0x2029 || (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
        if ((control && !allowed) || layout) {
            *cp = c;
            return i;
        }
        i += k;
    }
    return -1;
}

static bool is_space(uint32_t cp) {
    return cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || cp == 0xA0 || cp == 0x3000;
}

static bool is_ascii_alnum(uint32_t cp) {
    return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9');
}

static bool is_punct(uint32_t cp) {
    if (cp < 0x80) return cp > ' ' && cp < 0x7F && !is_ascii_alnum(cp);
    return (cp >= 0x2000 && cp <= 0x206F)      // general punctuation: dashes, quotes, …
        || (cp >= 0x3001 && cp <= 0x303F)      // CJK punctuation: 、。「」
        || (cp >= 0xFF01 && cp <= 0xFF0F) || (cp >= 0xFF1A && cp <= 0xFF20)
        || (cp >= 0xFF3B && cp <= 0xFF40) || (cp >= 0xFF5B && cp <= 0xFF65)
        || cp == 0xA1 || cp == 0xBF || cp == 0xAB || cp == 0xBB;  // ¡ ¿ « »
}

static uint32_t lower(uint32_t cp) {
    if (cp >= 'A' && cp <= 'Z') return cp + 32;
    if (cp >= 0xC0 && cp <= 0xDE && cp != 0xD7) return cp + 32;  // Latin-1 capitals: É → é
    return cp;
}

static int utf8_encode(uint32_t cp, char *out) {
    if (cp < 0x80) { out[0] = (char)cp; return 1; }
    if (cp < 0x800) { out[0] = (char)(0xC0 | (cp >> 6)); out[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12)); out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F)); return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18)); out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); out[3] = (char)(0x80 | (cp & 0x3F)); return 4;
}

static long count_chars(const char *s) {
    long n = 0;
    for (; *s; s++) n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

Vocab *voc_new(const char *const *tokens, int n, Error *err) {
    Vocab *v = calloc(1, sizeof *v);
    if (!v) goto oom;
    v->tokens = calloc((size_t)(n > 0 ? n : 1), sizeof *v->tokens);
    v->table_size = 16;
    while (v->table_size < 2 * n) v->table_size *= 2;
    v->table = malloc((size_t)v->table_size * sizeof *v->table);
    if (!v->tokens || !v->table) goto oom;
    memset(v->table, -1, (size_t)v->table_size * sizeof *v->table);
    for (int i = 0; i < n; i++) {
        const char *t = tokens[i];
        size_t len = strlen(t);
        if (len == 0) { err_set(err, "vocabulary entry %d is empty", i); goto fail; }
        if (voc_utf8_invalid_at(t, (long)len) >= 0) { err_set(err, "vocabulary entry %d is not valid UTF-8", i); goto fail; }
        // the rule typed text follows, and no space: tokens are split at spaces
        uint32_t cp = ' ';
        long bad = voc_forbidden_at(t, (long)len, 0, &cp);
        if (bad < 0 && strchr(t, ' ')) bad = strchr(t, ' ') - t;
        if (bad >= 0) {
            err_set(err, "vocabulary entry %d (\"%s\") contains white space or a control character (U+%04X at byte %ld)", i,
                    ERR_QUOTE(t, 40), (unsigned)cp, bad);
            goto fail;
        }
        if (lookup(v, t, len) >= 0) { err_set(err, "vocabulary entry %d (\"%s\") is a duplicate", i, ERR_QUOTE(t, 40)); goto fail; }
        if (!(v->tokens[i] = strdup(t))) goto oom;
        v->n = i + 1;
        uint32_t mask = (uint32_t)v->table_size - 1, h = hash_str(t, len) & mask;
        while (v->table[h] >= 0) h = (h + 1) & mask;
        v->table[h] = i;
        if ((int)len > v->max_bytes) v->max_bytes = (int)len;
        if (count_chars(t) > v->max_chars) v->max_chars = (int)count_chars(t);
    }
    const char *names[4] = {VOC_PAD, VOC_BOS, VOC_EOS, VOC_UNK};
    int *ids[4] = {&v->pad, &v->bos, &v->eos, &v->unk};
    for (int s = 0; s < 4; s++)
        if ((*ids[s] = voc_id(v, names[s])) < 0) { err_set(err, "vocabulary has no %s token", names[s]); goto fail; }
    return v;
oom:
    err_set(err, "out of memory building the vocabulary");
fail:
    voc_free(v);
    return NULL;
}

Vocab *voc_from_json(const char *json_text, Error *err) {
    Json *j = json_parse(json_text, strlen(json_text), false, err);
    if (!j) return NULL;
    Vocab *v = NULL;
    const char **toks = NULL;
    if (j->type != JSON_ARRAY || j->count == 0) { err_set(err, "vocabulary is not a non-empty JSON array of strings"); goto done; }
    if (j->count > 10000000) { err_set(err, "vocabulary has %zu entries, more than 10,000,000", j->count); goto done; }
    toks = malloc(j->count * sizeof *toks);
    if (!toks) { err_set(err, "out of memory reading the vocabulary"); goto done; }
    for (size_t i = 0; i < j->count; i++) {
        if (j->items[i].type != JSON_STRING) { err_set(err, "vocabulary entry %zu is not a string", i); goto done; }
        if (strlen(j->items[i].string) != j->items[i].len) { err_set(err, "vocabulary entry %zu contains a NUL character", i); goto done; }
        toks[i] = j->items[i].string;
    }
    v = voc_new(toks, (int)j->count, err);
done:
    free(toks);
    json_free(j);
    return v;
}

void voc_free(Vocab *v) {
    if (!v) return;
    for (int i = 0; i < v->n; i++) free(v->tokens[i]);
    free(v->tokens);
    free(v->table);
    free(v);
}

int voc_size(const Vocab *v) { return v->n; }
int voc_id(const Vocab *v, const char *token) { return lookup(v, token, strlen(token)); }
const char *voc_token(const Vocab *v, int id) { return id >= 0 && id < v->n ? v->tokens[id] : "?"; }
int voc_lookup(const Vocab *v, const char *const *tokens, int n, int *ids) {
    int unknown = 0;
    for (int i = 0; i < n; i++) {
        ids[i] = voc_id(v, tokens[i]);
        if (ids[i] < 0) {
            ids[i] = v->unk;
            unknown++;
        }
    }
    return unknown;
}

int voc_pad(const Vocab *v) { return v->pad; }
int voc_bos(const Vocab *v) { return v->bos; }
int voc_eos(const Vocab *v) { return v->eos; }
int voc_unk(const Vocab *v) { return v->unk; }
int voc_max_token_bytes(const Vocab *v) { return v->max_bytes; }

bool voc_same(const Vocab *a, const Vocab *b) {
    if (voc_size(a) != voc_size(b)) return false;
    for (int i = 0; i < voc_size(a); i++)
        if (strcmp(voc_token(a, i), voc_token(b, i))) return false;
    return true;
}

char *voc_to_json(const Vocab *v) {
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    if (!fp) return NULL;
    fputc('[', fp);
    for (int i = 0; i < v->n; i++) {
        if (i) fputc(',', fp);
        json_write_string(fp, v->tokens[i]);
    }
    fputc(']', fp);
    fclose(fp);
    return buf;
}

// Appends one piece (bytes s[0..len)) with its id; returns 0 or -1 on OOM.
static int push(Tokens *t, int *cap, const char *s, size_t len, int id) {
    if (t->n == *cap) {
        int nc = *cap ? *cap * 2 : 16;
        int *ids = realloc(t->ids, (size_t)nc * sizeof *ids);
        if (ids) t->ids = ids;
        char **pieces = realloc(t->pieces, (size_t)nc * sizeof *pieces);
        if (pieces) t->pieces = pieces;
        if (!ids || !pieces) return -1;
        *cap = nc;
    }
    char *p = malloc(len + 1);
    if (!p) return -1;
    memcpy(p, s, len);
    p[len] = '\0';
    t->ids[t->n] = id;
    t->pieces[t->n++] = p;
    return 0;
}

static bool has_non_ascii(const char *s, size_t len) {
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] >= 0x80) return true;
    return false;
}

// A word not in the vocabulary: try longest match, else one <unk>.
static int push_word(const Vocab *v, Tokens *t, int *cap, const char *w, size_t len) {
    int id = lookup(v, w, len);
    if (id >= 0) return push(t, cap, w, len, id);
    if (has_non_ascii(w, len)) {
        int start = t->n;
        size_t i = 0;
        while (i < len) {
            // longest vocabulary token that starts at byte i
            size_t best = 0, j = i;
            uint32_t cp;
            for (int c = 0; c < v->max_chars && j < len; c++) {
                j += (size_t)utf8_decode((const unsigned char *)w + j, (long)(len - j), &cp);
                if (lookup(v, w + i, j - i) >= 0) best = j - i;
            }
            if (!best) break;
            if (push(t, cap, w + i, best, lookup(v, w + i, best))) return -1;
            i += best;
        }
        if (i == len) return 0;
        for (int k = start; k < t->n; k++) free(t->pieces[k]);  // no full split: undo
        t->n = start;
    }
    t->n_unknown++;
    return push(t, cap, w, len, v->unk);
}

int voc_tokenize(const Vocab *v, const char *text, Tokens *out, Error *err) {
    memset(out, 0, sizeof *out);
    long len = (long)strlen(text);
    long bad = voc_utf8_invalid_at(text, len);
    if (bad >= 0) return err_set(err, "the sentence is not valid UTF-8 (bad byte 0x%02X at byte %ld)", (unsigned char)text[bad], bad);
    char *word = malloc((size_t)len + 1);  // lower-cased word being built
    if (!word) return err_set(err, "out of memory tokenizing the sentence");
    int cap = 0;
    size_t wlen = 0;
    const unsigned char *s = (const unsigned char *)text;
    uint32_t cp = 0;
    long ctl = voc_forbidden_at(text, len, VOC_ALLOW_TAB | VOC_ALLOW_LINE_ENDS, &cp);
    if (ctl >= 0) {
        free(word);
        return err_set(err, "the sentence contains a control character (U+%04X at byte %ld)", (unsigned)cp, ctl);
    }
    for (long i = 0; i <= len;) {
        int k = i < len ? utf8_decode(s + i, len - i, &cp) : 1;
        bool end = i == len;
        // an apostrophe or hyphen between two letters stays inside the word
        bool joiner = (cp == '\'' || cp == '-') && wlen > 0 && i + 1 < len && is_ascii_alnum(s[i + 1]);
        if (end || is_space(cp) || (is_punct(cp) && !joiner)) {
            if (wlen && push_word(v, out, &cap, word, wlen)) goto oom;
            wlen = 0;
            if (!end && is_punct(cp) && push_word(v, out, &cap, text + i, (size_t)k)) goto oom;
        } else {
            wlen += (size_t)utf8_encode(lower(cp), word + wlen);
        }
        i += k;
    }
    free(word);
    if (out->n == 0) {
        voc_tokens_deinit(out);
        return err_set(err, "the sentence is empty");
    }
    return 0;
oom:
    free(word);
    voc_tokens_deinit(out);
    return err_set(err, "out of memory tokenizing the sentence");
}

void voc_tokens_deinit(Tokens *t) {
    for (int i = 0; i < t->n; i++) free(t->pieces[i]);
    free(t->pieces);
    free(t->ids);
    memset(t, 0, sizeof *t);
}
