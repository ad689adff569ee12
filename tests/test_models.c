// The shipped models meet their quality bars (no training here): greedy exact
// match on the held-out test split, the alignment error rate of the head the
// app shows, and the course's example sentences — translated exactly, with
// every target word attending most to the source word a teacher would draw.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "evaluate.h"
#include "metrics.h"
#include "model.h"
#include "toygen.h"
#include "trace.h"

#define ASSETS TT_TEST_DATA "/../../assets"

static const char *pairs[] = {"en-zh", "en-fr"};

static Model *load(const char *pair) {
    char path[512];
    snprintf(path, sizeof path, ASSETS "/models/%s.safetensors", pair);
    Error err;
    Model *m = mdl_load(path, &err);
    if (!m) fail_msg("%s", err.msg);
    return m;
}

static void test_quality_on_the_test_split(void **state) {
    (void)state;
    for (int p = 0; p < 2; p++) {
        Model *m = load(pairs[p]);
        char path[512];
        snprintf(path, sizeof path, ASSETS "/corpus/%s/test.tsv", pairs[p]);
        Error err;
        Corpus *c = corpus_read(path, false, &err);
        if (!c) fail_msg("%s", err.msg);
        EvalResult r;
        if (ev_run(m, c, 0, &r, &err)) fail_msg("%s", err.msg);
        assert_int_equal(r.too_long, 0);
        double exact = (double)r.exact / r.evaluated;
        assert_int_equal(m->align_layer, 2);
        assert_int_equal(m->align_head, 1);
        double aer = ev_aer(&r, m->align_layer, m->align_head);
        print_message("%s: exact match %.2f%% of %d, BLEU %.2f, AER of the supervised head %.2f%%\n", pairs[p], 100 * exact, r.evaluated,
                      100 * r.bleu, 100 * aer);
        if (exact < 0.98) fail_msg("%s: exact match expected: at least 98%%, got: %.2f%%", pairs[p], 100 * exact);
        if (aer > 0.10) fail_msg("%s: AER of L%d head %d expected: at most 10%%, got: %.2f%%", pairs[p], m->align_layer, m->align_head, 100 * aer);
        ev_result_deinit(&r);
        corpus_free(c);
        mdl_free(m);
    }
}

// Splits "a b c" into tokens in buf; returns the count.
static int split(char *buf, const char **tok, int max) {
    int n = 0;
    for (char *t = strtok(buf, " "); t && n < max; t = strtok(NULL, " ")) tok[n++] = t;
    return n;
}

static void test_course_examples(void **state) {
    (void)state;
    for (int p = 0; p < 2; p++) {
        Model *m = load(pairs[p]);
        int count = tg_example_count(pairs[p]);
        assert_true(count >= 3);
        for (int i = 0; i < count; i++) {
            TgExample ex;
            assert_int_equal(tg_example(pairs[p], i, &ex), 0);
            Tokens src;
            Error err;
            if (voc_tokenize(m->src, ex.source, &src, &err)) fail_msg("%s: %s", ex.source, err.msg);
            assert_int_equal(src.n_unknown, 0);
            Trace *t = trace_run(m, src.ids, src.n, &(DecodeOptions){.mode = DECODE_GREEDY}, &err);
            if (!t) fail_msg("%s", err.msg);
            int n;
            const int *out = trace_output(t, &n);
            char got[512] = "";
            for (int k = 0; k < n; k++) {
                strcat(got, k ? " " : "");
                strcat(got, voc_token(m->tgt, out[k]));
            }
            if (strcmp(got, ex.target)) fail_msg("%s \"%s\": expected: \"%s\", got: \"%s\"", pairs[p], ex.source, ex.target, got);
            trace_free(t);

            // the supervised head on the gold target: each word's most attended source word is a gold one
            char buf[256];
            const char *tok[64];
            snprintf(buf, sizeof buf, "%s", ex.target);
            int nt = split(buf, tok, 64);
            int tgt[64];
            voc_lookup(m->tgt, tok, nt, tgt);
            t = trace_run(m, src.ids, src.n, &(DecodeOptions){.mode = DECODE_TEACHER, .target = tgt, .target_len = nt}, &err);
            char stage[64];
            snprintf(stage, sizeof stage, "dec.L%d.cross_attn.weights", m->align_layer);
            const Step *s = trace_step(t, trace_find(t, stage, m->align_head, 1));
            AlignLink links[64];
            int k = met_argmax_links(s->data, s->rows, s->cols, NULL, -1, links);
            for (int row = 0; row < nt && row < k; row++) {
                char pattern[32];
                bool has_gold = false, hit = false;
                for (int j = 0; j < src.n; j++) {
                    snprintf(pattern, sizeof pattern, " %d-%d ", j, row);
                    char padded[300];
                    snprintf(padded, sizeof padded, " %s ", ex.alignment);
                    if (strstr(padded, pattern)) {
                        has_gold = true;
                        hit |= links[row].src == j;
                    }
                }
                if (has_gold && !hit)
                    fail_msg("%s \"%s\": target word %d (%s) attends most to source word %d (%s), not to a gold one (%s)", pairs[p], ex.source,
                             row, tok[row], links[row].src, voc_token(m->src, src.ids[links[row].src]), ex.alignment);
            }
            trace_free(t);
            voc_tokens_deinit(&src);
        }
        print_message("%s: %d course examples translate exactly and align\n", pairs[p], count);
        mdl_free(m);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quality_on_the_test_split),
        cmocka_unit_test(test_course_examples),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
