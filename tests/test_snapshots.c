// A model's training history (snapshots.h): the schedule, the file written
// and read back, another model's snapshots refused, and the shipped en-zh's
// history against PyTorch (tests/reference/make_snapshots.py): each
// snapshot's teacher-forced loss and supervised head.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "json.h"
#include "safetensors.h"
#include "snapshots.h"
#include "trace.h"

#define MODELS TT_TEST_DATA "/../../assets/models/"
#define REF_DIR TT_TEST_DATA "/reference/"

static void test_schedule(void **state) {
    (void)state;
    int s[SNAP_MAX];
    const int want[] = {0, 25, 99, 222, 395, 617, 889, 1210, 1580, 2000};
    assert_int_equal(snap_schedule(10, 2000, s), 10);
    assert_memory_equal(s, want, sizeof want);
    assert_int_equal(snap_schedule(2, 7, s), 2);
    assert_int_equal(s[0], 0);
    assert_int_equal(s[1], 7);
    int n = snap_schedule(10, 3, s);  // fewer steps than snapshots: each step once
    assert_int_equal(n, 4);
    for (int i = 0; i < n; i++) assert_int_equal(s[i], i);
    char buf[256];
    assert_string_equal(snap_path_for("a/en-zh.safetensors", buf, sizeof buf), "a/en-zh.snapshots.safetensors");
    assert_string_equal(snap_path_for("model", buf, sizeof buf), "model.snapshots.safetensors");
}

static Model *tiny(uint64_t seed, int d_ff) {
    const char *src[] = {"<pad>", "<bos>", "<eos>", "<unk>", "a", "b"}, *tgt[] = {"<pad>", "<bos>", "<eos>", "<unk>", "x", "y", "z"};
    Error err;
    Vocab *vs = voc_new(src, 6, &err), *vt = voc_new(tgt, 7, &err);
    Config c = {.d_model = 8, .nhead = 2, .n_enc = 1, .n_dec = 1, .d_ff = d_ff, .eps = 1e-5f, .max_len = 8};
    Model *m = mdl_new(&c, vs, vt, &err);
    if (!m) fail_msg("%s", err.msg);
    mdl_init_random(m, seed);
    return m;
}

// Written and read back: each snapshot's weights are the F16 of the weights
// at its step, the curve as given; another model's file is refused.
static void test_round_trip(void **state) {
    (void)state;
    char path[] = "/tmp/tt-snapshots-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    Model *m = tiny(3, 16);
    SnapWriter *w = snap_writer_new(m);
    float *start = malloc((size_t)m->n_params * sizeof *start);
    memcpy(start, m->block, (size_t)m->n_params * sizeof *start);
    assert_int_equal(snap_writer_add(w, m, 0), 0);
    for (long i = 0; i < m->n_params; i++) m->block[i] = m->block[i] * 0.5f + 1e-3f * (float)(i % 7);  // "training"
    assert_int_equal(snap_writer_loss(w, 1, 2.5f), 0);
    assert_int_equal(snap_writer_loss(w, 5, 1.25f), 0);
    assert_int_equal(snap_writer_add(w, m, 5), 0);
    Error err;
    if (snap_writer_save(w, m, path, &err)) fail_msg("%s", err.msg);
    snap_writer_free(w);
    Snapshots *s = snap_load(path, m, &err);
    if (!s) fail_msg("%s", err.msg);
    assert_int_equal(snap_count(s), 2);
    assert_int_equal(snap_step(s, 1), 5);
    assert_int_equal(snap_find(s, 5), 1);
    assert_int_equal(snap_find(s, 4), -1);
    const int *steps;
    const float *loss;
    assert_int_equal(snap_curve(s, &steps, &loss), 2);
    assert_int_equal(steps[1], 5);
    assert_true(loss[1] == 1.25f);
    for (int k = 0; k < 2; k++) {
        Model *at = snap_model(s, k, &err);
        if (!at) fail_msg("%s", err.msg);
        const float *want = k ? m->block : start;
        for (long i = 0; i < m->n_params; i++)
            if (at->block[i] != st_float_from_half(st_half_from_float(want[i])))
                fail_msg("snapshot %d, parameter %ld: expected: %g, got: %g", k, i, (double)want[i], (double)at->block[i]);
        assert_int_equal(at->training_step, k ? 5 : 0);
        assert_non_null(strstr(at->name, "training step"));
        mdl_free(at);
    }
    snap_free(s);
    // another architecture, and a model file that is not a snapshots file
    Model *other = tiny(3, 24);
    assert_null(snap_load(path, other, &err));
    if (!strstr(err.msg, "another model") || strchr(err.msg, '\n')) fail_msg("expected: one line naming another model, got: %s", err.msg);
    assert_null(snap_load(MODELS "en-zh.safetensors", m, &err));
    assert_non_null(strstr(err.msg, "not a snapshots file"));
    assert_null(snap_load(MODELS "no-such.snapshots.safetensors", m, &err));
    mdl_free(other);
    mdl_free(m);
    free(start);
    unlink(path);
}

