// The decoding strategies: greedy, sampling, beam search and teacher
// forcing, each recording its choices into the trace (decode_run), and the
// options they take.
#include <assert.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "rng.h"
#include "trace_private.h"

// Indices of the k largest values of x (ties: lower index first), best first.
static void top_indices(const float *x, int n, int k, int *idx) {
    for (int j = 0; j < k; j++) idx[j] = -1;
    for (int i = 0; i < n; i++) {
        int pos = k;
        while (pos > 0 && (idx[pos - 1] < 0 || x[i] > x[idx[pos - 1]])) pos--;
        if (pos >= k) continue;
        memmove(idx + pos + 1, idx + pos, (size_t)(k - pos - 1) * sizeof *idx);
        idx[pos] = i;
    }
}

// Whether decoding may not choose id: <pad>, <bos> and <unk> are never a
// next token unless the options allow them (the model still gives them
// probability; dec.probs shows it).
static bool excluded(const Ctx *c, int id) {
    const Vocab *v = c->m->tgt;
    return !c->tr->opt.allow_special && (id == voc_pad(v) || id == voc_bos(v) || id == voc_unk(v));
}

static void record_top(Ctx *c, const float *probs) {
    const Model *m = c->m;
    int k = c->tr->opt.show_top, V = m->cfg.tgt_vocab;
    if (k > V) k = V;
    int idx[64];
    top_indices(probs, V, k, idx);
    const char **labels = trace_new_labels(c, (size_t)k);
    float *top = trace_emit(c, (Step){.name = "dec.top_k", .rows = k, .cols = 1, .sym_rows = "k", .sym_cols = "1",
                                .formula = "the k most likely next tokens", .row_labels = labels});
    for (int i = 0; i < k; i++) {
        top[i] = probs[idx[i]];
        labels[i] = voc_token(m->tgt, idx[i]);
    }
}

static const char *const choice_cols[] = {"token id", "probability", "random draw"};

static void record_choice(Ctx *c, int id, float prob, float draw) {
    const char **labels = trace_new_labels(c, 1);
    labels[0] = voc_token(c->m->tgt, id);
    float *ch = trace_emit(c, (Step){.name = "dec.choice", .rows = 1, .cols = 3, .sym_rows = "1", .sym_cols = "3",
                               .formula = c->tr->opt.mode == DECODE_SAMPLE ? "next token drawn from the filtered distribution"
                                                                           : "next token = argmax P",
                               .row_labels = labels, .col_labels = choice_cols});
    ch[0] = (float)id;
    ch[1] = prob;
    ch[2] = draw;
}

static int by_prob_desc(const void *a, const void *b) {
    const TraceRanked *x = a, *y = b;
    if (x->p != y->p) return x->p > y->p ? -1 : 1;
    return x->id - y->id;
}

void trace_rank(TraceRanked *out, const float *p, int n) {
    for (int i = 0; i < n; i++) out[i] = (TraceRanked){i, p[i]};
    qsort(out, (size_t)n, sizeof *out, by_prob_desc);
}

