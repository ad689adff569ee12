// The trace against an independent implementation: PyTorch's nn.Transformer,
// run by tests/reference/make_reference.py on the same safetensors files.
// Then the properties every trace must have, and the decoding strategies.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "json.h"
#include "model.h"
#include "trace.h"
#include "ref_values.h"

#define REF_DIR TT_TEST_DATA "/reference/"
#define REF_SENTENCE "i love natural language processing"

typedef struct {
    Model *m;
    Json *ref;
} Fixture;

static Json *load_json(const char *path) {
    char *text;
    size_t len;
    Error err;
    if (fio_read_all(path, 1u << 26, &text, &len, &err)) fail_msg("%s", err.msg);
    Json *j = json_parse(text, len, true, &err);
    free(text);
    if (!j) fail_msg("%s: %s", path, err.msg);
    return j;
}

static Model *load_model(const char *path) {
    Error err;
    Model *m = mdl_load(path, &err);
    if (!m) fail_msg("%s", err.msg);
    return m;
}

static int setup_ref(void **state, const char *name) {
    Fixture *f = calloc(1, sizeof *f);
    char path[512];
    snprintf(path, sizeof path, REF_DIR "%s.safetensors", name);
    f->m = load_model(path);
    snprintf(path, sizeof path, REF_DIR "%s.json", name);
    f->ref = load_json(path);
    *state = f;
    return 0;
}
static int setup_ref_model(void **state) { return setup_ref(state, "ref_model"); }
static int setup_ref_tied(void **state) { return setup_ref(state, "ref_tied"); }

static int teardown(void **state) {
    Fixture *f = *state;
    mdl_free(f->m);
    json_free(f->ref);
    free(f);
    return 0;
}

static const Json *get(const Json *j, const char *key) {
    const Json *v = json_get(j, key);
    if (!v) fail_msg("reference has no \"%s\"", key);
    return v;
}

static double maxdiff_seen[8];

// The k-th of a step's rows × cols values in row-major order, read through the trace's interface.
static float value_at(const Step *s, size_t k) { return trace_row(s, (int)(k / (size_t)s->cols))[k % (size_t)s->cols]; }
enum { D_ATTN, D_PROB, D_LOGIT, D_HIDDEN, D_LOSS };

// Compares a step's data with a reference array; tol is absolute, or relative
// to the largest reference magnitude when relative is true.
static void compare(const Trace *t, const char *stage, int head, int dstep, const Json *want, double tol, bool relative, int kind) {
    int i = trace_find(t, stage, head, dstep);
    if (i < 0) fail_msg("no step %s head %d step %d in the trace", stage, head, dstep);
    const Step *s = trace_step(t, i);
    size_t cap = (size_t)s->rows * s->cols + 1;
    double *w = malloc(cap * sizeof *w);
    size_t n = ref_flatten(want, w, cap);
    if (n != (size_t)s->rows * s->cols) fail_msg("%s: expected: %zu values, got: %d×%d", stage, n, s->rows, s->cols);
    double scale = 0.0, maxdiff = 0.0;
    for (size_t k = 0; k < n; k++) scale = fmax(scale, fabs(w[k]));
    for (size_t k = 0; k < n; k++) maxdiff = fmax(maxdiff, fabs(value_at(s, k) - w[k]));
    double limit = relative ? tol * fmax(scale, 1e-30) : tol;
    if (maxdiff > maxdiff_seen[kind]) maxdiff_seen[kind] = maxdiff;
    if (!(maxdiff <= limit))
        fail_msg("%s head %d step %d: maxdiff %.3g, tolerance %.3g", stage, head, dstep, maxdiff, limit);
    free(w);
}

static Trace *run(const Model *m, const int *ids, int n, DecodeOptions opt) {
    Error err;
    Trace *t = trace_run(m, ids, n, &opt, &err);
    if (!t) fail_msg("trace_run: %s", err.msg);
    return t;
}

static void tokenize_ref(const Model *m, const Json *ref, Tokens *tok) {
    Error err;
    if (voc_tokenize(m->src, REF_SENTENCE, tok, &err)) fail_msg("%s", err.msg);
    const Json *ids = get(ref, "src_ids");
    assert_int_equal(tok->n, (int)ids->count);
    for (int i = 0; i < tok->n; i++)
        if (tok->ids[i] != (int)ids->items[i].number) fail_msg("source id %d expected: %d, got: %d", i, (int)ids->items[i].number, tok->ids[i]);
}

