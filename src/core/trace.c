// The trace: the plan of one allocation, recording, and the forward pass.
// The decoding strategies are in decode.c, the JSON writer in trace_json.c.
#include <assert.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "pages.h"
#include "trace_private.h"

// ---- sizes -----------------------------------------------------------------
// Upper bounds of what a run records, computed from the config and the
// options alone, so that the trace is one allocation and its size is known
// before it is made. A stage the options leave out (stages) goes to a
// scratch area instead, which each decoder pass (and beam search's each
// hypothesis) starts again.

// Whether the stage of this name and layer is recorded: its id matches the pattern (NULL: all).
static bool stage_wanted(const char *pattern, const StageInfo *stage, int layer) {
    if (!pattern) return true;
    char id[128];
    return fnmatch(pattern, stage_id(stage, layer, id, sizeof id), 0) == 0;
}

typedef enum {
    PASS_WHOLE,        // every value computed and stored
    PASS_CHAIN_FIRST,  // the first pass of a chain: stored with room for the longest pass along m
    PASS_CHAIN_NEXT,   // a later pass: stored in the first pass's room; unrecorded m × m values are their new row
} PassKind;

typedef struct {
    const char *stages;     // the pattern of stages recorded; NULL: all
    bool none;              // nothing recorded (beam search's other hypotheses)
    PassKind kind;
    size_t room;            // PASS_CHAIN_FIRST: the longest pass
    int layer;              // of the values planned next
    size_t steps, floats, labels, chars;  // the trace
    size_t scratch, most_scratch;         // unrecorded floats since the scratch started again; the most
} Plan;

// count values (heads) of rows × cols; rows_m, cols_m: the axis is the decoder's length.
static void plan_value(Plan *p, const char *name, size_t count, size_t rows, bool rows_m, size_t cols, bool cols_m) {
    // the stage table is searched only for a pattern: a plan runs before every trace, and the toy one is 0.1 ms of strcmp
    const StageInfo *stage = p->stages ? stage_find(name) : NULL;
    assert((!p->stages || stage) && "a stage missing from the stage table (stage.c)");
    if (!p->none && (!p->stages || stage_wanted(p->stages, stage, p->layer))) {
        p->steps += count;
        if (p->kind == PASS_CHAIN_NEXT) return;
        if (p->kind == PASS_CHAIN_FIRST) {
            rows = rows_m ? p->room : rows;
            cols = cols_m ? p->room : cols;
        }
        p->floats += count * rows * cols;
    } else {
        p->scratch += count * (p->kind == PASS_CHAIN_NEXT && rows_m && cols_m ? cols : rows * cols);
        if (p->scratch > p->most_scratch) p->most_scratch = p->scratch;
    }
}

static void plan_restart_scratch(Plan *p) { p->scratch = 0; }

// An attention block named pre ("enc.self_attn"): nq queries, nk keys.
static void plan_attention(Plan *p, const Config *c, const char *pre, size_t nq, bool q_m, size_t nk, bool k_m, bool masked) {
    size_t E = (size_t)c->d_model, H = (size_t)c->nhead, dk = E / H;
    char name[64];
    assert(strlen(pre) + sizeof ".masked_scores" <= sizeof name);  // the longest name made below fits
    static const char *const per_head[] = {"q", "k", "v", "scores", "masked_scores", "weights", "head_out"};
    for (int i = 0; i < 7; i++) {
        if (i == 4 && !masked) continue;
        bool of_keys = i == 1 || i == 2, square = i >= 3 && i <= 5;
        strcpy(stpcpy(stpcpy(name, pre), "."), per_head[i]);  // not snprintf: a plan runs before every trace
        plan_value(p, name, H, of_keys ? nk : nq, of_keys ? k_m : q_m, square ? nk : dk, square && k_m);
    }
    strcpy(stpcpy(name, pre), ".concat");
    plan_value(p, name, 1, nq, q_m, E, false);
    strcpy(stpcpy(name, pre), ".out_proj");
    plan_value(p, name, 1, nq, q_m, E, false);
}

