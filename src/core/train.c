#include "train.h"

#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"

typedef struct {
    float *xhat, *rstd;
} LnCache;

typedef struct {
    float *q, *k, *v;   // projections: (B·Lq, E), (B·Lk, E), (B·Lk, E)
    float *att;         // softmax weights (B, H, Lq, Lk)
    float *ctx;         // heads concatenated (B·Lq, E)
} AttnCache;

typedef struct {
    float *in;          // layer input (B·S, E)
    AttnCache sa;
    float *x1;          // after Add & Norm 1
    LnCache ln1;
    float *h;           // FFN hidden after ReLU (B·S, F)
    float *x2;          // after Add & Norm 2: the layer's output
    LnCache ln2;
} EncCache;

typedef struct {
    float *in;          // layer input (B·T, E)
    AttnCache sa, ca;
    float *x1, *x2, *x3;
    LnCache ln1, ln2, ln3;
    float *h;           // (B·T, F)
} DecCache;

typedef struct Worker Worker;

struct Trainer {
    Model *m;
    TrainConfig tc;
    int max_batch, max_len;
    long n;                 // parameters
    float *grad, *adam_m, *adam_v;
    int steps;
    Worker *workers;
    int n_workers;
    float *pe;              // (max_len, E)
};

struct Worker {
    Trainer *tr;
    const Batch *b;
    int first, count;       // the slice of the batch this worker owns
    int S, T;
    double token_norm;      // 1 / target tokens in the whole batch
    double align_norm;      // align_weight / supervised rows in the whole batch
    float *grad;            // own gradient block (n floats)
    Weights g;              // views into grad
    float *arena;
    size_t cap, used;
    EncCache *enc;
    DecCache *dec;
    float *src_x, *mem, *tgt_x, *dec_out, *logits;
    LnCache enc_ln, dec_ln;
    float *d_q, *d_k, *d_v, *d_ctx, *d_a, *d_b, *d_mem, *d_h;
    float *d_att;           // (Lq, Lk)
    int *src_len;           // per sentence in the slice
    int *tgt_keys;          // per sentence: T (the causal mask alone hides what follows a sentence)
    double loss, align_loss;
    int tokens, correct;
};

static float *take(Worker *w, size_t count) {
    assert(w->used + count <= w->cap && "worker arena too small");
    float *p = w->arena + w->used;
    w->used += count;
    return p;
}

// ---- sizes -----------------------------------------------------------------

static size_t worker_floats(const Config *c, size_t B, size_t L) {
    size_t E = (size_t)c->d_model, F = (size_t)c->d_ff, H = (size_t)c->nhead, V = (size_t)c->tgt_vocab, N = B * L;
    size_t attn = 4 * N * E + B * H * L * L;  // q, k, v, ctx, att
    size_t ln = N * E + N;
    size_t enc = N * E + attn + 2 * (N * E + ln) + N * F;
    size_t dec = N * E + 2 * attn + 3 * (N * E + ln) + N * F;
    size_t top = 5 * N * E + 2 * ln + N * V;
    size_t scratch = 7 * N * E + N * F + L * L;
    return (size_t)c->n_enc * enc + (size_t)c->n_dec * dec + top + scratch;
}

// ---- attention ---------------------------------------------------------------

