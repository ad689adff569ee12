// The trace: the plan of one allocation, recording, and the forward pass.
// The decoding strategies are in decode.c, the JSON writer in trace_json.c.
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "trace_private.h"

// ---- sizes -----------------------------------------------------------------
// Upper bounds of what a run records, computed from the config alone, so
// that the trace is one allocation.

typedef struct {
    size_t steps, floats, labels, chars;
} Size;

static void add_attention(Size *s, const Config *c, size_t nq, size_t nk, bool masked) {
    size_t E = (size_t)c->d_model, H = (size_t)c->nhead;
    s->steps += H * (masked ? 7 : 6) + 2;
    s->floats += 4 * nq * E + 2 * nk * E + H * nq * nk * (masked ? 3 : 2);
}

// n counts the pads; padded: src.padding_mask and the masked scores are recorded.
static Size encoder_size(const Config *c, size_t n, bool padded) {
    size_t E = (size_t)c->d_model, F = (size_t)c->d_ff;
    Size s = {4 + 1, n + 4 * n * E, n, 0};
    if (padded) {  // src.padding_mask
        s.steps += 1;
        s.floats += n;
    }
    for (int l = 0; l < c->n_enc; l++) {
        add_attention(&s, c, n, n, padded);
        s.steps += 6;
        s.floats += 5 * n * E + n * F;
    }
    return s;
}

static Size decoder_pass_size(const Config *c, size_t t, size_t n, bool padded) {
    size_t E = (size_t)c->d_model, F = (size_t)c->d_ff;
    Size s = {5 + 1, t + 3 * t * E + t * t + t * E, t, 0};
    for (int l = 0; l < c->n_dec; l++) {
        add_attention(&s, c, t, t, true);
        add_attention(&s, c, t, n, padded);
        s.steps += 8;
        s.floats += 7 * t * E + t * F;
    }
    return s;
}

static void size_add(Size *a, Size b) {
    a->steps += b.steps;
    a->floats += b.floats;
    a->labels += b.labels;
    a->chars += b.chars;
}

static Size plan(const Model *m, size_t n, const DecodeOptions *o) {
    const Config *c = &m->cfg;
    size_t V = (size_t)c->tgt_vocab, T = (size_t)o->max_steps, k = (size_t)o->beam_width;
    size_t top = (size_t)o->show_top;
    bool padded = o->pad_to > 0;
    Size s = encoder_size(c, n, padded);
    if (o->mode == DECODE_TEACHER) {
        size_t len = (size_t)o->target_len + 1;
        size_add(&s, decoder_pass_size(c, len, n, padded));
        s.steps += 3;
        s.floats += 2 * len * V + len;
        s.labels += len;
    } else {
        // greedy and sampling: each pass extends the one before in place, so
        // the floats are those of the longest pass; beam search stores each
        bool chained = o->mode != DECODE_BEAM && !o->no_look_ahead_mask;
        if (chained) s.floats += decoder_pass_size(c, T, n, padded).floats;
        for (size_t t = 1; t <= T; t++) {
            Size pass = decoder_pass_size(c, t, n, padded);
            if (chained) pass.floats = 0;
            size_add(&s, pass);
            s.steps += 5;
            s.floats += 3 * V + top + 3;
            s.labels += top + 2;
            if (o->mode == DECODE_BEAM) {
                size_t rows = k * k + k;
                s.floats += rows * 4;
                s.labels += rows;
                s.chars += rows * (t * ((size_t)voc_max_token_bytes(m->tgt) + 1) + 1);
            }
        }
    }
    s.steps += 1;  // out.tokens
    s.floats += T + 1;
    s.labels += T + 1;
    s.labels += V;  // the target vocabulary: the columns of dec.logits, dec.probs and dec.sample
    return s;
}

// ---- recording -------------------------------------------------------------

// The stage row of a step's name. The names are the call sites' string
// literals, so a table keyed by their address finds each row in the stage
// table once per run, not at every step (stage_find compares strings).
static const StageInfo *stage_of(Ctx *c, const char *name) {
    size_t h = (size_t)(((uint64_t)(uintptr_t)name * 0x9E3779B97F4A7C15u) >> 57);  // 7 bits
    for (size_t i = 0; i < TRACE_STAGE_CACHE; i++) {
        size_t at = (h + i) % TRACE_STAGE_CACHE;
        if (c->stage_cache[at].name == name) return c->stage_cache[at].stage;
        if (!c->stage_cache[at].name) {
            c->stage_cache[at].name = name;
            return c->stage_cache[at].stage = stage_find(name);
        }
    }
    return stage_find(name);
}

