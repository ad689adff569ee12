// The trace as JSON (schema in docs/TRACE.md).
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "kvcache.h"
#include "trace_private.h"

// The text of rows and label lists already written, by their address: in
// greedy decoding a step's earlier rows are the step before's own storage and
// its labels the same list, so their text is copied instead of formatted
// again (two thirds of a toy trace's numbers, most of its labels). One that
// has grown since (a row by the new key's column, a list by the new token)
// keeps the text of what it had.
typedef struct {
    const void *key;   // NULL: an empty slot
    int n;             // values or labels
    size_t at, len;    // its text in the arena: "v,v,…,v" or "\"a\",\"b\"", no brackets
} CachedText;

typedef struct {
    CachedText *slots;
    size_t cap, used;  // cap a power of two
    char *text;
    size_t len, text_cap;
    bool off;          // memory ran out: everything is formatted as it comes
} TextCache;

static void cache_deinit(TextCache *c) {
    free(c->slots);
    free(c->text);
}

static CachedText *cache_slot(CachedText *slots, size_t cap, const void *key) {
    size_t h = (size_t)(((uintptr_t)key >> 3) * 0x9E3779B97F4A7C15ull) & (cap - 1);
    while (slots[h].key && slots[h].key != key) h = (h + 1) & (cap - 1);
    return &slots[h];
}

static bool cache_room(TextCache *c, size_t need) {
    if (2 * (c->used + 1) > c->cap) {  // at most half full
        size_t cap = c->cap ? 2 * c->cap : 1024;
        CachedText *slots = calloc(cap, sizeof *slots);
        if (!slots) return false;
        for (size_t i = 0; i < c->cap; i++)
            if (c->slots[i].key) *cache_slot(slots, cap, c->slots[i].key) = c->slots[i];
        free(c->slots);
        c->slots = slots;
        c->cap = cap;
    }
    if (c->len + need > c->text_cap) {
        size_t cap = 2 * c->text_cap > c->len + need ? 2 * c->text_cap : c->len + need + (1u << 16);
        char *text = realloc(c->text, cap);
        if (!text) return false;
        c->text = text;
        c->text_cap = cap;
    }
    return true;
}

typedef enum { OF_VALUES, OF_LABELS, OF_STRING } CacheOf;

// The text of n values (floats) or n labels (strings) at key, or of the one
// string key (a kind, a formula: the same few pointers on every step), valid
// until the next call; NULL when memory ran out. need: the most bytes the text
// can take. keep false: text no later step shows again is not kept (NULL
// unless it was): the cache's pages were half of a trace's page faults.
static const char *cached_text(TextCache *c, const void *key, int n, CacheOf of, size_t need, bool keep, size_t *len) {
    if (!keep) {
        CachedText *e = c->off || !c->cap ? NULL : cache_slot(c->slots, c->cap, key);
        if (!e || !e->key || e->n != n) return NULL;
        *len = e->len;
        return c->text + e->at;
    }
    if (c->off || !cache_room(c, need)) {
        c->off = true;
        return NULL;
    }
    CachedText *e = cache_slot(c->slots, c->cap, key);
    if (e->key && e->n == n) {
        *len = e->len;
        return c->text + e->at;
    }
    size_t at = c->len, used = 0;
    int k = 0;
    if (e->key && e->n < n) {  // what it had, then the rest
        memcpy(c->text + at, c->text + e->at, e->len);
        used = e->len;
        k = e->n;
    }
    for (; k < n; k++) {
        if (k) c->text[at + used++] = ',';
        char *to = c->text + at + used;
        used += of == OF_VALUES   ? (size_t)json_format_float(to, ((const float *)key)[k])
                : of == OF_LABELS ? json_quote(to, ((const char *const *)key)[k])
                                  : json_quote(to, key);
    }
    if (!e->key || e->n < n) {  // kept: a later step may show it again (a shorter view of a longer one is not)
        c->used += !e->key;
        *e = (CachedText){key, n, at, used};
        c->len += used;
    }
    *len = used;
    return c->text + at;
}

// The steps go out through one buffer of our own, in large writes: a toy
// trace is 1,700 steps of a dozen short pieces each, and stdio's per-call
// work (locking, printf's format parsing) was a quarter of the command.
typedef struct {
    FILE *fp;
    char *buf;
    size_t len, cap;  // cap: at least 64
} Out;