// Every recorded attention weight, logit and probability of 8 greedy steps.
static void test_greedy_matches_pytorch(void **state) {
    Fixture *f = *state;
    const Config *c = &f->m->cfg;
    Tokens tok;
    tokenize_ref(f->m, f->ref, &tok);
    Trace *t = run(f->m, tok.ids, tok.n, (DecodeOptions){.mode = DECODE_GREEDY, .max_steps = 8, .ignore_eos = true, .allow_special = true});  // PyTorch's argmax over every token
    compare(t, "src.pos_enc", 0, 0, get(f->ref, "pe"), 1e-6, false, D_HIDDEN);
    compare(t, "src.input", 0, 0, get(f->ref, "src_x"), 1e-6, true, D_HIDDEN);
    char id[64];
    const Json *enc_w = get(f->ref, "enc_weights");
    for (int l = 0; l < c->n_enc; l++)
        for (int h = 0; h < c->nhead; h++) {
            snprintf(id, sizeof id, "enc.L%d.self_attn.weights", l + 1);
            compare(t, id, h + 1, 0, json_at(json_at(enc_w, (size_t)l), (size_t)h), 1e-5, false, D_ATTN);
        }
    compare(t, "enc.output", 0, 0, get(f->ref, "memory"), 1e-5, true, D_HIDDEN);
    const Json *steps = get(f->ref, "steps");
    assert_int_equal(steps->count, 8);
    for (int s = 0; s < 8; s++) {
        const Json *st = json_at(steps, (size_t)s);
        for (int l = 0; l < c->n_dec; l++)
            for (int h = 0; h < c->nhead; h++) {
                snprintf(id, sizeof id, "dec.L%d.self_attn.weights", l + 1);
                compare(t, id, h + 1, s + 1, json_at(json_at(get(st, "dec_self_weights"), (size_t)l), (size_t)h), 1e-5, false, D_ATTN);
                snprintf(id, sizeof id, "dec.L%d.cross_attn.weights", l + 1);
                compare(t, id, h + 1, s + 1, json_at(json_at(get(st, "cross_weights"), (size_t)l), (size_t)h), 1e-5, false, D_ATTN);
            }
        compare(t, "dec.logits", 0, s + 1, get(st, "logits"), 1e-5, true, D_LOGIT);
        compare(t, "dec.probs", 0, s + 1, get(st, "probs"), 1e-5, false, D_PROB);
        const Step *choice = trace_step(t, trace_find(t, "dec.choice", 0, s + 1));
        assert_non_null(choice);
        if ((int)choice->data[0] != (int)get(st, "next_id")->number)
            fail_msg("step %d chosen token expected: %d, got: %d", s + 1, (int)get(st, "next_id")->number, (int)choice->data[0]);
    }
    int n;
    const int *out = trace_output(t, &n);
    const Json *greedy = get(f->ref, "greedy_ids");
    assert_int_equal(n, 8);
    for (int i = 0; i < n; i++) assert_int_equal(out[i], (int)greedy->items[i].number);
    print_message("maxdiff: attention %.3g, probabilities %.3g, logits %.3g, hidden %.3g\n", maxdiff_seen[D_ATTN], maxdiff_seen[D_PROB],
                  maxdiff_seen[D_LOGIT], maxdiff_seen[D_HIDDEN]);
    trace_free(t);
    voc_tokens_deinit(&tok);
}

// The training-time pass: whole shifted-right target, full mask, loss per position.
static void test_teacher_forcing_matches_pytorch(void **state) {
    Fixture *f = *state;
    Tokens tok, tgt;
    Error err;
    tokenize_ref(f->m, f->ref, &tok);
    if (voc_tokenize(f->m->tgt, "我 愛 自然 語言 處理", &tgt, &err)) fail_msg("%s", err.msg);
    const Json *in = get(f->ref, "tf_tgt_in_ids");
    assert_int_equal(tgt.n + 1, (int)in->count);
    for (int i = 0; i < tgt.n; i++) assert_int_equal(tgt.ids[i], (int)in->items[i + 1].number);
    Trace *t = run(f->m, tok.ids, tok.n, (DecodeOptions){.mode = DECODE_TEACHER, .target = tgt.ids, .target_len = tgt.n});
    const Step *mask = trace_step(t, trace_find(t, "dec.look_ahead_mask", 0, 1));
    assert_non_null(mask);
    assert_int_equal(mask->rows, tgt.n + 1);
    compare(t, "dec.logits", 0, 1, get(f->ref, "tf_logits"), 1e-5, true, D_LOGIT);
    compare(t, "dec.loss", 0, 1, get(f->ref, "tf_loss"), 1e-5, true, D_LOSS);
    double mean = get(f->ref, "tf_mean_loss")->number;
    if (fabs(trace_mean_loss(t) - mean) > 1e-5 * mean) fail_msg("mean loss expected: %.7g, got: %.7g", mean, (double)trace_mean_loss(t));
    trace_free(t);
    voc_tokens_deinit(&tok);
    voc_tokens_deinit(&tgt);
}

// ---- properties of every trace, on the shipped default model ---------------

static Model *default_model(void) { return load_model(TT_TEST_DATA "/../../assets/models/en-zh-random.safetensors"); }

static void tokenize(const Vocab *v, const char *text, Tokens *tok) {
    Error err;
    if (voc_tokenize(v, text, tok, &err)) fail_msg("%s", err.msg);
}

static void check_attention_rows(const Trace *t) {
    char id[128];
    int checked = 0;
    for (int i = 0; i < trace_count(t); i++) {
        const Step *s = trace_step(t, i);
        if (strcmp(s->kind, "attention")) continue;
        bool causal = strstr(s->name, "dec.self_attn") != NULL;
        for (int r = 0; r < s->rows; r++) {
            double sum = 0.0;
            for (int k = 0; k < s->cols; k++) {
                float v = trace_row(s, r)[k];
                if (causal && k > r && v != 0.0f)
                    fail_msg("%s head %d step %d [%d][%d]: masked weight expected: exactly 0, got: %g", trace_stage_id(s, id, sizeof id),
                             s->head, s->dstep, r, k, (double)v);
                sum += v;
            }
            if (fabs(sum - 1.0) > 1e-5) fail_msg("%s row %d: sum expected: 1, got: %.9g", trace_stage_id(s, id, sizeof id), r, sum);
        }
        checked++;
    }
    assert_true(checked > 0);
}

static void test_attention_rows_sum_to_one(void **state) {
    (void)state;
    Model *m = default_model();
    Tokens tok;
    tokenize(m->src, "the cat sits on the mat .", &tok);
    DecodeMode modes[] = {DECODE_GREEDY, DECODE_BEAM, DECODE_SAMPLE};
    for (int i = 0; i < 3; i++) {
        Trace *t = run(m, tok.ids, tok.n, (DecodeOptions){.mode = modes[i], .max_steps = 6});
        check_attention_rows(t);
        // masked scores hold -inf above the diagonal
        const Step *s = trace_step(t, trace_find(t, "dec.L1.self_attn.masked_scores", 1, 3));
        assert_non_null(s);
        assert_true(isinf(trace_row(s, 0)[1]) && trace_row(s, 0)[1] < 0);
        assert_true(isfinite(trace_row(s, 1)[1]));
        trace_free(t);
    }
    voc_tokens_deinit(&tok);
    mdl_free(m);
}

