// The lesson parser: text → entries (key, value, line) → a Lesson, with every
// problem recorded as "path:line: problem" rather than stopping at the first,
// so that lint can list them all and the window can still show what is good.
#include "lesson.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "settings.h"
#include "vocab.h"

enum { MAX_LINE_BYTES = 8000, MAX_PROBLEMS = 200 };

// A text key's paragraphs, joined as they come: the string (strs[idx - 1])
// grows in place, doubling, so that a long run of say: lines stays linear.
typedef struct {
    int idx;            // 0: not started
    size_t len, cap;
} Paragraphs;

// The lesson and everything it owns: strings are kept in one list, freed together.
typedef struct {
    Lesson pub;
    char **strs;
    int n_strs, cap_strs;
    Paragraphs *paras;  // while parsing: PARAS_PER_STEP per step, then the summary's
} LessonImpl;

enum { PARAS_PER_STEP = 2 * LES_LANGS };    // say and reveal

void les_problems_deinit(LesProblems *p) {
    if (!p) return;
    for (int i = 0; i < p->n; i++) free(p->msgs[i]);
    free(p->msgs);
    *p = (LesProblems){0};
}

void les_problem(LesProblems *p, const char *fmt, ...) {
    if (!p || p->n >= MAX_PROBLEMS) return;
    if (p->n == p->cap) {
        int cap = p->cap ? 2 * p->cap : 8;
        char **msgs = realloc(p->msgs, (size_t)cap * sizeof *msgs);
        if (!msgs) return;
        p->msgs = msgs;
        p->cap = cap;
    }
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char *s = strdup(buf);
    if (s) p->msgs[p->n++] = s;
}

static char *keep(LessonImpl *li, char *s) {
    if (!s) return NULL;
    if (li->n_strs == li->cap_strs) {
        int cap = li->cap_strs ? 2 * li->cap_strs : 64;
        char **strs = realloc(li->strs, (size_t)cap * sizeof *strs);
        if (!strs) {
            free(s);
            return NULL;
        }
        li->strs = strs;
        li->cap_strs = cap;
    }
    return li->strs[li->n_strs++] = s;
}

void les_free(Lesson *l) {
    if (!l) return;
    LessonImpl *li = (LessonImpl *)l;
    for (int i = 0; i < li->n_strs; i++) free(li->strs[i]);
    free(li->strs);
    for (int i = 0; i < l->n_steps; i++) free(l->steps[i].cells);
    free(l->steps);
    free(li->paras);
    free(li);
}

// ---- first pass: lines into entries ----

typedef struct {
    char *key, *value;  // heap; value grows with continuation lines
    size_t len, cap;    // of value
    int line;
    int section;        // 0 = the lesson, i = the i-th [step]
} Entry;

typedef struct {
    Entry *e;
    int n, cap;
    int *step_lines;    // line of each [step]
    int n_steps;
} Entries;

static void entries_deinit(Entries *es) {
    for (int i = 0; i < es->n; i++) {
        free(es->e[i].key);
        free(es->e[i].value);
    }
    free(es->e);
    free(es->step_lines);
}

static int entries_add(Entries *es, const char *key, size_t klen, const char *value, size_t vlen, int line) {
    if (es->n == es->cap) {
        int cap = es->cap ? 2 * es->cap : 64;
        Entry *e = realloc(es->e, (size_t)cap * sizeof *e);
        if (!e) return -1;
        es->e = e;
        es->cap = cap;
    }
    Entry *e = &es->e[es->n];
    e->key = strndup(key, klen);
    e->value = strndup(value, vlen);
    e->len = e->cap = vlen;
    e->line = line;
    e->section = es->n_steps;
    if (!e->key || !e->value) {
        free(e->key);
        free(e->value);
        return -1;
    }
    es->n++;
    return 0;
}

static int append_continuation(Entry *e, const char *text, size_t len) {
    size_t need = e->len + len + 2;
    if (need > e->cap) {
        size_t cap = 2 * e->cap > need ? 2 * e->cap : need;  // doubling: many continuation lines stay linear
        char *v = realloc(e->value, cap);
        if (!v) return -1;
        e->value = v;
        e->cap = cap;
    }
    if (e->len) e->value[e->len++] = ' ';
    memcpy(e->value + e->len, text, len);
    e->len += len;
    e->value[e->len] = '\0';
    return 0;
}

static bool is_blank(char c) { return c == ' ' || c == '\t'; }

static bool key_chars_ok(const char *k, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!(islower((unsigned char)k[i]) || k[i] == '.' || k[i] == '-')) return false;
    return n > 0;
}

