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

// The trace's JSON, parsed.
static Json *json_of(const Trace *t) {
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    assert_int_equal(trace_write_json(t, fp, NULL), 0);
    fclose(fp);
    Error err;
    Json *j = json_parse(buf, len, true, &err);
    free(buf);
    if (!j) fail_msg("trace JSON: %s", err.msg);
    return j;
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
        Json *j = json_of(t);
        const Json *mask = json_get(get(j, "decode"), "look_ahead_mask");
        if (off) assert_true(mask && mask->type == JSON_BOOL && !mask->boolean);
        else assert_null(mask);
        json_free(j);
        trace_free(t);
    }
}

// ---- 2. silencing heads and sub-layers ---------------------------------------

static Ablation parse_ablation(const char *text) {
    Ablation a;
    char why[256];
    if (abl_parse(text, &a, why, sizeof why)) fail_msg("abl_parse(\"%s\"): %s", text, why);
    return a;
}

// nn.Transformer with the head's columns of out_proj.weight zeroed (or the sub-layer's output projection).
static void test_ablate_matches_pytorch(void **state) {
    Fixture *f = *state;
    const Json *cases = get(f->ref, "ablate");
    assert_true(cases->count >= 3);
    for (size_t i = 0; i < cases->count; i++) {
        DecodeOptions o = teacher(f);
        o.ablate = parse_ablation(cases->keys[i]);
        Trace *t = run(f->m, &f->src, o);
        compare_teacher_forced(f, t, &cases->items[i]);
        trace_free(t);
    }
}

// Every head silenced alone: the table's losses against PyTorch's, by name.
static void test_each_head_matches_pytorch(void **state) {
    Fixture *f = *state;
    const Config *c = &f->m->cfg;
    DecodeOptions o = teacher(f);
    o.each_head = true;
    Trace *t = run(f->m, &f->src, o);
    const float *table = trace_each_head_losses(t);
    assert_non_null(table);
    const Json *want = get(f->ref, "each_head");
    int rows = c->n_enc + 2 * c->n_dec;
    assert_int_equal((int)want->count, rows * c->nhead);
    for (int r = 0; r < rows; r++)
        for (int h = 0; h < c->nhead; h++) {
            AblPart part;
            int layer;
            char name[64];
            trace_each_head_part(c, r, &part, &layer);
            abl_item_name((AblItem){(uint8_t)part, (uint8_t)layer, (uint16_t)(h + 1)}, name, sizeof name);
            double w = get(want, name)->number, got = table[r * c->nhead + h];
            if (fabs(got - w) > 1e-5 * w) fail_msg("%s: mean loss expected: %.7g, got: %.7g", name, w, got);
        }
    trace_free(t);
    // without a target there is no loss to compare
    o = (DecodeOptions){.mode = DECODE_GREEDY, .each_head = true};
    Error err;
    assert_null(trace_run(f->m, f->src.ids, f->src.n, &o, &err));
    assert_non_null(strstr(err.msg, "teacher forcing"));
}

static void expect_same_trace(const Trace *a, const Trace *b, const char *what) {
    assert_int_equal(trace_count(a), trace_count(b));
    for (int i = 0; i < trace_count(a); i++) {
        const Step *x = trace_step(a, i), *y = trace_step(b, i);
        if (x->stage != y->stage || x->rows != y->rows || x->cols != y->cols) fail_msg("%s: step %d differs in kind or shape", what, i);
        for (int r = 0; r < x->rows; r++)
            if (memcmp(trace_row(x, r), trace_row(y, r), (size_t)x->cols * sizeof(float)))
                fail_msg("%s: step %d (%s) row %d differs", what, i, x->name, r);
    }
}

// Ablating nothing is the plain trace, bit for bit, in every strategy.
static void test_ablate_nothing_is_the_plain_trace(void **state) {
    Fixture *f = *state;
    DecodeOptions modes[] = {{.mode = DECODE_GREEDY, .max_steps = 5, .ignore_eos = true}, {.mode = DECODE_BEAM, .max_steps = 4},
                             {.mode = DECODE_SAMPLE, .max_steps = 5, .seed = 3}, teacher(f)};
    for (size_t i = 0; i < sizeof modes / sizeof *modes; i++) {
        DecodeOptions o = modes[i];
        Trace *plain = run(f->m, &f->src, o);
        o.ablate = parse_ablation("none");
        Trace *none = run(f->m, &f->src, o);
        // a part silenced and then let go again
        assert_int_equal(abl_toggle(&o.ablate, (AblItem){ABL_DEC_CROSS, 2, 1}), 0);
        assert_int_equal(abl_toggle(&o.ablate, (AblItem){ABL_DEC_CROSS, 2, 1}), 0);
        Trace *again = run(f->m, &f->src, o);
        expect_same_trace(plain, none, "none");
        expect_same_trace(plain, again, "silenced and let go");
        trace_free(plain);
        trace_free(none);
        trace_free(again);
    }
}