// Multi-head attention of xq (B·Lq rows) over xkv (B·Lk rows). Keys at or past
// klen[b] are padding and masked out; causal also masks keys after the query.
static void attn_forward(const Config *cfg, const AttnWeights *w, const float *xq, int Lq, const float *xkv, int Lk, int B,
                         const int *klen, bool causal, AttnCache *c, float *out) {
    int E = cfg->d_model, H = cfg->nhead, dk = E / H;
    int nq = B * Lq, nk = B * Lk;
    op_linear(c->q, xq, w->in_proj_w, w->in_proj_b, nq, E, E);
    op_linear(c->k, xkv, w->in_proj_w + (size_t)E * E, w->in_proj_b + E, nk, E, E);
    op_linear(c->v, xkv, w->in_proj_w + 2 * (size_t)E * E, w->in_proj_b + 2 * E, nk, E, E);
    float scale = 1.0f / sqrtf((float)dk);
    for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++) {
            float *A = c->att + ((size_t)(b * H + h) * Lq) * Lk;
            for (int i = 0; i < Lq; i++) {
                const float *qi = c->q + (size_t)(b * Lq + i) * E + h * dk;
                for (int j = 0; j < Lk; j++) {
                    if (j >= klen[b] || (causal && j > i)) {
                        A[i * Lk + j] = -INFINITY;
                        continue;
                    }
                    const float *kj = c->k + (size_t)(b * Lk + j) * E + h * dk;
                    float acc = 0.0f;
                    for (int d = 0; d < dk; d++) acc += qi[d] * kj[d];
                    A[i * Lk + j] = acc * scale;
                }
            }
            op_softmax_rows(A, A, Lq, Lk);
            for (int i = 0; i < Lq; i++) {
                float *ci = c->ctx + (size_t)(b * Lq + i) * E + h * dk;
                for (int d = 0; d < dk; d++) ci[d] = 0.0f;
                for (int j = 0; j < Lk; j++) {
                    float a = A[i * Lk + j];
                    if (a == 0.0f) continue;
                    const float *vj = c->v + (size_t)(b * Lk + j) * E + h * dk;
                    for (int d = 0; d < dk; d++) ci[d] += a * vj[d];
                }
            }
        }
    op_linear(out, c->ctx, w->out_proj_w, w->out_proj_b, nq, E, E);
}

// Backward of attn_forward: adds into dxq and dxkv (which may be the same
// buffer) and the weights' gradients. With align (B, Lq, Lk) and a head, adds
// that head's alignment cross-entropy, scaled by align_norm.
static void attn_backward(Worker *wk, const AttnWeights *w, AttnWeights *g, const float *xq, int Lq, const float *xkv, int Lk,
                          const AttnCache *c, const float *dout, float *dxq, float *dxkv, const float *align, int align_head) {
    const Config *cfg = &wk->tr->m->cfg;
    int B = wk->count, E = cfg->d_model, H = cfg->nhead, dk = E / H;
    int nq = B * Lq, nk = B * Lk;
    float scale = 1.0f / sqrtf((float)dk);
    float *dctx = wk->d_ctx, *dq = wk->d_q, *dk_ = wk->d_k, *dv = wk->d_v, *dA = wk->d_att;
    memset(dctx, 0, (size_t)nq * E * sizeof *dctx);
    op_linear_backward(dctx, g->out_proj_w, g->out_proj_b, dout, c->ctx, w->out_proj_w, nq, E, E);
    memset(dq, 0, (size_t)nq * E * sizeof *dq);
    memset(dk_, 0, (size_t)nk * E * sizeof *dk_);
    memset(dv, 0, (size_t)nk * E * sizeof *dv);
    for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++) {
            const float *A = c->att + ((size_t)(b * H + h) * Lq) * Lk;
            for (int i = 0; i < Lq; i++) {
                const float *dci = dctx + (size_t)(b * Lq + i) * E + h * dk;
                for (int j = 0; j < Lk; j++) {
                    const float *vj = c->v + (size_t)(b * Lk + j) * E + h * dk;
                    float *dvj = dv + (size_t)(b * Lk + j) * E + h * dk;
                    float a = A[i * Lk + j], acc = 0.0f;
                    for (int d = 0; d < dk; d++) {
                        acc += dci[d] * vj[d];
                        dvj[d] += a * dci[d];
                    }
                    dA[i * Lk + j] = acc;
                }
            }
            op_softmax_backward(dA, dA, A, Lq, Lk);
            if (align && h == align_head) {
                // d(−Σ g·log A)/dS = A·Σg − g, straight through the softmax
                for (int i = 0; i < Lq; i++) {
                    const float *gi = align + ((size_t)(wk->first + b) * Lq + i) * Lk;
                    double gsum = 0.0, loss = 0.0;
                    for (int j = 0; j < Lk; j++) gsum += gi[j];
                    if (gsum == 0.0) continue;
                    for (int j = 0; j < Lk; j++) {
                        float a = A[i * Lk + j];
                        if (gi[j] > 0.0f) loss -= gi[j] * log(fmax(a, 1e-12));
                        dA[i * Lk + j] += (float)(wk->align_norm * (a * gsum - gi[j]));
                    }
                    wk->align_loss += loss;
                }
            }
            for (int i = 0; i < Lq; i++) {
                const float *qi = c->q + (size_t)(b * Lq + i) * E + h * dk;
                float *dqi = dq + (size_t)(b * Lq + i) * E + h * dk;
                for (int j = 0; j < Lk; j++) {
                    float s = dA[i * Lk + j] * scale;
                    if (s == 0.0f) continue;
                    const float *kj = c->k + (size_t)(b * Lk + j) * E + h * dk;
                    float *dkj = dk_ + (size_t)(b * Lk + j) * E + h * dk;
                    for (int d = 0; d < dk; d++) {
                        dqi[d] += s * kj[d];
                        dkj[d] += s * qi[d];
                    }
                }
            }
        }
    op_linear_backward(dxq, g->in_proj_w, g->in_proj_b, dq, xq, w->in_proj_w, nq, E, E);
    op_linear_backward(dxkv, g->in_proj_w + (size_t)E * E, g->in_proj_b + E, dk_, xkv, w->in_proj_w + (size_t)E * E, nk, E, E);
    op_linear_backward(dxkv, g->in_proj_w + 2 * (size_t)E * E, g->in_proj_b + 2 * E, dv, xkv, w->in_proj_w + 2 * (size_t)E * E, nk, E, E);
}