// Splits the text into entries; a line that is none of the known forms is a problem and skipped.
static int split_lines(const char *text, size_t len, const char *path, Entries *es, LesProblems *pr) {
    size_t pos = 0;
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) pos = 3;
    int line = 0;
    Entry *last = NULL;     // the entry a continuation line extends
    while (pos < len) {
        line++;
        const char *start = text + pos;
        const char *nl = memchr(start, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - start) : len - pos;
        pos += n + (nl ? 1 : 0);
        if (n && start[n - 1] == '\r') n--;
        if (n > MAX_LINE_BYTES) {
            les_problem(pr, "%s:%d: the line is %zu bytes long, at most %d", path, line, n, MAX_LINE_BYTES);
            last = NULL;
            continue;
        }
        long bad = voc_utf8_invalid_at(start, (long)n);
        if (bad >= 0) {
            les_problem(pr, "%s:%d: invalid UTF-8 at byte %ld of the line", path, line, bad + 1);
            last = NULL;
            continue;
        }
        uint32_t cp;
        long ctl = voc_forbidden_at(start, (long)n, VOC_ALLOW_TAB, &cp);
        if (ctl >= 0) {
            les_problem(pr, "%s:%d: control character U+%04X at byte %ld of the line", path, line, (unsigned)cp, ctl + 1);
            last = NULL;
            continue;
        }
        size_t b = 0;
        while (b < n && is_blank(start[b])) b++;
        size_t e = n;
        while (e > b && is_blank(start[e - 1])) e--;
        if (b == e || start[0] == '#') continue;
        if (b > 0) {
            // a continuation of the value above
            if (!last) {
                les_problem(pr, "%s:%d: an indented line continues the value of the line above, but there is none", path, line);
                continue;
            }
            if (append_continuation(last, start + b, e - b)) return -1;
            continue;
        }
        if (start[0] == '[') {
            last = NULL;
            if (e - b == 6 && !memcmp(start, "[step]", 6)) {
                int *sl = realloc(es->step_lines, (size_t)(es->n_steps + 1) * sizeof *sl);
                if (!sl) return -1;
                es->step_lines = sl;
                es->step_lines[es->n_steps++] = line;
            } else {
                les_problem(pr, "%s:%d: unknown section \"%.*s\"; the only section is [step]", path, line, (int)(e - b > 40 ? 40 : e - b), start);
            }
            continue;
        }
        const char *colon = memchr(start, ':', e);
        if (!colon) {
            les_problem(pr, "%s:%d: expected \"key: value\", [step], a comment (#) or a blank line", path, line);
            last = NULL;
            continue;
        }
        size_t klen = (size_t)(colon - start);
        while (klen && is_blank(start[klen - 1])) klen--;
        if (!key_chars_ok(start, klen)) {
            les_problem(pr, "%s:%d: \"%.*s\" is not a key (keys are lower-case letters, '.' and '-')", path, line, (int)(klen > 40 ? 40 : klen), start);
            last = NULL;
            continue;
        }
        const char *v = colon + 1;
        while (v < start + e && is_blank(*v)) v++;
        if (entries_add(es, start, klen, v, (size_t)(start + e - v), line)) return -1;
        last = &es->e[es->n - 1];
    }
    return 0;
}

// ---- second pass: entries into the lesson ----

typedef enum { K_LESSON, K_STEP, K_BOTH } Place;
typedef enum { K_ONCE, K_PARAGRAPHS, K_LIST } Repeat;

typedef struct {
    const char *name;
    Place place;
    Repeat repeat;
} KeyInfo;

static const KeyInfo keys[] = {
    {"title", K_LESSON, K_ONCE},     {"title.zh", K_LESSON, K_ONCE},    {"summary", K_LESSON, K_PARAGRAPHS},
    {"summary.zh", K_LESSON, K_PARAGRAPHS}, {"chapter", K_LESSON, K_ONCE}, {"model", K_BOTH, K_ONCE},
    {"sentence", K_BOTH, K_ONCE},    {"target", K_BOTH, K_ONCE},        {"decode", K_BOTH, K_ONCE},
    {"beam", K_BOTH, K_ONCE},        {"temperature", K_BOTH, K_ONCE},   {"top-k", K_BOTH, K_ONCE},
    {"top-p", K_BOTH, K_ONCE},       {"seed", K_BOTH, K_ONCE},          {"max-steps", K_BOTH, K_ONCE},
    {"allow-special", K_BOTH, K_ONCE}, {"pad-to", K_BOTH, K_ONCE},
    {"stage", K_STEP, K_ONCE},       {"head", K_STEP, K_ONCE},          {"step", K_STEP, K_ONCE},
    {"view", K_STEP, K_ONCE},        {"highlight", K_STEP, K_ONCE},     {"say", K_STEP, K_PARAGRAPHS},
    {"say.zh", K_STEP, K_PARAGRAPHS}, {"ask", K_STEP, K_ONCE},          {"ask.zh", K_STEP, K_ONCE},
    {"choice", K_STEP, K_LIST},      {"choice.zh", K_STEP, K_LIST},     {"answer", K_STEP, K_ONCE},
    {"reveal", K_STEP, K_PARAGRAPHS}, {"reveal.zh", K_STEP, K_PARAGRAPHS}, {"look-ahead-mask", K_BOTH, K_ONCE},
    {"given", K_STEP, K_ONCE},       {"given-rows", K_STEP, K_ONCE},    {"given-cols", K_STEP, K_ONCE},
    {"given-title", K_STEP, K_ONCE}, {"given-title.zh", K_STEP, K_ONCE}, {"code", K_STEP, K_ONCE},
    {"table", K_STEP, K_ONCE},       {"table.zh", K_STEP, K_ONCE},      {"table-title", K_STEP, K_ONCE},
    {"table-title.zh", K_STEP, K_ONCE},
    {"ablate", K_BOTH, K_ONCE},      {"compare", K_STEP, K_ONCE},
    {"history", K_STEP, K_ONCE},
};

