// BLEU, exact match, AER and the attention → alignment rule.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"

// Splits a sentence on spaces into at most 32 tokens (pointers into buf).
typedef struct {
    char buf[256];
    const char *tok[32];
    int n;
} Words;

static void words(Words *w, const char *text) {
    snprintf(w->buf, sizeof w->buf, "%s", text);
    w->n = 0;
    for (char *save = NULL, *t = strtok_r(w->buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) w->tok[w->n++] = t;
}

static void add(BleuStats *s, const char *hyp, const char *ref) {
    Words h, r;
    words(&h, hyp);
    words(&r, ref);
    met_bleu_add(s, h.tok, h.n, r.tok, r.n);
}

static void expect_near(double got, double want, const char *what) {
    double maxdiff = fabs(got - want);
    if (!(maxdiff <= 1e-12)) fail_msg("%s: expected: %.15f, got: %.15f, maxdiff: %.3g", what, want, got, maxdiff);
}

static double bleu_of(const char *hyp, const char *ref) {
    BleuStats s;
    met_bleu_init(&s);
    add(&s, hyp, ref);
    return met_bleu(&s);
}

static void test_bleu_identical_and_disjoint(void **state) {
    (void)state;
    expect_near(bleu_of("the cat sits on the mat .", "the cat sits on the mat ."), 1.0, "identical");
    expect_near(bleu_of("a dog runs far away", "the cat sits on the mat ."), 0.0, "no overlap");
    // fewer than four tokens: no 4-grams, so no smoothing means 0
    expect_near(bleu_of("the cat sits", "the cat sits"), 0.0, "three tokens");
    BleuStats empty;
    met_bleu_init(&empty);
    expect_near(met_bleu(&empty), 0.0, "nothing added");
    expect_near(met_bleu_brevity_penalty(&empty), 0.0, "no hypothesis tokens");
}

static void test_bleu_clipping(void **state) {
    (void)state;
    // "the" occurs twice in the reference, so at most two of the four count
    BleuStats s;
    met_bleu_init(&s);
    add(&s, "the the the the", "the cat on the mat");
    expect_near(met_bleu_precision(&s, 1), 2.0 / 4.0, "p1");
    // "the the" is not in the reference
    expect_near(met_bleu_precision(&s, 2), 0.0, "p2");
    expect_near(met_bleu_precision(&s, 5), 0.0, "p5 is not defined");
}

// A worked example over a corpus of two sentences.
//
// 1) hyp "the cat sits on the mat"      ref "the cat sits on the mat ."
//    every n-gram of the hypothesis is in the reference:
//    matches/total = 6/6, 5/5, 4/4, 3/3; lengths c = 6, r = 7
// 2) hyp "a dog sleeps on the bed ."    ref "the dog sleeps under the bed ."
//    1-grams: dog sleeps the bed .                       5 of 7
//    2-grams: "dog sleeps" "the bed" "bed ."             3 of 6
//    3-grams: "the bed ."                                1 of 5
//    4-grams: none                                       0 of 4
//    lengths c = 7, r = 7
// Corpus: p1 = 11/13, p2 = 8/11, p3 = 5/9, p4 = 3/7, c = 13, r = 14
//   BP   = exp(1 − 14/13) = exp(−1/13) ≈ 0.925961
//   BLEU = BP · (11/13 · 8/11 · 5/9 · 3/7)^¼ = exp(−1/13) · (1320/9009)^¼ ≈ 0.572884
// Sentence 2 alone would score 0 (p4 = 0): corpus BLEU pools the counts first.
static void test_bleu_worked_example(void **state) {
    (void)state;
    BleuStats s;
    met_bleu_init(&s);
    add(&s, "the cat sits on the mat", "the cat sits on the mat .");
    expect_near(met_bleu_brevity_penalty(&s), exp(-1.0 / 6.0), "BP of sentence 1");
    expect_near(met_bleu(&s), exp(-1.0 / 6.0), "BLEU of sentence 1");
    add(&s, "a dog sleeps on the bed .", "the dog sleeps under the bed .");
    const double p[4] = {11.0 / 13, 8.0 / 11, 5.0 / 9, 3.0 / 7};
    for (int n = 1; n <= 4; n++) {
        char what[16];
        snprintf(what, sizeof what, "p%d", n);
        expect_near(met_bleu_precision(&s, n), p[n - 1], what);
    }
    assert_int_equal(s.hyp_len, 13);
    assert_int_equal(s.ref_len, 14);
    expect_near(met_bleu_brevity_penalty(&s), exp(-1.0 / 13.0), "BP");
    expect_near(met_bleu(&s), exp(-1.0 / 13.0) * pow(1320.0 / 9009.0, 0.25), "BLEU");
    if (fabs(met_bleu(&s) - 0.572884) > 1e-6) fail_msg("expected: 0.572884, got: %f", met_bleu(&s));

    // a longer hypothesis has no brevity penalty
    BleuStats longer;
    met_bleu_init(&longer);
    add(&longer, "the cat sits on the mat . .", "the cat sits on the mat .");
    expect_near(met_bleu_brevity_penalty(&longer), 1.0, "BP of a longer hypothesis");
}

static void test_bleu_ids_match_strings(void **state) {
    (void)state;
    // the same two sentences as ids: the=1 cat=2 sits=3 on=4 mat=5 .=6 a=7 dog=8 sleeps=9 bed=10 under=11
    const int h1[] = {1, 2, 3, 4, 1, 5}, r1[] = {1, 2, 3, 4, 1, 5, 6};
    const int h2[] = {7, 8, 9, 4, 1, 10, 6}, r2[] = {1, 8, 9, 11, 1, 10, 6};
    BleuStats s;
    met_bleu_init(&s);
    met_bleu_add_ids(&s, h1, 6, r1, 7);
    met_bleu_add_ids(&s, h2, 7, r2, 7);
    expect_near(met_bleu(&s), exp(-1.0 / 13.0) * pow(1320.0 / 9009.0, 0.25), "BLEU over ids");
}

static void test_exact_match(void **state) {
    (void)state;
    Words a, b, c;
    words(&a, "le chat rouge");
    words(&b, "le chat rouge");
    words(&c, "le chat");
    assert_true(met_exact_match(a.tok, a.n, b.tok, b.n));
    assert_false(met_exact_match(a.tok, a.n, c.tok, c.n));
    words(&c, "le chien rouge");
    assert_false(met_exact_match(a.tok, a.n, c.tok, c.n));
    assert_true(met_exact_match(NULL, 0, NULL, 0));
    const int x[] = {4, 5, 6}, y[] = {4, 5, 7};
    assert_true(met_exact_match_ids(x, 3, x, 3));
    assert_false(met_exact_match_ids(x, 3, y, 3));
    assert_false(met_exact_match_ids(x, 2, x, 3));
}

static void test_aer(void **state) {
    (void)state;
    AerStats st;
    met_aer_init(&st);
    expect_near(met_aer(&st), 0.0, "no links at all");

    // S = {0-0, 1-1, 2-2}, A = {0-0, 1-2}: |A∩S| = 1, AER = 1 − 2·1/(2 + 3) = 0.6
    const AlignLink s1[] = {{0, 0}, {1, 1}, {2, 2}}, a1[] = {{0, 0}, {1, 2}};
    met_aer_add(&st, a1, 2, s1, 3, NULL, 0);
    expect_near(met_aer(&st), 0.6, "sentence 1");

    // S = {0-1}, A = {0-1, 0-1} (the repeat counts once): perfect alone.
    // Corpus: |A| = 3, |S| = 4, |A∩S| = 2, AER = 1 − 4/7 = 3/7, not the mean 0.3
    const AlignLink s2[] = {{0, 1}}, a2[] = {{0, 1}, {0, 1}};
    met_aer_add(&st, a2, 2, s2, 1, NULL, 0);
    assert_int_equal(st.a, 3);
    assert_int_equal(st.s, 4);
    assert_int_equal(st.a_and_s, 2);
    expect_near(met_aer(&st), 3.0 / 7.0, "corpus");

    // possible links: S = {0-0}, P = {0-0, 1-1}, A = {0-0, 1-1}:
    // AER = 1 − (1 + 2)/(2 + 1) = 0
    AerStats sp;
    met_aer_init(&sp);
    const AlignLink s3[] = {{0, 0}}, p3[] = {{0, 0}, {1, 1}}, a3[] = {{0, 0}, {1, 1}};
    met_aer_add(&sp, a3, 2, s3, 1, p3, 2);
    expect_near(met_aer(&sp), 0.0, "possible links");

    // all wrong: AER = 1
    AerStats wrong;
    met_aer_init(&wrong);
    const AlignLink a4[] = {{1, 0}};
    met_aer_add(&wrong, a4, 1, s3, 1, NULL, 0);
    expect_near(met_aer(&wrong), 1.0, "all wrong");
}

static void test_argmax_links(void **state) {
    (void)state;
    // 4 rows (target tokens produced, the last <eos> = id 2) × 3 source columns
    const float w[4 * 3] = {
        0.1f, 0.7f, 0.2f,   // → source 1
        0.4f, 0.4f, 0.2f,   // tie: the leftmost, source 0
        NAN,  0.1f, 0.3f,   // NaN ignored → source 2
        0.9f, 0.05f, 0.05f, // <eos>: no link
    };
    const int tgt_ids[] = {10, 11, 12, 2};
    AlignLink out[4];
    int n = met_argmax_links(w, 4, 3, tgt_ids, 2, out);
    assert_int_equal(n, 3);
    const AlignLink want[] = {{1, 0}, {0, 1}, {2, 2}};
    for (int i = 0; i < 3; i++)
        if (out[i].src != want[i].src || out[i].tgt != want[i].tgt)
            fail_msg("link %d: expected: %d-%d, got: %d-%d", i, want[i].src, want[i].tgt, out[i].src, out[i].tgt);

    // without ids every row counts; a row of NaNs gives nothing
    const float nan_row[2 * 2] = {NAN, NAN, 0.2f, 0.8f};
    n = met_argmax_links(nan_row, 2, 2, NULL, 2, out);
    assert_int_equal(n, 1);
    assert_int_equal(out[0].src, 1);
    assert_int_equal(out[0].tgt, 1);

    // the links feed AER directly
    AerStats st;
    met_aer_init(&st);
    n = met_argmax_links(w, 4, 3, tgt_ids, 2, out);
    const AlignLink gold[] = {{1, 0}, {0, 1}, {1, 2}};
    met_aer_add(&st, out, n, gold, 3, NULL, 0);
    expect_near(met_aer(&st), 1.0 - 4.0 / 6.0, "AER of argmax links");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bleu_identical_and_disjoint),
        cmocka_unit_test(test_bleu_clipping),
        cmocka_unit_test(test_bleu_worked_example),
        cmocka_unit_test(test_bleu_ids_match_strings),
        cmocka_unit_test(test_exact_match),
        cmocka_unit_test(test_aer),
        cmocka_unit_test(test_argmax_links),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
