// What a KV cache saves (docs/TRACE.md, "The KV cache"): the multiply-adds
// against the products PyTorch runs (tests/reference/make_kvcache.py), and the
// rows a decoder keeps from one step to the next, bit for bit.
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
#include "kvcache.h"
#include "model.h"
#include "trace.h"

#define REF_DIR TT_TEST_DATA "/reference/"
#define REF_SENTENCE "i love natural language processing"

static const Json *get(const Json *j, const char *key) {
    const Json *v = json_get(j, key);
    if (!v) fail_msg("reference has no \"%s\"", key);
    return v;
}

static void test_counts_match_pytorch(void **state) {
    (void)state;
    char *text;
    size_t len;
    Error err;
    if (fio_read_all(REF_DIR "ref_kvcache.json", 1u << 20, &text, &len, &err)) fail_msg("%s", err.msg);
    Json *ref = json_parse(text, len, false, &err);
    free(text);
    if (!ref) fail_msg("ref_kvcache.json: %s", err.msg);
    const Json *cases = get(ref, "cases");
    assert_true(cases->count >= 4);
    for (size_t i = 0; i < cases->count; i++) {
        const Json *c = json_at(cases, i);
        Config cfg = {.d_model = (int)get(c, "d_model")->number, .nhead = (int)get(c, "nhead")->number,
                      .n_enc = (int)get(c, "num_encoder_layers")->number, .n_dec = (int)get(c, "num_decoder_layers")->number,
                      .d_ff = (int)get(c, "dim_feedforward")->number, .tgt_vocab = (int)get(c, "tgt_vocab_size")->number};
        KvCost k = kv_cost(&cfg, (int)get(c, "source_length")->number, (int)get(c, "decoding_steps")->number);
        uint64_t with = (uint64_t)get(c, "with_kv_cache")->number, without = (uint64_t)get(c, "without_kv_cache")->number;
        if (k.with_cache != with || k.without_cache != without)
            fail_msg("%s: expected: %llu with and %llu without a KV cache, got: %llu and %llu", get(c, "name")->string,
                     (unsigned long long)with, (unsigned long long)without, (unsigned long long)k.with_cache,
                     (unsigned long long)k.without_cache);
    }
    // the paper's base model is the one the reference calls so
    Config paper = kv_paper_config();
    assert_int_equal(paper.d_model, 512);
    assert_int_equal(paper.n_dec, 6);
    assert_int_equal(paper.d_ff, 2048);
    json_free(ref);
}

static Trace *run(const Model *m, DecodeOptions o) {
    Error err;
    Tokens src;
    if (voc_tokenize(m->src, REF_SENTENCE, &src, &err)) fail_msg("%s", err.msg);
    Trace *t = trace_run(m, src.ids, src.n, &o, &err);
    voc_tokens_deinit(&src);
    if (!t) fail_msg("trace_run: %s", err.msg);
    return t;
}

// Every decoder matrix from step 2 keeps all its earlier rows; returns how many steps were checked.
static int check_rows_kept(const Trace *t) {
    int checked = 0;
    for (int i = 0; i < trace_count(t); i++) {
        const Step *s = trace_step(t, i), *before = kv_step_before(t, s);
        if (!before) continue;
        checked++;
        int kept = before->rows < s->rows ? before->rows : s->rows;
        for (int r = 0; r < kept; r++) {
            if (kv_row_unchanged(before, s, r)) continue;
            char id[96];
            fail_msg("expected: row %d of %s head %d at step %d equal to step %d's, got: a difference", r + 1,
                     trace_stage_id(s, id, sizeof id), s->head, s->dstep, before->dstep);
        }
        assert_true(before->rows <= s->rows);
    }
    return checked;
}

// Greedy decoding shares the rows of one step with the next; beam search of
// width 1 runs each step as a whole pass over the prefix. Both keep every
// earlier row bit for bit: what a KV cache relies on.
static void test_earlier_rows_never_change(void **state) {
    (void)state;
    Error err;
    Model *m = mdl_load(REF_DIR "ref_model.safetensors", &err);
    if (!m) fail_msg("%s", err.msg);
    Trace *greedy = run(m, (DecodeOptions){.mode = DECODE_GREEDY, .max_steps = 6, .ignore_eos = true});
    Trace *whole = run(m, (DecodeOptions){.mode = DECODE_BEAM, .beam_width = 1, .max_steps = 6, .ignore_eos = true});
    assert_true(check_rows_kept(greedy) > 100);
    assert_true(check_rows_kept(whole) > 100);
    assert_int_equal(trace_decoding_steps(greedy), 6);
    // the memory's K and V have every row from step 1: nothing new in them
    const StageInfo *k = stage_kv_cache(0), *v = stage_kv_cache(1);
    assert_non_null(k);
    assert_non_null(v);
    assert_true(k != v);
    int at = trace_find(greedy, "dec.L1.cross_attn.k", 1, 3), before = trace_find(greedy, "dec.L1.cross_attn.k", 1, 2);
    assert_true(at >= 0 && before >= 0);
    assert_int_equal(trace_step(greedy, at)->rows, trace_step(greedy, before)->rows);
    // a cached K grows by one row a step
    at = trace_find(greedy, "dec.L2.self_attn.k", 2, 4);
    assert_true(at >= 0);
    assert_ptr_equal(trace_step(greedy, at)->stage, k);
    assert_int_equal(trace_step(greedy, at)->rows, 4);
    trace_free(greedy);
    trace_free(whole);
    mdl_free(m);
}