// Room along one axis of a step: a chain's first pass leaves room for the
// longest pass along the axes of the decoder's length.
static int room(const Ctx *c, int len, const char *sym) {
    return c->grow_cap > 0 && !strcmp(sym, "m") ? c->grow_cap : len;
}

float *trace_emit(Ctx *c, Step tpl) {
    if (!c->record) {
        size_t count = (size_t)tpl.rows * (size_t)tpl.cols;
        assert(c->n_scratch + count <= c->cap_scratch && "scratch plan too small");
        float *p = c->scratch + c->n_scratch;
        c->n_scratch += count;
        c->last_stride = tpl.cols;
        return p;
    }
    Trace *tr = c->tr;
    assert(tr->n_steps < tr->cap_steps && "trace plan too small (steps)");
    tpl.layer = c->layer;
    tpl.head = c->head;
    tpl.dstep = c->dstep;
    tpl.stage = stage_of(c, tpl.name);
    assert(tpl.stage && "a stage missing from the stage table (stage.c)");
    tpl.kind = tpl.stage->kind;
    int shares = -1;
    if (c->first_row > 0) {
        // the k-th step of this pass is the k-th of the previous pass, one position longer, in the same storage
        shares = c->prev_step++;
        const Step *prev = &tr->steps[shares];
        assert(prev->stage == tpl.stage && prev->layer == tpl.layer && prev->head == tpl.head &&
               "incremental pass out of step with the previous pass");
        assert(prev->rows <= tpl.rows && prev->cols <= tpl.cols && tpl.cols <= prev->stride);
        assert((tpl.rows == prev->rows || !strcmp(tpl.sym_rows, "m")) && (tpl.cols == prev->cols || !strcmp(tpl.sym_cols, "m")) &&
               "a step grows along an axis that has no room");
        tpl.data = prev->data;
        tpl.stride = prev->stride;
    } else {
        size_t rows = (size_t)room(c, tpl.rows, tpl.sym_rows), stride = (size_t)room(c, tpl.cols, tpl.sym_cols);
        assert(tr->n_floats + rows * stride <= tr->cap_floats && "trace plan too small (floats)");
        tpl.data = tr->floats + tr->n_floats;
        tpl.stride = (int)stride;
        tr->n_floats += rows * stride;
    }
    c->last_stride = tpl.stride;
    tr->shares[tr->n_steps] = shares;
    tr->steps[tr->n_steps++] = tpl;
    return tpl.data;
}

const char **trace_new_labels(Ctx *c, size_t count) {
    if (!c->record) return NULL;
    Trace *tr = c->tr;
    assert(tr->n_labels + count <= tr->cap_labels && "trace plan too small (labels)");
    const char **p = tr->labels + tr->n_labels;
    tr->n_labels += count;
    return p;
}

const char **trace_token_labels(Ctx *c, const Vocab *v, const int *ids, int n) {
    const char **l = trace_new_labels(c, (size_t)n);
    if (l)
        for (int i = 0; i < n; i++) l[i] = voc_token(v, ids[i]);
    return l;
}

// ---- the forward pass ------------------------------------------------------

typedef struct {
    const char *q, *k, *v, *scores, *masked, *weights, *head_out, *concat, *out_proj;
} AttnNames;

static const AttnNames enc_self = {"enc.self_attn.q", "enc.self_attn.k", "enc.self_attn.v", "enc.self_attn.scores",
                                   "enc.self_attn.masked_scores", "enc.self_attn.weights", "enc.self_attn.head_out",
                                   "enc.self_attn.concat", "enc.self_attn.out_proj"};
static const AttnNames dec_self = {"dec.self_attn.q", "dec.self_attn.k", "dec.self_attn.v", "dec.self_attn.scores",
                                   "dec.self_attn.masked_scores", "dec.self_attn.weights", "dec.self_attn.head_out",
                                   "dec.self_attn.concat", "dec.self_attn.out_proj"};
static const AttnNames dec_cross = {"dec.cross_attn.q", "dec.cross_attn.k", "dec.cross_attn.v", "dec.cross_attn.scores",
                                    "dec.cross_attn.masked_scores", "dec.cross_attn.weights", "dec.cross_attn.head_out",
                                    "dec.cross_attn.concat", "dec.cross_attn.out_proj"};

// out = scores + mask + key_mask in rows [i0, i1) and columns [j0, nk); out
// and scores have row stride ss, mask ms. mask (rows × nk) and key_mask (one
// row of nk, added to every row) may be NULL.
static void add_masks(float *out, const float *scores, int ss, const float *mask, int ms, const float *key_mask, int nk, int i0,
                      int i1, int j0) {
    for (int i = i0; i < i1; i++)
        for (int j = j0; j < nk; j++) {
            size_t at = (size_t)i * ss + j;
            out[at] = scores[at] + (mask ? mask[(size_t)i * ms + j] : 0.0f) + (key_mask ? key_mask[j] : 0.0f);
        }
}