// A snapshots file written by hand, for the broken ones: m's metadata, the
// given steps and curve, every parameter at each listed step (as F16, or
// F32 when f32), but `skip` (NULL: none) left out, and `nan` (NULL: none)
// holding a NaN.
static void craft(const char *path, Model *m, const char *format, const char *steps, const int *at, int n_at, const char *curve,
                  const char *skip, bool f32, const char *nan) {
    StWriter *w = st_writer_new();
    char *src = voc_to_json(m->src), *tgt = voc_to_json(m->tgt), num[32];
    st_writer_meta(w, "format", format);
    const char *keys[] = {"d_model", "nhead", "num_encoder_layers", "num_decoder_layers", "dim_feedforward", "max_len"};
    const int values[] = {m->cfg.d_model, m->cfg.nhead, m->cfg.n_enc, m->cfg.n_dec, m->cfg.d_ff, m->cfg.max_len};
    for (int i = 0; i < 6; i++) {
        snprintf(num, sizeof num, "%d", values[i]);
        st_writer_meta(w, keys[i], num);
    }
    st_writer_meta(w, "src_vocab", src);
    st_writer_meta(w, "tgt_vocab", tgt);
    st_writer_meta(w, "steps", steps);
    if (curve) st_writer_meta(w, "loss_curve", curve);
    int n = mdl_params(m, NULL);
    Param *ps = malloc((size_t)n * sizeof *ps);
    mdl_params(m, ps);
    float *poisoned = malloc((size_t)m->n_params * sizeof *poisoned);
    memcpy(poisoned, m->block, (size_t)m->n_params * sizeof *poisoned);
    char names[64][160];
    int used = 0;
    for (int k = 0; k < n_at; k++)
        for (int i = 0; i < n; i++) {
            char *name = names[used % 64];
            snprintf(name, 160, "step%d/%s", at[k], ps[i].name);
            if (skip && !strcmp(name, skip)) continue;
            const float *data = ps[i].data;
            if (nan && !strcmp(name, nan)) {
                data = poisoned + (ps[i].data - m->block);
                poisoned[ps[i].data - m->block] = NAN;
            }
            (f32 ? st_writer_add_f32 : st_writer_add_f16)(w, name, data, ps[i].ndim, ps[i].shape);
            used++;
        }
    Error err;
    if (st_writer_save(w, path, &err)) fail_msg("%s", err.msg);
    st_writer_free(w);
    free(ps);
    free(poisoned);
    free(src);
    free(tgt);
}