// Temperature, top-k and top-p, then a draw; records the distribution drawn from.
static int sample(Ctx *c, const float *logits, Rng *rng, TraceRanked *cand, float *draw_out) {
    const DecodeOptions *o = &c->tr->opt;
    int V = c->m->cfg.tgt_vocab;
    float *dist = trace_emit(c, (Step){.name = "dec.sample", .rows = 1, .cols = V, .sym_rows = "1", .sym_cols = "|V|",
                                 .formula = "softmax(logits / T), keep top-k and top-p, renormalise", .col_labels = c->vocab_labels});
    for (int i = 0; i < V; i++) dist[i] = logits[i] / o->temperature;
    op_softmax_rows(dist, dist, 1, V);
    int allowed = V;
    if (!o->allow_special) {  // as if their logits were −∞: the rest renormalised, before top-k and top-p
        double rest = 0.0;
        for (int i = 0; i < V; i++)
            if (excluded(c, i)) dist[i] = 0.0f, allowed--;
            else rest += dist[i];
        for (int i = 0; i < V; i++) dist[i] = (float)(dist[i] / rest);
    }
    trace_rank(cand, dist, V);
    if (allowed < V) {  // the excluded go last, behind tokens whose probability underflowed to 0 too
        int w = 0;
        for (int i = 0; i < V; i++)
            if (!excluded(c, cand[i].id)) cand[w++] = cand[i];
        for (int i = 0; i < V && w < V; i++)
            if (excluded(c, i)) cand[w++] = (TraceRanked){i, 0.0f};
    }
    int keep = o->top_k > 0 && o->top_k < allowed ? o->top_k : allowed;
    double mass = 0.0;
    for (int i = 0; i < keep; i++) {
        mass += cand[i].p;
        if (mass >= o->top_p) {  // nucleus: the smallest set holding top_p
            keep = i + 1;
            break;
        }
    }
    mass = 0.0;
    for (int i = 0; i < keep; i++) mass += cand[i].p;
    for (int i = 0; i < V; i++) dist[i] = 0.0f;
    for (int i = 0; i < keep; i++) dist[cand[i].id] = (float)(cand[i].p / mass);
    float u = rng_uniform(rng);
    *draw_out = u;
    double acc = 0.0;
    for (int i = 0; i < keep; i++) {
        acc += dist[cand[i].id];
        if (u < acc) return cand[i].id;
    }
    return cand[keep - 1].id;  // rounding left u just past the total
}

void decode_record_output(Ctx *c) {
    Trace *tr = c->tr;
    c->dstep = 0;
    const char *const *labels = trace_token_labels(c, c->m->tgt, tr->out_ids, tr->out_n);
    float *o = trace_emit(c, (Step){.name = "out.tokens", .rows = 1, .cols = tr->out_n, .sym_rows = "1", .sym_cols = "T",
                              .formula = "the output sentence", .col_labels = labels});
    for (int i = 0; i < tr->out_n; i++) o[i] = (float)tr->out_ids[i];
}

// Greedy decoding or sampling: one token per step.
static int run_stepwise(Ctx *c, Seq mem) {
    Trace *tr = c->tr;
    const Model *m = c->m;
    int V = m->cfg.tgt_vocab, eos = voc_eos(m->tgt);
    TraceRanked *cand = malloc((size_t)V * sizeof *cand);
    int *seq = malloc((size_t)(tr->opt.max_steps + 1) * sizeof *seq);  // <bos> + tokens so far
    if (!cand || !seq) {
        free(cand);
        free(seq);
        return -1;
    }
    Rng rng;
    rng_init(&rng, tr->opt.seed);
    seq[0] = voc_bos(m->tgt);
    int prev_pass = -1;  // first step of the previous decoder pass
    // without the look-ahead mask a new token changes every earlier row: each pass stands alone
    bool chained = !tr->opt.no_look_ahead_mask;
    c->chain_cap = chained ? tr->opt.max_steps : 0;
    for (int t = 1; t <= tr->opt.max_steps; t++) {
        c->dstep = tr->decoding_steps = t;
        // each step's input extends the previous one's by one token: incremental
        int pass = tr->n_steps;
        float *h = trace_decoder_pass(c, seq, t, "m", mem, prev_pass);
        if (chained) prev_pass = pass;
        const char **last = trace_new_labels(c, 1);
        last[0] = voc_token(m->tgt, seq[t - 1]);
        float *probs;
        float *logits = trace_predict(c, h + (size_t)(t - 1) * m->cfg.d_model, 1, "1", last, &probs);
        record_top(c, probs);
        int next;
        float draw = -1.0f;
        if (tr->opt.mode == DECODE_SAMPLE) {
            next = sample(c, logits, &rng, cand, &draw);
        } else {
            next = -1;  // the most likely token decoding may choose
            for (int i = 0; i < V; i++)
                if (!excluded(c, i) && (next < 0 || probs[i] > probs[next])) next = i;
        }
        record_choice(c, next, probs[next], draw);
        if (next == eos && !tr->opt.ignore_eos) break;
        tr->out_ids[tr->out_n++] = next;
        seq[t] = next;
    }
    free(cand);
    free(seq);
    return 0;
}

typedef struct {
    int *ids;        // <bos> + tokens; len entries
    int len;
    double score;    // sum of log-probabilities
    bool done;       // ended with <eos>
} Hyp;