// ---- the layers --------------------------------------------------------------

static void alloc_attn(Worker *wk, AttnCache *c, int Lq, int Lk) {
    const Config *cfg = &wk->tr->m->cfg;
    size_t E = (size_t)cfg->d_model, B = (size_t)wk->count;
    c->q = take(wk, B * Lq * E);
    c->k = take(wk, B * Lk * E);
    c->v = take(wk, B * Lk * E);
    c->att = take(wk, B * (size_t)cfg->nhead * Lq * Lk);
    c->ctx = take(wk, B * Lq * E);
}

static void alloc_ln(Worker *wk, LnCache *c, size_t rows) {
    c->xhat = take(wk, rows * (size_t)wk->tr->m->cfg.d_model);
    c->rstd = take(wk, rows);
}

// x + sub → LayerNorm, into out (sub is overwritten).
static void add_norm(Worker *wk, float *out, LnCache *ln, const float *x, float *sub, const float *gamma, const float *beta, int rows) {
    const Config *cfg = &wk->tr->m->cfg;
    op_add(sub, sub, x, rows * cfg->d_model);
    op_layernorm_cached(out, ln->xhat, ln->rstd, sub, gamma, beta, rows, cfg->d_model, cfg->eps);
}

// FFN: h = ReLU(x·W₁ + b₁) kept; returns into out = h·W₂ + b₂.
static void ffn_forward(const Config *cfg, const float *x, float *h, float *out, const float *w1, const float *b1, const float *w2,
                        const float *b2, int rows) {
    op_linear(h, x, w1, b1, rows, cfg->d_model, cfg->d_ff);
    op_relu(h, h, rows * cfg->d_ff);
    op_linear(out, h, w2, b2, rows, cfg->d_ff, cfg->d_model);
}

// Backward of ffn_forward: adds into dx.
static void ffn_backward(Worker *wk, const float *x, const float *h, const float *dout, float *dx, const float *w1, const float *w2,
                         float *gw1, float *gb1, float *gw2, float *gb2, int rows) {
    const Config *cfg = &wk->tr->m->cfg;
    size_t nf = (size_t)rows * cfg->d_ff;
    memset(wk->d_h, 0, nf * sizeof *wk->d_h);
    op_linear_backward(wk->d_h, gw2, gb2, dout, h, w2, rows, cfg->d_ff, cfg->d_model);
    for (size_t i = 0; i < nf; i++)
        if (h[i] <= 0.0f) wk->d_h[i] = 0.0f;  // ReLU passes gradient only where it was positive
    op_linear_backward(dx, gw1, gb1, wk->d_h, x, w1, rows, cfg->d_model, cfg->d_ff);
}