static void expect_same_output(const Trace *a, const Trace *b, const char *what) {
    int na, nb;
    const int *oa = trace_output(a, &na), *ob = trace_output(b, &nb);
    if (na != nb) fail_msg("%s: expected: %d tokens, got: %d", what, na, nb);
    for (int i = 0; i < na; i++)
        if (oa[i] != ob[i]) fail_msg("%s: token %d expected: %d, got: %d", what, i, oa[i], ob[i]);
}

static const char *sentences[] = {"i love natural language processing", "the cat sits on the mat .", "i love nlp",
                                  "she reads a big red book", "we eat an apple"};

static void test_beam_width_one_is_greedy(void **state) {
    (void)state;
    Model *m = default_model();
    for (size_t s = 0; s < sizeof sentences / sizeof *sentences; s++) {
        Tokens tok;
        tokenize(m->src, sentences[s], &tok);
        Trace *g = run(m, tok.ids, tok.n, (DecodeOptions){.mode = DECODE_GREEDY, .max_steps = 10});
        Trace *b = run(m, tok.ids, tok.n, (DecodeOptions){.mode = DECODE_BEAM, .beam_width = 1, .max_steps = 10});
        expect_same_output(g, b, sentences[s]);
        trace_free(g);
        trace_free(b);
        voc_tokens_deinit(&tok);
    }
    mdl_free(m);
}

// The first step of t from i on that is not named skip, or trace_count(t).
static int next_step(const Trace *t, int i, const char *skip) {
    while (i < trace_count(t) && !strcmp(trace_step(t, i)->name, skip)) i++;
    return i;
}

// Greedy decoding computes only the new row of each pass and shares the rest
// with the previous step's storage; beam search with width 1 makes the same
// choices but runs every pass whole. Every value read through the interface
// (trace_row, and a step copied out as one block) must be the same, with and
// without a padded source (whose cross-attention has masked scores).
static void test_incremental_greedy_equals_full_passes(void **state) {
    (void)state;
    Model *m = default_model();
    char id[128];
    int last_dstep = 0;
    for (size_t s = 0; s < 2 * sizeof sentences / sizeof *sentences; s++) {
        Tokens tok;
        tokenize(m->src, sentences[s / 2], &tok);
        int pad_to = s % 2 ? tok.n + 2 : 0;
        Trace *g = run(m, tok.ids, tok.n, (DecodeOptions){.mode = DECODE_GREEDY, .max_steps = 10, .pad_to = pad_to});
        Trace *b = run(m, tok.ids, tok.n, (DecodeOptions){.mode = DECODE_BEAM, .beam_width = 1, .max_steps = 10, .pad_to = pad_to});
        expect_same_output(g, b, sentences[s / 2]);
        int i = -1, j = -1;
        for (;;) {
            i = next_step(g, i + 1, "dec.choice");  // greedy's record of the token chosen
            j = next_step(b, j + 1, "dec.beam");    // beam search's table of hypotheses
            if (i == trace_count(g) || j == trace_count(b)) break;
            const Step *x = trace_step(g, i), *y = trace_step(b, j);
            if (strcmp(x->name, y->name) || x->layer != y->layer || x->head != y->head || x->dstep != y->dstep || x->rows != y->rows ||
                x->cols != y->cols)
                fail_msg("%s step %d: expected: %s head %d step %d (%d×%d), got: %s head %d step %d (%d×%d)", sentences[s / 2], i, y->name,
                         y->head, y->dstep, y->rows, y->cols, x->name, x->head, x->dstep, x->rows, x->cols);
            int differ = 0;
            double maxdiff = 0.0;
            for (size_t k = 0; k < (size_t)x->rows * x->cols; k++)
                if (!(value_at(x, k) == value_at(y, k))) {
                    differ++;
                    maxdiff = fmax(maxdiff, fabs((double)value_at(x, k) - value_at(y, k)));
                }
            if (differ)
                fail_msg("%s: %s head %d step %d: %d values differ from the full pass, maxdiff %.3g", sentences[s / 2],
                         trace_stage_id(x, id, sizeof id), x->head, x->dstep, differ, maxdiff);
            float *block = malloc(((size_t)x->rows * x->cols + 1) * sizeof *block);
            assert_non_null(block);
            trace_copy_values(x, block);
            for (size_t k = 0; k < (size_t)x->rows * x->cols; k++)
                if (!(block[k] == value_at(y, k)))
                    fail_msg("%s: %s head %d step %d: value %zu copied out expected: %g, got: %g", sentences[s / 2],
                             trace_stage_id(x, id, sizeof id), x->head, x->dstep, k, (double)value_at(y, k), (double)block[k]);
            free(block);
            if (x->dstep > last_dstep) last_dstep = x->dstep;
        }
        if (i != trace_count(g) || j != trace_count(b))
            fail_msg("%s: one trace ends early: greedy at step %d of %d, beam at %d of %d", sentences[s / 2], i, trace_count(g), j, trace_count(b));
        // each decoder row is stored once: ten chained passes take less room than ten whole ones
        if (!(trace_bytes(g) < trace_bytes(b)))
            fail_msg("%s: greedy's trace expected: smaller than the whole passes' %zu bytes, got: %zu", sentences[s / 2], trace_bytes(b),
                     trace_bytes(g));
        trace_free(g);
        trace_free(b);
        voc_tokens_deinit(&tok);
    }
    assert_true(last_dstep >= 3);  // incremental passes were compared
    mdl_free(m);
}