// Multi-head attention of q over kv (rows: queries, columns: keys); mask (the
// look-ahead mask, q.len × kv.len, row stride mask_stride) and key_mask (the key padding mask, one row
// of kv.len) are added to the scores when given. kv_proj, when given, holds
// kv's K and V projections (2 × kv.len × E), made once per run. Query rows
// below c->first_row are the previous pass's (see trace_emit); only the later rows
// are computed, and the old rows' scores against keys new in this pass.
// Returns the output projection (q.len × E).
static float *attention(Ctx *c, const AttnWeights *a, const AttnNames *nm, Seq q, Seq kv, const float *mask, int mask_stride,
                        const float *key_mask, const float *kv_proj) {
    const Config *cfg = &c->m->cfg;
    int E = cfg->d_model, H = cfg->nhead, dk = E / H;
    int r0 = c->first_row, nk = kv.len;
    // keys from k0 on are new: in self-attention the new rows; the memory's are all old after the first pass
    assert(kv_proj || r0 == 0 || kv.x == q.x);
    int k0 = kv_proj ? (r0 > 0 ? nk : 0) : r0;
    int new_q = q.len - r0, new_k = nk - k0;
    float scale = 1.0f / sqrtf((float)dk);
    // M: the look-ahead mask, P: the key padding mask
    static const char *const masked_formulas[] = {NULL, "Q_h·K_hᵀ / √d_k + M  (M = −∞ above the diagonal)",
                                                  "Q_h·K_hᵀ / √d_k + P  (P = −∞ in the <pad> columns)",
                                                  "Q_h·K_hᵀ / √d_k + M + P  (−∞ above the diagonal and in the <pad> columns)"};
    static const char *const weights_formulas[] = {"softmax(Q_h·K_hᵀ / √d_k)", "softmax(Q_h·K_hᵀ / √d_k + M)",
                                                   "softmax(Q_h·K_hᵀ / √d_k + P)", "softmax(Q_h·K_hᵀ / √d_k + M + P)"};
    int masks = (mask ? 1 : 0) | (key_mask ? 2 : 0);
    // rows [0,E) of in_proj make Q, [E,2E) K, [2E,3E) V
    float *Q = c->qkv;
    op_linear(Q + (size_t)r0 * E, q.x + (size_t)r0 * E, a->in_proj_w, a->in_proj_b, new_q, E, E);
    const float *K, *V;
    if (kv_proj) {
        K = kv_proj;
        V = kv_proj + (size_t)nk * E;
    } else {
        float *Kp = Q + (size_t)q.len * E, *Vp = Kp + (size_t)nk * E;
        op_linear(Kp + (size_t)k0 * E, kv.x + (size_t)k0 * E, a->in_proj_w + (size_t)E * E, a->in_proj_b + E, new_k, E, E);
        op_linear(Vp + (size_t)k0 * E, kv.x + (size_t)k0 * E, a->in_proj_w + 2 * (size_t)E * E, a->in_proj_b + 2 * E, new_k, E, E);
        K = Kp;
        V = Vp;
    }
    float *concat = NULL;
    float *heads[256];
    assert(H <= 256);
    for (int h = 0; h < H; h++) {
        c->head = h + 1;
        float *qh = trace_emit(c, (Step){.name = nm->q, .rows = q.len, .cols = dk, .sym_rows = q.sym, .sym_cols = "d_k",
                                   .formula = "Q_h = X·W_Q,h + b_Q,h", .row_labels = q.labels});
        float *kh = trace_emit(c, (Step){.name = nm->k, .rows = nk, .cols = dk, .sym_rows = kv.sym, .sym_cols = "d_k",
                                   .formula = "K_h = X·W_K,h + b_K,h", .row_labels = kv.labels});
        float *vh = trace_emit(c, (Step){.name = nm->v, .rows = nk, .cols = dk, .sym_rows = kv.sym, .sym_cols = "d_k",
                                   .formula = "V_h = X·W_V,h + b_V,h", .row_labels = kv.labels});
        op_slice_cols(qh + (size_t)r0 * dk, Q + (size_t)r0 * E, new_q, E, h * dk, dk);
        op_slice_cols(kh + (size_t)k0 * dk, K + (size_t)k0 * E, new_k, E, h * dk, dk);
        op_slice_cols(vh + (size_t)k0 * dk, V + (size_t)k0 * E, new_k, E, h * dk, dk);
        // scores, masked scores and weights share one row stride ss (room for later keys in a chain)
        float *scores = trace_emit(c, (Step){.name = nm->scores, .rows = q.len, .cols = nk, .sym_rows = q.sym,
                                       .sym_cols = kv.sym, .formula = "Q_h·K_hᵀ / √d_k", .row_labels = q.labels, .col_labels = kv.labels});
        size_t ss = (size_t)c->last_stride;
        for (int i = r0; i < q.len; i++) op_matmul_nt(scores + i * ss, qh + (size_t)i * dk, kh, 1, dk, nk, scale);
        // the old rows against the new keys: masked below, but the raw scores show them
        for (int i = 0; i < r0; i++)
            op_matmul_nt(scores + i * ss + k0, qh + (size_t)i * dk, kh + (size_t)k0 * dk, 1, dk, new_k, scale);
        const float *to_softmax = scores;
        if (masks) {
            assert(nm->masked);
            float *masked = trace_emit(c, (Step){.name = nm->masked, .rows = q.len, .cols = nk, .sym_rows = q.sym,
                                           .sym_cols = kv.sym, .formula = masked_formulas[masks], .row_labels = q.labels,
                                           .col_labels = kv.labels});
            assert((size_t)c->last_stride == ss);
            // the new rows against every key, then the old rows against the new keys
            add_masks(masked, scores, (int)ss, mask, mask_stride, key_mask, nk, r0, q.len, 0);
            add_masks(masked, scores, (int)ss, mask, mask_stride, key_mask, nk, 0, r0, k0);
            to_softmax = masked;
        }
        // masked keys get weight exactly 0: exp(−∞) is 0
        float *weights = trace_emit(c, (Step){.name = nm->weights, .rows = q.len, .cols = nk, .sym_rows = q.sym,
                                        .sym_cols = kv.sym, .formula = weights_formulas[masks], .row_labels = q.labels,
                                        .col_labels = kv.labels});
        assert((size_t)c->last_stride == ss);
        for (int i = r0; i < q.len; i++) op_softmax_rows(weights + i * ss, to_softmax + i * ss, 1, nk);
        // the old rows' weights (and head outputs) hold because the mask hides the new keys: exp(−∞) is exactly 0
        for (int i = 0; i < r0; i++)
            for (int j = k0; j < nk; j++) {
                // NaN is a score that overflowed (huge weights): trace_run refuses the trace below
                assert(!(to_softmax[i * ss + j] > -INFINITY) && "an old row sees a new key");
                weights[i * ss + j] = 0.0f;
            }
        heads[h] = trace_emit(c, (Step){.name = nm->head_out, .rows = q.len, .cols = dk, .sym_rows = q.sym, .sym_cols = "d_k",
                                  .formula = "head_h = A_h·V_h", .row_labels = q.labels});
        for (int i = r0; i < q.len; i++) op_matmul_nn(heads[h] + (size_t)i * dk, weights + i * ss, vh, 1, nk, dk);
    }
    c->head = 0;
    concat = trace_emit(c, (Step){.name = nm->concat, .rows = q.len, .cols = E, .sym_rows = q.sym, .sym_cols = "d_model",
                            .formula = "Concat(head_1, …, head_h)", .row_labels = q.labels});
    for (int h = 0; h < H; h++) op_put_cols(concat + (size_t)r0 * E, heads[h] + (size_t)r0 * dk, new_q, E, h * dk, dk);
    float *out = trace_emit(c, (Step){.name = nm->out_proj, .rows = q.len, .cols = E, .sym_rows = q.sym, .sym_cols = "d_model",
                                .formula = "Concat(heads)·W_O + b_O", .row_labels = q.labels});
    op_linear(out + (size_t)r0 * E, concat + (size_t)r0 * E, a->out_proj_w, a->out_proj_b, new_q, E, E);
    return out;
}