static void embed(const Worker *wk, float *out, const float *table, const int *ids, int L) {
    const Config *cfg = &wk->tr->m->cfg;
    int E = cfg->d_model;
    float scale = sqrtf((float)E);
    for (int b = 0; b < wk->count; b++)
        for (int i = 0; i < L; i++) {
            int id = ids[(size_t)(wk->first + b) * L + i];
            float *o = out + (size_t)(b * L + i) * E;
            for (int d = 0; d < E; d++) o[d] = table[(size_t)id * E + d] * scale + wk->tr->pe[(size_t)i * E + d];
        }
}

static void embed_backward(const Worker *wk, float *gtable, const float *dx, const int *ids, int L) {
    int E = wk->tr->m->cfg.d_model;
    float scale = sqrtf((float)E);
    for (int b = 0; b < wk->count; b++)
        for (int i = 0; i < L; i++) {
            int id = ids[(size_t)(wk->first + b) * L + i];
            const float *d = dx + (size_t)(b * L + i) * E;
            for (int k = 0; k < E; k++) gtable[(size_t)id * E + k] += d[k] * scale;
        }
}

// ---- one worker's forward and backward ----------------------------------------

static void worker_run(Worker *wk) {
    Trainer *tr = wk->tr;
    const Model *m = tr->m;
    const Config *cfg = &m->cfg;
    const Weights *w = &m->w;
    const Batch *bt = wk->b;
    int B = wk->count, S = wk->S, T = wk->T, E = cfg->d_model, V = cfg->tgt_vocab;
    int ns = B * S, nt = B * T;
    int pad = voc_pad(m->tgt);
    wk->used = 0;
    wk->loss = wk->align_loss = 0.0;
    wk->tokens = wk->correct = 0;
    memset(wk->grad, 0, (size_t)tr->n * sizeof *wk->grad);
    // source lengths: up to the first <pad>
    int src_pad = voc_pad(m->src);
    for (int b = 0; b < B; b++) {
        const int *s = bt->src + (size_t)(wk->first + b) * S;
        int len = 0;
        while (len < S && s[len] != src_pad) len++;
        wk->src_len[b] = len > 0 ? len : 1;
    }
    for (int b = 0; b < B; b++) wk->tgt_keys[b] = T;

    // forward: encoder
    wk->src_x = take(wk, (size_t)ns * E);
    embed(wk, wk->src_x, w->src_embed, bt->src, S);
    const float *x = wk->src_x;
    float *sub = take(wk, (size_t)nt * E > (size_t)ns * E ? (size_t)nt * E : (size_t)ns * E);
    for (int l = 0; l < cfg->n_enc; l++) {
        EncCache *c = &wk->enc[l];
        const EncLayer *L = &w->enc[l];
        c->in = (float *)x;
        alloc_attn(wk, &c->sa, S, S);
        attn_forward(cfg, &L->self_attn, x, S, x, S, B, wk->src_len, false, &c->sa, sub);
        c->x1 = take(wk, (size_t)ns * E);
        alloc_ln(wk, &c->ln1, (size_t)ns);
        add_norm(wk, c->x1, &c->ln1, x, sub, L->norm1_w, L->norm1_b, ns);
        c->h = take(wk, (size_t)ns * cfg->d_ff);
        ffn_forward(cfg, c->x1, c->h, sub, L->lin1_w, L->lin1_b, L->lin2_w, L->lin2_b, ns);
        c->x2 = take(wk, (size_t)ns * E);
        alloc_ln(wk, &c->ln2, (size_t)ns);
        add_norm(wk, c->x2, &c->ln2, c->x1, sub, L->norm2_w, L->norm2_b, ns);
        x = c->x2;
    }
    wk->mem = take(wk, (size_t)ns * E);
    alloc_ln(wk, &wk->enc_ln, (size_t)ns);
    op_layernorm_cached(wk->mem, wk->enc_ln.xhat, wk->enc_ln.rstd, x, w->enc_norm_w, w->enc_norm_b, ns, E, cfg->eps);

    // forward: decoder
    wk->tgt_x = take(wk, (size_t)nt * E);
    embed(wk, wk->tgt_x, w->tgt_embed, bt->tgt_in, T);
    x = wk->tgt_x;
    for (int l = 0; l < cfg->n_dec; l++) {
        DecCache *c = &wk->dec[l];
        const DecLayer *L = &w->dec[l];
        c->in = (float *)x;
        alloc_attn(wk, &c->sa, T, T);
        attn_forward(cfg, &L->self_attn, x, T, x, T, B, wk->tgt_keys, true, &c->sa, sub);
        c->x1 = take(wk, (size_t)nt * E);
        alloc_ln(wk, &c->ln1, (size_t)nt);
        add_norm(wk, c->x1, &c->ln1, x, sub, L->norm1_w, L->norm1_b, nt);
        alloc_attn(wk, &c->ca, T, S);
        attn_forward(cfg, &L->cross_attn, c->x1, T, wk->mem, S, B, wk->src_len, false, &c->ca, sub);
        c->x2 = take(wk, (size_t)nt * E);
        alloc_ln(wk, &c->ln2, (size_t)nt);
        add_norm(wk, c->x2, &c->ln2, c->x1, sub, L->norm2_w, L->norm2_b, nt);
        c->h = take(wk, (size_t)nt * cfg->d_ff);
        ffn_forward(cfg, c->x2, c->h, sub, L->lin1_w, L->lin1_b, L->lin2_w, L->lin2_b, nt);
        c->x3 = take(wk, (size_t)nt * E);
        alloc_ln(wk, &c->ln3, (size_t)nt);
        add_norm(wk, c->x3, &c->ln3, c->x2, sub, L->norm3_w, L->norm3_b, nt);
        x = c->x3;
    }
    wk->dec_out = take(wk, (size_t)nt * E);
    alloc_ln(wk, &wk->dec_ln, (size_t)nt);
    op_layernorm_cached(wk->dec_out, wk->dec_ln.xhat, wk->dec_ln.rstd, x, w->dec_norm_w, w->dec_norm_b, nt, E, cfg->eps);
    wk->logits = take(wk, (size_t)nt * V);
    op_linear(wk->logits, wk->dec_out, w->gen_w, w->gen_b, nt, E, V);

    // loss: cross-entropy with label smoothing; dlogits = (p − q) / tokens, in place
    float eps = tr->tc.label_smoothing;
    for (int r = 0; r < nt; r++) {
        float *lg = wk->logits + (size_t)r * V;
        int gold = bt->tgt_out[(size_t)wk->first * T + r];
        if (gold == pad) {
            memset(lg, 0, (size_t)V * sizeof *lg);
            continue;
        }
        int arg = 0;
        for (int j = 1; j < V; j++)
            if (lg[j] > lg[arg]) arg = j;
        float mx = lg[arg];
        double z = 0.0, sum_logp = 0.0;
        for (int j = 0; j < V; j++) z += exp((double)lg[j] - mx);
        double logz = log(z) + mx;
        for (int j = 0; j < V; j++) sum_logp += lg[j] - logz;
        wk->loss += -(1.0 - eps) * (lg[gold] - logz) - eps / V * sum_logp;
        wk->tokens++;
        wk->correct += arg == gold;
        for (int j = 0; j < V; j++) {
            double p = exp(lg[j] - logz), q = eps / V + (j == gold ? 1.0 - eps : 0.0);
            lg[j] = (float)((p - q) * wk->token_norm);
        }
    }

    // backward: generator, final decoder norm
    Weights *g = &wk->g;
    float *da = wk->d_a, *db = wk->d_b;
    memset(da, 0, (size_t)nt * E * sizeof *da);
    op_linear_backward(da, g->gen_w, g->gen_b, wk->logits, wk->dec_out, w->gen_w, nt, E, V);
    op_layernorm_backward(db, g->dec_norm_w, g->dec_norm_b, da, wk->dec_ln.xhat, wk->dec_ln.rstd, w->dec_norm_w, nt, E);
    memset(wk->d_mem, 0, (size_t)ns * E * sizeof *wk->d_mem);
    // db holds d(layer output); each layer turns it into d(layer input)
    for (int l = cfg->n_dec - 1; l >= 0; l--) {
        DecCache *c = &wk->dec[l];
        const DecLayer *L = &w->dec[l];
        DecLayer *G = &g->dec[l];
        op_layernorm_backward(da, G->norm3_w, G->norm3_b, db, c->ln3.xhat, c->ln3.rstd, L->norm3_w, nt, E);
        memcpy(db, da, (size_t)nt * E * sizeof *db);  // residual path
        ffn_backward(wk, c->x2, c->h, da, db, L->lin1_w, L->lin2_w, G->lin1_w, G->lin1_b, G->lin2_w, G->lin2_b, nt);
        op_layernorm_backward(da, G->norm2_w, G->norm2_b, db, c->ln2.xhat, c->ln2.rstd, L->norm2_w, nt, E);
        memcpy(db, da, (size_t)nt * E * sizeof *db);
        bool sup = bt->align && tr->tc.align_layer == l + 1;
        attn_backward(wk, &L->cross_attn, &G->cross_attn, c->x1, T, wk->mem, S, &c->ca, da, db, wk->d_mem, sup ? bt->align : NULL,
                      tr->tc.align_head - 1);
        op_layernorm_backward(da, G->norm1_w, G->norm1_b, db, c->ln1.xhat, c->ln1.rstd, L->norm1_w, nt, E);
        memcpy(db, da, (size_t)nt * E * sizeof *db);
        attn_backward(wk, &L->self_attn, &G->self_attn, c->in, T, c->in, T, &c->sa, da, db, db, NULL, -1);
    }
    embed_backward(wk, g->tgt_embed, db, bt->tgt_in, T);

    // backward: encoder
    op_layernorm_backward(db, g->enc_norm_w, g->enc_norm_b, wk->d_mem, wk->enc_ln.xhat, wk->enc_ln.rstd, w->enc_norm_w, ns, E);
    for (int l = cfg->n_enc - 1; l >= 0; l--) {
        EncCache *c = &wk->enc[l];
        const EncLayer *L = &w->enc[l];
        EncLayer *G = &g->enc[l];
        op_layernorm_backward(da, G->norm2_w, G->norm2_b, db, c->ln2.xhat, c->ln2.rstd, L->norm2_w, ns, E);
        memcpy(db, da, (size_t)ns * E * sizeof *db);
        ffn_backward(wk, c->x1, c->h, da, db, L->lin1_w, L->lin2_w, G->lin1_w, G->lin1_b, G->lin2_w, G->lin2_b, ns);
        op_layernorm_backward(da, G->norm1_w, G->norm1_b, db, c->ln1.xhat, c->ln1.rstd, L->norm1_w, ns, E);
        memcpy(db, da, (size_t)ns * E * sizeof *db);
        attn_backward(wk, &L->self_attn, &G->self_attn, c->in, S, c->in, S, &c->sa, da, db, db, NULL, -1);
    }
    embed_backward(wk, g->src_embed, db, bt->src, S);
}

