#include "metrics.h"

#include <math.h>
#include <string.h>

// A token list given as strings or as ids.
typedef struct {
    const char *const *str;
    const int *ids;
    int n;
} Seq;

static bool token_eq(const Seq *a, int i, const Seq *b, int j) {
    return a->str ? strcmp(a->str[i], b->str[j]) == 0 : a->ids[i] == b->ids[j];
}

// Whether the n-grams at a[i] and b[j] are equal.
static bool gram_eq(const Seq *a, int i, const Seq *b, int j, int n) {
    for (int k = 0; k < n; k++)
        if (!token_eq(a, i + k, b, j + k)) return false;
    return true;
}

// Occurrences in s of the n-gram at g[at].
static long gram_count(const Seq *s, const Seq *g, int at, int n) {
    long count = 0;
    for (int i = 0; i + n <= s->n; i++) count += gram_eq(s, i, g, at, n);
    return count;
}

void met_bleu_init(BleuStats *s) {
    memset(s, 0, sizeof *s);
}

static void bleu_add(BleuStats *s, const Seq *hyp, const Seq *ref) {
    for (int n = 1; n <= 4; n++) {
        if (hyp->n < n) continue;
        s->total[n - 1] += hyp->n - n + 1;
        for (int i = 0; i + n <= hyp->n; i++) {
            // each distinct n-gram once, at its first occurrence
            bool seen = false;
            for (int j = 0; j < i && !seen; j++) seen = gram_eq(hyp, j, hyp, i, n);
            if (seen) continue;
            long in_hyp = gram_count(hyp, hyp, i, n), in_ref = gram_count(ref, hyp, i, n);
            s->matches[n - 1] += in_hyp < in_ref ? in_hyp : in_ref;  // clipped
        }
    }
    s->hyp_len += hyp->n;
    s->ref_len += ref->n;
}

void met_bleu_add(BleuStats *s, const char *const *hyp, int n_hyp, const char *const *ref, int n_ref) {
    Seq h = {hyp, NULL, n_hyp}, r = {ref, NULL, n_ref};
    bleu_add(s, &h, &r);
}

void met_bleu_add_ids(BleuStats *s, const int *hyp, int n_hyp, const int *ref, int n_ref) {
    Seq h = {NULL, hyp, n_hyp}, r = {NULL, ref, n_ref};
    bleu_add(s, &h, &r);
}

double met_bleu_precision(const BleuStats *s, int n) {
    if (n < 1 || n > 4 || s->total[n - 1] == 0) return 0;
    return (double)s->matches[n - 1] / (double)s->total[n - 1];
}

double met_bleu_brevity_penalty(const BleuStats *s) {
    if (s->hyp_len == 0) return 0;
    if (s->hyp_len > s->ref_len) return 1;
    return exp(1.0 - (double)s->ref_len / (double)s->hyp_len);
}

double met_bleu(const BleuStats *s) {
    double log_sum = 0;
    for (int n = 1; n <= 4; n++) {
        double p = met_bleu_precision(s, n);
        if (p == 0) return 0;  // no smoothing
        log_sum += log(p);
    }
    return met_bleu_brevity_penalty(s) * exp(log_sum / 4);
}

bool met_exact_match(const char *const *hyp, int n_hyp, const char *const *ref, int n_ref) {
    Seq h = {hyp, NULL, n_hyp}, r = {ref, NULL, n_ref};
    return n_hyp == n_ref && gram_eq(&h, 0, &r, 0, n_hyp);
}

bool met_exact_match_ids(const int *hyp, int n_hyp, const int *ref, int n_ref) {
    Seq h = {NULL, hyp, n_hyp}, r = {NULL, ref, n_ref};
    return n_hyp == n_ref && gram_eq(&h, 0, &r, 0, n_hyp);
}

void met_aer_init(AerStats *st) {
    memset(st, 0, sizeof *st);
}

static bool link_in(AlignLink l, const AlignLink *set, int n) {
    for (int i = 0; i < n; i++)
        if (set[i].src == l.src && set[i].tgt == l.tgt) return true;
    return false;
}

// Whether links[i] already occurred in links[0..i).
static bool repeated(const AlignLink *links, int i) {
    return link_in(links[i], links, i);
}

void met_aer_add(AerStats *st, const AlignLink *hyp, int n_hyp, const AlignLink *sure, int n_sure,
                 const AlignLink *possible, int n_possible) {
    if (!possible) {
        possible = sure;
        n_possible = n_sure;
    }
    for (int i = 0; i < n_sure; i++) st->s += !repeated(sure, i);
    for (int i = 0; i < n_hyp; i++) {
        if (repeated(hyp, i)) continue;
        st->a++;
        st->a_and_s += link_in(hyp[i], sure, n_sure);
        st->a_and_p += link_in(hyp[i], possible, n_possible);
    }
}

double met_aer(const AerStats *st) {
    if (st->a + st->s == 0) return 0;
    return 1.0 - (double)(st->a_and_s + st->a_and_p) / (double)(st->a + st->s);
}

int met_argmax_links(const float *weights, int rows, int cols, const int *tgt_ids, int eos_id, AlignLink *out) {
    int n = 0;
    for (int i = 0; i < rows; i++) {
        if (tgt_ids && tgt_ids[i] == eos_id) continue;
        const float *row = weights + (size_t)i * (size_t)cols;
        int best = -1;
        for (int j = 0; j < cols; j++)
            if (!isnan(row[j]) && (best < 0 || row[j] > row[best])) best = j;
        if (best >= 0) out[n++] = (AlignLink){best, i};
    }
    return n;
}