// A padded source, as in a training batch: the pads are masked as keys, so
// the real tokens' values, every decoding step's probabilities and the output
// are the unpadded run's; the pads get weight exactly 0 in every attention.
static void expect_pads_unseen(const Trace *t, int n, int len) {
    char id[128];
    int checked = 0;
    for (int i = 0; i < trace_count(t); i++) {
        const Step *s = trace_step(t, i);
        bool weights = !strcmp(s->name, "enc.self_attn.weights") || !strcmp(s->name, "dec.cross_attn.weights");
        bool masked = !strcmp(s->name, "enc.self_attn.masked_scores") || !strcmp(s->name, "dec.cross_attn.masked_scores");
        if (!weights && !masked) continue;
        if (s->cols != len)
            fail_msg("%s head %d step %d: expected: %d columns, got: %d", trace_stage_id(s, id, sizeof id), s->head, s->dstep, len, s->cols);
        assert_string_equal(s->col_labels[len - 1], "<pad>");
        for (int r = 0; r < s->rows; r++)
            for (int k = 0; k < s->cols; k++) {
                float v = trace_row(s, r)[k];
                if (k >= n && (weights ? v != 0.0f : v != -INFINITY))
                    fail_msg("%s head %d step %d [%d][%d]: pad column expected: %s, got: %g", trace_stage_id(s, id, sizeof id), s->head,
                             s->dstep, r, k, weights ? "exactly 0" : "-inf", (double)v);
                if (k < n && !isfinite(v))
                    fail_msg("%s head %d step %d [%d][%d]: token column expected: finite, got: %g", trace_stage_id(s, id, sizeof id),
                             s->head, s->dstep, r, k, (double)v);
            }
        checked += weights;
    }
    assert_true(checked > 0);
}

static void expect_padding_mask(const Model *m, const Trace *t, const Tokens *tok, int len) {
    const Step *tokens = trace_step(t, 0), *mask = trace_step(t, 1);
    assert_string_equal(tokens->name, "src.tokens");
    assert_string_equal(mask->name, "src.padding_mask");  // right after the tokens
    assert_string_equal(mask->kind, "mask");
    assert_int_equal(mask->rows, 1);
    assert_int_equal(mask->cols, len);
    assert_int_equal(tokens->cols, len);
    for (int j = 0; j < len; j++) {
        float want = j < tok->n ? 0.0f : -INFINITY;
        if (mask->data[j] != want) fail_msg("src.padding_mask[%d] expected: %g, got: %g", j, (double)want, (double)mask->data[j]);
        int id = j < tok->n ? tok->ids[j] : voc_pad(m->src);
        if ((int)tokens->data[j] != id) fail_msg("src.tokens[%d] expected: %d, got: %d", j, id, (int)tokens->data[j]);
        assert_string_equal(mask->col_labels[j], voc_token(m->src, id));
    }
}

// The first rows of stage (head, step) are the same in want and got, within
// tol; returns the largest difference.
static double expect_rows_equal(const Trace *want, const Trace *got, const char *stage, int head, int dstep, int rows, double tol,
                                const char *what) {
    int i = trace_find(want, stage, head, dstep), j = trace_find(got, stage, head, dstep);
    if (i < 0 || j < 0) fail_msg("%s: %s head %d step %d expected in both traces, got: %d and %d", what, stage, head, dstep, i, j);
    const Step *a = trace_step(want, i), *b = trace_step(got, j);
    assert_int_equal(a->cols, b->cols);
    double maxdiff = 0.0;
    for (size_t k = 0; k < (size_t)rows * a->cols; k++) maxdiff = fmax(maxdiff, fabs((double)value_at(a, k) - value_at(b, k)));
    if (!(maxdiff <= tol)) fail_msg("%s: %s head %d step %d: maxdiff %.3g, tolerance %.3g", what, stage, head, dstep, maxdiff, tol);
    return maxdiff;
}

static void test_padding_changes_nothing_real(void **state) {
    (void)state;
    Model *m = default_model();
    Tokens tgt;
    tokenize(m->tgt, "我 愛 自然 語言 處理", &tgt);
    DecodeOptions modes[] = {{.mode = DECODE_GREEDY, .max_steps = 10},
                             {.mode = DECODE_BEAM, .beam_width = 3, .max_steps = 6},
                             {.mode = DECODE_SAMPLE, .temperature = 1.5f, .seed = 5, .max_steps = 8},
                             {.mode = DECODE_TEACHER, .target = tgt.ids, .target_len = tgt.n}};
    double maxdiff = 0.0;
    for (size_t s = 0; s < sizeof sentences / sizeof *sentences; s++)
        for (size_t k = 0; k < sizeof modes / sizeof *modes; k++) {
            Tokens tok;
            tokenize(m->src, sentences[s], &tok);
            int len = tok.n + 3;
            DecodeOptions o = modes[k];
            Trace *plain = run(m, tok.ids, tok.n, o);
            o.pad_to = len;
            Trace *padded = run(m, tok.ids, tok.n, o);
            char what[160];
            snprintf(what, sizeof what, "\"%s\", mode %d, pad to %d", sentences[s], (int)o.mode, len);
            expect_same_output(plain, padded, what);
            expect_padding_mask(m, padded, &tok, len);
            expect_pads_unseen(padded, tok.n, len);
            check_attention_rows(padded);
            // the masked scores are there only with padding on
            assert_int_equal(trace_find(plain, "src.padding_mask", 0, 0), -1);
            assert_int_equal(trace_find(plain, "enc.L1.self_attn.masked_scores", 1, 0), -1);
            assert_true(trace_find(padded, "enc.L1.self_attn.masked_scores", 1, 0) >= 0);
            assert_true(trace_find(padded, "dec.L2.cross_attn.masked_scores", 2, 1) >= 0);
            // the real tokens' memory, then every decoding step's probabilities
            maxdiff = fmax(maxdiff, expect_rows_equal(plain, padded, "enc.output", 0, 0, tok.n, 1e-5, what));
            int steps = 0;
            for (int i = 0; i < trace_count(plain); i++) {
                const Step *p = trace_step(plain, i);
                if (strcmp(p->name, "dec.probs")) continue;
                maxdiff = fmax(maxdiff, expect_rows_equal(plain, padded, "dec.probs", 0, p->dstep, p->rows, 1e-5, what));
                steps++;
            }
            assert_true(steps > 0);
            if (o.mode == DECODE_TEACHER && fabsf(trace_mean_loss(plain) - trace_mean_loss(padded)) > 1e-5f)
                fail_msg("%s: mean loss expected: %.7g, got: %.7g", what, (double)trace_mean_loss(plain), (double)trace_mean_loss(padded));
            trace_free(plain);
            trace_free(padded);
            voc_tokens_deinit(&tok);
        }
    print_message("maxdiff padded vs unpadded (memory rows of the tokens, probabilities): %.3g\n", maxdiff);
    voc_tokens_deinit(&tgt);
    mdl_free(m);
}

