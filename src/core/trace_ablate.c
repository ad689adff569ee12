// The experiment that silences each attention head alone (trace.h).
#include <stdio.h>
#include <stdlib.h>

#include "gold.h"
#include "metrics.h"
#include "trace_private.h"

void trace_each_head_part(const Config *c, int r, AblPart *part, int *layer) {
    if (r < c->n_enc) {
        *part = ABL_ENC_SELF;
        *layer = r + 1;
        return;
    }
    r -= c->n_enc;  // then each decoder layer's self- and cross-attention
    *part = r % 2 ? ABL_DEC_CROSS : ABL_DEC_SELF;
    *layer = r / 2 + 1;
}

int trace_each_head(const Trace *t, float *out, Error *err) {
    const Config *c = &t->model->cfg;
    if (t->opt.mode != DECODE_TEACHER) return err_set(err, "the table of silenced heads needs teacher forcing (a target)");
    int rows = c->n_enc + 2 * c->n_dec;
    DecodeOptions o = t->opt;
    o.each_head = false;
    o.stages = "dec.loss";  // only the loss is read: record nothing else
    for (int r = 0; r < rows; r++)
        for (int h = 0; h < c->nhead; h++) {
            AblPart part;
            int layer;
            trace_each_head_part(c, r, &part, &layer);
            o.ablate = t->opt.ablate;
            if (abl_head(&o.ablate, part, layer, h + 1)) {  // silenced already: the loss is the trace's own
                out[r * c->nhead + h] = t->mean_loss;
                continue;
            }
            if (abl_toggle(&o.ablate, (AblItem){(uint8_t)part, (uint8_t)layer, (uint16_t)(h + 1)}))
                return err_set(err, "more than %d parts silenced", ABL_MAX);
            Trace *one = trace_run(t->model, t->src_ids, t->src_n, &o, err);
            if (!one) return -1;
            out[r * c->nhead + h] = one->mean_loss;
            trace_free(one);
        }
    return 0;
}

const float *trace_each_head_losses(const Trace *t) { return t->each_head; }

void trace_compare_deinit(TraceCompare *c) {
    for (int i = 0; i < 2; i++) {
        trace_free(c->free[i]);
        trace_free(c->forced[i]);
    }
    free(c->each_head);
    *c = (TraceCompare){0};
}

// The AER of a teacher-forced trace's supervised head against the gold links.
static double aer_of(const Trace *t, const CorpusPair *gold) {
    const Model *m = t->model;
    char id[64];
    snprintf(id, sizeof id, "dec.L%d.cross_attn.weights", m->align_layer);
    int i = trace_find(t, id, m->align_head, 1);
    if (i < 0) return -1.0;
    const Step *s = &t->steps[i];
    float *w = malloc((size_t)s->rows * s->cols * sizeof *w);
    AlignLink *links = malloc((size_t)s->rows * sizeof *links);
    int *ids = malloc((size_t)s->rows * sizeof *ids);
    double aer = -1.0;
    if (w && links && ids) {
        trace_copy_values(s, w);
        for (int r = 0; r < s->rows; r++) ids[r] = r < t->out_n ? t->out_ids[r] : voc_eos(m->tgt);  // row r produces token r, the last <eos>
        int k = met_argmax_links(w, s->rows, s->cols, ids, voc_eos(m->tgt), links);
        AerStats st;
        met_aer_init(&st);
        met_aer_add(&st, links, k, gold->links, gold->n_links, NULL, 0);
        aer = met_aer(&st);
    }
    free(w);
    free(links);
    free(ids);
    return aer;
}

// The AER of both passes, when the corpus aligns the sentence and the target.
static int add_aer(TraceCompare *out, const char *model_path, Error *err) {
    const Trace *t = out->forced[0];
    const Model *m = t->model;
    out->aer[0] = out->aer[1] = -1.0;
    if (m->align_layer <= 0 || !model_path) return 0;
    const char **src = malloc((size_t)(t->src_n + t->out_n) * sizeof *src), **tgt = src + t->src_n;
    if (!src) return err_set(err, "out of memory");
    for (int i = 0; i < t->src_n; i++) src[i] = voc_token(m->src, t->src_ids[i]);
    for (int i = 0; i < t->out_n; i++) tgt[i] = voc_token(m->tgt, t->out_ids[i]);
    GoldAlignment *gold = NULL;
    int rc = gold_find(model_path, src, t->src_n, tgt, t->out_n, &gold, err);
    free(src);
    if (rc) return -1;
    for (int i = 0; gold && i < 2; i++) out->aer[i] = aer_of(out->forced[i], gold_pair(gold));
    gold_free(gold);
    return 0;
}

bool trace_forced_position(const Trace *t, int r, float *loss, int *argmax) {
    if (t->opt.mode != DECODE_TEACHER || r < 0 || r > t->opt.target_len) return false;
    int li = -1, pi = -1;
    for (int i = 0; i < t->n_steps; i++) {
        if (t->steps[i].stage == stage_find("dec.loss")) li = i;
        if (t->steps[i].stage == stage_find("dec.probs")) pi = i;
    }
    if (li < 0 || pi < 0) return false;
    const Step *l = &t->steps[li], *p = &t->steps[pi];
    *loss = trace_row(l, r)[0];
    const float *row = trace_row(p, r);
    *argmax = 0;
    for (int k = 1; k < p->cols; k++)
        if (row[k] > row[*argmax]) *argmax = k;
    return true;
}

int trace_compare(const Trace *t, const char *model_path, const int *target, int target_len, TraceCompare *out, Error *err) {
    *out = (TraceCompare){0};
    const Config *c = &t->model->cfg;
    DecodeOptions o = t->opt;
    o.each_head = false;
    o.stages = NULL;
    if (!target) {
        target = o.mode == DECODE_TEACHER ? o.target : t->out_ids;
        target_len = o.mode == DECODE_TEACHER ? o.target_len : t->out_n;
    }
    if (target_len <= 0) return err_set(err, "no output to compare: the translation is empty");
    if (target_len + 1 > c->max_len) target_len = c->max_len - 1;  // with <eos>
    for (int i = 0; i < 2; i++) {
        DecodeOptions f = o, tf = o;
        if (i == 0) f.ablate = tf.ablate = (Ablation){0};
        if (f.mode == DECODE_TEACHER) f.mode = DECODE_GREEDY, f.target = NULL, f.target_len = 0, f.max_steps = 0;
        tf.mode = DECODE_TEACHER;
        tf.target = target;
        tf.target_len = target_len;
        if (!(out->free[i] = trace_run(t->model, t->src_ids, t->src_n, &f, err)) ||
            !(out->forced[i] = trace_run(t->model, t->src_ids, t->src_n, &tf, err)))
            goto fail;
    }
    out->each_head = malloc((size_t)(c->n_enc + 2 * c->n_dec) * (size_t)c->nhead * sizeof *out->each_head);
    if (!out->each_head) {
        err_set(err, "out of memory");
        goto fail;
    }
    if (trace_each_head(out->forced[0], out->each_head, err) || add_aer(out, model_path, err)) goto fail;
    return 0;
fail:
    trace_compare_deinit(out);
    return -1;
}