static const Step *step_of(const Trace *t, const char *id, int head) {
    int i = trace_find(t, id, head, strncmp(id, "enc.", 4) ? 1 : 0);  // the encoder has no decoding step
    if (i < 0) fail_msg("no step %s head %d", id, head);
    return trace_step(t, i);
}

// A silenced head's columns of the concatenation are exactly 0 while its
// output is still computed; a silenced sub-layer gives 0 and the residual is
// its input, exactly.
static void test_ablate_properties(void **state) {
    Fixture *f = *state;
    int dk = f->m->cfg.d_model / f->m->cfg.nhead;
    Trace *plain = run(f->m, &f->src, teacher(f));
    DecodeOptions o = teacher(f);
    o.ablate = parse_ablation("L2H3, enc.L1.ffn");
    Trace *t = run(f->m, &f->src, o);
    o.ablate = parse_ablation("enc.L1.ffn");  // the same up to the silenced head
    Trace *ffn_only = run(f->m, &f->src, o);
    const Step *concat = step_of(t, "dec.L2.cross_attn.concat", 0);
    const Step *head = step_of(t, "dec.L2.cross_attn.head_out", 3), *head0 = step_of(ffn_only, "dec.L2.cross_attn.head_out", 3);
    for (int r = 0; r < concat->rows; r++) {
        for (int k = 0; k < concat->cols; k++) {
            bool in = k >= 2 * dk && k < 3 * dk;
            if (in && trace_row(concat, r)[k] != 0.0f) fail_msg("concat [%d][%d] expected: 0, got: %g", r, k, (double)trace_row(concat, r)[k]);
            if (!in && k % dk == 0 && trace_row(concat, r)[k] == 0.0f) fail_msg("concat [%d][%d]: another head's value is 0", r, k);
        }
        assert_memory_equal(trace_row(head, r), trace_row(head0, r), (size_t)dk * sizeof(float));
    }
    const Step *ffn = step_of(t, "enc.L1.ffn.out", 0), *res = step_of(t, "enc.L1.residual2", 0), *in = step_of(t, "enc.L1.norm1", 0);
    for (int r = 0; r < ffn->rows; r++) {
        for (int k = 0; k < ffn->cols; k++) assert_true(trace_row(ffn, r)[k] == 0.0f);
        assert_memory_equal(trace_row(res, r), trace_row(in, r), (size_t)res->cols * sizeof(float));
    }
    // the encoder's first sub-layer is untouched; the loss is another
    assert_memory_equal(step_of(t, "enc.L1.norm1", 0)->data, step_of(plain, "enc.L1.norm1", 0)->data, (size_t)in->cols * sizeof(float));
    assert_true(trace_mean_loss(t) != trace_mean_loss(plain));
    trace_free(ffn_only);
    trace_free(t);
    trace_free(plain);
}