static void test_top_k_one_sampling_is_greedy(void **state) {
    (void)state;
    Model *m = default_model();
    for (size_t s = 0; s < sizeof sentences / sizeof *sentences; s++) {
        Tokens tok;
        tokenize(m->src, sentences[s], &tok);
        Trace *g = run(m, tok.ids, tok.n, (DecodeOptions){.mode = DECODE_GREEDY, .max_steps = 10});
        Trace *k1 = run(m, tok.ids, tok.n, (DecodeOptions){.mode = DECODE_SAMPLE, .top_k = 1, .temperature = 2.0f, .seed = 7, .max_steps = 10});
        expect_same_output(g, k1, sentences[s]);
        trace_free(g);
        trace_free(k1);
        voc_tokens_deinit(&tok);
    }
    mdl_free(m);
}

static void test_sampling_repeats_with_seed(void **state) {
    (void)state;
    Model *m = default_model();
    Tokens tok;
    tokenize(m->src, "i love natural language processing", &tok);
    DecodeOptions o = {.mode = DECODE_SAMPLE, .temperature = 1.5f, .top_p = 0.9f, .seed = 42, .max_steps = 12};
    Trace *a = run(m, tok.ids, tok.n, o), *b = run(m, tok.ids, tok.n, o);
    expect_same_output(a, b, "same seed");
    // the recorded distribution is renormalised and the draw is in [0, 1)
    const Step *d = trace_step(a, trace_find(a, "dec.sample", 0, 1));
    assert_non_null(d);
    double sum = 0.0;
    for (int i = 0; i < d->cols; i++) sum += d->data[i];
    if (fabs(sum - 1.0) > 1e-5) fail_msg("sampling distribution sum expected: 1, got: %.9g", sum);
    const Step *ch = trace_step(a, trace_find(a, "dec.choice", 0, 1));
    assert_true(ch->data[2] >= 0.0f && ch->data[2] < 1.0f);
    assert_true(d->data[(int)ch->data[0]] > 0.0f);
    // different seeds give different runs somewhere among a few tries
    bool differ = false;
    for (uint64_t seed = 1; seed < 20 && !differ; seed++) {
        o.seed = seed;
        Trace *c = run(m, tok.ids, tok.n, o);
        int na, nc;
        const int *oa = trace_output(a, &na), *oc = trace_output(c, &nc);
        differ = na != nc || memcmp(oa, oc, (size_t)na * sizeof *oa) != 0;
        trace_free(c);
    }
    assert_true(differ);
    trace_free(a);
    trace_free(b);
    voc_tokens_deinit(&tok);
    mdl_free(m);
}

static void test_top_p_keeps_the_nucleus(void **state) {
    (void)state;
    Model *m = default_model();
    Tokens tok;
    tokenize(m->src, "the cat sits on the mat", &tok);
    Trace *t = run(m, tok.ids, tok.n, (DecodeOptions){.mode = DECODE_SAMPLE, .top_p = 0.5f, .seed = 3, .max_steps = 3, .allow_special = true});
    const Step *probs = trace_step(t, trace_find(t, "dec.probs", 0, 1));
    const Step *d = trace_step(t, trace_find(t, "dec.sample", 0, 1));
    // the kept tokens are the most likely ones, and the mass just before the last kept one is below 0.5
    float min_kept = 2.0f, max_dropped = -1.0f;
    double kept_mass = 0.0;
    for (int i = 0; i < d->cols; i++) {
        if (d->data[i] > 0.0f) {
            min_kept = fminf(min_kept, probs->data[i]);
            kept_mass += probs->data[i];
        } else {
            max_dropped = fmaxf(max_dropped, probs->data[i]);
        }
    }
    assert_true(min_kept >= max_dropped);
    assert_true(kept_mass >= 0.5 - 1e-6);
    assert_true(kept_mass - min_kept < 0.5);
    trace_free(t);
    voc_tokens_deinit(&tok);
    mdl_free(m);
}

static bool is_special(const Vocab *v, int id) { return id == voc_pad(v) || id == voc_bos(v) || id == voc_unk(v); }

// Every token decoding chose: the output and each step's dec.choice (for beam
// search, every candidate of every dec.beam table).
static bool chose(const Trace *t, int id, const Vocab *v) {
    int n;
    const int *out = trace_output(t, &n);
    for (int i = 0; i < n; i++)
        if (out[i] == id) return true;
    for (int i = 0; i < trace_count(t); i++) {
        const Step *s = trace_step(t, i);
        if (!strcmp(s->name, "dec.choice") && (int)s->data[0] == id) return true;
        if (!strcmp(s->name, "dec.beam"))
            for (int r = 0; r < s->rows; r++) {
                const char *label = s->row_labels[r], *tok = voc_token(v, id);
                size_t a = strlen(label), b = strlen(tok);
                if (a > b + 1 && label[a - b - 1] == ' ' && !strcmp(label + a - b, tok)) return true;
            }
    }
    return false;
}