// Every broken snapshots file is refused in one line that says what is wrong.
static void test_broken_files(void **state) {
    (void)state;
    char dir[] = "/tmp/tt-snapshots-bad-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/s.safetensors", dir);
    Model *m = tiny(3, 16);
    const int both[] = {0, 5};
    const char *F = "transformer-tracer-snapshots/1";
    struct {
        const char *what, *format, *steps, *curve, *skip, *nan, *want;
        bool f32;
        int n_at;
    } cases[] = {
        {"a model's format", "transformer-tracer-model/1", "0,5", NULL, NULL, NULL, "not a snapshots file", false, 2},
        {"steps not numbers", F, "0,x", NULL, NULL, NULL, "not increasing whole numbers", false, 2},
        {"steps decreasing", F, "5,0", NULL, NULL, NULL, "not increasing whole numbers", false, 2},
        {"steps with another separator", F, "0;5", NULL, NULL, NULL, "not numbers and commas", false, 2},
        {"no steps", F, "", NULL, NULL, NULL, "no snapshot steps", false, 2},
        {"a broken loss curve", F, "0,5", "1:x;5:1", NULL, NULL, "loss curve is not step:loss pairs", false, 2},
        {"a tensor missing at the end", F, "0,5", NULL, "step5/generator.bias", NULL, "no tensor step5/generator.bias", false, 2},
        {"F32 in place of F16", F, "0,5", NULL, NULL, NULL, "expected F16", true, 2},
        {"a NaN", F, "0,5", NULL, NULL, "step5/generator.bias", "holds NaN", false, 2},
        {"a listed step with no weights", F, "0,5,9", NULL, NULL, NULL, "no tensor step9/", false, 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        craft(path, m, cases[i].format, cases[i].steps, both, cases[i].n_at, cases[i].curve, cases[i].skip, cases[i].f32, cases[i].nan);
        Error err = {{0}};
        Snapshots *s = snap_load(path, m, &err);
        if (s) fail_msg("%s: expected a refusal, got: loaded", cases[i].what);
        if (!strstr(err.msg, cases[i].want) || strchr(err.msg, '\n'))
            fail_msg("%s: expected one line with \"%s\", got: %s", cases[i].what, cases[i].want, err.msg);
    }
    // a snapshot in the middle with a tensor missing: refused when that snapshot is asked for
    craft(path, m, F, "0,5", both, 2, NULL, "step0/generator.bias", false, NULL);
    Error err = {{0}};
    Snapshots *s = snap_load(path, m, &err);
    if (!s) fail_msg("%s", err.msg);
    assert_null(snap_model(s, 0, &err));
    assert_non_null(strstr(err.msg, "no tensor step0/generator.bias"));
    snap_free(s);
    // cut short, and not a file at all
    FILE *fp = fopen(path, "r+b");
    assert_non_null(fp);
    assert_int_equal(ftruncate(fileno(fp), 100), 0);
    fclose(fp);
    assert_null(snap_load(path, m, &err));
    assert_non_null(strstr(err.msg, path));
    assert_null(snap_load(dir, m, &err));
    assert_non_null(strstr(err.msg, "not a regular file"));
    unlink(path);
    rmdir(dir);
    mdl_free(m);
}

static const Json *get(const Json *j, const char *key) {
    const Json *v = json_get(j, key);
    if (!v) fail_msg("reference has no \"%s\"", key);
    return v;
}

// Step (stage_id, head) of teacher-forced trace t against a reference matrix; returns the largest difference.
static double compare_step(const Trace *t, const char *stage_id, int head, const Json *want, const char *path, int step) {
    int i = trace_find(t, stage_id, head, 1);
    if (i < 0) fail_msg("%s step %d: no %s head %d in the trace", path, step, stage_id, head);
    const Step *st = trace_step(t, i);
    if ((int)want->count != st->rows) fail_msg("%s step %d: %s: expected: %zu rows, got: %d", path, step, stage_id, want->count, st->rows);
    double worst = 0.0;
    for (int r = 0; r < st->rows; r++)
        for (int c = 0; c < st->cols; c++) {
            double d = fabs(trace_row(st, r)[c] - json_at(json_at(want, (size_t)r), (size_t)c)->number);
            if (d > 1e-5) fail_msg("%s step %d: %s head %d [%d][%d]: maxdiff %g", path, step, stage_id, head, r, c, d);
            worst = fmax(worst, d);
        }
    return worst;
}