// Lists the parser takes and refuses, and parts the model does not have: one line each, nothing run.
static void test_ablate_bad_input(void **state) {
    Fixture *f = *state;
    Ablation a = parse_ablation(" L2H1 , dec.L1.self_attn.H3,enc.L2.ffn,dec.L2.cross_attn,L2H1");
    char buf[256], why[256];
    assert_string_equal(abl_format(&a, buf, sizeof buf), "dec.L2.cross_attn.H1,dec.L1.self_attn.H3,enc.L2.ffn,dec.L2.cross_attn");
    Ablation b = parse_ablation(buf);
    assert_memory_equal(&a, &b, sizeof a);
    assert_true(abl_head(&a, ABL_DEC_CROSS, 2, 4));  // the whole sub-layer
    assert_false(abl_head(&a, ABL_DEC_CROSS, 1, 1));
    static const struct {
        const char *text, *part;
    } bad[] = {
        {"L0H1", "\"L0H1\" is not a head or sub-layer"}, {"L2H", "\"L2H\""},        {"enc.L1.cross_attn", "\"enc.L1.cross_attn\""},
        {"dec.L2.ffn.H1", "\"dec.L2.ffn.H1\""},         {"L1H1,,L1H2", "empty"},     {"L1H1,", "ends with a comma"},
        {"dec.L65.ffn", "\"dec.L65.ffn\""},             {"L1H257", "\"L1H257\""}, {"L1H1\x01", "U+0001"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        Ablation keep = a;
        why[0] = '\0';
        if (!abl_parse(bad[i].text, &keep, why, sizeof why)) fail_msg("\"%s\": expected a refusal", bad[i].text);
        if (!strstr(why, bad[i].part)) fail_msg("\"%s\": expected: a message containing %s, got: %s", bad[i].text, bad[i].part, why);
        assert_null(strchr(why, '\n'));
        assert_memory_equal(&keep, &a, sizeof a);  // nothing changed
    }
    static const struct {
        const char *text, *msg;
    } lacks[] = {
        {"L3H1", "cannot silence dec.L3.cross_attn.H1: the model's decoder has 2 layers"},
        {"enc.L3.self_attn", "cannot silence enc.L3.self_attn: the model's encoder has 2 layers"},
        {"dec.L1.self_attn.H5", "cannot silence dec.L1.self_attn.H5: the model has 4 heads per attention layer"},
    };
    for (size_t i = 0; i < sizeof lacks / sizeof *lacks; i++) {
        DecodeOptions o = {.mode = DECODE_GREEDY, .ablate = parse_ablation(lacks[i].text)};
        Error err;
        assert_null(trace_run(f->m, f->src.ids, f->src.n, &o, &err));
        assert_string_equal(err.msg, lacks[i].msg);
    }
}

// The window's comparison: the passes without and with the silencing, and the table of each head.
static void test_compare(void **state) {
    Fixture *f = *state;
    DecodeOptions o = teacher(f);
    o.ablate = parse_ablation("L2H1,L1H3");
    Trace *t = run(f->m, &f->src, o);
    TraceCompare c;
    Error err;
    if (trace_compare(t, NULL, NULL, 0, &c, &err)) fail_msg("%s", err.msg);
    Trace *plain = run(f->m, &f->src, teacher(f));
    assert_true(trace_mean_loss(c.forced[0]) == trace_mean_loss(plain));
    assert_true(trace_mean_loss(c.forced[1]) == trace_mean_loss(t));
    double want = get(get(get(f->ref, "ablate"), "L2H1,L1H3"), "mean_loss")->number;
    assert_true(fabs(trace_mean_loss(c.forced[1]) - want) <= 1e-5 * want);
    float loss;
    int best;
    assert_true(trace_forced_position(c.forced[1], f->tgt.n, &loss, &best));  // the <eos> position
    assert_false(trace_forced_position(c.forced[1], f->tgt.n + 1, &loss, &best));
    assert_false(trace_forced_position(c.free[1], 0, &loss, &best));  // not teacher-forced
    assert_int_equal(trace_options(c.free[0])->mode, DECODE_GREEDY);
    assert_int_equal(trace_options(c.free[0])->ablate.n, 0);
    assert_int_equal(trace_options(c.free[1])->ablate.n, 2);
    double dec_l2_h1 = get(get(f->ref, "each_head"), "dec.L2.cross_attn.H1")->number;
    int row = f->m->cfg.n_enc + 3;  // dec.L2.cross_attn
    assert_true(fabs(c.each_head[row * f->m->cfg.nhead] - dec_l2_h1) <= 1e-5 * dec_l2_h1);
    assert_true(c.aer[0] < 0 && c.aer[1] < 0);  // no supervised head, no corpus
    trace_compare_deinit(&c);
    trace_free(plain);
    trace_free(t);
}

// The JSON's decode settings list the silenced parts.
static void test_ablate_in_json(void **state) {
    Fixture *f = *state;
    DecodeOptions o = {.mode = DECODE_GREEDY, .max_steps = 2, .ablate = parse_ablation("L2H1,enc.L1.ffn")};
    Trace *t = run(f->m, &f->src, o);
    Json *j = json_of(t);
    const Json *list = get(get(j, "decode"), "ablate");
    assert_int_equal((int)list->count, 2);
    assert_string_equal(json_at(list, 0)->string, "dec.L2.cross_attn.H1");
    assert_string_equal(json_at(list, 1)->string, "enc.L1.ffn");
    json_free(j);
    trace_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_no_mask_matches_pytorch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_mask_leaks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_mask_in_json, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ablate_matches_pytorch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_each_head_matches_pytorch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ablate_nothing_is_the_plain_trace, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ablate_properties, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ablate_bad_input, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ablate_in_json, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compare, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