static const KeyInfo *key_info(const char *name) {
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strcmp(keys[i].name, name)) return &keys[i];
    return NULL;
}

// Parses a whole integer in [lo, hi].
static bool parse_int(const char *s, long lo, long hi, long *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi) return false;
    *out = v;
    return true;
}

static void run_clear(LesRun *r) {
    *r = (LesRun){.mode = -1, .beam = -1, .top_k = -1, .max_steps = -1, .temperature = -1, .top_p = -1, .allow_special = -1,
                  .look_ahead_mask = -1, .pad_to = -1};
}

// A numeric setting within the command line's bounds (settings.h), or a problem.
static bool setting(Setting which, const Entry *e, const char *path, LesProblems *pr, double *out) {
    char why[160];
    if (!setting_parse(which, e->value, out, why, sizeof why)) return true;
    les_problem(pr, "%s:%d: %s %s", path, e->line, e->key, why);
    return false;
}

bool les_model_name_ok(const char *model) {
    if (!model || model[0] == '/') return false;
    for (const char *p = model; *p;) {
        size_t n = strcspn(p, "/");
        if (n == 2 && !strncmp(p, "..", 2)) return false;
        p += n + (p[n] == '/');
    }
    return true;
}

// A run key (sentence, decode, …) into r. Returns false if key is not one.
static bool set_run_key(LesRun *r, const Entry *e, const char *path, LesProblems *pr) {
    const char *k = e->key, *v = e->value;
    double x;
    if (!strcmp(k, "model")) {
        if (les_model_name_ok(v)) r->model = v;
        else les_problem(pr, "%s:%d: model \"%.60s\": a lesson names a shipped model or a file beside it, never an absolute path or ..", path, e->line, v);
    } else if (!strcmp(k, "sentence")) r->sentence = v;
    else if (!strcmp(k, "target")) {
        if (!strcmp(v, "none")) r->target_off = true;
        else r->target = v;
    } else if (!strcmp(k, "decode")) {
        if (!strcmp(v, "greedy")) r->mode = DECODE_GREEDY;
        else if (!strcmp(v, "beam")) r->mode = DECODE_BEAM;
        else if (!strcmp(v, "sample")) r->mode = DECODE_SAMPLE;
        else les_problem(pr, "%s:%d: decode is \"%s\"; expected greedy, beam or sample", path, e->line, v);
    } else if (!strcmp(k, "beam")) {
        if (setting(SETTING_BEAM, e, path, pr, &x)) r->beam = (int)x;
    } else if (!strcmp(k, "top-k")) {
        if (setting(SETTING_TOP_K, e, path, pr, &x)) r->top_k = (int)x;
    } else if (!strcmp(k, "max-steps")) {
        if (setting(SETTING_MAX_STEPS, e, path, pr, &x)) r->max_steps = (int)x;
    } else if (!strcmp(k, "temperature")) {
        if (setting(SETTING_TEMPERATURE, e, path, pr, &x)) r->temperature = (float)x;
    } else if (!strcmp(k, "top-p")) {
        if (setting(SETTING_TOP_P, e, path, pr, &x)) r->top_p = (float)x;
    } else if (!strcmp(k, "ablate")) {
        char why[256];
        if (abl_parse(v, &r->ablate, why, sizeof why)) les_problem(pr, "%s:%d: ablate %s", path, e->line, why);
        else {
            r->ablate_set = true;
            r->ablate_line = e->line;
        }
    } else if (!strcmp(k, "look-ahead-mask")) {
        if (!strcmp(v, "on") || !strcmp(v, "off")) r->look_ahead_mask = !strcmp(v, "on");
        else les_problem(pr, "%s:%d: look-ahead-mask is \"%s\"; expected on or off", path, e->line, ERR_QUOTE(v, 40));
    } else if (!strcmp(k, "seed")) {
        char *end;
        errno = 0;
        unsigned long long s = strtoull(v, &end, 10);
        if (end == v || *end || errno || v[0] == '-') les_problem(pr, "%s:%d: seed is \"%s\"; expected a whole number 0 or more", path, e->line, v);
        else {
            r->seed = s;
            r->seed_set = true;
        }
    } else if (!strcmp(k, "pad-to")) {
        long n;
        if (parse_int(v, 0, 4096, &n)) r->pad_to = (int)n;
        else les_problem(pr, "%s:%d: pad-to is \"%.60s\"; expected a whole number from 0 (off) to 4096, as --pad-to", path, e->line, v);
    } else if (!strcmp(k, "allow-special")) {
        if (!strcmp(v, "yes")) r->allow_special = 1;
        else if (!strcmp(v, "no")) r->allow_special = 0;
        else les_problem(pr, "%s:%d: allow-special is \"%.60s\"; expected yes or no", path, e->line, v);
    } else return false;
    return true;
}