// One shipped model's history through the trace against nn.Transformer with the same F16 weights.
static double check_history(const Json *r) {
    Error err;
    char path[512], snaps_path[512];
    snprintf(path, sizeof path, TT_TEST_DATA "/../../%s", get(r, "model_file")->string);
    Model *m = mdl_load(path, &err);
    if (!m) fail_msg("%s", err.msg);
    Snapshots *s = snap_load(snap_path_for(path, snaps_path, sizeof snaps_path), m, &err);
    if (!s) fail_msg("%s", err.msg);
    const Json *snaps = get(r, "snapshots");
    assert_int_equal((int)snaps->count, snap_count(s));
    Tokens src, tgt;
    if (voc_tokenize(m->src, get(r, "sentence")->string, &src, &err) || voc_tokenize(m->tgt, get(r, "target")->string, &tgt, &err))
        fail_msg("%s", err.msg);
    double worst = 0.0;
    for (int k = 0; k < snap_count(s); k++) {
        const Json *want_k = json_at(snaps, (size_t)k);
        assert_int_equal((int)get(want_k, "step")->number, snap_step(s, k));
        Model *at = snap_model(s, k, &err);
        if (!at) fail_msg("%s", err.msg);
        DecodeOptions o = {.mode = DECODE_TEACHER, .target = tgt.ids, .target_len = tgt.n};
        Trace *t = trace_run(at, src.ids, src.n, &o, &err);
        if (!t) fail_msg("%s", err.msg);
        double d = fabs(trace_mean_loss(t) - get(want_k, "mean_loss")->number);
        if (d > 1e-5)
            fail_msg("%s step %d: mean loss: expected: %.7f, got: %.7f", path, snap_step(s, k), get(want_k, "mean_loss")->number,
                     (double)trace_mean_loss(t));
        worst = fmax(worst, d);
        // the probabilities at every position, and every decoder attention weight, layer by layer and head by head
        worst = fmax(worst, compare_step(t, "dec.probs", 0, get(want_k, "probs"), path, snap_step(s, k)));
        const char *stages[2][2] = {{"dec_self_weights", "self_attn"}, {"cross_weights", "cross_attn"}};
        for (int which = 0; which < 2; which++) {
            const Json *layers = get(want_k, stages[which][0]);
            for (size_t l = 0; l < layers->count; l++)
                for (size_t h = 0; h < json_at(layers, l)->count; h++) {
                    char id[64];
                    snprintf(id, sizeof id, "dec.L%zu.%s.weights", l + 1, stages[which][1]);
                    worst = fmax(worst, compare_step(t, id, (int)h + 1, json_at(json_at(layers, l), h), path, snap_step(s, k)));
                }
        }
        const Step *w = trace_step(t, trace_find(t, "dec.L2.cross_attn.weights", 1, 1));
        // what the class is to see: at the start an even spread, at the end the alignment (the supervised head)
        float top = 0.0f;
        for (int i = 0; i < w->rows; i++) {
            float row_max = 0.0f;
            for (int j = 0; j < w->cols; j++) row_max = fmaxf(row_max, trace_row(w, i)[j]);
            top = k == 0 ? fmaxf(top, row_max) : (i == 0 ? row_max : fminf(top, row_max));
        }
        if (k == 0 && !(top < 0.5f)) fail_msg("%s step 0: expected: an even spread (no weight over 0.5), got: %g", path, (double)top);
        if (k == snap_count(s) - 1 && !(top > 0.9f)) fail_msg("%s: the last snapshot: expected: every row over 0.9, got: %g", path, (double)top);
        trace_free(t);
        mdl_free(at);
    }
    voc_tokens_deinit(&src);
    voc_tokens_deinit(&tgt);
    snap_free(s);
    mdl_free(m);
    return worst;
}

// Every snapshot of the shipped models against PyTorch.
static void test_shipped_histories_against_pytorch(void **state) {
    (void)state;
    Error err;
    char *text;
    size_t len;
    if (fio_read_all(REF_DIR "ref_snapshots.json", 1u << 24, &text, &len, &err)) fail_msg("%s", err.msg);
    Json *ref = json_parse(text, len, false, &err);
    free(text);
    if (!ref) fail_msg("%s", err.msg);
    const Json *models = get(ref, "models");
    assert_int_equal((int)models->count, 2);
    for (size_t i = 0; i < models->count; i++)
        printf("%s's history against PyTorch: maxdiff %g\n", get(json_at(models, i), "model_file")->string, check_history(json_at(models, i)));
    json_free(ref);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_schedule),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_broken_files),
        cmocka_unit_test(test_shipped_histories_against_pytorch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