typedef struct {
    int from, id;    // hypothesis and token; id -1: a finished hypothesis carried over
    double logp, score;
} Expansion;

static int by_score_desc(const void *a, const void *b) {
    const Expansion *x = a, *y = b;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    if (x->from != y->from) return x->from - y->from;
    return x->id - y->id;
}

// Writes "tok tok ▸ next" for a beam row label into the trace's strings.
static const char *hyp_label(Ctx *c, const Hyp *h, int next) {
    Trace *tr = c->tr;
    char *start = tr->chars + tr->n_chars;
    size_t cap = tr->cap_chars - tr->n_chars, len = 0;
    for (int i = 1; i < h->len; i++) len += (size_t)snprintf(start + len, cap - len, "%s ", voc_token(c->m->tgt, h->ids[i]));
    if (next >= 0) len += (size_t)snprintf(start + len, cap - len, "+ %s", voc_token(c->m->tgt, next));
    else len += (size_t)snprintf(start + len, cap - len, "(done)");
    assert(len < cap && "trace plan too small (chars)");
    tr->n_chars += len + 1;
    return start;
}

static const char *const beam_cols[] = {"log P(token)", "score", "kept", "parent"};

static int run_beam(Ctx *c, Seq mem) {
    Trace *tr = c->tr;
    const Model *m = c->m;
    int k = tr->opt.beam_width, T = tr->opt.max_steps, V = m->cfg.tgt_vocab, E = m->cfg.d_model;
    int eos = voc_eos(m->tgt);
    Hyp *beam = calloc((size_t)k, sizeof *beam), *next_beam = calloc((size_t)k, sizeof *next_beam);
    int *store = malloc(2 * (size_t)k * (size_t)(T + 1) * sizeof *store);
    Expansion *ex = malloc(((size_t)k * k + k) * sizeof *ex);
    float *logp = malloc((size_t)V * sizeof *logp);
    int *idx = malloc((size_t)k * sizeof *idx);
    int rc = -1;
    if (!beam || !next_beam || !store || !ex || !logp || !idx) goto done;
    for (int i = 0; i < k; i++) {
        beam[i].ids = store + (size_t)i * (T + 1);
        next_beam[i].ids = store + (size_t)(k + i) * (T + 1);
    }
    int live = 1;
    beam[0].ids[0] = voc_bos(m->tgt);
    beam[0].len = 1;
    for (int t = 1; t <= T; t++) {
        c->dstep = tr->decoding_steps = t;
        int n_ex = 0;
        bool recorded = false;
        for (int b = 0; b < live; b++) {
            Hyp *h = &beam[b];
            if (h->done) {
                ex[n_ex++] = (Expansion){b, -1, 0.0, h->score};
                continue;
            }
            // the best unfinished hypothesis is recorded; the others run in scratch
            c->record = !recorded;
            c->n_scratch = 0;
            // not incremental: the recorded hypothesis need not extend the previous step's
            float *out = trace_decoder_pass(c, h->ids, h->len, "m", mem, -1);
            float *probs;
            const char **last = trace_new_labels(c, 1);
            if (last) last[0] = voc_token(m->tgt, h->ids[h->len - 1]);
            trace_predict(c, out + (size_t)(h->len - 1) * E, 1, "1", last, &probs);
            if (c->record) record_top(c, probs);
            recorded = true;
            c->record = true;
            for (int i = 0; i < V; i++) logp[i] = excluded(c, i) ? -INFINITY : logf(probs[i]);
            top_indices(logp, V, k, idx);
            for (int i = 0; i < k && i < V; i++)
                if (!excluded(c, idx[i])) ex[n_ex++] = (Expansion){b, idx[i], logp[idx[i]], h->score + logp[idx[i]]};
        }
        qsort(ex, (size_t)n_ex, sizeof *ex, by_score_desc);
        const char **labels = trace_new_labels(c, (size_t)n_ex);
        float *table = trace_emit(c, (Step){.name = "dec.beam", .rows = n_ex, .cols = 4, .sym_rows = "candidates", .sym_cols = "4",
                                      .formula = "score = Σ log P(token); keep the best k", .row_labels = labels, .col_labels = beam_cols});
        int kept = n_ex < k ? n_ex : k;
        for (int i = 0; i < n_ex; i++) {
            labels[i] = hyp_label(c, &beam[ex[i].from], ex[i].id);
            table[i * 4 + 0] = ex[i].id < 0 ? 0.0f : (float)ex[i].logp;
            table[i * 4 + 1] = (float)ex[i].score;
            table[i * 4 + 2] = i < kept ? 1.0f : 0.0f;
            // beam[b] is row b of the previous step's table (its kept rows come first); step 1 extends <bos>
            table[i * 4 + 3] = t == 1 ? -1.0f : (float)ex[i].from;
        }
        bool all_done = true;
        for (int i = 0; i < kept; i++) {
            const Hyp *from = &beam[ex[i].from];
            Hyp *h = &next_beam[i];
            memcpy(h->ids, from->ids, (size_t)from->len * sizeof *h->ids);
            h->len = from->len;
            h->score = ex[i].score;
            h->done = from->done || ex[i].id == eos;
            if (ex[i].id >= 0 && ex[i].id != eos) h->ids[h->len++] = ex[i].id;
            all_done = all_done && h->done;
        }
        for (int i = 0; i < kept; i++) {  // swap the beams' storage
            Hyp tmp = beam[i];
            beam[i] = next_beam[i];
            next_beam[i] = tmp;
        }
        live = kept;
        if (all_done) break;
    }
    for (int i = 1; i < beam[0].len; i++) tr->out_ids[tr->out_n++] = beam[0].ids[i];
    rc = 0;
done:
    free(beam);
    free(next_beam);
    free(store);
    free(ex);
    free(logp);
    free(idx);
    return rc;
}