// x + sublayer(x), then LayerNorm; names are e.g. "enc.residual1", "enc.norm1".
// Row-wise, as ffn and embed: rows below c->first_row are the previous pass's.
static float *add_norm(Ctx *c, const char *res_name, const char *norm_name, const char *res_formula, Seq x, const float *sub,
                       const float *gamma, const float *beta) {
    int E = c->m->cfg.d_model, r0 = c->first_row;
    size_t at = (size_t)r0 * E;
    float *res = trace_emit(c, (Step){.name = res_name, .rows = x.len, .cols = E, .sym_rows = x.sym, .sym_cols = "d_model",
                                .formula = res_formula, .row_labels = x.labels});
    op_add(res + at, x.x + at, sub + at, (x.len - r0) * E);
    float *norm = trace_emit(c, (Step){.name = norm_name, .rows = x.len, .cols = E, .sym_rows = x.sym, .sym_cols = "d_model",
                                 .formula = "LayerNorm(x) = γ·(x − μ)/√(σ² + ε) + β", .row_labels = x.labels});
    op_layernorm(norm + at, res + at, gamma, beta, x.len - r0, E, c->m->cfg.eps);
    return norm;
}

static float *ffn(Ctx *c, const char *hidden_name, const char *out_name, Seq x, const float *w1, const float *b1, const float *w2,
                  const float *b2) {
    const Config *cfg = &c->m->cfg;
    int E = cfg->d_model, F = cfg->d_ff, r0 = c->first_row, rows = x.len - r0;
    float *hidden = trace_emit(c, (Step){.name = hidden_name, .rows = x.len, .cols = F, .sym_rows = x.sym,
                                   .sym_cols = "d_ff", .formula = "ReLU(x·W₁ + b₁)", .row_labels = x.labels});
    float *h = hidden + (size_t)r0 * F;
    op_linear(h, x.x + (size_t)r0 * E, w1, b1, rows, E, F);
    op_relu(h, h, rows * F);
    float *out = trace_emit(c, (Step){.name = out_name, .rows = x.len, .cols = E, .sym_rows = x.sym,
                                .sym_cols = "d_model", .formula = "ReLU(x·W₁ + b₁)·W₂ + b₂", .row_labels = x.labels});
    op_linear(out + (size_t)r0 * E, h, w2, b2, rows, F, E);
    return out;
}