// <pad>, <bos> and <unk> made by far the most likely next token (their output
// bias raised by 100): greedy, beam search and sampling never choose them by
// default, and do with allow_special. The sampling distribution gives them 0
// and still sums to 1; the model's own dec.probs is unchanged.
static void test_special_tokens_never_chosen(void **state) {
    (void)state;
    Model *m = default_model();
    const Vocab *v = m->tgt;
    Tokens tok;
    tokenize(m->src, "i love nlp", &tok);
    int specials[] = {voc_pad(v), voc_bos(v), voc_unk(v)};
    DecodeOptions modes[] = {{.mode = DECODE_GREEDY, .max_steps = 6},
                             {.mode = DECODE_BEAM, .beam_width = 4, .max_steps = 6},
                             {.mode = DECODE_SAMPLE, .temperature = 1.0f, .seed = 5, .max_steps = 6}};
    for (size_t k = 0; k < sizeof specials / sizeof *specials; k++) {
        int id = specials[k];
        assert_true(id >= 0);
        m->w.gen_b[id] += 100.0f;
        for (size_t d = 0; d < sizeof modes / sizeof *modes; d++) {
            DecodeOptions o = modes[d];
            Trace *t = run(m, tok.ids, tok.n, o);
            const Step *probs = trace_step(t, trace_find(t, "dec.probs", 0, 1));
            if (!(probs->data[id] > 0.99f)) fail_msg("%s, mode %d: P expected: > 0.99, got: %g", voc_token(v, id), o.mode, (double)probs->data[id]);
            for (size_t j = 0; j < sizeof specials / sizeof *specials; j++)
                if (chose(t, specials[j], v)) fail_msg("mode %d chose %s, which is excluded", o.mode, voc_token(v, specials[j]));
            int n;
            const int *out = trace_output(t, &n);
            for (int i = 0; i < n; i++) assert_false(is_special(v, out[i]));
            if (o.mode == DECODE_SAMPLE) {
                const Step *s = trace_step(t, trace_find(t, "dec.sample", 0, 1));
                double sum = 0.0;
                for (int i = 0; i < s->cols; i++) sum += s->data[i];
                for (size_t j = 0; j < sizeof specials / sizeof *specials; j++) assert_true(s->data[specials[j]] == 0.0f);
                if (fabs(sum - 1.0) > 1e-5) fail_msg("sampling distribution sum expected: 1, got: %.9g", sum);
            }
            trace_free(t);
            o.allow_special = true;
            t = run(m, tok.ids, tok.n, o);
            if (!chose(t, id, v)) fail_msg("mode %d with allow_special expected to choose %s", o.mode, voc_token(v, id));
            const Step *ch = trace_step(t, trace_find(t, "dec.choice", 0, 1));
            if (o.mode != DECODE_BEAM && (int)ch->data[0] != id)
                fail_msg("mode %d step 1 expected: %d, got: %d", o.mode, id, (int)ch->data[0]);
            trace_free(t);
        }
        m->w.gen_b[id] -= 100.0f;
    }
    voc_tokens_deinit(&tok);
    mdl_free(m);
}

static void test_beam_table(void **state) {
    (void)state;
    Model *m = default_model();
    Tokens tok;
    tokenize(m->src, "i love nlp", &tok);
    Trace *t = run(m, tok.ids, tok.n, (DecodeOptions){.mode = DECODE_BEAM, .beam_width = 3, .max_steps = 5});
    int steps = 0;
    for (int i = 0; i < trace_count(t); i++) {
        const Step *s = trace_step(t, i);
        if (strcmp(s->name, "dec.beam")) continue;
        steps++;
        int kept = 0;
        for (int r = 0; r < s->rows; r++) {
            kept += s->data[r * s->cols + 2] == 1.0f;
            if (r && s->data[r * s->cols + 1] > s->data[(r - 1) * s->cols + 1]) fail_msg("beam rows are not sorted by score at step %d", s->dstep);
            assert_non_null(s->row_labels[r]);
        }
        assert_true(kept <= 3);
        assert_true(s->rows >= kept);
        int done = 0;  // a finished hypothesis is carried over as one row
        for (int r = 0; r < s->rows; r++) done += strstr(s->row_labels[r], "(done)") != NULL;
        if (s->dstep > 1) assert_int_equal(s->rows, 3 * (3 - done) + done);  // each live hypothesis × its 3 best tokens
    }
    assert_true(steps >= 1);
    trace_free(t);
    voc_tokens_deinit(&tok);
    mdl_free(m);
}

// The hypothesis a beam row's label ends in, as "tok tok " ("" for <bos> alone):
// the prefix plus the new token, which <eos> ends without adding.
static void beam_hypothesis(const char *label, bool with_next, char *out, size_t size) {
    const char *plus = strstr(label, "+ "), *done = strstr(label, "(done)");
    size_t prefix = plus ? (size_t)(plus - label) : done ? (size_t)(done - label) : strlen(label);
    snprintf(out, size, "%.*s", (int)prefix, label);
    if (with_next && plus && strcmp(plus + 2, "<eos>")) snprintf(out + strlen(out), size - strlen(out), "%s ", plus + 2);
}

