// Evaluating a model on a corpus split: greedy exact match and BLEU, and the
// alignment error rate of every cross-attention head (and each layer's head
// average) against the gold links.
#ifndef TT_EVALUATE_H
#define TT_EVALUATE_H

#include "corpus.h"
#include "error.h"
#include "model.h"

typedef struct {
    int evaluated;      // pairs translated
    int exact;          // of them, exactly right (greedy)
    int too_long;       // pairs left out: longer than the model's max_len
    int aligned;        // pairs with gold links, used for AER
    double bleu;        // corpus BLEU-4 in [0, 1]
    int n_dec, nhead;
    double *aer;        // n_dec × (nhead + 1): [l·(nhead+1) + h], h = 0 the layer's head average
} EvalResult;

// Above this share of target tokens unknown to the model, eval refuses the
// corpus: the model is for another language (pair), and BLEU would mean nothing.
#define EV_MAX_UNKNOWN_SHARE 0.5

// Counts, over the first limit pairs (0: all), the target tokens and how many
// of them the model's target vocabulary does not know.
void ev_target_coverage(const Model *m, const Corpus *c, int limit, long *tokens, long *unknown);

// Evaluates the first limit pairs (0: all). AER uses a teacher-forced pass
// over the gold target: row i of a head's cross-attention is the step that
// produces target word i, linked to its most attended source word
// (met_argmax_links).
int ev_run(const Model *m, const Corpus *c, int limit, EvalResult *r, Error *err);
void ev_result_deinit(EvalResult *r);
// AER of decoder layer (from 1) and head (from 1; 0 = the layer's head average).
double ev_aer(const EvalResult *r, int layer, int head);

#endif