static void plan_rows(Plan *p, const char *const *names, size_t n_names, size_t rows, bool rows_m, size_t cols) {
    for (size_t i = 0; i < n_names; i++) plan_value(p, names[i], 1, rows, rows_m, cols, false);
}

// n counts the pads; padded: src.padding_mask and the masked scores are recorded.
static void plan_encoder(Plan *p, const Config *c, size_t n, bool padded) {
    size_t E = (size_t)c->d_model, F = (size_t)c->d_ff;
    p->kind = PASS_WHOLE;
    p->layer = 0;
    plan_value(p, "src.tokens", 1, 1, false, n, false);
    if (padded) plan_value(p, "src.padding_mask", 1, 1, false, n, false);
    static const char *const input[] = {"src.embed", "src.pos_enc", "src.input"};
    plan_rows(p, input, 3, n, false, E);
    p->labels += n;
    for (int l = 1; l <= c->n_enc; l++) {
        p->layer = l;
        plan_attention(p, c, "enc.self_attn", n, false, n, false, padded);
        static const char *const rest[] = {"enc.residual1", "enc.norm1", "enc.ffn.out", "enc.residual2", "enc.norm2"};
        plan_rows(p, rest, 5, n, false, E);
        plan_value(p, "enc.ffn.hidden", 1, n, false, F, false);
    }
    p->layer = 0;
    plan_value(p, "enc.output", 1, n, false, E, false);
}

// A decoder pass over t positions, against a source of n.
static void plan_decoder_pass(Plan *p, const Config *c, size_t t, size_t n, bool padded, PassKind kind) {
    size_t E = (size_t)c->d_model, F = (size_t)c->d_ff;
    plan_restart_scratch(p);
    p->kind = kind;
    p->layer = 0;
    p->labels += t;
    plan_value(p, "dec.tokens", 1, 1, false, t, true);
    static const char *const input[] = {"dec.embed", "dec.pos_enc", "dec.input"};
    plan_rows(p, input, 3, t, true, E);
    plan_value(p, "dec.look_ahead_mask", 1, t, true, t, true);
    for (int l = 1; l <= c->n_dec; l++) {
        p->layer = l;
        plan_attention(p, c, "dec.self_attn", t, true, t, true, true);
        plan_attention(p, c, "dec.cross_attn", t, true, n, false, padded);
        static const char *const rest[] = {"dec.residual1", "dec.norm1", "dec.residual2", "dec.norm2",
                                           "dec.ffn.out",   "dec.residual3", "dec.norm3"};
        plan_rows(p, rest, 7, t, true, E);
        plan_value(p, "dec.ffn.hidden", 1, t, true, F, false);
    }
    p->layer = 0;
    plan_value(p, "dec.output", 1, t, true, E, false);
    p->kind = PASS_WHOLE;  // what follows the pass is not shared
}