// Each candidate names the row of the previous step's table it extends: a
// kept row whose hypothesis is the candidate's prefix; at step 1, <bos> (-1).
static void test_beam_parents(void **state) {
    (void)state;
    Model *m = load_model(TT_TEST_DATA "/../../assets/models/en-zh.safetensors");  // trained: its hypotheses end
    static const char *const sentences[] = {"i love nlp", "the cat sits on the mat ."};
    for (size_t k = 0; k < sizeof sentences / sizeof *sentences; k++) {
        Tokens tok;
        tokenize(m->src, sentences[k], &tok);
        Trace *t = run(m, tok.ids, tok.n, (DecodeOptions){.mode = DECODE_BEAM, .beam_width = 3, .max_steps = 12});
        const Step *prev = NULL;
        int done_rows = 0;
        for (int i = 0; i < trace_count(t); i++) {
            const Step *s = trace_step(t, i);
            if (strcmp(s->name, "dec.beam")) continue;
            assert_int_equal(s->cols, 4);
            assert_string_equal(s->col_labels[3], "parent");
            for (int r = 0; r < s->rows; r++) {
                int parent = (int)s->data[r * 4 + 3];
                char want[512], got[512];
                beam_hypothesis(s->row_labels[r], false, got, sizeof got);
                done_rows += strstr(s->row_labels[r], "(done)") != NULL;
                if (!prev) {
                    if (parent != -1) fail_msg("step 1 row %d: expected: parent -1 (<bos>), got: %d", r, parent);
                    assert_string_equal(got, "");
                    continue;
                }
                if (parent < 0 || parent >= prev->rows || prev->data[parent * 4 + 2] != 1.0f)
                    fail_msg("step %d row %d: parent %d is not a kept row of step %d", s->dstep, r, parent, prev->dstep);
                beam_hypothesis(prev->row_labels[parent], true, want, sizeof want);
                if (strcmp(want, got))
                    fail_msg("step %d row %d \"%s\": expected: to extend \"%s\", got: parent %d \"%s\"", s->dstep, r, s->row_labels[r],
                             want, parent, prev->row_labels[parent]);
            }
            prev = s;
        }
        assert_non_null(prev);
        assert_true(done_rows > 0);  // a finished hypothesis carried over was checked too
        trace_free(t);
        voc_tokens_deinit(&tok);
    }
    mdl_free(m);
}

static void test_stage_ids_and_json(void **state) {
    (void)state;
    Model *m = default_model();
    Tokens tok;
    tokenize(m->src, "i love nlp", &tok);
    Trace *t = run(m, tok.ids, tok.n, (DecodeOptions){.mode = DECODE_GREEDY, .max_steps = 4});
    char id[128];
    int i = trace_find(t, "dec.L2.cross_attn.weights", 3, 2);
    assert_true(i >= 0);
    const Step *s = trace_step(t, i);
    assert_string_equal(trace_stage_id(s, id, sizeof id), "dec.L2.cross_attn.weights");
    assert_int_equal(s->rows, 2);
    assert_int_equal(s->cols, 3);
    assert_string_equal(s->sym_rows, "m");
    assert_string_equal(s->sym_cols, "n");
    assert_string_equal(s->col_labels[1], "love");
    assert_string_equal(s->row_labels[0], "<bos>");
    assert_int_equal(trace_find(t, "enc.L3.self_attn.weights", 1, 0), -1);
    // steps come in computation order: the encoder before any decoding step
    assert_true(trace_find(t, "enc.output", 0, 0) < trace_find(t, "dec.tokens", 0, 1));
    // the JSON parses and holds every step with values of the stated shape
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    assert_int_equal(trace_write_json(t, fp, "i love nlp"), 0);
    fclose(fp);
    Error err;
    Json *j = json_parse(buf, len, true, &err);
    if (!j) fail_msg("trace JSON: %s", err.msg);
    const Json *steps = json_get(j, "steps");
    assert_int_equal((int)steps->count, trace_count(t));
    for (size_t k = 0; k < steps->count; k++) {
        const Json *st = json_at(steps, k);
        const Json *shape = json_get(st, "shape"), *values = json_get(st, "values");
        assert_int_equal(values->count, (size_t)json_at(shape, 0)->number);
        assert_int_equal(json_at(values, 0)->count, (size_t)json_at(shape, 1)->number);
        // every number reads back as the float it was (the writer copies the text of rows it wrote before)
        const Step *s = trace_step(t, (int)k);
        for (int r = 0; r < s->rows; r++)
            for (int c = 0; c < s->cols; c++) {
                float want = trace_row(s, r)[c], got = (float)json_at(json_at(values, (size_t)r), (size_t)c)->number;
                if (memcmp(&want, &got, sizeof want) && !(isnan(want) && isnan(got)))
                    fail_msg("step %zu [%d][%d]: expected: %.9g, got: %.9g", k, r, c, (double)want, (double)got);
            }
    }
    const Json *mask = json_at(steps, (size_t)trace_find(t, "dec.look_ahead_mask", 0, 2));
    assert_true(isinf(json_at(json_at(json_get(mask, "values"), 0), 1)->number));
    json_free(j);
    free(buf);
    trace_free(t);
    voc_tokens_deinit(&tok);
    mdl_free(m);
}