static void out_flush(Out *o) {
    fwrite(o->buf, 1, o->len, o->fp);
    o->len = 0;
}

static char *out_room(Out *o, size_t n) {  // n <= o->cap
    if (o->len + n > o->cap) out_flush(o);
    return o->buf + o->len;
}

static void out_bytes_slow(Out *o, const char *s, size_t n) {
    if (n > o->cap / 2) {  // a long piece goes out as it is
        out_flush(o);
        fwrite(s, 1, n, o->fp);
        return;
    }
    memcpy(out_room(o, n), s, n);
    o->len += n;
}

// the common case inline: the pieces are mostly a byte or two ("[", "],")
static inline void out_bytes(Out *o, const char *s, size_t n) {
    if (o->len + n > o->cap) {
        out_bytes_slow(o, s, n);
        return;
    }
    memcpy(o->buf + o->len, s, n);
    o->len += n;
}

static void out_text(Out *o, const char *s) { out_bytes(o, s, strlen(s)); }

static void out_int(Out *o, int v) {
    char *p = out_room(o, 12), digits[12];
    unsigned u = v < 0 ? 0u - (unsigned)v : (unsigned)v;
    int n = 0;
    do digits[n++] = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0) *p++ = '-', o->len++;
    for (int i = 0; i < n; i++) p[i] = digits[n - 1 - i];
    o->len += (size_t)n;
}

static void out_string(Out *o, const char *s) {  // as a JSON string
    size_t n = strlen(s);
    if (6 * n + 2 > o->cap / 2) {
        out_flush(o);
        json_write_string(o->fp, s);
        return;
    }
    o->len += json_quote(out_room(o, 6 * n + 2), s);
}

// The most bytes n labels take as JSON strings with commas.
static size_t labels_bytes(const char *const *labels, int n) {
    size_t bytes = 1;
    for (int i = 0; i < n; i++) bytes += 6 * strlen(labels[i]) + 3;
    return bytes;
}

// A string that steps share (a kind, a formula, a symbolic axis), quoted once.
static void out_shared_string(Out *o, const char *s, TextCache *cache) {
    size_t len;
    const char *text = cache ? cached_text(cache, s, 1, OF_STRING, 6 * strlen(s) + 2, true, &len) : NULL;
    if (text) out_bytes(o, text, len);
    else out_string(o, s);
}

// A step's values: the numbers are most of a trace's JSON.
// keep: a later step shows these rows again (it extends them in place).
static void write_values(Out *o, const Step *s, TextCache *cache, bool keep) {
    out_bytes(o, "[", 1);
    for (int r = 0; r < s->rows; r++) {
        const float *row = trace_row(s, r);
        size_t n;
        const char *text = cached_text(cache, row, s->cols, OF_VALUES, (size_t)s->cols * (JSON_FLOAT_MAX + 1) + 1, keep, &n);
        out_bytes(o, r ? ",[" : "[", r ? 2 : 1);
        if (text) out_bytes(o, text, n);
        else  // not kept, or memory ran out for the cache: formatted as they come
            for (int k = 0; k < s->cols; k++) {
                char *p = out_room(o, JSON_FLOAT_MAX + 1);
                if (k) *p++ = ',', o->len++;
                o->len += (size_t)json_format_float(p, row[k]);
            }
        out_bytes(o, "]", 1);
    }
    out_bytes(o, "]", 1);
}

static void write_labels(Out *o, const char *const *labels, int n, TextCache *cache) {
    if (!labels) {
        out_text(o, "null");
        return;
    }
    size_t len;
    const char *text = cache ? cached_text(cache, labels, n, OF_LABELS, labels_bytes(labels, n), true, &len) : NULL;
    out_bytes(o, "[", 1);
    if (text) out_bytes(o, text, len);
    else
        for (int i = 0; i < n; i++) {
            if (i) out_bytes(o, ",", 1);
            out_string(o, labels[i]);
        }
    out_bytes(o, "]", 1);
}

static void write_ids(FILE *fp, const char *key, const Vocab *v, const int *ids, int n) {
    fprintf(fp, "\"%s_ids\":[", key);
    for (int i = 0; i < n; i++) fprintf(fp, "%s%d", i ? "," : "", ids[i]);
    fprintf(fp, "],\"%s_tokens\":[", key);
    for (int i = 0; i < n; i++) {
        if (i) fputc(',', fp);
        json_write_string(fp, voc_token(v, ids[i]));
    }
    fputc(']', fp);
}