// Joins a repeated text key's values as paragraphs: para is the key's in its
// section, old its text so far. Returns the text with v added.
static const char *add_paragraph(LessonImpl *li, Paragraphs *para, const char *old, const char *v) {
    size_t b = strlen(v);
    if (!para->idx) {
        char *s = keep(li, strdup(v));
        if (!s) return old;
        *para = (Paragraphs){.idx = li->n_strs, .len = b, .cap = b + 1};
        return s;
    }
    char *s = li->strs[para->idx - 1];
    size_t need = para->len + b + 2;
    if (need > para->cap) {
        size_t cap = 2 * para->cap > need ? 2 * para->cap : need;
        char *grown = realloc(s, cap);
        if (!grown) return old;
        li->strs[para->idx - 1] = s = grown;
        para->cap = cap;
    }
    s[para->len] = '\n';
    memcpy(s + para->len + 1, v, b + 1);
    para->len += b + 1;
    return s;
}

static void parse_view(LesStep *s, const Entry *e, const char *path, LesProblems *pr) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", e->value);
    for (char *save = NULL, *w = strtok_r(buf, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
        if (!strcmp(w, "grid")) s->grid = true;
        else if (!strcmp(w, "lines")) s->lines = true;
        else if (!strcmp(w, "alone")) s->alone = true;
        else if (!strcmp(w, "gold")) s->no_gold = false;
        else if (!strcmp(w, "no-gold")) s->no_gold = true;
        else if (!strcmp(w, "kv-cache")) s->kv_cache = true;
        else les_problem(pr, "%s:%d: unknown view \"%s\"; expected grid, lines, alone, gold, no-gold or kv-cache", path, e->line, w);
    }
}

static bool parse_cell_part(const char *s, size_t n, int *out) {
    if (n == 1 && s[0] == '*') {
        *out = 0;
        return true;
    }
    char buf[16];
    if (n == 0 || n >= sizeof buf) return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    long v;
    if (!parse_int(buf, 1, 10000, &v)) return false;
    *out = (int)v;
    return true;
}

static void parse_highlight(LesStep *s, const Entry *e, const char *path, LesProblems *pr) {
    const char *p = e->value;
    while (*p) {
        while (is_blank(*p)) p++;
        if (!*p) break;
        const char *w = p;
        while (*p && !is_blank(*p)) p++;
        size_t n = (size_t)(p - w);
        const char *comma = memchr(w, ',', n);
        LesCell c;
        if (!comma || !parse_cell_part(w, (size_t)(comma - w), &c.row) || !parse_cell_part(comma + 1, (size_t)(w + n - comma - 1), &c.col) ||
            (c.row == 0 && c.col == 0)) {
            les_problem(pr, "%s:%d: highlight \"%.*s\" is not a cell; expected row,column from 1, or * for a whole row or column", path, e->line,
                        (int)(n > 40 ? 40 : n), w);
            continue;
        }
        if ((s->n_cells & (s->n_cells - 1)) == 0) {  // at 0, 1, 2, 4, …: doubling
            LesCell *cells = realloc(s->cells, (size_t)(s->n_cells ? 2 * s->n_cells : 1) * sizeof *cells);
            if (!cells) return;
            s->cells = cells;
        }
        s->cells[s->n_cells++] = c;
    }
}

// One number of a given matrix: a finite number, or −∞ written "-inf", "−∞" or "-∞".
static bool parse_given_value(const char *w, size_t n, float *out) {
    char buf[32];
    if (n == 0 || n >= sizeof buf) return false;
    memcpy(buf, w, n);
    buf[n] = '\0';
    if (!strcmp(buf, "-inf") || !strcmp(buf, "\xE2\x88\x92\xE2\x88\x9E") || !strcmp(buf, "-\xE2\x88\x9E")) {
        *out = -INFINITY;
        return true;
    }
    const char *p = buf;
    char minus[32];
    if (!strncmp(buf, "\xE2\x88\x92", 3)) {  // a typographic minus, as the narration writes it
        snprintf(minus, sizeof minus, "-%s", buf + 3);
        p = minus;
    }
    char *end;
    errno = 0;
    double v = strtod(p, &end);
    if (end == p || *end || errno || !isfinite(v) || fabs(v) > 1e30) return false;
    *out = (float)v;
    return true;
}

// given: rows of numbers separated by ";", the numbers by blanks.
static void parse_given(LesGiven *gv, const Entry *e, const char *path, LesProblems *pr) {
    gv->line = e->line;
    int rows = 0, cols = 0;
    for (const char *p = e->value; *p;) {
        size_t len = strcspn(p, ";");
        int n = 0;
        for (const char *q = p; q < p + len;) {
            while (q < p + len && is_blank(*q)) q++;
            if (q == p + len) break;
            const char *w = q;
            while (q < p + len && !is_blank(*q)) q++;
            float v;
            if (!parse_given_value(w, (size_t)(q - w), &v)) {
                les_problem(pr, "%s:%d: given \"%.*s\" is not a number; expected numbers or -inf, rows separated by ;", path, e->line,
                            (int)(q - w > 40 ? 40 : q - w), w);
                return;
            }
            if (rows >= LES_GIVEN_MAX || n >= LES_GIVEN_MAX) {
                les_problem(pr, "%s:%d: given is larger than %d × %d", path, e->line, LES_GIVEN_MAX, LES_GIVEN_MAX);
                return;
            }
            gv->values[rows * LES_GIVEN_MAX + n++] = v;
        }
        if (n == 0) {
            les_problem(pr, "%s:%d: given row %d is empty", path, e->line, rows + 1);
            return;
        }
        if (rows > 0 && n != cols) {
            les_problem(pr, "%s:%d: given row %d has %d numbers, row 1 has %d", path, e->line, rows + 1, n, cols);
            return;
        }
        cols = n;
        rows++;
        p += len + (p[len] == ';');
    }
    if (!rows) return;  // "has no value" is said already
    // packed to rows × cols
    for (int r = 1; r < rows; r++) memmove(gv->values + r * cols, gv->values + r * LES_GIVEN_MAX, (size_t)cols * sizeof *gv->values);
    gv->rows = rows;
    gv->cols = cols;
}

