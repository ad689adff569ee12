#include "json.h"

#include <assert.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define JSON_MAX_DEPTH 64

typedef struct {
    const unsigned char *text;
    size_t len;
    size_t pos;
    bool allow_nonfinite;
    Error *err;
} Parser;

// Line and column (1-based, counting UTF-8 characters) of byte offset pos.
static void line_column(const Parser *p, size_t pos, size_t *line, size_t *column) {
    *line = 1;
    *column = 1;
    for (size_t i = 0; i < pos && i < p->len; i++) {
        unsigned char c = p->text[i];
        if (c == '\n') {
            (*line)++;
            *column = 1;
        } else if ((c & 0xC0) != 0x80) {
            (*column)++;
        }
    }
}

__attribute__((format(printf, 3, 4)))
static int fail_at(const Parser *p, size_t pos, const char *fmt, ...) {
    if (!p->err) return -1;
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    size_t line, column;
    line_column(p, pos, &line, &column);
    return err_set(p->err, "line %zu, column %zu: %s", line, column, what);
}

// Describes the byte at pos for a message: 'x', byte 0xNN or end of input.
static const char *describe(const Parser *p, size_t pos, char buf[16]) {
    if (pos >= p->len) return "end of input";
    unsigned char c = p->text[pos];
    if (c > 0x20 && c < 0x7F)
        snprintf(buf, 16, "'%c'", c);
    else
        snprintf(buf, 16, "byte 0x%02X", c);
    return buf;
}

static int fail_unexpected(const Parser *p, const char *expected) {
    char buf[16];
    return fail_at(p, p->pos, "expected %s, got %s", expected, describe(p, p->pos, buf));
}

static void skip_ws(Parser *p) {
    while (p->pos < p->len) {
        unsigned char c = p->text[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
        p->pos++;
    }
}

static bool has_token(const Parser *p, const char *token) {
    size_t n = strlen(token);
    return p->len - p->pos >= n && memcmp(p->text + p->pos, token, n) == 0;
}

static void free_contents(Json *j) {
    switch (j->type) {
    case JSON_STRING:
        free(j->string);
        break;
    case JSON_ARRAY:
    case JSON_OBJECT:
        for (size_t i = 0; i < j->count; i++) {
            free_contents(&j->items[i]);
            if (j->keys) free(j->keys[i]);
        }
        free(j->items);
        free(j->keys);
        break;
    default:
        break;
    }
    memset(j, 0, sizeof *j);
}

// A growable byte buffer for string contents.
typedef struct {
    char *data;
    size_t len, cap;
} Bytes;

static int bytes_reserve(Bytes *b, size_t extra) {
    if (b->cap - b->len > extra) return 0;  // keeps room for the NUL
    size_t need = b->len + extra + 1;
    if (need < b->len) return -1;
    size_t cap = b->cap ? b->cap : 16;
    while (cap < need) {
        if (cap > SIZE_MAX / 2) {
            cap = need;
            break;
        }
        cap *= 2;
    }
    char *grown = realloc(b->data, cap);
    if (!grown) return -1;
    b->data = grown;
    b->cap = cap;
    return 0;
}

static void bytes_put_utf8(Bytes *b, uint32_t cp) {
    char *o = b->data + b->len;
    if (cp < 0x80) {
        o[0] = (char)cp;
        b->len += 1;
    } else if (cp < 0x800) {
        o[0] = (char)(0xC0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3F));
        b->len += 2;
    } else if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        b->len += 3;
    } else {
        o[0] = (char)(0xF0 | (cp >> 18));
        o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[3] = (char)(0x80 | (cp & 0x3F));
        b->len += 4;
    }
}

static int hex_value(unsigned char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// Reads the XXXX of \uXXXX at pos (just after the 'u').
static int read_hex4(const Parser *p, size_t pos, uint32_t *out) {
    if (p->len - pos < 4) return fail_at(p, pos, "\\u escape needs 4 hex digits, got end of input");
    uint32_t v = 0;
    for (size_t i = 0; i < 4; i++) {
        int h = hex_value(p->text[pos + i]);
        if (h < 0) {
            char buf[16];
            return fail_at(p, pos + i, "\\u escape needs 4 hex digits, got %s",
                           describe(p, pos + i, buf));
        }
        v = v * 16 + (uint32_t)h;
    }
    *out = v;
    return 0;
}

// Length of the valid UTF-8 sequence at pos (RFC 3629: no overlongs, no
// surrogates, nothing above U+10FFFF), or 0 when it is invalid.
static size_t utf8_sequence(const Parser *p, size_t pos) {
    const unsigned char *s = p->text + pos;
    size_t left = p->len - pos;
    unsigned char c = s[0];
    size_t n;
    unsigned char lo = 0x80, hi = 0xBF;  // bounds of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0) lo = 0xA0;       // overlong
        if (c == 0xED) hi = 0x9F;       // surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0) lo = 0x90;       // overlong
        if (c == 0xF4) hi = 0x8F;       // above U+10FFFF
    } else {
        return 0;
    }
    if (left < n) return 0;
    if (s[1] < lo || s[1] > hi) return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xBF) return 0;
    return n;
}