void trace_json_about(const Trace *t, FILE *fp, const char *src_text) {
    const Model *m = t->model;
    const Config *c = &m->cfg;
    static const char *const modes[] = {"greedy", "beam", "sample", "teacher_forcing"};
    fputs("\"model\":{\"name\":", fp);
    json_write_string(fp, m->name);
    if (m->training_step >= 0) fprintf(fp, ",\"training_step\":%d", m->training_step);
    fprintf(fp, ",\"d_model\":%d,\"nhead\":%d,\"d_k\":%d,\"num_encoder_layers\":%d,\"num_decoder_layers\":%d,"
                "\"dim_feedforward\":%d,\"layer_norm_eps\":%.9g,\"max_len\":%d,\"src_vocab_size\":%d,\"tgt_vocab_size\":%d},",
            c->d_model, c->nhead, c->d_model / c->nhead, c->n_enc, c->n_dec, c->d_ff, (double)c->eps, c->max_len, c->src_vocab,
            c->tgt_vocab);
    const DecodeOptions *o = &t->opt;
    fprintf(fp, "\"decode\":{\"mode\":\"%s\",\"max_steps\":%d,\"show_top\":%d", modes[o->mode], o->max_steps, o->show_top);
    if (o->mode == DECODE_BEAM) fprintf(fp, ",\"beam_width\":%d", o->beam_width);
    if (o->mode == DECODE_SAMPLE)
        fprintf(fp, ",\"temperature\":%.9g,\"top_k\":%d,\"top_p\":%.9g,\"seed\":%llu", (double)o->temperature, o->top_k, (double)o->top_p,
                (unsigned long long)o->seed);
    if (o->pad_to > 0) fprintf(fp, ",\"pad_to\":%d", o->pad_to);
    if (o->mode != DECODE_TEACHER) fprintf(fp, ",\"special_tokens\":\"%s\"", o->allow_special ? "allowed" : "excluded");
    if (o->no_look_ahead_mask) fputs(",\"look_ahead_mask\":false", fp);
    if (o->ablate.n > 0) {
        fputs(",\"ablate\":[", fp);
        for (int i = 0; i < o->ablate.n; i++) {
            char name[64];
            if (i) fputc(',', fp);
            json_write_string(fp, abl_item_name(o->ablate.items[i], name, sizeof name));
        }
        fputc(']', fp);
    }
    fputs("},\"source\":{\"text\":", fp);
    if (src_text) json_write_string(fp, src_text);
    else fputs("null", fp);
    fputc(',', fp);
    write_ids(fp, "source", m->src, t->src_ids, t->src_n);
    fputs("},\"output\":{", fp);
    write_ids(fp, "output", m->tgt, t->out_ids, t->out_n);
    if (o->mode == DECODE_TEACHER) fprintf(fp, ",\"mean_loss\":%.9g", (double)t->mean_loss);
    else {  // what a KV cache saves on this translation, and on the paper's base model of the same lengths
        Config paper = kv_paper_config();
        KvCost here = kv_cost(c, trace_source_length(t), t->decoding_steps), big = kv_cost(&paper, trace_source_length(t), t->decoding_steps);
        fprintf(fp,
                ",\"decoding_steps\":%d,\"multiply_adds\":{\"with_kv_cache\":%llu,\"without_kv_cache\":%llu,"
                "\"paper_base_model\":{\"with_kv_cache\":%llu,\"without_kv_cache\":%llu}}",
                t->decoding_steps, (unsigned long long)here.with_cache, (unsigned long long)here.without_cache,
                (unsigned long long)big.with_cache, (unsigned long long)big.without_cache);
    }
    if (t->each_head) {  // the experiment: each head silenced alone
        const Config *cf = &m->cfg;
        fputs(",\"each_head\":{", fp);
        for (int r = 0, k = 0; r < cf->n_enc + 2 * cf->n_dec; r++)
            for (int h = 0; h < cf->nhead; h++, k++) {
                AblPart part;
                int layer;
                char name[64];
                trace_each_head_part(cf, r, &part, &layer);
                fputs(k ? "," : "", fp);
                json_write_string(fp, abl_item_name((AblItem){(uint8_t)part, (uint8_t)layer, (uint16_t)(h + 1)}, name, sizeof name));
                fprintf(fp, ":%.9g", (double)t->each_head[k]);
            }
        fputc('}', fp);
    }
    fputc('}', fp);
}