// given-rows, given-cols: one label a row or column, separated by blanks.
static int parse_given_labels(LessonImpl *li, const char **labels, const Entry *e, const char *path, LesProblems *pr) {
    int n = 0;
    for (const char *p = e->value; *p;) {
        while (is_blank(*p)) p++;
        if (!*p) break;
        const char *w = p;
        while (*p && !is_blank(*p)) p++;
        if (n == LES_GIVEN_MAX) {
            les_problem(pr, "%s:%d: %s has more than %d labels", path, e->line, e->key, LES_GIVEN_MAX);
            return n;
        }
        if (p - w > LES_GIVEN_LABEL) {
            les_problem(pr, "%s:%d: %s label \"%.*s\" is longer than %d bytes", path, e->line, e->key, (int)(p - w > 40 ? 40 : p - w), w,
                        LES_GIVEN_LABEL);
            continue;
        }
        labels[n++] = keep(li, strndup(w, (size_t)(p - w)));
    }
    return n;
}

// table:, table.zh: rows separated by ";", cells by "|", blanks around a cell dropped.
static void parse_table(LessonImpl *li, LesTable *t, int lang, const Entry *e, const char *path, LesProblems *pr) {
    t->line = e->line;
    t->seen[lang] = true;
    int rows = 0, cols = 0;
    for (const char *p = e->value; *p;) {
        size_t len = strcspn(p, ";");
        int n = 0;
        for (const char *q = p;;) {
            size_t cl = strcspn(q, "|;");
            const char *a = q, *b = q + cl;
            while (a < b && is_blank(*a)) a++;
            while (b > a && is_blank(b[-1])) b--;
            if (rows >= LES_TABLE_ROWS || n >= LES_TABLE_COLS) {
                les_problem(pr, "%s:%d: %s is larger than %d rows of %d cells", path, e->line, e->key, LES_TABLE_ROWS, LES_TABLE_COLS);
                return;
            }
            if (b - a > LES_TABLE_CELL) {
                les_problem(pr, "%s:%d: %s cell \"%.*s\" is longer than %d bytes", path, e->line, e->key, (int)(b - a > 40 ? 40 : b - a), a,
                            LES_TABLE_CELL);
                return;
            }
            t->cells[lang][rows * LES_TABLE_COLS + n++] = keep(li, strndup(a, (size_t)(b - a)));
            q += cl;
            if (*q != '|') break;
            q++;
        }
        if (rows > 0 && n != cols) {
            les_problem(pr, "%s:%d: %s row %d has %d cells, row 1 has %d", path, e->line, e->key, rows + 1, n, cols);
            return;
        }
        cols = n;
        rows++;
        p += len + (p[len] == ';');
    }
    t->shape[lang][0] = rows;
    t->shape[lang][1] = cols;
}

// A stage id's layer ("enc.L3.…") within the bounds of layers, or a problem.
// Only an id whose name without the layer is a layered stage of the table;
// any other id is left to binding, which says the trace has no such stage.
static void check_stage_layer(const Entry *e, const char *path, LesProblems *pr) {
    const char *v = e->value, *dot = strchr(v, '.');
    if (!dot || dot[1] != 'L') return;
    size_t n = strcspn(dot + 2, ".");
    char name[96];
    int w = snprintf(name, sizeof name, "%.*s%s", (int)(dot - v), v, dot + 2 + n);
    const StageInfo *stage = w > 0 && (size_t)w < sizeof name ? stage_find(name) : NULL;
    if (!stage || !stage->layered) return;
    char digits[24];
    snprintf(digits, sizeof digits, "%.*s", (int)(n < sizeof digits - 1 ? n : sizeof digits - 1), dot + 2);
    double x;
    char why[160];
    if (setting_parse(SETTING_LAYER, digits, &x, why, sizeof why))
        les_problem(pr, "%s:%d: the layer of stage \"%.60s\" %s", path, e->line, v, why);
}