// Parses a string literal starting at the opening quote.
static int parse_string(Parser *p, char **out, size_t *out_len) {
    size_t start = p->pos;
    p->pos++;
    Bytes b = {0};
    for (;;) {
        // Copy a run of plain characters in one go.
        size_t run = p->pos;
        while (run < p->len) {
            unsigned char c = p->text[run];
            if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) break;
            run++;
        }
        if (run > p->pos) {
            if (bytes_reserve(&b, run - p->pos) != 0) goto oom;
            memcpy(b.data + b.len, p->text + p->pos, run - p->pos);
            b.len += run - p->pos;
            p->pos = run;
        }
        if (p->pos >= p->len) {
            fail_at(p, start, "unterminated string");
            goto fail;
        }
        unsigned char c = p->text[p->pos];
        if (c == '"') {
            p->pos++;
            break;
        }
        if (c < 0x20) {
            fail_at(p, p->pos, "control character 0x%02X in string (write it as \\u%04X)", c, c);
            goto fail;
        }
        if (c >= 0x80) {
            size_t n = utf8_sequence(p, p->pos);
            if (n == 0) {
                fail_at(p, p->pos, "invalid UTF-8 in string (byte 0x%02X)", c);
                goto fail;
            }
            if (bytes_reserve(&b, n) != 0) goto oom;
            memcpy(b.data + b.len, p->text + p->pos, n);
            b.len += n;
            p->pos += n;
            continue;
        }
        // c == '\\'
        size_t esc = p->pos;
        if (esc + 1 >= p->len) {
            fail_at(p, start, "unterminated string");
            goto fail;
        }
        if (bytes_reserve(&b, 4) != 0) goto oom;
        unsigned char e = p->text[esc + 1];
        p->pos += 2;
        switch (e) {
        case '"': b.data[b.len++] = '"'; break;
        case '\\': b.data[b.len++] = '\\'; break;
        case '/': b.data[b.len++] = '/'; break;
        case 'b': b.data[b.len++] = '\b'; break;
        case 'f': b.data[b.len++] = '\f'; break;
        case 'n': b.data[b.len++] = '\n'; break;
        case 'r': b.data[b.len++] = '\r'; break;
        case 't': b.data[b.len++] = '\t'; break;
        case 'u': {
            uint32_t cp;
            if (read_hex4(p, p->pos, &cp) != 0) goto fail;
            p->pos += 4;
            if (cp >= 0xDC00 && cp <= 0xDFFF) {
                fail_at(p, esc, "lone low surrogate \\u%04X", cp);
                goto fail;
            }
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                // A high surrogate must be followed by \u and a low surrogate.
                uint32_t low = 0;
                if (p->len - p->pos < 2 || p->text[p->pos] != '\\' || p->text[p->pos + 1] != 'u') {
                    fail_at(p, esc, "lone high surrogate \\u%04X (no \\u low surrogate follows)", cp);
                    goto fail;
                }
                if (read_hex4(p, p->pos + 2, &low) != 0) goto fail;
                if (low < 0xDC00 || low > 0xDFFF) {
                    fail_at(p, esc, "high surrogate \\u%04X is followed by \\u%04X, not a low surrogate",
                            cp, low);
                    goto fail;
                }
                p->pos += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            }
            bytes_put_utf8(&b, cp);
            break;
        }
        default:
            if (e > 0x20 && e < 0x7F)
                fail_at(p, esc, "invalid escape '\\%c' in string", e);
            else
                fail_at(p, esc, "invalid escape: backslash followed by byte 0x%02X", e);
            goto fail;
        }
    }
    if (bytes_reserve(&b, 0) != 0) goto oom;
    b.data[b.len] = '\0';
    *out = b.data;
    *out_len = b.len;
    return 0;

oom:
    fail_at(p, start, "out of memory");