// A trace of some stages (DecodeOptions.stages) holds exactly the steps of
// the whole trace whose stage id matches, with the same values, in every
// decoding strategy; and it needs less memory, said before it is made.
static void test_stages_record_what_matches(void **state) {
    (void)state;
    Model *m = default_model();
    Tokens tok, tgt;
    tokenize(m->src, "the cat sits on the mat .", &tok);
    tokenize(m->tgt, "貓 坐 在 墊子 上 。", &tgt);
    const char *patterns[] = {"dec.L*.cross_attn.weights", "dec.L2.self_attn.*", "*scores", "enc.L1.*", "dec.output", "dec.choice",
                              "dec.look_ahead_mask", "dec.L1.self_attn.[qkv]", "dec.L1.self_attn.weights"};
    DecodeOptions modes[] = {{.mode = DECODE_GREEDY, .max_steps = 8}, {.mode = DECODE_SAMPLE, .max_steps = 8, .seed = 5},
                             {.mode = DECODE_BEAM, .max_steps = 6}, {.mode = DECODE_GREEDY, .max_steps = 8, .pad_to = 9},
                             {.mode = DECODE_TEACHER, .target = tgt.ids, .target_len = tgt.n}};
    char id[128];
    int compared = 0;
    for (size_t k = 0; k < sizeof modes / sizeof *modes; k++) {
        Trace *all = run(m, tok.ids, tok.n, modes[k]);
        size_t all_bytes, some_bytes;
        Error err;
        assert_int_equal(trace_estimate(m, tok.n, &modes[k], &all_bytes, &err), 0);
        for (size_t p = 0; p < sizeof patterns / sizeof *patterns; p++) {
            DecodeOptions o = modes[k];
            o.stages = patterns[p];
            Trace *some = run(m, tok.ids, tok.n, o);
            expect_same_output(all, some, patterns[p]);
            assert_int_equal(trace_estimate(m, tok.n, &o, &some_bytes, &err), 0);
            if (!(some_bytes < all_bytes)) fail_msg("%s: estimate expected: below %zu, got: %zu", patterns[p], all_bytes, some_bytes);
            int j = 0;
            for (int i = 0; i < trace_count(all); i++) {
                const Step *x = trace_step(all, i);
                if (fnmatch(patterns[p], trace_stage_id(x, id, sizeof id), 0)) continue;
                const Step *y = trace_step(some, j++);
                if (!y || y->stage != x->stage || y->layer != x->layer || y->head != x->head || y->dstep != x->dstep || y->rows != x->rows ||
                    y->cols != x->cols)
                    fail_msg("mode %zu, %s: step %d expected: %s head %d step %d", k, patterns[p], j - 1, id, x->head, x->dstep);
                for (int r = 0; r < x->rows; r++)
                    for (int c = 0; c < x->cols; c++)
                        if (memcmp(&trace_row(x, r)[c], &trace_row(y, r)[c], sizeof(float)))
                            fail_msg("mode %zu, %s: %s head %d step %d [%d][%d] expected: %g, got: %g", k, patterns[p], id, x->head, x->dstep, r,
                                     c, (double)trace_row(x, r)[c], (double)trace_row(y, r)[c]);
                compared++;
            }
            if (j != trace_count(some)) fail_msg("mode %zu, %s: expected: %d steps, got: %d", k, patterns[p], j, trace_count(some));
            if (!(trace_bytes(some) < trace_bytes(all))) fail_msg("%s: expected a smaller trace", patterns[p]);
            trace_free(some);
        }
        trace_free(all);
    }
    assert_true(compared > 1000);
    voc_tokens_deinit(&tok);
    voc_tokens_deinit(&tgt);
    mdl_free(m);
}

static void test_bad_options(void **state) {
    (void)state;
    Model *m = default_model();
    int ids[64] = {4, 5, 6};
    Error err;
    struct { DecodeOptions o; int n; const char *part; } cases[] = {
        {{.mode = DECODE_GREEDY}, 0, "empty"},
        {{.mode = DECODE_GREEDY}, 40, "at most 24"},
        {{.mode = DECODE_GREEDY, .max_steps = 99}, 3, "at most 24"},
        {{.mode = DECODE_SAMPLE, .temperature = -1}, 3, "temperature"},
        {{.mode = DECODE_SAMPLE, .top_p = 1.5f}, 3, "top-p"},
        {{.mode = DECODE_TEACHER}, 3, "target"},
        {{.mode = DECODE_GREEDY, .pad_to = 2}, 3, "shorter than the source"},
        {{.mode = DECODE_GREEDY, .pad_to = 25}, 3, "at most 24"},
        {{.mode = DECODE_GREEDY, .pad_to = -1}, 3, "pad-to"},
        {{.mode = DECODE_GREEDY, .stages = ""}, 3, "stage pattern is empty"},
        {{.mode = DECODE_GREEDY, .stages = "dec.L3.ffn.out"}, 3, "matches no stage"},  // the model has 2 decoder layers
        {{.mode = DECODE_GREEDY, .stages = "cross_attn"}, 3, "matches no stage"},
        {{.mode = DECODE_GREEDY, .memory_limit = 1000}, 3, "over the limit of 1 kB"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        err.msg[0] = '\0';
        Trace *t = trace_run(m, ids, cases[i].n, &cases[i].o, &err);
        if (t) fail_msg("case %zu: expected an error", i);
        if (!strstr(err.msg, cases[i].part)) fail_msg("expected message containing: %s, got: %s", cases[i].part, err.msg);
    }
    ids[1] = 9999;
    assert_null(trace_run(m, ids, 3, &(DecodeOptions){0}, &err));
    assert_non_null(strstr(err.msg, "outside the vocabulary"));
    mdl_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_greedy_matches_pytorch, setup_ref_model, teardown),
        cmocka_unit_test_setup_teardown(test_teacher_forcing_matches_pytorch, setup_ref_model, teardown),
        cmocka_unit_test_setup_teardown(test_greedy_matches_pytorch, setup_ref_tied, teardown),
        cmocka_unit_test_setup_teardown(test_teacher_forcing_matches_pytorch, setup_ref_tied, teardown),
        cmocka_unit_test(test_attention_rows_sum_to_one),
        cmocka_unit_test(test_beam_width_one_is_greedy),
        cmocka_unit_test(test_incremental_greedy_equals_full_passes),
        cmocka_unit_test(test_padding_changes_nothing_real),
        cmocka_unit_test(test_top_k_one_sampling_is_greedy),
        cmocka_unit_test(test_sampling_repeats_with_seed),
        cmocka_unit_test(test_top_p_keeps_the_nucleus),
        cmocka_unit_test(test_special_tokens_never_chosen),
        cmocka_unit_test(test_beam_table),
        cmocka_unit_test(test_beam_parents),
        cmocka_unit_test(test_stage_ids_and_json),
        cmocka_unit_test(test_stages_record_what_matches),
        cmocka_unit_test(test_bad_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