static void set_step_key(LessonImpl *li, int step, const Entry *e, const char *path, LesProblems *pr) {
    LesStep *s = &li->pub.steps[step];
    Paragraphs *paras = &li->paras[step * PARAS_PER_STEP];
    const char *k = e->key, *v = e->value;
    long n;
    double x;
    if (set_run_key(&s->run, e, path, pr)) return;
    if (!strcmp(k, "stage")) {
        s->stage = v;
        s->stage_line = e->line;
        check_stage_layer(e, path, pr);
    } else if (!strcmp(k, "head")) {
        s->head_line = e->line;
        if (setting(SETTING_HEAD, e, path, pr, &x)) s->head = (int)x;
    } else if (!strcmp(k, "step")) {
        s->step_line = e->line;
        if (!strcmp(v, "last")) s->dstep = -1;
        else if (setting(SETTING_STEP, e, path, pr, &x)) s->dstep = (int)x;
    } else if (!strcmp(k, "history")) {
        long step;
        s->history_line = e->line;
        if (parse_int(v, 0, 100000000, &step)) s->history = (int)step;
        else les_problem(pr, "%s:%d: history \"%.40s\": expected a training step, a whole number from 0", path, e->line, v);
    } else if (!strcmp(k, "compare")) {
        s->compare_line = e->line;
        if (les_model_name_ok(v)) s->compare = v;
        else les_problem(pr, "%s:%d: compare \"%.60s\": a lesson names a shipped model or a file beside it, never an absolute path or ..", path, e->line, v);
    } else if (!strcmp(k, "view")) {
        s->view_line = e->line;
        parse_view(s, e, path, pr);
    } else if (!strcmp(k, "highlight")) {
        s->highlight_line = e->line;
        parse_highlight(s, e, path, pr);
    } else if (!strcmp(k, "given")) {
        parse_given(&s->given, e, path, pr);
    } else if (!strcmp(k, "given-rows")) {
        s->given.n_row_labels = parse_given_labels(li, s->given.row_labels, e, path, pr);
    } else if (!strcmp(k, "given-cols")) {
        s->given.n_col_labels = parse_given_labels(li, s->given.col_labels, e, path, pr);
    } else if (!strcmp(k, "given-title") || !strcmp(k, "given-title.zh")) {
        if (strlen(v) > LES_GIVEN_TITLE) les_problem(pr, "%s:%d: %s is longer than %d bytes", path, e->line, k, LES_GIVEN_TITLE);
        else s->given.title[strstr(k, ".zh") ? LES_ZH : LES_EN] = v;
    } else if (!strcmp(k, "table") || !strcmp(k, "table.zh")) {
        parse_table(li, &s->table, strstr(k, ".zh") ? LES_ZH : LES_EN, e, path, pr);
    } else if (!strcmp(k, "table-title") || !strcmp(k, "table-title.zh")) {
        if (strlen(v) > LES_GIVEN_TITLE) les_problem(pr, "%s:%d: %s is longer than %d bytes", path, e->line, k, LES_GIVEN_TITLE);
        else s->table.title[strstr(k, ".zh") ? LES_ZH : LES_EN] = v;
    } else if (!strcmp(k, "code")) {
        if (strlen(v) > LES_CODE) les_problem(pr, "%s:%d: code is longer than %d bytes; a step shows one short line", path, e->line, LES_CODE);
        else s->code = v;
    } else if (!strcmp(k, "answer")) {
        if (parse_int(v, 1, LES_MAX_CHOICES, &n)) s->answer = (int)n;
        else les_problem(pr, "%s:%d: answer is \"%s\"; expected the number of the right choice, from 1", path, e->line, v);
    } else {
        bool zh = strstr(k, ".zh") != NULL;
        int lang = zh ? LES_ZH : LES_EN;
        if (!strncmp(k, "say", 3)) s->say[lang] = add_paragraph(li, &paras[lang], s->say[lang], v);
        else if (!strncmp(k, "reveal", 6)) s->reveal[lang] = add_paragraph(li, &paras[LES_LANGS + lang], s->reveal[lang], v);
        else if (!strncmp(k, "ask", 3)) s->ask[lang] = v;
        else if (!strncmp(k, "choice", 6)) {
            // each language's choices fill up in order; check_step compares the counts
            int i = 0;
            while (i < LES_MAX_CHOICES && s->choices[lang][i]) i++;
            if (i == LES_MAX_CHOICES) les_problem(pr, "%s:%d: more than %d choices", path, e->line, LES_MAX_CHOICES);
            else s->choices[lang][i] = v;
        }
    }
}

static void set_lesson_key(LessonImpl *li, Lesson *l, const Entry *e, const char *path, LesProblems *pr) {
    const char *k = e->key, *v = e->value;
    Paragraphs *paras = &li->paras[l->n_steps * PARAS_PER_STEP];
    if (!strcmp(k, "sentence")) l->run_line = e->line;
    if (!strcmp(k, "model")) {  // the lesson's own, which steps may change for themselves
        l->model_line = e->line;
        LesRun r = {0};
        set_run_key(&r, e, path, pr);
        l->model = r.model;  // NULL for a refused name: a problem already, and nothing loads
        return;
    }
    if (set_run_key(&l->run, e, path, pr)) return;
    if (!strcmp(k, "title")) l->title[LES_EN] = v;
    else if (!strcmp(k, "title.zh")) l->title[LES_ZH] = v;
    else if (!strcmp(k, "summary")) l->summary[LES_EN] = add_paragraph(li, &paras[LES_EN], l->summary[LES_EN], v);
    else if (!strcmp(k, "summary.zh")) l->summary[LES_ZH] = add_paragraph(li, &paras[LES_ZH], l->summary[LES_ZH], v);
    else if (!strcmp(k, "chapter")) l->chapter = v;
}

