// What a KV cache saves: the multiply-adds of decoding with and without one,
// and which rows of a decoder stage step t keeps from step t − 1. Under the
// look-ahead mask a position's rows never change once computed, so a real
// decoder keeps each layer's K and V (the cache) and computes one new row a
// step; without it, every step runs the decoder over the whole prefix again.
#ifndef TT_KVCACHE_H
#define TT_KVCACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "model.h"
#include "trace.h"

// Multiply-adds of the matrix products (projections, Q·Kᵀ, weights·V, the
// feed-forward layers, the logits) of a whole translation: the encoder once,
// then `steps` decoding steps, each producing one token (its logits only, as
// a decoder does). LayerNorm, softmax and additions are left out: they are a
// small share of either count.
typedef struct {
    uint64_t with_cache;     // each step: the new position's row alone; the memory's K and V once
    uint64_t without_cache;  // each step: every position of the prefix again, the memory's K and V too
} KvCost;

KvCost kv_cost(const Config *c, int src_len, int steps);

// The base model of "Attention Is All You Need": d_model 512, 8 heads, 6 + 6
// layers, d_ff 2048, a shared vocabulary of 37,000 tokens.
Config kv_paper_config(void);

// Row r of the later step b equals row r of step a bit for bit, over the
// columns a has: b may have one more, the new position's key, which the
// look-ahead mask hides from every earlier row (weights 0, scores −∞ once
// masked; the raw scores there are never used, and a cached decoder does not
// compute them).
bool kv_row_unchanged(const Step *a, const Step *b, int r);

// The same stage, layer and head at the decoding step before s, when s is a
// matrix of the decoder's side (not in teacher forcing, from step 2) that a
// KV cache view can set beside it; else NULL.
const Step *kv_step_before(const Trace *t, const Step *s);

#endif