static const char *const loss_cols[] = {"cross-entropy"};

static int run_teacher(Ctx *c, Seq mem) {
    Trace *tr = c->tr;
    const Model *m = c->m;
    int len = tr->opt.target_len + 1, V = m->cfg.tgt_vocab;
    int *in = malloc((size_t)len * sizeof *in), *gold = malloc((size_t)len * sizeof *gold);
    if (!in || !gold) {
        free(in);
        free(gold);
        return -1;
    }
    // input: <bos> + target (shifted right); expected: target + <eos>
    in[0] = voc_bos(m->tgt);
    memcpy(in + 1, tr->opt.target, (size_t)tr->opt.target_len * sizeof *in);
    memcpy(gold, tr->opt.target, (size_t)tr->opt.target_len * sizeof *gold);
    gold[len - 1] = voc_eos(m->tgt);
    c->dstep = 1;
    float *h = trace_decoder_pass(c, in, len, "m", mem, -1);
    const char *const *gold_labels = trace_token_labels(c, m->tgt, gold, len);
    float *probs;
    const float *logits = trace_predict(c, h, len, "m", gold_labels, &probs);
    float *loss = trace_emit(c, (Step){.name = "dec.loss", .rows = len, .cols = 1, .sym_rows = "m", .sym_cols = "1",
                                 .formula = "loss_i = −log P(target_i)", .row_labels = gold_labels, .col_labels = loss_cols});
    double sum = 0.0;
    for (int i = 0; i < len; i++) {
        // from the log-softmax of the logits, not log(probs), so tiny probabilities keep their precision
        const float *lg = logits + (size_t)i * V;
        float mx = -INFINITY;
        for (int j = 0; j < V; j++) mx = fmaxf(mx, lg[j]);
        double z = 0.0;
        for (int j = 0; j < V; j++) z += exp((double)lg[j] - mx);
        loss[i] = (float)(log(z) + mx - lg[gold[i]]);
        sum += loss[i];
    }
    tr->mean_loss = (float)(sum / len);
    // the "output" of a teacher-forced pass is the reference itself
    memcpy(tr->out_ids, tr->opt.target, (size_t)tr->opt.target_len * sizeof *tr->out_ids);
    tr->out_n = tr->opt.target_len;
    free(in);
    free(gold);
    return 0;
}