// The token ids: src.tokens or dec.tokens.
static void record_tokens(Ctx *c, bool is_src, const int *ids, int len, const char *const *labels, const char *sym) {
    float *tok = trace_emit(c, (Step){.name = is_src ? "src.tokens" : "dec.tokens", .rows = 1, .cols = len, .sym_rows = "1",
                                .sym_cols = sym,
                                .formula = is_src ? (c->tr->opt.pad_to > 0 ? "token ids of the source, then <pad> up to the batch's length"
                                                                           : "token ids of the source")
                                                  : "decoder input: <bos> + tokens so far (shifted right)",
                                .col_labels = labels});
    for (int i = c->first_row; i < len; i++) tok[i] = (float)ids[i];  // positions before first_row are the previous pass's
}

// The key padding mask of a source of len tokens whose first n_real are real:
// added to every row of the scores over the source, it hides the pads.
static const float *record_padding_mask(Ctx *c, int len, int n_real, const char *const *labels) {
    float *mask = trace_emit(c, (Step){.name = "src.padding_mask", .rows = 1, .cols = len, .sym_rows = "1", .sym_cols = "n",
                                 .formula = "P[j] = 0 for a token, −∞ for <pad>", .col_labels = labels});
    for (int j = 0; j < len; j++) mask[j] = j < n_real ? 0.0f : -INFINITY;
    return mask;
}

// Tokens → embedding × √d_model + positional encoding.
static float *embed(Ctx *c, bool is_src, const int *ids, int len, const char *const *labels, const char *sym) {
    const Config *cfg = &c->m->cfg;
    int E = cfg->d_model;
    const float *table = is_src ? c->m->w.src_embed : c->m->w.tgt_embed;
    int r0 = c->first_row;  // positions before it are the previous pass's
    size_t at = (size_t)r0 * E;
    float *emb = trace_emit(c, (Step){.name = is_src ? "src.embed" : "dec.embed", .rows = len, .cols = E, .sym_rows = sym,
                                .sym_cols = "d_model", .formula = "Embedding[token] × √d_model", .row_labels = labels});
    float scale = sqrtf((float)E);
    for (int i = r0; i < len; i++)
        for (int j = 0; j < E; j++) emb[(size_t)i * E + j] = table[(size_t)ids[i] * E + j] * scale;
    float *pe = trace_emit(c, (Step){.name = is_src ? "src.pos_enc" : "dec.pos_enc", .rows = len, .cols = E, .sym_rows = sym,
                               .sym_cols = "d_model", .formula = "PE(pos, 2i) = sin(pos/10000^(2i/d_model)), PE(pos, 2i+1) = cos(…)",
                               .row_labels = labels});
    memcpy(pe + at, c->pe + at, (size_t)(len - r0) * E * sizeof *pe);
    float *x = trace_emit(c, (Step){.name = is_src ? "src.input" : "dec.input", .rows = len, .cols = E, .sym_rows = sym,
                              .sym_cols = "d_model", .formula = "X = Embedding × √d_model + PE", .row_labels = labels});
    op_add(x + at, emb + at, pe + at, (len - r0) * E);
    return x;
}

