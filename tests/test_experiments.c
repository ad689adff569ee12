// The experiments a class runs on the model (docs/TRACE.md, "Experiments"):
// against PyTorch (tests/reference/make_experiments.py), then the properties
// each must have.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

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
#define REF_TARGET "我 愛 自然 語言 處理"

typedef struct {
    Model *m;
    Json *ref;
    Tokens src, tgt;
} Fixture;

static Model *load_model(const char *path) {
    Error err;
    Model *m = mdl_load(path, &err);
    if (!m) fail_msg("%s", err.msg);
    return m;
}

static int setup(void **state) {
    Fixture *f = calloc(1, sizeof *f);
    f->m = load_model(REF_DIR "ref_model.safetensors");
    char *text;
    size_t len;
    Error err;
    if (fio_read_all(REF_DIR "ref_experiments.json", 1u << 26, &text, &len, &err)) fail_msg("%s", err.msg);
    f->ref = json_parse(text, len, true, &err);
    free(text);
    if (!f->ref) fail_msg("ref_experiments.json: %s", err.msg);
    if (voc_tokenize(f->m->src, REF_SENTENCE, &f->src, &err)) fail_msg("%s", err.msg);
    if (voc_tokenize(f->m->tgt, REF_TARGET, &f->tgt, &err)) fail_msg("%s", err.msg);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    Fixture *f = *state;
    voc_tokens_deinit(&f->src);
    voc_tokens_deinit(&f->tgt);
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

static Trace *run(const Model *m, const Tokens *src, DecodeOptions o) {
    Error err;
    Trace *t = trace_run(m, src->ids, src->n, &o, &err);
    if (!t) fail_msg("trace_run: %s", err.msg);
    return t;
}

// A step's values against a reference array: absolute tolerance, or relative
// to the reference's largest magnitude.
static void compare(const Trace *t, const char *stage, int head, const Json *want, double tol, bool relative) {
    int i = trace_find(t, stage, head, 1);
    if (i < 0) fail_msg("no step %s head %d in the trace", stage, head);
    const Step *s = trace_step(t, i);
    size_t cap = (size_t)s->rows * s->cols + 1;
    double *w = malloc(cap * sizeof *w);
    size_t n = ref_flatten(want, w, cap);
    if (n != (size_t)s->rows * s->cols) fail_msg("%s: expected: %zu values, got: %d×%d", stage, n, s->rows, s->cols);
    double scale = 0.0, maxdiff = 0.0;
    for (size_t k = 0; k < n; k++) scale = fmax(scale, fabs(w[k]));
    for (size_t k = 0; k < n; k++) maxdiff = fmax(maxdiff, fabs(trace_row(s, (int)(k / s->cols))[k % s->cols] - w[k]));
    double limit = relative ? tol * scale : tol;
    if (!(maxdiff <= limit)) fail_msg("%s head %d: maxdiff %.3g, tolerance %.3g", stage, head, maxdiff, limit);
    free(w);
}

// Every attention weight of the decoder, the logits, probabilities and loss
// of one teacher-forced pass against the reference's case.
static void compare_teacher_forced(const Fixture *f, const Trace *t, const Json *ref) {
    const Config *c = &f->m->cfg;
    char id[64];
    for (int l = 0; l < c->n_dec; l++)
        for (int h = 0; h < c->nhead; h++) {
            snprintf(id, sizeof id, "dec.L%d.self_attn.weights", l + 1);
            compare(t, id, h + 1, json_at(json_at(get(ref, "dec_self_weights"), (size_t)l), (size_t)h), 1e-5, false);
            snprintf(id, sizeof id, "dec.L%d.cross_attn.weights", l + 1);
            compare(t, id, h + 1, json_at(json_at(get(ref, "cross_weights"), (size_t)l), (size_t)h), 1e-5, false);
        }
    compare(t, "dec.logits", 0, get(ref, "logits"), 1e-5, true);
    compare(t, "dec.probs", 0, get(ref, "probs"), 1e-5, false);
    compare(t, "dec.loss", 0, get(ref, "loss"), 1e-5, true);
    double mean = get(ref, "mean_loss")->number;
    if (fabs(trace_mean_loss(t) - mean) > 1e-5 * mean) fail_msg("mean loss expected: %.7g, got: %.7g", mean, (double)trace_mean_loss(t));
}

static DecodeOptions teacher(const Fixture *f) {
    return (DecodeOptions){.mode = DECODE_TEACHER, .target = f->tgt.ids, .target_len = f->tgt.n};
}

// ---- 1. without the look-ahead mask ------------------------------------------

// nn.Transformer run with no tgt_mask on the teacher-forced sentence.
static void test_no_mask_matches_pytorch(void **state) {
    Fixture *f = *state;
    DecodeOptions o = teacher(f);
    o.no_look_ahead_mask = true;
    Trace *t = run(f->m, &f->src, o);
    compare_teacher_forced(f, t, get(f->ref, "no_mask"));
    trace_free(t);
}

// Every decoder self-attention row sums to 1 and puts weight above the diagonal; the mask is all 0.
static void check_leak(const Trace *t) {
    char id[128];
    int checked = 0;
    for (int i = 0; i < trace_count(t); i++) {
        const Step *s = trace_step(t, i);
        trace_stage_id(s, id, sizeof id);
        if (!strcmp(s->name, "dec.look_ahead_mask"))
            for (int r = 0; r < s->rows; r++)
                for (int k = 0; k < s->cols; k++)
                    if (trace_row(s, r)[k] != 0.0f) fail_msg("%s step %d [%d][%d] expected: 0, got: %g", id, s->dstep, r, k, (double)trace_row(s, r)[k]);
        if (strcmp(s->name, "dec.self_attn.weights")) continue;
        for (int r = 0; r < s->rows; r++) {
            double sum = 0.0, above = 0.0;
            for (int k = 0; k < s->cols; k++) {
                sum += trace_row(s, r)[k];
                if (k > r) above += trace_row(s, r)[k];
            }
            if (fabs(sum - 1.0) > 1e-5) fail_msg("%s head %d row %d: sum expected: 1, got: %.9g", id, s->head, r, sum);
            if (r + 1 < s->cols && !(above > 0.0)) fail_msg("%s head %d step %d row %d: no weight above the diagonal", id, s->head, s->dstep, r);
        }
        checked++;
    }
    assert_true(checked > 0);
}

static void test_no_mask_leaks(void **state) {
    Fixture *f = *state;
    DecodeOptions o = teacher(f);
    o.no_look_ahead_mask = true;
    Trace *t = run(f->m, &f->src, o);
    check_leak(t);
    trace_free(t);
    // in greedy decoding each pass stands alone: a new token changes the earlier rows
    Trace *g = run(f->m, &f->src, (DecodeOptions){.mode = DECODE_GREEDY, .max_steps = 4, .ignore_eos = true, .no_look_ahead_mask = true});
    check_leak(g);
    const Step *s2 = trace_step(g, trace_find(g, "dec.L1.self_attn.weights", 1, 2));
    const Step *s3 = trace_step(g, trace_find(g, "dec.L1.self_attn.weights", 1, 3));
    assert_non_null(s2);
    assert_non_null(s3);
    assert_true(s2->data != s3->data);
    assert_true(trace_row(s2, 0)[0] != trace_row(s3, 0)[0]);
    trace_free(g);
}

// The JSON's decode settings say the mask was off, and say nothing when it was on.
static void test_no_mask_in_json(void **state) {
    Fixture *f = *state;
    for (int off = 0; off < 2; off++) {
        DecodeOptions o = {.mode = DECODE_GREEDY, .max_steps = 2, .no_look_ahead_mask = off};
        Trace *t = run(f->m, &f->src, o);
        char *buf = NULL;
        size_t len = 0;
        FILE *fp = open_memstream(&buf, &len);
        assert_int_equal(trace_write_json(t, fp, NULL), 0);
        fclose(fp);
        Error err;
        Json *j = json_parse(buf, len, true, &err);
        if (!j) fail_msg("trace JSON: %s", err.msg);
        const Json *mask = json_get(get(j, "decode"), "look_ahead_mask");
        if (off) assert_true(mask && mask->type == JSON_BOOL && !mask->boolean);
        else assert_null(mask);
        json_free(j);
        free(buf);
        trace_free(t);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_no_mask_matches_pytorch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_mask_leaks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_mask_in_json, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
