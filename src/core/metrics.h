// Translation and alignment metrics: corpus BLEU-4, exact match and the
// alignment error rate, plus the rule that reads alignment links off an
// attention matrix.
#ifndef TT_METRICS_H
#define TT_METRICS_H

#include <stdbool.h>

#include "corpus.h"

// ---- BLEU (Papineni et al., 2002) ----
//
// Corpus-level BLEU-4 over token lists, with one reference per sentence:
//   p_n  = Σ clipped n-gram matches / Σ hypothesis n-grams, n = 1..4
//          (an n-gram counts at most as often as it occurs in the reference)
//   BP   = 1 if c > r, else exp(1 − r/c)   (c, r: total hypothesis and reference tokens)
//   BLEU = BP · exp(¼ Σ log p_n)
// The counts are summed over all sentences first, then combined once. No
// smoothing: if any p_n is 0 (or the hypotheses are empty) BLEU is 0.
// Scores are in [0, 1]; multiply by 100 for the usual scale.

typedef struct {
    long matches[4];    // clipped n-gram matches, n = 1..4
    long total[4];      // hypothesis n-grams
    long hyp_len, ref_len;
} BleuStats;

void met_bleu_init(BleuStats *s);
// Adds one sentence: hypothesis tokens hyp[0..n_hyp), reference ref[0..n_ref).
void met_bleu_add(BleuStats *s, const char *const *hyp, int n_hyp, const char *const *ref, int n_ref);
// The same over token ids.
void met_bleu_add_ids(BleuStats *s, const int *hyp, int n_hyp, const int *ref, int n_ref);
// p_n for n = 1..4 (0 when there are no n-grams).
double met_bleu_precision(const BleuStats *s, int n);
double met_bleu_brevity_penalty(const BleuStats *s);
double met_bleu(const BleuStats *s);

// ---- Exact match ----

// Whether two token lists are equal.
bool met_exact_match(const char *const *hyp, int n_hyp, const char *const *ref, int n_ref);
bool met_exact_match_ids(const int *hyp, int n_hyp, const int *ref, int n_ref);

// ---- Alignment error rate (Och & Ney, 2003) ----
//
// With hypothesis links A, sure gold links S and possible gold links P ⊇ S:
//   AER = 1 − (|A∩S| + |A∩P|) / (|A| + |S|)
// Our corpora give sure links only, so P = S and AER = 1 − 2|A∩S| / (|A| + |S|).
// The counts are summed over all sentences first, then divided once.

typedef struct {
    long a, s;              // |A|, |S|
    long a_and_s, a_and_p;  // |A∩S|, |A∩P|
} AerStats;

void met_aer_init(AerStats *st);
// Adds one sentence. possible may be NULL (P = S); otherwise it should
// contain the sure links too. Repeated links count once.
void met_aer_add(AerStats *st, const AlignLink *hyp, int n_hyp, const AlignLink *sure, int n_sure,
                 const AlignLink *possible, int n_possible);
// In [0, 1], lower is better; 0 when there are no links at all.
double met_aer(const AerStats *st);

// ---- Attention → alignment ----
//
// weights holds rows × cols values, row-major: row i is the cross-attention
// of the decoder step that produces target token i, over the cols source
// tokens (pick one head and layer, or their average, before calling). Each
// row gives one link (src = the column with the largest weight, tgt = i);
// ties go to the leftmost column and NaNs are ignored. A row whose produced
// token is <eos> (tgt_ids[i] == eos_id) gives no link, nor does a row of
// NaNs; tgt_ids may be NULL to keep every row. Writes at most rows links to
// out and returns their number.
int met_argmax_links(const float *weights, int rows, int cols, const int *tgt_ids, int eos_id, AlignLink *out);

#endif
