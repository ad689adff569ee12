// The stage table (stage.h): every stage a trace records is in it, with the
// kind the trace records; ids and human names read as users see them.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "stage.h"
#include "trace.h"

#define ASSETS TT_TEST_DATA "/../../assets"

static Model *load(void) {
    Error err;
    Model *m = mdl_load(ASSETS "/models/en-zh.safetensors", &err);
    if (!m) fail_msg("%s", err.msg);
    return m;
}

static Trace *run(const Model *m, DecodeOptions *o) {
    Tokens tok;
    Error err;
    if (voc_tokenize(m->src, "the cat sits on the mat .", &tok, &err)) fail_msg("%s", err.msg);
    Trace *t = trace_run(m, tok.ids, tok.n, o, &err);
    voc_tokens_deinit(&tok);
    if (!t) fail_msg("%s", err.msg);
    return t;
}

// Every strategy, and a padded source: between them every stage the trace can record.
static void test_every_recorded_stage_is_in_the_table(void **state) {
    (void)state;
    Model *m = load();
    static const int target[] = {5, 6, 7};
    DecodeOptions runs[] = {{.mode = DECODE_GREEDY}, {.mode = DECODE_BEAM}, {.mode = DECODE_SAMPLE, .seed = 3},
                            {.mode = DECODE_TEACHER, .target = target, .target_len = 3}, {.mode = DECODE_GREEDY, .pad_to = 12}};
    bool seen[256] = {false};
    assert_true(stage_count() <= 256);
    for (size_t r = 0; r < sizeof runs / sizeof *runs; r++) {
        Trace *t = run(m, &runs[r]);
        for (int i = 0; i < trace_count(t); i++) {
            const Step *s = trace_step(t, i);
            const StageInfo *info = stage_find(s->name);
            if (!info) fail_msg("step %d: %s is not in the stage table", i, s->name);
            assert_ptr_equal(info, s->stage);
            if (strcmp(info->kind, s->kind)) fail_msg("%s: expected: kind %s, got: %s", s->name, info->kind, s->kind);
            if (info->layered != (s->layer > 0)) fail_msg("%s: layered %d, but the step's layer is %d", s->name, info->layered, s->layer);
            if (info->per_head != (s->head > 0)) fail_msg("%s: per_head %d, but the step's head is %d", s->name, info->per_head, s->head);
            // the id users see parses back to the same stage and layer
            char id[128];
            int layer;
            trace_stage_id(s, id, sizeof id);
            assert_ptr_equal(stage_parse_id(id, &layer), info);
            assert_int_equal(layer, s->layer);
            assert_int_equal(trace_find(t, id, s->head, s->dstep), i);
            seen[info - stage_at(0)] = true;
        }
        trace_free(t);
    }
    // and the table holds nothing a trace never records
    for (int i = 0; i < stage_count(); i++)
        if (!seen[i]) fail_msg("%s is in the stage table but no trace recorded it", stage_at(i)->name);
    mdl_free(m);
}

static void test_stage_ids(void **state) {
    (void)state;
    int layer;
    assert_string_equal(stage_parse_id("dec.L2.cross_attn.weights", &layer)->name, "dec.cross_attn.weights");
    assert_int_equal(layer, 2);
    assert_string_equal(stage_parse_id("enc.L12.ffn.out", &layer)->name, "enc.ffn.out");
    assert_int_equal(layer, 12);
    assert_string_equal(stage_parse_id("dec.probs", &layer)->name, "dec.probs");
    assert_int_equal(layer, 0);
    // a layered stage needs its layer, an unlayered one has none; no layer 0 or junk
    assert_null(stage_parse_id("dec.cross_attn.weights", &layer));
    assert_null(stage_parse_id("dec.L1.probs", &layer));
    assert_null(stage_parse_id("dec.L0.cross_attn.weights", &layer));
    assert_null(stage_parse_id("dec.L1x.cross_attn.weights", &layer));
    assert_null(stage_parse_id("dec.L1.nothing", &layer));
    assert_null(stage_parse_id("", &layer));
    char buf[64];
    assert_string_equal(stage_id(stage_find("enc.self_attn.weights"), 1, buf, sizeof buf), "enc.L1.self_attn.weights");
    assert_string_equal(stage_id(stage_find("out.tokens"), 0, buf, sizeof buf), "out.tokens");
}

static void test_human_names(void **state) {
    (void)state;
    char buf[160];
    const StageInfo *w = stage_find("enc.self_attn.weights");
    assert_string_equal(stage_human_name(w, 1, STAGE_EN, buf, sizeof buf), "Encoder layer 1 · self-attention · weights");
    assert_string_equal(stage_human_name(w, 1, STAGE_ZH_TW, buf, sizeof buf), "編碼器第 1 層・自注意力・權重");
    assert_string_equal(stage_human_name(stage_find("dec.cross_attn.weights"), 2, STAGE_EN, buf, sizeof buf),
                        "Decoder layer 2 · cross-attention · weights");
    assert_string_equal(stage_human_name(stage_find("dec.self_attn.masked_scores"), 1, STAGE_EN, buf, sizeof buf),
                        "Decoder layer 1 · masked self-attention · masked scores");
    assert_string_equal(stage_human_name(stage_find("dec.probs"), 0, STAGE_EN, buf, sizeof buf),
                        "Output layer · next-token probabilities");
    // every stage has a name in both languages
    for (int i = 0; i < stage_count(); i++) {
        const StageInfo *s = stage_at(i);
        assert_non_null(s->what[STAGE_EN]);
        assert_non_null(s->what[STAGE_ZH_TW]);
        assert_true(strlen(stage_human_name(s, 1, STAGE_ZH_TW, buf, sizeof buf)) > 0);
    }
}

static void test_groups_and_flags(void **state) {
    (void)state;
    const StageInfo *g[8];
    assert_int_equal(stage_group(STAGE_GROUP_MASKING, g, 8), 4);
    static const char *const masking[] = {"dec.look_ahead_mask", "dec.self_attn.scores", "dec.self_attn.masked_scores",
                                          "dec.self_attn.weights"};
    for (int i = 0; i < 4; i++) assert_string_equal(g[i]->name, masking[i]);
    // attention weights: the three softmaxes, and nothing else
    int weights = 0;
    for (int i = 0; i < stage_count(); i++) weights += stage_at(i)->attention_weights;
    assert_int_equal(weights, 3);
    assert_true(stage_find("dec.cross_attn.weights")->attention_weights);
    // each sub-layer's scores, weights and output are navigation stops
    static const char *const stops[] = {"enc.self_attn.scores", "enc.self_attn.weights", "enc.self_attn.out_proj",
                                        "dec.self_attn.scores", "dec.self_attn.weights", "dec.self_attn.out_proj",
                                        "dec.cross_attn.scores", "dec.cross_attn.weights", "dec.cross_attn.out_proj",
                                        "enc.ffn.out", "dec.ffn.out", "enc.norm1", "enc.norm2", "dec.norm3"};
    for (size_t i = 0; i < sizeof stops / sizeof *stops; i++)
        if (!stage_find(stops[i])->stop) fail_msg("%s is not a stop", stops[i]);
    assert_false(stage_find("enc.self_attn.q")->stop);
    // only the decoder's self-attention hides the future
    assert_true(stage_find("dec.self_attn.weights")->causal);
    assert_false(stage_find("dec.self_attn.scores")->causal);
    assert_false(stage_find("dec.cross_attn.weights")->causal);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_recorded_stage_is_in_the_table),
        cmocka_unit_test(test_stage_ids),
        cmocka_unit_test(test_human_names),
        cmocka_unit_test(test_groups_and_flags),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
