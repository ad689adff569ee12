// The experiment that silences each attention head alone (trace.h).
#include <stdlib.h>

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
