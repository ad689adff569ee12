// Training: a batched forward pass with padding masks, backpropagation through
// the whole model, and Adam with warm-up. Deterministic for a given seed and
// thread count: each thread owns a fixed slice of the batch and the slices'
// gradients are summed in a fixed order.
#ifndef TT_TRAIN_H
#define TT_TRAIN_H

#include <stdbool.h>

#include "error.h"
#include "model.h"

typedef struct {
    int size;           // sentences in the batch
    int src_len;        // S: longest source (shorter ones are padded)
    int tgt_len;        // T: longest target + 1
    const int *src;     // (size, S) source ids, <pad> after the sentence
    const int *tgt_in;  // (size, T) <bos> + target, <pad> after it
    const int *tgt_out; // (size, T) target + <eos>, <pad> after it (pads carry no loss)
    // Optional gold alignment, for supervising one cross-attention head
    // (Garg et al., 2019): (size, T, S), each row a distribution over the
    // source, or all zero where a target token has no gold link. NULL: none.
    const float *align;
} Batch;

typedef struct {
    float lr;               // peak learning rate
    int warmup;             // steps of linear warm-up, then lr·√(warmup/step)
    float beta1, beta2;     // Adam moments (0.9, 0.98)
    float adam_eps;         // 1e-9
    float label_smoothing;  // 0 = off
    float clip_norm;        // clip the global gradient norm to this; 0 = off
    int align_layer;        // decoder layer (from 1) of the supervised head; 0 = off
    int align_head;         // its head (from 1)
    float align_weight;     // weight of the alignment loss
    int threads;            // 1 or more
} TrainConfig;

typedef struct {
    double loss;            // mean token cross-entropy (with label smoothing, if on)
    double align_loss;      // mean alignment cross-entropy of the supervised head
    int tokens;             // target tokens that carried a loss
    int correct;            // of them, predicted right by argmax
    double grad_norm;       // before clipping
} StepStats;

typedef struct Trainer Trainer;

// A trainer for m that takes batches of up to max_batch sentences of up to
// max_len tokens (source, and target + 1).
Trainer *trn_new(Model *m, const TrainConfig *tc, int max_batch, int max_len, Error *err);
void trn_free(Trainer *t);

// Forward and backward over a batch: fills the gradient (read it with
// trn_grad) and returns the loss; the weights do not change.
double trn_loss_grad(Trainer *t, const Batch *b, StepStats *stats);
// The gradient of the last trn_loss_grad, laid out like the model's block.
const float *trn_grad(const Trainer *t);
// One optimiser step: trn_loss_grad, clipping, then Adam. Returns the loss.
double trn_step(Trainer *t, const Batch *b, StepStats *stats);
// Steps taken so far (the warm-up schedule counts them).
int trn_steps(const Trainer *t);
// The learning rate at a step (from 1).
float trn_lr(const TrainConfig *tc, int step);

#endif