fail:
    free(b.data);
    return -1;
}

static int parse_number(Parser *p, Json *out) {
    size_t start = p->pos;
    size_t i = p->pos;
    char buf[16];
    if (i < p->len && p->text[i] == '-') i++;
    if (i >= p->len || p->text[i] < '0' || p->text[i] > '9')
        return fail_at(p, i, "expected a digit in number, got %s", describe(p, i, buf));
    if (p->text[i] == '0') {
        i++;
        if (i < p->len && p->text[i] >= '0' && p->text[i] <= '9')
            return fail_at(p, start, "leading zeros are not allowed in numbers");
    } else {
        while (i < p->len && p->text[i] >= '0' && p->text[i] <= '9') i++;
    }
    size_t point = SIZE_MAX;
    if (i < p->len && p->text[i] == '.') {
        point = i;
        i++;
        if (i >= p->len || p->text[i] < '0' || p->text[i] > '9')
            return fail_at(p, i, "expected a digit after the decimal point, got %s", describe(p, i, buf));
        while (i < p->len && p->text[i] >= '0' && p->text[i] <= '9') i++;
    }
    if (i < p->len && (p->text[i] == 'e' || p->text[i] == 'E')) {
        i++;
        if (i < p->len && (p->text[i] == '+' || p->text[i] == '-')) i++;
        if (i >= p->len || p->text[i] < '0' || p->text[i] > '9')
            return fail_at(p, i, "expected a digit in the exponent, got %s", describe(p, i, buf));
        while (i < p->len && p->text[i] >= '0' && p->text[i] <= '9') i++;
    }

    // strtod needs a NUL-terminated copy, and follows the locale's decimal point.
    const char *dp = localeconv()->decimal_point;
    size_t dp_len = dp && *dp ? strlen(dp) : 1;
    if (!dp || !*dp) dp = ".";
    size_t n = i - start;
    char small[64];
    char *copy = n + dp_len < sizeof small ? small : malloc(n + dp_len + 1);
    if (!copy) return fail_at(p, start, "out of memory");
    size_t k = 0;
    for (size_t j = start; j < i; j++) {
        if (j == point) {
            memcpy(copy + k, dp, dp_len);
            k += dp_len;
        } else {
            copy[k++] = (char)p->text[j];
        }
    }
    copy[k] = '\0';
    char *end = NULL;
    double v = strtod(copy, &end);
    bool whole = end == copy + k;
    if (copy != small) free(copy);
    if (!whole) return fail_at(p, start, "cannot convert number");
    if (isinf(v)) return fail_at(p, start, "number is too large for a double");
    p->pos = i;
    out->type = JSON_NUMBER;
    out->number = v;
    return 0;
}

static int parse_value(Parser *p, Json *out, int depth);

// Grows a container's items (and keys) geometrically.
static int grow_items(Json *j, size_t *cap, bool with_keys) {
    if (j->count < *cap) return 0;
    size_t grown = *cap ? *cap * 2 : 4;
    if (grown > SIZE_MAX / sizeof(Json)) return -1;
    Json *items = realloc(j->items, grown * sizeof *items);
    if (!items) return -1;
    j->items = items;
    if (with_keys) {
        char **keys = realloc(j->keys, grown * sizeof *keys);
        if (!keys) return -1;
        j->keys = keys;
    }
    *cap = grown;
    return 0;
}

// After an array item or object member: 1 at the closing bracket (taken),
// 0 after a comma with more to come, -1 on an error (reported).
static int after_item(Parser *p, char close, const char *expected, const char *trailing) {
    skip_ws(p);
    if (p->pos < p->len && p->text[p->pos] == close) {
        p->pos++;
        return 1;
    }
    if (p->pos >= p->len || p->text[p->pos] != ',') {
        fail_unexpected(p, expected);
        return -1;
    }
    size_t comma = p->pos++;
    skip_ws(p);
    if (p->pos < p->len && p->text[p->pos] == close) {
        fail_at(p, comma, "%s", trailing);
        return -1;
    }
    return 0;
}

static int parse_array(Parser *p, Json *out, int depth) {
    out->type = JSON_ARRAY;
    size_t cap = 0;
    p->pos++;
    skip_ws(p);
    if (p->pos < p->len && p->text[p->pos] == ']') {
        p->pos++;
        return 0;
    }
    for (;;) {
        if (grow_items(out, &cap, false) != 0) {
            fail_at(p, p->pos, "out of memory");
            goto fail;
        }
        Json item;
        if (parse_value(p, &item, depth) != 0) goto fail;
        out->items[out->count++] = item;
        int end = after_item(p, ']', "',' or ']' after an array item", "trailing comma before ']'");
        if (end > 0) return 0;
        if (end < 0) goto fail;
    }
fail:
    free_contents(out);
    return -1;
}