static int count_choices(const LesStep *s, int lang) {
    int n = 0;
    while (n < LES_MAX_CHOICES && s->choices[lang][n]) n++;
    return n;
}

// What a finished step must hold (docs/LESSONS.md).
static void check_step(LesStep *s, int line, const char *path, LesProblems *pr) {
    if (!s->stage) les_problem(pr, "%s:%d: this step has no stage", path, line);
    if (!s->say[LES_EN]) les_problem(pr, "%s:%d: this step has no narration in English (say)", path, line);
    if (!s->say[LES_ZH]) les_problem(pr, "%s:%d: this step has no narration in 繁體中文 (say.zh)", path, line);
    bool asks = s->ask[LES_EN] || s->ask[LES_ZH];
    if (asks && !s->ask[LES_EN]) les_problem(pr, "%s:%d: the question has no English text (ask)", path, line);
    if (asks && !s->ask[LES_ZH]) les_problem(pr, "%s:%d: the question has no 繁體中文 text (ask.zh)", path, line);
    if (asks && !s->reveal[LES_EN]) les_problem(pr, "%s:%d: the question has no answer to reveal in English (reveal)", path, line);
    if (asks && !s->reveal[LES_ZH]) les_problem(pr, "%s:%d: the question has no answer to reveal in 繁體中文 (reveal.zh)", path, line);
    if (!asks && (s->reveal[LES_EN] || s->reveal[LES_ZH])) les_problem(pr, "%s:%d: reveal without a question (ask)", path, line);
    int en = count_choices(s, LES_EN), zh = count_choices(s, LES_ZH);
    s->n_choices = en < zh ? en : zh;
    if (en != zh) les_problem(pr, "%s:%d: %d choices in English but %d in 繁體中文; each choice needs both", path, line, en, zh);
    if ((en || zh) && !asks) les_problem(pr, "%s:%d: choices without a question (ask)", path, line);
    if ((en || zh) && (en < 2 || zh < 2)) les_problem(pr, "%s:%d: a multiple-choice question needs 2 to %d choices", path, line, LES_MAX_CHOICES);
    if (s->n_choices && !s->answer) les_problem(pr, "%s:%d: the question has choices but no answer", path, line);
    if (s->answer && !s->n_choices) les_problem(pr, "%s:%d: answer without choices", path, line);
    if (s->answer > s->n_choices && s->n_choices) les_problem(pr, "%s:%d: answer is %d but there are %d choices", path, line, s->answer, s->n_choices);
    if (s->answer > s->n_choices) s->answer = 0;
    LesGiven *gv = &s->given;
    bool titled = gv->title[LES_EN] || gv->title[LES_ZH];
    if (!gv->line && (titled || gv->n_row_labels || gv->n_col_labels))  // (a given that failed to parse is said already)
        les_problem(pr, "%s:%d: given-title, given-rows or given-cols without a given matrix (given)", path, line);
    if (gv->rows && !gv->title[LES_EN]) les_problem(pr, "%s:%d: the given matrix has no English title (given-title)", path, gv->line);
    if (gv->rows && !gv->title[LES_ZH]) les_problem(pr, "%s:%d: the given matrix has no 繁體中文 title (given-title.zh)", path, gv->line);
    if (gv->rows && gv->n_row_labels && gv->n_row_labels != gv->rows)
        les_problem(pr, "%s:%d: given-rows has %d labels but the given matrix %d rows", path, gv->line, gv->n_row_labels, gv->rows);
    if (gv->rows && gv->n_col_labels && gv->n_col_labels != gv->cols)
        les_problem(pr, "%s:%d: given-cols has %d labels but the given matrix %d columns", path, gv->line, gv->n_col_labels, gv->cols);
    LesTable *t = &s->table;
    int (*sh)[2] = t->shape;
    if (t->line) {
        if (!t->seen[LES_EN]) les_problem(pr, "%s:%d: the table has no English cells (table)", path, t->line);
        if (!t->seen[LES_ZH]) les_problem(pr, "%s:%d: the table has no 繁體中文 cells (table.zh)", path, t->line);
        if (sh[LES_EN][0] && sh[LES_ZH][0] && (sh[LES_EN][0] != sh[LES_ZH][0] || sh[LES_EN][1] != sh[LES_ZH][1]))
            les_problem(pr, "%s:%d: the table is %d × %d in English but %d × %d in 繁體中文", path, t->line, sh[LES_EN][0], sh[LES_EN][1],
                        sh[LES_ZH][0], sh[LES_ZH][1]);
        else if (sh[LES_EN][0]) {
            t->rows = sh[LES_EN][0];
            t->cols = sh[LES_EN][1];
        }
        if (!t->title[LES_EN] || !t->title[LES_ZH]) les_problem(pr, "%s:%d: the table needs a title in both languages (table-title, table-title.zh)", path, t->line);
        if (gv->line) les_problem(pr, "%s:%d: a step shows a given matrix or a table, not both", path, t->line);
    } else if (t->title[LES_EN] || t->title[LES_ZH])
        les_problem(pr, "%s:%d: table-title without a table (table, table.zh)", path, line);
    if (!t->rows) t->cols = 0;
}