// Encodes ids (n of them, the first n_real real, the rest <pad>); with
// padding on, records the padding mask and keeps it in c for the decoder.
static float *encode(Ctx *c, const int *ids, int n, int n_real, const char *const *labels) {
    const Model *m = c->m;
    record_tokens(c, true, ids, n, labels, "n");
    if (c->tr->opt.pad_to > 0) c->key_padding_mask = record_padding_mask(c, n, n_real, labels);
    Seq x = {embed(c, true, ids, n, labels, "n"), n, labels, "n"};
    for (int l = 0; l < m->cfg.n_enc; l++) {
        const EncLayer *L = &m->w.enc[l];
        c->layer = l + 1;
        // the pads are queries too, as in PyTorch; only as keys are they hidden
        float *att = attention(c, &L->self_attn, &enc_self, x, x, NULL, 0, c->key_padding_mask, NULL);
        x.x = add_norm(c, "enc.residual1", "enc.norm1", "x + MultiHeadAttention(x)", x, att, L->norm1_w, L->norm1_b);
        float *f = ffn(c, "enc.ffn.hidden", "enc.ffn.out", x, L->lin1_w, L->lin1_b, L->lin2_w, L->lin2_b);
        x.x = add_norm(c, "enc.residual2", "enc.norm2", "x + FFN(x)", x, f, L->norm2_w, L->norm2_b);
    }
    c->layer = 0;
    int E = m->cfg.d_model;
    float *mem = trace_emit(c, (Step){.name = "enc.output", .rows = n, .cols = E, .sym_rows = "n", .sym_cols = "d_model",
                                .formula = "memory = LayerNorm(encoder stack output)", .row_labels = labels});
    op_layernorm(mem, x.x, m->w.enc_norm_w, m->w.enc_norm_b, n, E, m->cfg.eps);
    return mem;
}

// The cross-attention keys and values of the memory, the same in every
// decoding step: projected once per decoder layer into c->cross_kv.
static void project_memory(Ctx *c, Seq mem) {
    const Model *m = c->m;
    int E = m->cfg.d_model;
    for (int l = 0; l < m->cfg.n_dec; l++) {
        const AttnWeights *a = &m->w.dec[l].cross_attn;
        float *K = c->cross_kv + (size_t)l * 2 * mem.len * E, *V = K + (size_t)mem.len * E;
        op_linear(K, mem.x, a->in_proj_w + (size_t)E * E, a->in_proj_b + E, mem.len, E, E);
        op_linear(V, mem.x, a->in_proj_w + 2 * (size_t)E * E, a->in_proj_b + 2 * E, mem.len, E, E);
    }
}

// One pass of the decoder over ids (length t); returns the final-normed
// output (t × E). prev_pass ≥ 0 makes it incremental: the index of the first
// step of the previous recorded pass, over ids[0..t−2]. Every value is
// row-wise, and the mask hides the new position from the old rows, so rows
// 0..t−2 equal that pass's and only row t−1 is computed.
float *trace_decoder_pass(Ctx *c, const int *ids, int t, const char *sym, Seq mem, int prev_pass) {
    const Model *m = c->m;
    int E = m->cfg.d_model;
    assert(prev_pass < 0 || (c->record && t > 1 && t <= c->chain_cap));
    c->first_row = prev_pass >= 0 ? t - 1 : 0;
    c->prev_step = prev_pass;
    c->grow_cap = prev_pass < 0 && c->record ? c->chain_cap : 0;
    const char *const *labels = trace_token_labels(c, m->tgt, ids, t);
    record_tokens(c, false, ids, t, labels, sym);
    Seq x = {embed(c, false, ids, t, labels, sym), t, labels, sym};
    // the experiment without the mask records it all 0: every view of the masking still shows what was added
    bool masked = !c->tr->opt.no_look_ahead_mask;
    float *mask = trace_emit(c, (Step){.name = "dec.look_ahead_mask", .rows = t, .cols = t, .sym_rows = sym, .sym_cols = sym,
                                 .formula = masked ? "M[i][j] = 0 if j ≤ i, −∞ if j > i" : "M[i][j] = 0: the look-ahead mask is off",
                                 .row_labels = labels, .col_labels = labels});
    int ms = c->last_stride, r0 = c->first_row;
    // the new row, and the old rows' new column: 0 on and below the diagonal, −∞ above (op_look_ahead_mask)
    for (int i = 0; i < t; i++)
        for (int j = i < r0 ? r0 : 0; j < t; j++) mask[(size_t)i * ms + j] = j > i && masked ? -INFINITY : 0.0f;
    for (int l = 0; l < m->cfg.n_dec; l++) {
        const DecLayer *L = &m->w.dec[l];
        c->layer = l + 1;
        float *att = attention(c, &L->self_attn, &dec_self, x, x, mask, ms, NULL, NULL);
        x.x = add_norm(c, "dec.residual1", "dec.norm1", "x + MaskedMultiHeadAttention(x)", x, att, L->norm1_w, L->norm1_b);
        const float *mem_kv = c->cross_kv + (size_t)l * 2 * mem.len * E;
        float *cross = attention(c, &L->cross_attn, &dec_cross, x, mem, NULL, 0, c->key_padding_mask, mem_kv);
        x.x = add_norm(c, "dec.residual2", "dec.norm2", "x + CrossAttention(x, memory)", x, cross, L->norm2_w, L->norm2_b);
        float *f = ffn(c, "dec.ffn.hidden", "dec.ffn.out", x, L->lin1_w, L->lin1_b, L->lin2_w, L->lin2_b);
        x.x = add_norm(c, "dec.residual3", "dec.norm3", "x + FFN(x)", x, f, L->norm3_w, L->norm3_b);
    }
    c->layer = 0;
    float *out = trace_emit(c, (Step){.name = "dec.output", .rows = t, .cols = E, .sym_rows = sym, .sym_cols = "d_model",
                                .formula = "LayerNorm(decoder stack output)", .row_labels = labels});
    op_layernorm(out + (size_t)r0 * E, x.x + (size_t)r0 * E, m->w.dec_norm_w, m->w.dec_norm_b, t - r0, E, m->cfg.eps);
    c->first_row = 0;
    c->grow_cap = 0;
    return out;
}