static void *worker_main(void *arg) {
    worker_run(arg);
    return NULL;
}

// ---- the trainer -----------------------------------------------------------

Trainer *trn_new(Model *m, const TrainConfig *tc, int max_batch, int max_len, Error *err) {
    const Config *cfg = &m->cfg;
    if (max_batch <= 0 || max_len <= 0 || max_len > cfg->max_len) {
        err_set(err, "batch of %d sentences of %d tokens: expected at least 1, and at most the model's max_len (%d) tokens", max_batch,
                max_len, cfg->max_len);
        return NULL;
    }
    int threads = tc->threads > 0 ? tc->threads : 1;
    if (threads > max_batch) threads = max_batch;
    if (tc->align_layer < 0 || tc->align_layer > cfg->n_dec || (tc->align_layer && (tc->align_head < 1 || tc->align_head > cfg->nhead))) {
        err_set(err, "supervised head L%d H%d does not exist (decoder layers 1-%d, heads 1-%d)", tc->align_layer, tc->align_head, cfg->n_dec,
                cfg->nhead);
        return NULL;
    }
    Trainer *t = calloc(1, sizeof *t);
    if (!t) goto oom;
    t->m = m;
    t->tc = *tc;
    t->tc.threads = threads;
    t->max_batch = max_batch;
    t->max_len = max_len;
    t->n = m->n_params;
    t->grad = calloc((size_t)t->n, sizeof(float));
    t->adam_m = calloc((size_t)t->n, sizeof(float));
    t->adam_v = calloc((size_t)t->n, sizeof(float));
    t->pe = malloc((size_t)max_len * cfg->d_model * sizeof(float));
    t->workers = calloc((size_t)threads, sizeof *t->workers);
    if (!t->grad || !t->adam_m || !t->adam_v || !t->pe || !t->workers) goto oom;
    op_positional_encoding(t->pe, max_len, cfg->d_model);
    t->n_workers = threads;
    size_t per = (size_t)((max_batch + threads - 1) / threads), L = (size_t)max_len;
    size_t E = (size_t)cfg->d_model, N = per * L;
    for (int i = 0; i < threads; i++) {
        Worker *wk = &t->workers[i];
        wk->tr = t;
        wk->cap = worker_floats(cfg, per, L);
        wk->arena = malloc(wk->cap * sizeof(float));
        wk->grad = malloc((size_t)t->n * sizeof(float));
        wk->enc = calloc((size_t)cfg->n_enc, sizeof *wk->enc);
        wk->dec = calloc((size_t)cfg->n_dec, sizeof *wk->dec);
        wk->src_len = malloc(per * sizeof *wk->src_len);
        wk->tgt_keys = malloc(per * sizeof *wk->tgt_keys);
        if (!wk->arena || !wk->grad || !wk->enc || !wk->dec || !wk->src_len || !wk->tgt_keys || mdl_weights_bind(cfg, wk->grad, &wk->g))
            goto oom;
        // backward scratch lives at the end of the arena, outside what forward takes
        wk->cap -= 7 * N * E + N * (size_t)cfg->d_ff + L * L;
        float *s = wk->arena + wk->cap;
        wk->d_q = s; s += N * E;
        wk->d_k = s; s += N * E;
        wk->d_v = s; s += N * E;
        wk->d_ctx = s; s += N * E;
        wk->d_a = s; s += N * E;
        wk->d_b = s; s += N * E;
        wk->d_mem = s; s += N * E;
        wk->d_h = s; s += N * (size_t)cfg->d_ff;
        wk->d_att = s;
    }
    return t;
oom:
    err_set(err, "out of memory for the trainer");
    trn_free(t);
    return NULL;
}