static int parse_object(Parser *p, Json *out, int depth) {
    out->type = JSON_OBJECT;
    size_t cap = 0;
    p->pos++;
    skip_ws(p);
    if (p->pos < p->len && p->text[p->pos] == '}') {
        p->pos++;
        return 0;
    }
    for (;;) {
        if (p->pos >= p->len || p->text[p->pos] != '"') {
            fail_unexpected(p, "a string key");
            goto fail;
        }
        if (grow_items(out, &cap, true) != 0) {
            fail_at(p, p->pos, "out of memory");
            goto fail;
        }
        char *key;
        size_t key_len;
        if (parse_string(p, &key, &key_len) != 0) goto fail;
        skip_ws(p);
        if (p->pos >= p->len || p->text[p->pos] != ':') {
            free(key);
            fail_unexpected(p, "':' after an object key");
            goto fail;
        }
        p->pos++;
        Json item;
        if (parse_value(p, &item, depth) != 0) {
            free(key);
            goto fail;
        }
        out->keys[out->count] = key;
        out->items[out->count++] = item;
        int end = after_item(p, '}', "',' or '}' after an object member", "trailing comma before '}'");
        if (end > 0) return 0;
        if (end < 0) goto fail;
    }
fail:
    free_contents(out);
    return -1;
}

// Parses one value at p->pos (after whitespace). On failure *out holds nothing.
static int parse_value(Parser *p, Json *out, int depth) {
    memset(out, 0, sizeof *out);
    skip_ws(p);
    if (p->pos >= p->len) return fail_unexpected(p, "a value");
    unsigned char c = p->text[p->pos];
    switch (c) {
    case '{':
    case '[':
        if (depth >= JSON_MAX_DEPTH)
            return fail_at(p, p->pos, "nesting deeper than %d levels", JSON_MAX_DEPTH);
        return c == '{' ? parse_object(p, out, depth + 1) : parse_array(p, out, depth + 1);
    case '"':
        out->type = JSON_STRING;
        if (parse_string(p, &out->string, &out->len) != 0) {
            memset(out, 0, sizeof *out);
            return -1;
        }
        return 0;
    case 't':
    case 'f':
    case 'n': {
        const char *word = c == 't' ? "true" : c == 'f' ? "false" : "null";
        if (!has_token(p, word)) return fail_at(p, p->pos, "invalid literal, expected '%s'", word);
        p->pos += strlen(word);
        out->type = c == 'n' ? JSON_NULL : JSON_BOOL;
        out->boolean = c == 't';
        return 0;
    }
    case 'N':
    case 'I':
    case '-': {
        const char *word = c == 'N' ? "NaN" : c == 'I' ? "Infinity" : "-Infinity";
        if (c == '-' && !has_token(p, word)) return parse_number(p, out);
        if (!has_token(p, word)) return fail_unexpected(p, "a value");
        if (!p->allow_nonfinite) return fail_at(p, p->pos, "%s is not valid JSON", word);
        p->pos += strlen(word);
        out->type = JSON_NUMBER;
        out->number = c == 'N' ? NAN : c == 'I' ? INFINITY : -INFINITY;
        return 0;
    }
    default:
        if (c >= '0' && c <= '9') return parse_number(p, out);
        return fail_unexpected(p, "a value");
    }
}

Json *json_parse(const char *text, size_t len, bool allow_nonfinite, Error *err) {
    Parser p = {(const unsigned char *)text, len, 0, allow_nonfinite, err};
    if (!text) p.len = 0;
    Json *root = malloc(sizeof *root);
    if (!root) {
        err_set(err, "line 1, column 1: out of memory");
        return NULL;
    }
    if (parse_value(&p, root, 0) != 0) {
        free(root);
        return NULL;
    }
    skip_ws(&p);
    if (p.pos < p.len) {
        fail_unexpected(&p, "end of input after the value");
        json_free(root);
        return NULL;
    }
    return root;
}

void json_free(Json *j) {
    if (!j) return;
    free_contents(j);
    free(j);
}

const Json *json_get(const Json *j, const char *key) {
    if (!j || j->type != JSON_OBJECT || !key) return NULL;
    for (size_t i = 0; i < j->count; i++)
        if (strcmp(j->keys[i], key) == 0) return &j->items[i];
    return NULL;
}