// Without the look-ahead mask each new token changes the earlier rows: there
// is nothing to keep, and the view says which rows changed.
static void test_without_the_mask_rows_change(void **state) {
    (void)state;
    Error err;
    Model *m = mdl_load(REF_DIR "ref_model.safetensors", &err);
    if (!m) fail_msg("%s", err.msg);
    Trace *t = run(m, (DecodeOptions){.mode = DECODE_GREEDY, .max_steps = 4, .ignore_eos = true, .no_look_ahead_mask = true});
    int i = trace_find(t, "dec.L1.self_attn.weights", 1, 3);
    const Step *s = trace_step(t, i), *before = kv_step_before(t, s);
    assert_non_null(before);
    int changed = 0;
    for (int r = 0; r < before->rows; r++) changed += !kv_row_unchanged(before, s, r);
    assert_true(changed > 0);
    trace_free(t);
    mdl_free(m);
}

// The view applies to the decoder's matrices from step 2 in generation only.
static void test_where_the_view_applies(void **state) {
    (void)state;
    Error err;
    Model *m = mdl_load(REF_DIR "ref_model.safetensors", &err);
    if (!m) fail_msg("%s", err.msg);
    Trace *t = run(m, (DecodeOptions){.mode = DECODE_GREEDY, .max_steps = 3, .ignore_eos = true});
    assert_null(kv_step_before(t, trace_step(t, trace_find(t, "dec.L1.self_attn.weights", 1, 1))));    // step 1: nothing before
    assert_non_null(kv_step_before(t, trace_step(t, trace_find(t, "dec.L1.self_attn.weights", 1, 2))));
    assert_null(kv_step_before(t, trace_step(t, trace_find(t, "enc.L1.self_attn.weights", 1, 0))));    // the encoder
    assert_null(kv_step_before(t, trace_step(t, trace_find(t, "dec.probs", 0, 2))));                   // bars, not a matrix
    trace_free(t);
    Tokens src, tgt;
    if (voc_tokenize(m->src, REF_SENTENCE, &src, &err) || voc_tokenize(m->tgt, "我 愛 自然", &tgt, &err)) fail_msg("%s", err.msg);
    DecodeOptions o = {.mode = DECODE_TEACHER, .target = tgt.ids, .target_len = tgt.n};
    t = trace_run(m, src.ids, src.n, &o, &err);
    if (!t) fail_msg("%s", err.msg);
    for (int i = 0; i < trace_count(t); i++) assert_null(kv_step_before(t, trace_step(t, i)));  // one pass: no steps to compare
    assert_int_equal(trace_decoding_steps(t), 0);
    trace_free(t);
    voc_tokens_deinit(&src);
    voc_tokens_deinit(&tgt);
    mdl_free(m);
}

// Rows compare over the earlier step's columns; another width is not the same row.
static void test_row_comparison(void **state) {
    (void)state;
    float a[6] = {1, 2, 3, 4, 5, 6}, b[8] = {1, 2, 3, -INFINITY, 4, 5, 7, -INFINITY};
    Step sa = {.rows = 2, .cols = 3, .data = a}, sb = {.rows = 2, .cols = 4, .data = b};
    assert_true(kv_row_unchanged(&sa, &sb, 0));
    assert_false(kv_row_unchanged(&sa, &sb, 1));
    assert_false(kv_row_unchanged(&sb, &sa, 0));  // the later step is never narrower
    assert_false(kv_row_unchanged(&sa, &sb, 2));
    assert_false(kv_row_unchanged(NULL, &sb, 0));
    float z[3] = {0.0f, 2, 3}, nz[3] = {-0.0f, 2, 3};  // bit for bit: −0 is not 0
    Step s0 = {.rows = 1, .cols = 3, .data = z}, s1 = {.rows = 1, .cols = 3, .data = nz};
    assert_false(kv_row_unchanged(&s0, &s1, 0));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts_match_pytorch),
        cmocka_unit_test(test_earlier_rows_never_change),
        cmocka_unit_test(test_without_the_mask_rows_change),
        cmocka_unit_test(test_where_the_view_applies),
        cmocka_unit_test(test_row_comparison),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