void trn_free(Trainer *t) {
    if (!t) return;
    for (int i = 0; t->workers && i < t->n_workers; i++) {
        Worker *wk = &t->workers[i];
        free(wk->arena);
        free(wk->grad);
        free(wk->enc);
        free(wk->dec);
        free(wk->src_len);
        free(wk->tgt_keys);
        mdl_weights_unbind(&wk->g);
    }
    free(t->workers);
    free(t->grad);
    free(t->adam_m);
    free(t->adam_v);
    free(t->pe);
    free(t);
}

double trn_loss_grad(Trainer *t, const Batch *b, StepStats *stats) {
    assert(b->size > 0 && b->size <= t->max_batch && b->src_len <= t->max_len && b->tgt_len <= t->max_len);
    const Model *m = t->m;
    int pad = voc_pad(m->tgt);
    long tokens = 0, align_rows = 0;
    for (long i = 0; i < (long)b->size * b->tgt_len; i++) tokens += b->tgt_out[i] != pad;
    if (b->align)
        for (long r = 0; r < (long)b->size * b->tgt_len; r++) {
            const float *row = b->align + r * b->src_len;
            for (int j = 0; j < b->src_len; j++)
                if (row[j] > 0.0f) {
                    align_rows++;
                    break;
                }
        }
    // fixed slices: worker i takes sentences [i·per, (i+1)·per)
    int per = (b->size + t->n_workers - 1) / t->n_workers, used = 0;
    pthread_t threads[64];
    for (int i = 0; i < t->n_workers; i++) {
        Worker *wk = &t->workers[i];
        wk->b = b;
        wk->first = i * per;
        wk->count = wk->first >= b->size ? 0 : (b->size - wk->first < per ? b->size - wk->first : per);
        wk->S = b->src_len;
        wk->T = b->tgt_len;
        wk->token_norm = tokens ? 1.0 / tokens : 0.0;
        wk->align_norm = align_rows ? t->tc.align_weight / align_rows : 0.0;
        if (wk->count > 0) used = i + 1;
    }
    for (int i = 1; i < used; i++) pthread_create(&threads[i], NULL, worker_main, &t->workers[i]);
    worker_run(&t->workers[0]);
    for (int i = 1; i < used; i++) pthread_join(threads[i], NULL);
    // sum in a fixed order, so a run repeats exactly for a thread count
    memcpy(t->grad, t->workers[0].grad, (size_t)t->n * sizeof *t->grad);
    double loss = t->workers[0].loss, align_loss = t->workers[0].align_loss;
    int correct = t->workers[0].correct;
    for (int i = 1; i < used; i++) {
        const Worker *wk = &t->workers[i];
        for (long k = 0; k < t->n; k++) t->grad[k] += wk->grad[k];
        loss += wk->loss;
        align_loss += wk->align_loss;
        correct += wk->correct;
    }
    double mean = tokens ? loss / tokens : 0.0;
    if (stats) {
        stats->loss = mean;
        stats->align_loss = align_rows ? align_loss / align_rows : 0.0;
        stats->tokens = (int)tokens;
        stats->correct = correct;
        double sq = 0.0;
        for (long k = 0; k < t->n; k++) sq += (double)t->grad[k] * t->grad[k];
        stats->grad_norm = sqrt(sq);
    }
    return mean + (align_rows ? t->tc.align_weight * align_loss / align_rows : 0.0);
}