static void step_about(Out *o, const Step *s, TextCache *cache) {
    char id[128];
    out_text(o, "\"stage\":");
    out_string(o, trace_stage_id(s, id, sizeof id));
    out_text(o, ",\"kind\":");
    out_shared_string(o, s->kind, cache);
    out_text(o, ",\"layer\":");
    out_int(o, s->layer);
    out_text(o, ",\"head\":");
    out_int(o, s->head);
    out_text(o, ",\"step\":");
    out_int(o, s->dstep);
    out_text(o, ",\"shape\":[");
    out_int(o, s->rows);
    out_bytes(o, ",", 1);
    out_int(o, s->cols);
    out_text(o, "],\"symbolic_shape\":[");
    out_shared_string(o, s->sym_rows, cache);
    out_bytes(o, ",", 1);
    out_shared_string(o, s->sym_cols, cache);
    out_text(o, "],\"formula\":");
    out_shared_string(o, s->formula, cache);
    out_text(o, ",\"row_labels\":");
    write_labels(o, s->row_labels, s->rows, cache);
    out_text(o, ",\"col_labels\":");
    write_labels(o, s->col_labels, s->cols, cache);
}

void trace_json_step_about(FILE *fp, const Step *s) {
    char buf[4096];
    Out o = {fp, buf, 0, sizeof buf};
    step_about(&o, s, NULL);
    out_flush(&o);
}

// in_last: per step, the last step of the steps sharing its rows (itself when
// none does): a step before it writes no values of its own. NULL: each its own.
// later: per step, the next step that extends its rows in place, or -1 (NULL:
// not known, every row's text is kept for a later step).
static int write_json(const Trace *t, FILE *fp, const char *src_text, const int *in_last, const int *later, const TraceJsonMore *more) {
    fputs("{\"format\":\"transformer-tracer-trace/1\",", fp);
    if (in_last) fputs("\"shared_rows\":true,", fp);
    trace_json_about(t, fp, src_text);
    if (more && more->write) {
        fputc(',', fp);
        more->write(fp, more->ctx);
    }
    fputs(",\"steps\":[\n", fp);
    Out out = {fp, malloc(1 << 16), 0, 1 << 16}, *o = &out;
    if (!out.buf) return -1;
    TextCache cache = {0};
    for (int i = 0; i < t->n_steps; i++) {
        const Step *s = &t->steps[i];
        out_text(o, i ? ",\n{\"index\":" : "{\"index\":");
        out_int(o, i);
        out_bytes(o, ",", 1);
        step_about(o, s, &cache);
        if (in_last && in_last[i] != i) {
            out_text(o, ",\"values\":null,\"values_in\":");
            out_int(o, in_last[i]);
            out_bytes(o, "}", 1);
            continue;
        }
        out_text(o, ",\"values\":");
        write_values(o, s, &cache, !later || later[i] >= 0);  // only rows a later step extends are seen again
        out_bytes(o, "}", 1);
    }
    out_flush(o);
    free(out.buf);
    cache_deinit(&cache);
    fputs("\n]}\n", fp);
    return ferror(fp) ? -1 : 0;
}

int trace_write_json(const Trace *t, FILE *fp, const char *src_text) { return trace_write_json_more(t, fp, src_text, false, NULL); }

int trace_write_json_more(const Trace *t, FILE *fp, const char *src_text, bool shared, const TraceJsonMore *more) {
    int n = t->n_steps, *later = malloc(((size_t)n + 1) * sizeof *later), *in_last = NULL;
    for (int i = 0; later && i < n; i++) later[i] = -1;
    for (int i = 0; later && i < n; i++)
        if (t->shares[i] >= 0) later[t->shares[i]] = i;
    if (shared) {
        in_last = later ? malloc(((size_t)n + 1) * sizeof *in_last) : NULL;
        if (!in_last) {
            free(later);
            return -1;
        }
        for (int i = n - 1; i >= 0; i--) in_last[i] = later[i] >= 0 ? in_last[later[i]] : i;
    }
    int rc = write_json(t, fp, src_text, in_last, later, more);
    free(in_last);
    free(later);
    return rc;
}