const Json *json_at(const Json *j, size_t i) {
    if (!j || j->type != JSON_ARRAY || i >= j->count) return NULL;
    return &j->items[i];
}

typedef struct {
    const char *key;
    size_t index;
} KeyRef;

static int compare_keys(const void *a, const void *b) {
    const KeyRef *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    if (c != 0) return c;
    return (x->index > y->index) - (x->index < y->index);
}

long json_duplicate_key(const Json *j) {
    if (!j || j->type != JSON_OBJECT || j->count < 2) return -1;
    // Sorting keeps this n log n: headers can hold many thousands of keys.
    KeyRef *refs = malloc(j->count * sizeof *refs);
    if (!refs) {
        for (size_t i = 1; i < j->count; i++)
            for (size_t k = 0; k < i; k++)
                if (strcmp(j->keys[i], j->keys[k]) == 0) return (long)i;
        return -1;
    }
    for (size_t i = 0; i < j->count; i++) refs[i] = (KeyRef){j->keys[i], i};
    qsort(refs, j->count, sizeof *refs, compare_keys);
    size_t first = SIZE_MAX;
    for (size_t i = 1; i < j->count; i++)
        if (strcmp(refs[i].key, refs[i - 1].key) == 0 && refs[i].index < first) first = refs[i].index;
    free(refs);
    return first == SIZE_MAX ? -1 : (long)first;
}

// The JSON escapes of n bytes of s into out (room for 6 × n), without the
// quotes; returns the length. A run that needs none is copied whole.
static size_t escape(char *out, const unsigned char *s, size_t n) {
    static const char hex[] = "0123456789abcdef";
    char *o = out;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = s[i];
        switch (c) {
        case '"': *o++ = '\\', *o++ = '"'; break;
        case '\\': *o++ = '\\', *o++ = '\\'; break;
        case '\n': *o++ = '\\', *o++ = 'n'; break;
        case '\t': *o++ = '\\', *o++ = 't'; break;
        case '\r': *o++ = '\\', *o++ = 'r'; break;
        case '\b': *o++ = '\\', *o++ = 'b'; break;
        case '\f': *o++ = '\\', *o++ = 'f'; break;
        default:
            if (c < 0x20) {
                memcpy(o, "\\u00", 4);
                o[4] = hex[c >> 4];
                o[5] = hex[c & 15];
                o += 6;
            } else
                *o++ = (char)c;
        }
    }
    return (size_t)(o - out);
}

void json_write_string(FILE *fp, const char *s) {
    assert(s);
    char buf[6 * 256];
    size_t n = strlen(s);
    fputc('"', fp);
    for (size_t at = 0; at < n; at += 256)  // in pieces, so that a string of any length goes through a small buffer
        fwrite(buf, 1, escape(buf, (const unsigned char *)s + at, n - at < 256 ? n - at : 256), fp);
    fputc('"', fp);
}

size_t json_quote(char *out, const char *s) {
    out[0] = '"';
    size_t n = 1 + escape(out + 1, (const unsigned char *)s, strlen(s));
    out[n] = '"';
    return n + 1;
}

// json_format_float: the value is m * 2^e exactly (m < 2^24). Its nine
// significant digits are N = m * 2^e * 10^p rounded half to even, with p
// chosen so that 10^8 <= N < 10^9, worked out in 128-bit integers; a value
// whose product does not fit (below about 1e-23) goes to printf.
__extension__ typedef unsigned __int128 u128;

static const uint64_t pow10_u64[20] = {1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
                                       100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
                                       10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
                                       100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull};

static u128 pow10_u128(int p) {
    return p < 20 ? (u128)pow10_u64[p] : (u128)pow10_u64[19] * pow10_u64[p - 19];
}