// A stage pattern must match a stage id of the model: a typo would record nothing.
static int check_stages(const Model *m, const char *pattern, Error *err) {
    if (!pattern) return 0;
    if (!*pattern) return err_set(err, "the stage pattern is empty; expected a stage id or a pattern such as dec.L*.cross_attn.weights");
    if (strlen(pattern) > 200) return err_set(err, "the stage pattern is %zu bytes long, at most 200", strlen(pattern));
    char id[128];
    for (int i = 0; i < stage_count(); i++) {
        const StageInfo *s = stage_at(i);
        int layers = !s->layered ? 0 : s->part == STAGE_ENCODER ? m->cfg.n_enc : m->cfg.n_dec;
        for (int l = layers ? 1 : 0; l <= layers; l++)
            if (!fnmatch(pattern, stage_id(s, l, id, sizeof id), 0)) return 0;
    }
    return err_set(err, "the stage pattern \"%s\" matches no stage of this model (stage ids as in docs/TRACE.md, e.g. dec.L1.cross_attn.weights)",
                   ERR_QUOTE(pattern, 60));
}

int decode_check_options(const Model *m, int n, DecodeOptions *o, Error *err) {
    const Config *cfg = &m->cfg;
    if (n <= 0) return err_set(err, "the source sentence is empty");
    if (n > cfg->max_len) return err_set(err, "the source has %d tokens; this model takes at most %d", n, cfg->max_len);
    if (o->max_steps <= 0) o->max_steps = cfg->max_len;
    if (o->max_steps > cfg->max_len) return err_set(err, "max steps is %d; this model takes at most %d", o->max_steps, cfg->max_len);
    if (o->show_top <= 0) o->show_top = 5;
    if (o->show_top > 64) return err_set(err, "show_top is %d, at most 64", o->show_top);
    if (o->beam_width <= 0) o->beam_width = 4;
    if (o->beam_width > 64) return err_set(err, "beam width is %d, at most 64", o->beam_width);
    if (o->temperature == 0.0f) o->temperature = 1.0f;
    if (!(o->temperature > 0.0f) || !isfinite(o->temperature))
        return err_set(err, "temperature is %g, expected a positive number", (double)o->temperature);
    if (o->top_k < 0) return err_set(err, "top-k is %d, expected 0 (off) or more", o->top_k);
    if (o->top_p == 0.0f) o->top_p = 1.0f;
    if (!(o->top_p > 0.0f && o->top_p <= 1.0f)) return err_set(err, "top-p is %g, expected a number in (0, 1]", (double)o->top_p);
    if (o->mode == DECODE_TEACHER) {
        if (!o->target || o->target_len <= 0) return err_set(err, "teacher forcing needs a target sentence");
        if (o->target_len + 1 > cfg->max_len)
            return err_set(err, "the target has %d tokens; with <eos> this model takes at most %d", o->target_len, cfg->max_len - 1);
        o->max_steps = o->target_len + 1;
    }
    char why[160];
    if (o->ablate.n < 0 || o->ablate.n > ABL_MAX) return err_set(err, "ablation of %d parts, at most %d", o->ablate.n, ABL_MAX);
    if (abl_check(&o->ablate, cfg->n_enc, cfg->n_dec, cfg->nhead, why, sizeof why)) return err_set(err, "%s", why);
    if (o->each_head && o->mode != DECODE_TEACHER) return err_set(err, "the table of silenced heads needs teacher forcing (a target)");
    if (o->pad_to < 0) return err_set(err, "pad-to is %d, expected 0 (off) or more", o->pad_to);
    if (o->pad_to > 0 && o->pad_to < n)
        return err_set(err, "pad-to is %d, shorter than the source's %d tokens", o->pad_to, n);
    if (o->pad_to > cfg->max_len) return err_set(err, "pad-to is %d; this model takes at most %d", o->pad_to, cfg->max_len);
    for (int i = 0; o->mode == DECODE_TEACHER && i < o->target_len; i++)
        if (o->target[i] < 0 || o->target[i] >= cfg->tgt_vocab) return err_set(err, "target token %d has id %d, outside the vocabulary", i, o->target[i]);
    return check_stages(m, o->stages, err);
}

int decode_run(Ctx *c, Seq mem) {
    DecodeMode mode = c->tr->opt.mode;
    if (mode == DECODE_TEACHER) return run_teacher(c, mem);
    if (mode == DECODE_BEAM) return run_beam(c, mem);
    return run_stepwise(c, mem);
}
