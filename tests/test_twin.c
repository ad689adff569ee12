// Two models on one sentence (docs/TRACE.md, "Trained beside untrained"):
// both passes are the teacher-forced traces run alone, bit for bit; the
// untrained twin guesses uniformly; a model of another source vocabulary is
// refused, one of another target vocabulary forced on its own output.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "trace.h"
#include "twin.h"

#define MODELS TT_TEST_DATA "/../../assets/models/"
#define SENTENCE "the cat sits on the mat ."

static Model *load(const char *path) {
    Error err;
    Model *m = mdl_load(path, &err);
    if (!m) fail_msg("%s", err.msg);
    return m;
}

static Trace *run(const Model *m, DecodeOptions o) {
    Error err;
    Tokens src;
    if (voc_tokenize(m->src, SENTENCE, &src, &err)) fail_msg("%s", err.msg);
    Trace *t = trace_run(m, src.ids, src.n, &o, &err);
    voc_tokens_deinit(&src);
    if (!t) fail_msg("trace_run: %s", err.msg);
    return t;
}

// Every step of a and b the same, value for value, bit for bit.
static void expect_same_trace(const Trace *a, const Trace *b, const char *what) {
    if (trace_count(a) != trace_count(b)) fail_msg("%s: expected: %d steps, got: %d", what, trace_count(b), trace_count(a));
    for (int i = 0; i < trace_count(a); i++) {
        const Step *x = trace_step(a, i), *y = trace_step(b, i);
        if (x->stage != y->stage || x->rows != y->rows || x->cols != y->cols) fail_msg("%s: step %d differs in its stage or shape", what, i);
        for (int r = 0; r < x->rows; r++)
            if (memcmp(trace_row(x, r), trace_row(y, r), (size_t)x->cols * sizeof(float)))
                fail_msg("%s: step %d (%s) row %d differs", what, i, x->name, r);
    }
    if (memcmp(&(float){trace_mean_loss(a)}, &(float){trace_mean_loss(b)}, sizeof(float))) fail_msg("%s: the mean loss differs", what);
}

static void test_passes_are_the_teacher_forced_traces(void **state) {
    (void)state;
    Model *mine = load(MODELS "en-zh.safetensors"), *twin = load(MODELS "en-zh-random.safetensors");
    Trace *t = run(mine, (DecodeOptions){.mode = DECODE_GREEDY});
    Twin tw;
    Error err;
    if (twin_run(&tw, t, MODELS "en-zh-random.safetensors", NULL, 0, &err)) fail_msg("%s", err.msg);
    assert_true(tw.same_target);
    int n;
    const int *out = trace_output(t, &n);
    DecodeOptions forced = {.mode = DECODE_TEACHER, .target = out, .target_len = n};
    Trace *alone[2] = {run(mine, forced), run(twin, forced)};
    expect_same_trace(tw.forced[0], alone[0], "the trained model's pass");
    expect_same_trace(tw.forced[1], alone[1], "the untrained model's pass");
    Trace *own = run(twin, (DecodeOptions){.mode = DECODE_GREEDY});
    expect_same_trace(tw.own, own, "the untrained model's own output");
    // the untrained twin guesses about uniformly over its 77 tokens; the trained model knows
    float lo = trace_mean_loss(tw.forced[0]), hi = trace_mean_loss(tw.forced[1]);
    if (!(lo < 0.5f)) fail_msg("expected: the trained model's loss under 0.5, got: %g", (double)lo);
    if (fabs(hi - log(77.0)) > 0.1) fail_msg("expected: the untrained twin's loss near ln 77 = %.3f, got: %g", log(77.0), (double)hi);
    for (int i = 0; i < 2; i++) trace_free(alone[i]);
    trace_free(own);
    twin_deinit(&tw);
    trace_free(t);
    mdl_free(mine);
    mdl_free(twin);
}

// Under teacher forcing the first trace's own target is the one both are forced on.
static void test_teacher_forced_first(void **state) {
    (void)state;
    Model *mine = load(MODELS "en-zh.safetensors");
    Error err;
    Tokens tgt;
    if (voc_tokenize(mine->tgt, "貓 坐 在 上", &tgt, &err)) fail_msg("%s", err.msg);
    Trace *t = run(mine, (DecodeOptions){.mode = DECODE_TEACHER, .target = tgt.ids, .target_len = tgt.n});
    Twin tw;
    if (twin_run(&tw, t, MODELS "en-zh-random.safetensors", NULL, 0, &err)) fail_msg("%s", err.msg);
    int n;
    const int *out = trace_output(tw.forced[1], &n);
    assert_int_equal(n, tgt.n);
    assert_memory_equal(out, tgt.ids, (size_t)n * sizeof *out);
    assert_int_equal(trace_options(tw.own)->mode, DECODE_GREEDY);  // the twin's own output is decoded, not forced
    twin_deinit(&tw);
    trace_free(t);
    voc_tokens_deinit(&tgt);
    mdl_free(mine);
}

static void test_other_vocabularies(void **state) {
    (void)state;
    Model *mine = load(MODELS "en-zh.safetensors");
    Trace *t = run(mine, (DecodeOptions){.mode = DECODE_GREEDY});
    Twin tw;
    Error err;
    // another target vocabulary: each forced on its own output
    if (twin_run(&tw, t, MODELS "en-fr.safetensors", NULL, 0, &err)) fail_msg("%s", err.msg);
    assert_false(tw.same_target);
    int n_own, n_forced;
    const int *own = trace_output(tw.own, &n_own), *forced = trace_output(tw.forced[1], &n_forced);
    assert_int_equal(n_own, n_forced);
    assert_memory_equal(own, forced, (size_t)n_own * sizeof *own);
    twin_deinit(&tw);
    // another source vocabulary: refused in one line, nothing made
    assert_int_equal(twin_run(&tw, t, TT_TEST_DATA "/reference/ref_model.safetensors", NULL, 0, &err), -1);
    if (!strstr(err.msg, "another source vocabulary") || strchr(err.msg, '\n')) fail_msg("expected: one line naming the source vocabulary, got: %s", err.msg);
    assert_null(tw.other);
    assert_null(tw.forced[0]);
    // no such file
    assert_int_equal(twin_run(&tw, t, MODELS "no-such-model.safetensors", NULL, 0, &err), -1);
    assert_non_null(strstr(err.msg, "no-such-model"));
    trace_free(t);
    mdl_free(mine);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_passes_are_the_teacher_forced_traces),
        cmocka_unit_test(test_teacher_forced_first),
        cmocka_unit_test(test_other_vocabularies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