// m * 2^e * 10^p rounded half to even (*out) and rounded down (*floor_out);
// false when the product would not fit in 128 bits.
static bool nine_digits(uint32_t m, int e, int p, uint64_t *out, uint64_t *floor_out) {
    if (p >= 0 && p <= 12 && e < 0 && e > -64) {  // most values (1e-4 to 1e4): in 64 bits
        uint64_t num = m * pow10_u64[p], q = num >> -e, r = num & ((1ull << -e) - 1), half = 1ull << (-e - 1);
        *floor_out = q;
        *out = q + (r > half || (r == half && (q & 1)));
        return true;
    }
    u128 num;
    int shift = 0;
    if (p >= 0) {
        if (p > 31) return false;  // m * 10^31 < 2^128
        num = (u128)m * pow10_u128(p);
        if (e >= 0) {
            if (e > 20) return false;  // only values over 1e9 have e > 0 here, and they have p < 0
            num <<= e;
        } else
            shift = -e;
    } else {
        // only values of 1e9 and more, which are whole numbers (e >= 7)
        if (e < 0 || -p > 38) return false;
        u128 whole = (u128)m << e, d = pow10_u128(-p), q = whole / d, r = whole % d;
        *floor_out = (uint64_t)q;
        if (r * 2 > d || (r * 2 == d && (q & 1))) q++;
        *out = (uint64_t)q;
        return true;
    }
    if (shift == 0) {
        *out = *floor_out = (uint64_t)num;
        return true;
    }
    if (shift > 127) return false;
    u128 q = num >> shift, r = num - (q << shift), half = (u128)1 << (shift - 1);
    *floor_out = (uint64_t)q;
    if (r > half || (r == half && (q & 1))) q++;
    *out = (uint64_t)q;
    return true;
}

int json_format_float(char *buf, float v) {
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint32_t biased = (bits >> 23) & 0xff, m = bits & 0x7fffff;
    if (biased == 0xff) return (int)(stpcpy(buf, m ? "NaN" : bits >> 31 ? "-Infinity" : "Infinity") - buf);
    char *o = buf;
    if (bits >> 31) *o++ = '-';
    if (biased == 0 && m == 0) {
        *o++ = '0';
        *o = 0;
        return (int)(o - buf);
    }
    int e = biased ? (int)biased - 150 : -149;
    if (biased) m |= 0x800000;
    // decimal exponent: floor(log10) from the binary one, then corrected
    // (78913 / 2^18 is log10(2) closely enough for floor to be exact up to 1650)
    int l2 = 31 - __builtin_clz(m) + e, x = l2 >= 0 ? (l2 * 78913) >> 18 : -((-l2 * 78913) >> 18) - 1;
    uint64_t n = 0, below = 0;
    for (int tries = 0;; tries++) {
        if (tries == 3 || !nine_digits(m, e, 8 - x, &n, &below)) return snprintf(buf, JSON_FLOAT_MAX, "%.9g", (double)v);
        if (below >= 1000000000ull) x++;
        else if (below < 100000000ull) x--;
        else break;
    }
    if (n == 1000000000ull) {  // rounded up to the next power of ten
        n = 100000000ull;
        x++;
    }
    // two digits at a time, the two halves independent of each other
    static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                "8081828384858687888990919293949596979899";
    char digits[18];  // 9 digits, then room for the fixed-size copies below to read past them
    memset(digits + 9, '0', 9);
    uint32_t hi = (uint32_t)(n / 10000), lo = (uint32_t)(n % 10000);
    memcpy(digits + 7, pairs + 2 * (lo % 100), 2);
    memcpy(digits + 5, pairs + 2 * (lo / 100), 2);
    memcpy(digits + 3, pairs + 2 * (hi % 100), 2);
    memcpy(digits + 1, pairs + 2 * (hi / 100 % 100), 2);
    digits[0] = (char)('0' + hi / 10000);
    int nd = 9;
    while (nd > 1 && digits[nd - 1] == '0') nd--;  // %g drops trailing zeros
    if (x >= -4 && x < 9) {
        // fixed-size copies, then the pointer moved by what counts: no
        // loops whose length depends on the value (buf has room to spare)
        if (x < 0) {
            memcpy(o, "0.0000", 6);  // "0." and -x - 1 zeros
            o += 1 - x;
            memcpy(o, digits, 9);
            o += nd;
        } else {
            memcpy(o, digits, 9);
            memcpy(o + x + 2, digits + x + 1, 8);
            o[x + 1] = '.';
            o += nd > x + 1 ? nd + 1 : x + 1;
        }
    } else {
        *o++ = digits[0];
        if (nd > 1) {
            *o++ = '.';
            memcpy(o, digits + 1, (size_t)(nd - 1));
            o += nd - 1;
        }
        *o++ = 'e';
        *o++ = x < 0 ? '-' : '+';
        int ax = x < 0 ? -x : x;
        if (ax >= 10) *o++ = (char)('0' + ax / 10);
        else *o++ = '0';
        *o++ = (char)('0' + ax % 10);
    }
    *o = 0;
    return (int)(o - buf);
}