Lesson *les_parse(const char *text, size_t len, const char *path, LesProblems *pr) {
    LessonImpl *li = calloc(1, sizeof *li);
    if (!li) return NULL;
    Lesson *l = &li->pub;
    run_clear(&l->run);
    l->path = keep(li, strdup(path));
    if (!l->path) goto fail;
    if (len > LES_MAX_BYTES) {
        les_problem(pr, "%s: the file is %zu bytes, more than a lesson's %d", path, len, LES_MAX_BYTES);
        return l;
    }
    if (memchr(text, '\0', len)) {
        les_problem(pr, "%s: the file holds a NUL byte; a lesson is UTF-8 text", path);
        return l;
    }
    Entries es = {0};
    if (split_lines(text, len, path, &es, pr)) {
        entries_deinit(&es);
        goto fail;
    }
    if (es.n_steps > LES_MAX_STEPS) {
        les_problem(pr, "%s:%d: %d steps; a lesson has at most %d", path, es.step_lines[LES_MAX_STEPS], es.n_steps, LES_MAX_STEPS);
        es.n_steps = LES_MAX_STEPS;
    }
    l->steps = calloc(es.n_steps ? (size_t)es.n_steps : 1, sizeof *l->steps);
    li->paras = calloc((size_t)(es.n_steps + 1) * PARAS_PER_STEP, sizeof *li->paras);
    if (!l->steps || !li->paras) {
        entries_deinit(&es);
        goto fail;
    }
    l->n_steps = es.n_steps;
    for (int i = 0; i < l->n_steps; i++) {
        l->steps[i].line = es.step_lines[i];
        l->steps[i].history = -1;
        run_clear(&l->steps[i].run);
    }
    // which once-only keys the current section has seen, by their index in keys[]
    uint64_t seen = 0;
    int seen_section = 0;
    for (int i = 0; i < es.n; i++) {
        Entry *e = &es.e[i];
        if (e->section > l->n_steps) break;
        const KeyInfo *ki = key_info(e->key);
        if (!ki) {
            les_problem(pr, "%s:%d: unknown key \"%s\" (the keys are listed in docs/LESSONS.md)", path, e->line, e->key);
            continue;
        }
        if (ki->place == K_LESSON && e->section) {
            les_problem(pr, "%s:%d: \"%s\" belongs to the lesson, before the first [step]", path, e->line, e->key);
            continue;
        }
        if (ki->place == K_STEP && !e->section) {
            les_problem(pr, "%s:%d: \"%s\" belongs in a [step]", path, e->line, e->key);
            continue;
        }
        if (!e->value[0]) {
            les_problem(pr, "%s:%d: \"%s\" has no value", path, e->line, e->key);
            continue;
        }
        if (ki->repeat == K_ONCE) {
            if (e->section != seen_section) seen = 0, seen_section = e->section;
            uint64_t bit = (uint64_t)1 << (ki - keys);
            bool dup = seen & bit;
            seen |= bit;
            if (dup) {
                les_problem(pr, "%s:%d: \"%s\" given twice in the same %s", path, e->line, e->key, e->section ? "step" : "lesson");
                continue;
            }
        }
        char *v = keep(li, e->value);
        e->value = NULL;
        if (!v) {
            entries_deinit(&es);
            goto fail;
        }
        Entry kept = *e;
        kept.value = v;
        if (e->section) set_step_key(li, e->section - 1, &kept, path, pr);
        else set_lesson_key(li, l, &kept, path, pr);
    }
    int end_line = es.n_steps ? es.step_lines[0] : (es.n ? es.e[es.n - 1].line : 1);
    entries_deinit(&es);
    if (!l->title[LES_EN]) les_problem(pr, "%s:%d: the lesson has no title", path, end_line);
    if (!l->title[LES_ZH]) les_problem(pr, "%s:%d: the lesson has no title in 繁體中文 (title.zh)", path, end_line);
    if ((l->summary[LES_EN] != NULL) != (l->summary[LES_ZH] != NULL))
        les_problem(pr, "%s:%d: the summary needs both languages (summary and summary.zh)", path, end_line);
    if (!l->model && !l->model_line) les_problem(pr, "%s:%d: the lesson names no model", path, end_line);
    if (!l->run.sentence) les_problem(pr, "%s:%d: the lesson has no sentence", path, end_line);
    if (l->run.target_off) les_problem(pr, "%s:%d: \"target: none\" is for a step; the lesson itself has no target unless one is given", path, end_line);
    if (!l->n_steps) les_problem(pr, "%s:%d: the lesson has no [step]", path, end_line);
    for (int i = 0; i < l->n_steps; i++) check_step(&l->steps[i], l->steps[i].line, path, pr);
    return l;
fail:
    les_free(l);
    return NULL;
}

Lesson *les_load(const char *path, LesProblems *pr) {
    char *data;
    size_t len;
    Error err;
    if (fio_read_all(path, LES_MAX_BYTES, &data, &len, &err)) {
        les_problem(pr, "%s", err.msg);
        return NULL;
    }
    Lesson *l = les_parse(data, len, path, pr);
    free(data);
    if (!l) les_problem(pr, "%s: out of memory", path);
    return l;
}