// Logits and probabilities for the rows of h (rows × E).
float *trace_predict(Ctx *c, const float *h, int rows, const char *sym, const char *const *labels, float **probs_out) {
    const Model *m = c->m;
    int E = m->cfg.d_model, V = m->cfg.tgt_vocab;
    float *logits = trace_emit(c, (Step){.name = "dec.logits", .rows = rows, .cols = V, .sym_rows = sym, .sym_cols = "|V|",
                                   .formula = "logits = h·W_outᵀ + b", .row_labels = labels, .col_labels = c->vocab_labels});
    op_linear(logits, h, m->w.gen_w, m->w.gen_b, rows, E, V);
    float *probs = trace_emit(c, (Step){.name = "dec.probs", .rows = rows, .cols = V, .sym_rows = sym, .sym_cols = "|V|",
                                  .formula = "P(next token) = softmax(logits)", .row_labels = labels, .col_labels = c->vocab_labels});
    op_softmax_rows(probs, logits, rows, V);
    *probs_out = probs;
    return logits;
}

// Whether a step holds a NaN; of a step that shares an earlier one's rows,
// only the values new to it are looked at, so each value is looked at once.
static bool has_nan(const Step *s, const Step *earlier) {
    for (int r = 0; r < s->rows; r++) {
        const float *row = trace_row(s, r);
        for (int k = earlier && r < earlier->rows ? earlier->cols : 0; k < s->cols; k++)
            if (isnan(row[k])) return true;
    }
    return false;
}

