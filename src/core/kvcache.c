#include "kvcache.h"

#include <string.h>

// One decoder layer over `rows` positions against a prefix of `keys`
// positions and a memory of S, with the memory's K and V counted or not.
static uint64_t decoder_layer(const Config *c, uint64_t rows, uint64_t keys, uint64_t S, bool memory_kv) {
    uint64_t E = (uint64_t)c->d_model, F = (uint64_t)c->d_ff;
    uint64_t self = 3 * rows * E * E + 2 * rows * keys * E + rows * E * E;  // Q, K, V; Q·Kᵀ and weights·V; W_O
    uint64_t cross = rows * E * E + 2 * rows * S * E + rows * E * E;        // Q; against the memory; W_O
    if (memory_kv) cross += 2 * S * E * E;                                  // the memory's K and V
    return self + cross + 2 * rows * E * F;                                 // the feed-forward layer
}

KvCost kv_cost(const Config *c, int src_len, int steps) {
    uint64_t E = (uint64_t)c->d_model, F = (uint64_t)c->d_ff, S = (uint64_t)src_len, V = (uint64_t)c->tgt_vocab;
    // the encoder runs once either way: projections, attention, feed-forward
    uint64_t encoder = (uint64_t)c->n_enc * (4 * S * E * E + 2 * S * S * E + 2 * S * E * F);
    KvCost k = {encoder, encoder};
    for (uint64_t t = 1; t <= (uint64_t)(steps > 0 ? steps : 0); t++) {
        // step t decodes the prefix of t positions and predicts from the last
        k.with_cache += (uint64_t)c->n_dec * decoder_layer(c, 1, t, S, t == 1) + E * V;
        k.without_cache += (uint64_t)c->n_dec * decoder_layer(c, t, t, S, true) + E * V;
    }
    return k;
}

Config kv_paper_config(void) {
    return (Config){.d_model = 512, .nhead = 8, .n_enc = 6, .n_dec = 6, .d_ff = 2048, .eps = 1e-5f, .max_len = 512,
                    .src_vocab = 37000, .tgt_vocab = 37000, .tied = true};
}

bool kv_row_unchanged(const Step *a, const Step *b, int r) {
    if (!a || !b || r < 0 || r >= a->rows || r >= b->rows || a->cols > b->cols) return false;
    return memcmp(trace_row(a, r), trace_row(b, r), (size_t)a->cols * sizeof(float)) == 0;
}

const Step *kv_step_before(const Trace *t, const Step *s) {
    StageKind k = s->stage->kind_id;
    bool matrix = k == STAGE_KIND_MATRIX || k == STAGE_KIND_ATTENTION || k == STAGE_KIND_SCORES || k == STAGE_KIND_MASK;
    bool decoder = s->stage->part == STAGE_DECODER || s->stage->part == STAGE_TARGET;
    if (!matrix || !decoder || s->dstep < 2 || trace_options(t)->mode == DECODE_TEACHER) return NULL;
    for (int i = 0; i < trace_count(t); i++) {
        const Step *b = trace_step(t, i);
        if (b->stage == s->stage && b->layer == s->layer && b->head == s->head && b->dstep == s->dstep - 1) return b;
    }
    return NULL;
}