const float *trn_grad(const Trainer *t) { return t->grad; }
int trn_steps(const Trainer *t) { return t->steps; }

float trn_lr(const TrainConfig *tc, int step) {
    if (step < 1) step = 1;
    if (tc->warmup <= 0) return tc->lr;
    // linear warm-up, then decay with 1/√step (Vaswani et al., 2017)
    if (step <= tc->warmup) return tc->lr * (float)step / (float)tc->warmup;
    return tc->lr * sqrtf((float)tc->warmup / (float)step);
}

double trn_step(Trainer *t, const Batch *b, StepStats *stats) {
    StepStats s;
    double loss = trn_loss_grad(t, b, &s);
    if (stats) *stats = s;
    float clip = 1.0f;
    if (t->tc.clip_norm > 0.0f && s.grad_norm > t->tc.clip_norm) clip = (float)(t->tc.clip_norm / s.grad_norm);
    t->steps++;
    const TrainConfig *tc = &t->tc;
    float lr = trn_lr(tc, t->steps);
    double c1 = 1.0 - pow(tc->beta1, t->steps), c2 = 1.0 - pow(tc->beta2, t->steps);
    float *p = t->m->block;
    for (long k = 0; k < t->n; k++) {
        float g = t->grad[k] * clip;
        t->adam_m[k] = tc->beta1 * t->adam_m[k] + (1.0f - tc->beta1) * g;
        t->adam_v[k] = tc->beta2 * t->adam_v[k] + (1.0f - tc->beta2) * g * g;
        float mh = (float)(t->adam_m[k] / c1), vh = (float)(t->adam_v[k] / c2);
        p[k] -= lr * mh / (sqrtf(vh) + tc->adam_eps);
    }
    return loss;
}