static Plan plan(const Model *m, size_t n, const DecodeOptions *o) {
    const Config *c = &m->cfg;
    size_t V = (size_t)c->tgt_vocab, T = (size_t)o->max_steps, k = (size_t)o->beam_width;
    size_t top = (size_t)o->show_top < V ? (size_t)o->show_top : V;
    bool padded = o->pad_to > 0;
    Plan p = {.stages = o->stages, .room = T};
    plan_encoder(&p, c, n, padded);
    if (o->mode == DECODE_TEACHER) {
        size_t len = (size_t)o->target_len + 1;
        plan_decoder_pass(&p, c, len, n, padded, PASS_WHOLE);
        plan_value(&p, "dec.logits", 1, len, false, V, false);
        plan_value(&p, "dec.probs", 1, len, false, V, false);
        plan_value(&p, "dec.loss", 1, len, false, 1, false);
        p.labels += len;
    } else {
        // greedy and sampling: each pass extends the one before in place; beam search stores each, and
        // without the look-ahead mask a new token changes every earlier row, so each pass stands alone
        bool whole = o->mode == DECODE_BEAM || o->no_look_ahead_mask, beam = o->mode == DECODE_BEAM;
        for (size_t t = 1; t <= T; t++) {
            plan_decoder_pass(&p, c, t, n, padded, whole ? PASS_WHOLE : t == 1 ? PASS_CHAIN_FIRST : PASS_CHAIN_NEXT);
            plan_value(&p, "dec.logits", 1, 1, false, V, false);
            plan_value(&p, "dec.probs", 1, 1, false, V, false);
            plan_value(&p, "dec.top_k", 1, top, false, 1, false);
            p.labels += 1 + top;
            if (o->mode == DECODE_SAMPLE) plan_value(&p, "dec.sample", 1, 1, false, V, false);
            if (!beam) {
                plan_value(&p, "dec.choice", 1, 1, false, 3, false);
                p.labels += 1;
                continue;
            }
            size_t rows = k * k + k;
            plan_value(&p, "dec.beam", 1, rows, false, 4, false);
            p.labels += rows;
            p.chars += rows * (t * ((size_t)voc_max_token_bytes(m->tgt) + 1) + 1);
        }
    }
    plan_value(&p, "out.tokens", 1, 1, false, T + 1, false);
    p.labels += T + 1;
    p.labels += V;  // the target vocabulary: the columns of dec.logits, dec.probs and dec.sample
    return p;
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

// Whether a stage of this layer is recorded, remembered per stage and layer.
static bool wanted(Ctx *c, const StageInfo *stage, int layer) {
    if (!c->tr->opt.stages) return true;
    size_t at = (size_t)(stage - stage_at(0)) * (size_t)c->wanted_layers + (size_t)layer;
    assert(stage >= stage_at(0) && stage - stage_at(0) < stage_count() && layer < c->wanted_layers);
    if (!c->wanted[at]) c->wanted[at] = stage_wanted(c->tr->opt.stages, stage, layer) ? 1 : -1;
    return c->wanted[at] > 0;
}

float *trace_emit(Ctx *c, Step tpl) {
    tpl.stage = stage_of(c, tpl.name);
    assert(tpl.stage && "a stage missing from the stage table (stage.c)");
    c->last_shared = false;
    if (!c->record || !wanted(c, tpl.stage, c->layer)) {
        // in a pass of a chain an unrecorded m × m value is its new row alone (stride 0): no one reads the old rows
        bool row_only = c->first_row > 0 && !strcmp(tpl.sym_rows, "m") && !strcmp(tpl.sym_cols, "m");
        size_t count = row_only ? (size_t)tpl.cols : (size_t)tpl.rows * (size_t)tpl.cols;
        assert(c->n_scratch + count <= c->cap_scratch && "scratch plan too small");
        float *p = c->scratch + c->n_scratch;
        c->n_scratch += count;
        c->last_stride = row_only ? 0 : tpl.cols;
        return p;
    }
    Trace *tr = c->tr;
    assert(tr->n_steps < tr->cap_steps && "trace plan too small (steps)");
    tpl.layer = c->layer;
    tpl.head = c->head;
    tpl.dstep = c->dstep;
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
    c->last_shared = shares >= 0;
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
    AblPart part;  // which sub-layer, for the experiment that silences it
} AttnNames;

static const AttnNames enc_self = {"enc.self_attn.q", "enc.self_attn.k", "enc.self_attn.v", "enc.self_attn.scores",
                                   "enc.self_attn.masked_scores", "enc.self_attn.weights", "enc.self_attn.head_out",
                                   "enc.self_attn.concat", "enc.self_attn.out_proj", ABL_ENC_SELF};
static const AttnNames dec_self = {"dec.self_attn.q", "dec.self_attn.k", "dec.self_attn.v", "dec.self_attn.scores",
                                   "dec.self_attn.masked_scores", "dec.self_attn.weights", "dec.self_attn.head_out",
                                   "dec.self_attn.concat", "dec.self_attn.out_proj", ABL_DEC_SELF};
static const AttnNames dec_cross = {"dec.cross_attn.q", "dec.cross_attn.k", "dec.cross_attn.v", "dec.cross_attn.scores",
                                    "dec.cross_attn.masked_scores", "dec.cross_attn.weights", "dec.cross_attn.head_out",
                                    "dec.cross_attn.concat", "dec.cross_attn.out_proj", ABL_DEC_CROSS};

// Multi-head attention of q over kv (rows: queries, columns: keys). causal:
// the look-ahead mask M (−∞ above the diagonal) is added to the scores;
// key_mask (the key padding mask, one row of kv.len) too when given. kv_proj,
// when given, holds kv's K and V projections (2 × kv.len × E), made once per
// run. Query rows below c->first_row are the previous pass's (see
// trace_emit): only the later rows are computed, and for the values kept
// from that pass the old rows against keys new in this pass. Returns the
// output projection (q.len × E).
static float *attention(Ctx *c, const AttnWeights *a, const AttnNames *nm, Seq q, Seq kv, bool causal, const float *key_mask,
                        const float *kv_proj) {
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
    int masks = (causal ? 1 : 0) | (key_mask ? 2 : 0);
    bool look_ahead = !c->tr->opt.no_look_ahead_mask;  // the experiment without it adds M = 0
    // rows [0,E) of in_proj make Q, [E,2E) K, [2E,3E) V; a chain's self-attention keeps
    // every position's per layer, as a later pass needs the old rows of a head it does not record
    size_t cap = (size_t)q.len;
    float *Q = c->qkv;
    if (!kv_proj && c->chain_cap > 0) {
        cap = (size_t)c->chain_cap;
        Q = c->chain_qkv + (size_t)(c->layer - 1) * 3 * cap * E;
    }
    op_linear(Q + (size_t)r0 * E, q.x + (size_t)r0 * E, a->in_proj_w, a->in_proj_b, new_q, E, E);
    const float *K, *V;
    if (kv_proj) {
        K = kv_proj;
        V = kv_proj + (size_t)nk * E;
    } else {
        float *Kp = Q + cap * E, *Vp = Kp + cap * E;
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
        // a value kept from the previous pass gets its new rows; a fresh one every row it is read at
        float *qh = trace_emit(c, (Step){.name = nm->q, .rows = q.len, .cols = dk, .sym_rows = q.sym, .sym_cols = "d_k",
                                   .formula = "Q_h = X·W_Q,h + b_Q,h", .row_labels = q.labels});
        int q_from = c->last_shared || kv_proj ? r0 : 0;  // cross-attention's old queries meet no new key
        op_slice_cols(qh + (size_t)q_from * dk, Q + (size_t)q_from * E, q.len - q_from, E, h * dk, dk);
        float *kh = trace_emit(c, (Step){.name = nm->k, .rows = nk, .cols = dk, .sym_rows = kv.sym, .sym_cols = "d_k",
                                   .formula = "K_h = X·W_K,h + b_K,h", .row_labels = kv.labels});
        int k_from = c->last_shared ? k0 : 0;
        op_slice_cols(kh + (size_t)k_from * dk, K + (size_t)k_from * E, nk - k_from, E, h * dk, dk);
        float *vh = trace_emit(c, (Step){.name = nm->v, .rows = nk, .cols = dk, .sym_rows = kv.sym, .sym_cols = "d_k",
                                   .formula = "V_h = X·W_V,h + b_V,h", .row_labels = kv.labels});
        int v_from = c->last_shared ? k0 : 0;
        op_slice_cols(vh + (size_t)v_from * dk, V + (size_t)v_from * E, nk - v_from, E, h * dk, dk);
        // scores, masked scores and weights: each its own row stride (room for later keys in a chain; 0: the new row alone)
        float *scores = trace_emit(c, (Step){.name = nm->scores, .rows = q.len, .cols = nk, .sym_rows = q.sym,
                                       .sym_cols = kv.sym, .formula = "Q_h·K_hᵀ / √d_k", .row_labels = q.labels, .col_labels = kv.labels});
        size_t ss = (size_t)c->last_stride;
        bool scores_kept = c->last_shared;
        for (int i = r0; i < q.len; i++) op_matmul_nt(scores + i * ss, qh + (size_t)i * dk, kh, 1, dk, nk, scale);
        float *masked = NULL;
        size_t ms = 0;
        bool masked_kept = false;
        if (masks) {
            assert(nm->masked);
            masked = trace_emit(c, (Step){.name = nm->masked, .rows = q.len, .cols = nk, .sym_rows = q.sym, .sym_cols = kv.sym,
                                          .formula = masked_formulas[masks], .row_labels = q.labels, .col_labels = kv.labels});
            ms = (size_t)c->last_stride;
            masked_kept = c->last_shared;
            for (int i = r0; i < q.len; i++)
                for (int j = 0; j < nk; j++)
                    masked[i * ms + j] = scores[i * ss + j] + (causal ? (j > i && look_ahead ? -INFINITY : 0.0f) : 0.0f) + (key_mask ? key_mask[j] : 0.0f);
        }
        // masked keys get weight exactly 0: exp(−∞) is 0
        float *weights = trace_emit(c, (Step){.name = nm->weights, .rows = q.len, .cols = nk, .sym_rows = q.sym,
                                        .sym_cols = kv.sym, .formula = weights_formulas[masks], .row_labels = q.labels,
                                        .col_labels = kv.labels});
        size_t ws = (size_t)c->last_stride;
        bool weights_kept = c->last_shared;
        for (int i = r0; i < q.len; i++) op_softmax_rows(weights + i * ws, masks ? masked + i * ms : scores + i * ss, 1, nk);
        // the old rows against the new keys, in the values kept from the previous pass: the raw
        // scores show them; the mask hides them, so the old rows' weights (and head outputs) hold
        for (int i = 0; i < r0 && (scores_kept || masked_kept || weights_kept); i++)
            for (int j = k0; j < nk; j++) {
                float raw;
                op_matmul_nt(&raw, qh + (size_t)i * dk, kh + (size_t)j * dk, 1, dk, 1, scale);
                float v = masks ? raw + (causal ? (j > i && look_ahead ? -INFINITY : 0.0f) : 0.0f) + (key_mask ? key_mask[j] : 0.0f) : raw;
                if (scores_kept) scores[i * ss + j] = raw;
                if (masked_kept) masked[i * ms + j] = v;
                // NaN is a score that overflowed (huge weights): trace_run refuses the trace below
                assert(!(v > -INFINITY) && "an old row sees a new key");
                if (weights_kept) weights[i * ws + j] = 0.0f;
            }
        heads[h] = trace_emit(c, (Step){.name = nm->head_out, .rows = q.len, .cols = dk, .sym_rows = q.sym, .sym_cols = "d_k",
                                  .formula = "head_h = A_h·V_h", .row_labels = q.labels});
        for (int i = r0; i < q.len; i++) op_matmul_nn(heads[h] + (size_t)i * dk, weights + i * ws, vh, 1, nk, dk);
    }
    c->head = 0;
    // the experiment: a silenced head's slice of the concatenation is 0; a silenced sub-layer's output is 0
    const Ablation *abl = &c->tr->opt.ablate;
    bool silent = abl_sublayer(abl, nm->part, c->layer), some = false;
    for (int h = 0; h < H; h++) some = some || abl_head(abl, nm->part, c->layer, h + 1);
    concat = trace_emit(c, (Step){.name = nm->concat, .rows = q.len, .cols = E, .sym_rows = q.sym, .sym_cols = "d_model",
                            .formula = some && !silent ? "Concat(head_1, …, head_h), a silenced head's columns 0" : "Concat(head_1, …, head_h)",
                            .row_labels = q.labels});
    for (int h = 0; h < H; h++) {
        if (!silent && abl_head(abl, nm->part, c->layer, h + 1))
            for (int i = r0; i < q.len; i++) memset(concat + (size_t)i * E + (size_t)h * dk, 0, (size_t)dk * sizeof *concat);
        else op_put_cols(concat + (size_t)r0 * E, heads[h] + (size_t)r0 * dk, new_q, E, h * dk, dk);
    }
    float *out = trace_emit(c, (Step){.name = nm->out_proj, .rows = q.len, .cols = E, .sym_rows = q.sym, .sym_cols = "d_model",
                                .formula = silent ? "0: the sub-layer is silenced" : "Concat(heads)·W_O + b_O", .row_labels = q.labels});
    if (silent) memset(out + (size_t)r0 * E, 0, (size_t)new_q * E * sizeof *out);
    else op_linear(out + (size_t)r0 * E, concat + (size_t)r0 * E, a->out_proj_w, a->out_proj_b, new_q, E, E);
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

static float *ffn(Ctx *c, const char *hidden_name, const char *out_name, AblPart part, Seq x, const float *w1, const float *b1,
                  const float *w2, const float *b2) {
    const Config *cfg = &c->m->cfg;
    int E = cfg->d_model, F = cfg->d_ff, r0 = c->first_row, rows = x.len - r0;
    float *hidden = trace_emit(c, (Step){.name = hidden_name, .rows = x.len, .cols = F, .sym_rows = x.sym,
                                   .sym_cols = "d_ff", .formula = "ReLU(x·W₁ + b₁)", .row_labels = x.labels});
    float *h = hidden + (size_t)r0 * F;
    op_linear(h, x.x + (size_t)r0 * E, w1, b1, rows, E, F);
    op_relu(h, h, rows * F);
    bool silent = abl_sublayer(&c->tr->opt.ablate, part, c->layer);  // the experiment: the residual passes alone
    float *out = trace_emit(c, (Step){.name = out_name, .rows = x.len, .cols = E, .sym_rows = x.sym, .sym_cols = "d_model",
                                .formula = silent ? "0: the sub-layer is silenced" : "ReLU(x·W₁ + b₁)·W₂ + b₂", .row_labels = x.labels});
    if (silent) memset(out + (size_t)r0 * E, 0, (size_t)rows * E * sizeof *out);
    else op_linear(out + (size_t)r0 * E, h, w2, b2, rows, F, E);
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
    if (c->tr->opt.pad_to > 0) {
        // kept beside the trace: a padding mask not recorded is in scratch, which the decoder's passes reuse
        memcpy(c->key_padding, record_padding_mask(c, n, n_real, labels), (size_t)n * sizeof *c->key_padding);
        c->key_padding_mask = c->key_padding;
    }
    Seq x = {embed(c, true, ids, n, labels, "n"), n, labels, "n"};
    for (int l = 0; l < m->cfg.n_enc; l++) {
        const EncLayer *L = &m->w.enc[l];
        c->layer = l + 1;
        // the pads are queries too, as in PyTorch; only as keys are they hidden
        float *att = attention(c, &L->self_attn, &enc_self, x, x, false, c->key_padding_mask, NULL);
        x.x = add_norm(c, "enc.residual1", "enc.norm1", "x + MultiHeadAttention(x)", x, att, L->norm1_w, L->norm1_b);
        float *f = ffn(c, "enc.ffn.hidden", "enc.ffn.out", ABL_ENC_FFN, x, L->lin1_w, L->lin1_b, L->lin2_w, L->lin2_b);
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
    c->n_scratch = 0;  // what was not recorded of the pass before is read no more
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
    // shown, not read: attention adds the same values itself. The new row, and when kept
    // from the previous pass the old rows' new column: 0 on and below the diagonal, −∞ above
    size_t ms = (size_t)c->last_stride;
    int r0 = c->first_row;
    for (int i = c->last_shared ? 0 : r0; i < t; i++)
        for (int j = i < r0 ? r0 : 0; j < t; j++) mask[i * ms + j] = j > i && masked ? -INFINITY : 0.0f;
    for (int l = 0; l < m->cfg.n_dec; l++) {
        const DecLayer *L = &m->w.dec[l];
        c->layer = l + 1;
        float *att = attention(c, &L->self_attn, &dec_self, x, x, true, NULL, NULL);
        x.x = add_norm(c, "dec.residual1", "dec.norm1", "x + MaskedMultiHeadAttention(x)", x, att, L->norm1_w, L->norm1_b);
        const float *mem_kv = c->cross_kv + (size_t)l * 2 * mem.len * E;
        float *cross = attention(c, &L->cross_attn, &dec_cross, x, mem, false, c->key_padding_mask, mem_kv);
        x.x = add_norm(c, "dec.residual2", "dec.norm2", "x + CrossAttention(x, memory)", x, cross, L->norm2_w, L->norm2_b);
        float *f = ffn(c, "dec.ffn.hidden", "dec.ffn.out", ABL_DEC_FFN, x, L->lin1_w, L->lin1_b, L->lin2_w, L->lin2_b);
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

// What a run needs: the trace's plan and one allocation, and the working
// buffers beside it.
typedef struct {
    Plan plan;
    size_t block;      // bytes of the trace's one allocation
    size_t scratch;    // floats of unrecorded values at most at once
    size_t longest;    // positions of the longest sequence, and one
    size_t chain_qkv;  // floats of a chain's Q, K and V per decoder layer (L, 3, T, E); 0 outside chains
    size_t total;      // bytes of all of it
} Needs;

static Needs needs_of(const Model *m, size_t len, const DecodeOptions *o) {
    const Config *c = &m->cfg;
    size_t T = (size_t)o->max_steps, E = (size_t)c->d_model, V = (size_t)c->tgt_vocab;
    Needs nd = {.plan = plan(m, len, o)};
    const Plan *s = &nd.plan;
    // one allocation: steps, label pointers, floats, ints, chars (in order of alignment)
    nd.block = s->steps * sizeof(Step) + s->labels * sizeof(char *) + s->floats * sizeof(float) + (len + T + 1 + s->steps) * sizeof(int) +
               s->chars;
    nd.scratch = s->most_scratch;
    if (o->mode == DECODE_BEAM) {
        // a hypothesis not recorded: a whole pass and its prediction in scratch, then the step's
        // table and, after the last step, the output (the same as a plan that records nothing)
        size_t k = (size_t)o->beam_width;
        Plan other = {.none = true};
        plan_decoder_pass(&other, c, T, len, o->pad_to > 0, PASS_WHOLE);
        plan_value(&other, "dec.logits", 1, 1, false, V, false);
        plan_value(&other, "dec.probs", 1, 1, false, V, false);
        plan_value(&other, "dec.beam", 1, k * k + k, false, 4, false);
        plan_value(&other, "out.tokens", 1, 1, false, T + 1, false);
        if (other.most_scratch > nd.scratch) nd.scratch = other.most_scratch;
    }
    nd.longest = (len > T ? len : T) + 1;
    bool chained = (o->mode == DECODE_GREEDY || o->mode == DECODE_SAMPLE) && !o->no_look_ahead_mask;
    nd.chain_qkv = chained ? (size_t)c->n_dec * 3 * T * E : 0;
    size_t work = 3 * nd.longest * E + nd.longest * E + (size_t)c->n_dec * 2 * len * E + nd.chain_qkv + nd.scratch + 1 + len;
    // and the decoding strategies' own: candidates, sequences, the beam's hypotheses
    size_t decoding = V * (sizeof(TraceRanked) + sizeof(float)) + 4 * (T + 1) * (size_t)o->beam_width * sizeof(int);
    nd.total = sizeof(Trace) + nd.block + work * sizeof(float) + decoding;
    return nd;
}

static void ctx_deinit(Ctx *c) {
    free(c->qkv);
    free(c->pe);
    free(c->cross_kv);
    free(c->scratch);
    free(c->chain_qkv);
    free(c->wanted);
    free(c->key_padding);
}

char *trace_format_bytes(size_t bytes, char *buf, size_t size) {
    if (bytes >= 1000000000) snprintf(buf, size, "%.1f GB", (double)bytes / 1e9);
    else if (bytes >= 1000000) snprintf(buf, size, "%.0f MB", (double)bytes / 1e6);
    else snprintf(buf, size, "%.0f kB", (double)bytes / 1e3);
    return buf;
}

int trace_estimate(const Model *m, int n, const DecodeOptions *opt, size_t *bytes, Error *err) {
    DecodeOptions o = *opt;
    if (decode_check_options(m, n, &o, err)) return -1;
    *bytes = needs_of(m, (size_t)(o.pad_to > 0 ? o.pad_to : n), &o).total;
    return 0;
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
    Needs nd = needs_of(m, (size_t)len, &o);
    const Plan *s = &nd.plan;
    size_t T = (size_t)o.max_steps, limit = o.memory_limit ? o.memory_limit : pg_physical_memory() / 4;
    if (nd.total > limit) {
        char need[32], lim[32];
        err_set(err, "the trace needs %s of memory, over the limit of %s%s; record fewer stages (--stages) or decoding steps (--max-steps)",
                trace_format_bytes(nd.total, need, sizeof need), trace_format_bytes(limit, lim, sizeof lim),
                o.memory_limit ? " (--memory-limit)" : " (a quarter of the physical memory; --memory-limit)");
        return NULL;
    }
    size_t bytes = nd.block;
    Trace *tr = calloc(1, sizeof *tr);
    char *block = malloc(bytes);
    Ctx c = {.tr = tr, .m = m, .record = true};
    size_t longest = nd.longest;
    size_t E = (size_t)m->cfg.d_model;
    c.qkv = malloc(3 * longest * E * sizeof *c.qkv);
    c.pe = malloc(longest * E * sizeof *c.pe);
    c.cross_kv = malloc((size_t)m->cfg.n_dec * 2 * (size_t)len * E * sizeof *c.cross_kv);
    c.cap_scratch = nd.scratch;
    c.scratch = malloc((c.cap_scratch + 1) * sizeof *c.scratch);
    c.chain_qkv = nd.chain_qkv ? malloc(nd.chain_qkv * sizeof *c.chain_qkv) : NULL;
    c.key_padding = malloc((size_t)len * sizeof *c.key_padding);
    c.wanted_layers = (m->cfg.n_enc > m->cfg.n_dec ? m->cfg.n_enc : m->cfg.n_dec) + 1;
    c.wanted = o.stages ? calloc((size_t)stage_count() * (size_t)c.wanted_layers, 1) : NULL;
    if (!tr || !block || !c.qkv || !c.pe || !c.cross_kv || !c.scratch || !c.key_padding || (nd.chain_qkv && !c.chain_qkv) || (o.stages && !c.wanted)) {
        char need[32];
        err_set(err, "out of memory for a trace of %s", trace_format_bytes(nd.total, need, sizeof need));
        free(block);
        goto fail;
    }
    tr->model = m;
    tr->opt = o;
    tr->bytes = bytes;
    tr->steps = (Step *)block;
    tr->cap_steps = (int)s->steps;
    tr->labels = (const char **)(tr->steps + s->steps);
    tr->cap_labels = s->labels;
    tr->floats = (float *)(tr->labels + s->labels);
    tr->cap_floats = s->floats;
    tr->src_ids = (int *)(tr->floats + s->floats);
    tr->out_ids = tr->src_ids + len;
    tr->shares = tr->out_ids + T + 1;
    tr->chars = (char *)(tr->shares + s->steps);
    tr->cap_chars = s->chars;
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
    if (o.each_head) {
        size_t cells = (size_t)(m->cfg.n_enc + 2 * m->cfg.n_dec) * (size_t)m->cfg.nhead;
        if (!(tr->each_head = malloc(cells * sizeof *tr->each_head))) {
            err_set(err, "out of memory for the table of silenced heads");
            goto fail;
        }
        if (trace_each_head(tr, tr->each_head, err)) goto fail;
    }
    ctx_deinit(&c);
    return tr;
fail:
    ctx_deinit(&c);
    trace_free(tr);
    return NULL;
}

void trace_free(Trace *t) {
    if (!t) return;
    free(t->steps);  // the one block
    free(t->each_head);
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

int trace_decoding_steps(const Trace *t) { return t->decoding_steps; }

const int *trace_source(const Trace *t, int *n) {
    *n = t->src_n;
    return t->src_ids;
}
int trace_source_length(const Trace *t) { return t->opt.pad_to > t->src_n ? t->opt.pad_to : t->src_n; }
float trace_mean_loss(const Trace *t) { return t->mean_loss; }
const DecodeOptions *trace_options(const Trace *t) { return &t->opt; }
const Model *trace_model(const Trace *t) { return t->model; }
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