Trace *trace_run(const Model *m, const int *src_ids, int n, const DecodeOptions *opt, Error *err) {
    DecodeOptions o = *opt;
    if (decode_check_options(m, n, &o, err)) return NULL;
    for (int i = 0; i < n; i++)
        if (src_ids[i] < 0 || src_ids[i] >= m->cfg.src_vocab) {
            err_set(err, "source token %d has id %d, outside the vocabulary", i, src_ids[i]);
            return NULL;
        }
    int len = o.pad_to > 0 ? o.pad_to : n;  // the encoder's length: the source and its pads
    Size s = plan(m, (size_t)len, &o);
    size_t T = (size_t)o.max_steps;
    // one allocation: steps, label pointers, floats, ints, chars (in order of alignment)
    size_t bytes = s.steps * sizeof(Step) + s.labels * sizeof(char *) + s.floats * sizeof(float) +
                   ((size_t)len + T + 1 + s.steps) * sizeof(int) + s.chars;
    Trace *tr = calloc(1, sizeof *tr);
    char *block = malloc(bytes);
    Ctx c = {.tr = tr, .m = m, .record = true};
    size_t longest = (size_t)(len > o.max_steps ? len : o.max_steps) + 1;
    size_t E = (size_t)m->cfg.d_model;
    c.qkv = malloc(3 * longest * E * sizeof *c.qkv);
    c.pe = malloc(longest * E * sizeof *c.pe);
    c.cross_kv = malloc((size_t)m->cfg.n_dec * 2 * (size_t)len * E * sizeof *c.cross_kv);
    if (o.mode == DECODE_BEAM) {
        Size pass = decoder_pass_size(&m->cfg, T, (size_t)len, o.pad_to > 0);
        c.cap_scratch = pass.floats + 3 * (size_t)m->cfg.tgt_vocab;
        c.scratch = malloc(c.cap_scratch * sizeof *c.scratch);
    }
    if (!tr || !block || !c.qkv || !c.pe || !c.cross_kv || (o.mode == DECODE_BEAM && !c.scratch)) {
        err_set(err, "out of memory for a trace of %zu bytes", bytes);
        free(block);
        goto fail;
    }
    tr->model = m;
    tr->opt = o;
    tr->bytes = bytes;
    tr->steps = (Step *)block;
    tr->cap_steps = (int)s.steps;
    tr->labels = (const char **)(tr->steps + s.steps);
    tr->cap_labels = s.labels;
    tr->floats = (float *)(tr->labels + s.labels);
    tr->cap_floats = s.floats;
    tr->src_ids = (int *)(tr->floats + s.floats);
    tr->out_ids = tr->src_ids + len;
    tr->shares = tr->out_ids + T + 1;
    tr->chars = (char *)(tr->shares + s.steps);
    tr->cap_chars = s.chars;
    tr->src_n = n;
    memcpy(tr->src_ids, src_ids, (size_t)n * sizeof *src_ids);
    for (int i = n; i < len; i++) tr->src_ids[i] = voc_pad(m->src);
    op_positional_encoding(c.pe, (int)longest, (int)E);

    const char **vocab = trace_new_labels(&c, (size_t)m->cfg.tgt_vocab);
    for (int i = 0; i < m->cfg.tgt_vocab; i++) vocab[i] = voc_token(m->tgt, i);
    c.vocab_labels = vocab;
    const char *const *src_labels = trace_token_labels(&c, m->src, tr->src_ids, len);
    Seq mem = {encode(&c, tr->src_ids, len, n, src_labels), len, src_labels, "n"};
    project_memory(&c, mem);
    if (decode_run(&c, mem)) {
        err_set(err, "out of memory while decoding");
        goto fail;
    }
    // finite but huge weights overflow float (inf − inf = NaN): say so rather than show noise
    for (int i = 0; i < tr->n_steps; i++) {
        const Step *st = &tr->steps[i];
        if (!has_nan(st, tr->shares[i] >= 0 ? &tr->steps[tr->shares[i]] : NULL)) continue;
        char id[128], where[64] = "";
        if (st->head) snprintf(where, sizeof where, ", head %d", st->head);
        if (st->dstep) snprintf(where + strlen(where), sizeof where - strlen(where), ", decoding step %d", st->dstep);
        err_set(err, "%s%sthe computation overflowed: NaN in %s%s; the model's weights are too large for 32-bit floats",
                m->path && *m->path ? m->path : "", m->path && *m->path ? ": " : "", trace_stage_id(st, id, sizeof id), where);
        goto fail;
    }
    decode_record_output(&c);
    free(c.qkv);
    free(c.pe);
    free(c.cross_kv);
    free(c.scratch);
    return tr;
fail:
    free(c.qkv);
    free(c.pe);
    free(c.cross_kv);
    free(c.scratch);
    trace_free(tr);
    return NULL;
}

void trace_free(Trace *t) {
    if (!t) return;
    free(t->steps);  // the one block
    free(t);
}

int trace_count(const Trace *t) { return t->n_steps; }
const Step *trace_step(const Trace *t, int i) { return i >= 0 && i < t->n_steps ? &t->steps[i] : NULL; }

const float *trace_row(const Step *s, int r) { return s->data + (size_t)r * (size_t)(s->stride > 0 ? s->stride : s->cols); }

void trace_copy_values(const Step *s, float *out) {
    for (int r = 0; r < s->rows; r++) memcpy(out + (size_t)r * s->cols, trace_row(s, r), (size_t)s->cols * sizeof *out);
}

const int *trace_output(const Trace *t, int *n) {
    *n = t->out_n;
    return t->out_ids;
}

float trace_mean_loss(const Trace *t) { return t->mean_loss; }
const DecodeOptions *trace_options(const Trace *t) { return &t->opt; }
size_t trace_bytes(const Trace *t) { return t->bytes + sizeof *t; }

char *trace_stage_id(const Step *s, char *buf, size_t size) { return stage_id(s->stage, s->layer, buf, size); }

int trace_find(const Trace *t, const char *stage_id, int head, int dstep) {
    int layer;
    const StageInfo *stage = stage_parse_id(stage_id, &layer);
    for (int i = 0; stage && i < t->n_steps; i++) {
        const Step *s = &t->steps[i];
        if (s->stage == stage && s->layer == layer && s->head == head && s->dstep == dstep) return i;
    }
    return -1;
}
