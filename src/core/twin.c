#include "twin.h"

#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "trace_private.h"

// Teacher forcing on target, cut to what the model takes (with <eos>).
static Trace *forced(const Model *m, const Trace *t, const int *target, int len, Error *err) {
    DecodeOptions o = t->opt;
    o.mode = DECODE_TEACHER;
    o.ablate = (Ablation){0};
    o.each_head = false;
    o.stages = NULL;
    o.target = target;
    o.target_len = len + 1 > m->cfg.max_len ? m->cfg.max_len - 1 : len;
    if (o.target_len <= 0) {
        err_set(err, "no output to compare: the translation is empty");
        return NULL;
    }
    return trace_run(m, t->src_ids, t->src_n, &o, err);
}

int twin_run(Twin *tw, const Trace *t, const char *other_path, const int *target, int target_len, Error *err) {
    *tw = (Twin){0};
    const Model *mine = t->model;
    if (!(tw->other = mdl_load(other_path, err))) return -1;
    const Model *other = tw->other;
    if (!voc_same(mine->src, other->src)) {
        err_set(err, "%s reads another source vocabulary (%d words against %d): it cannot take the same sentence", other_path,
                voc_size(other->src), voc_size(mine->src));
        goto fail;
    }
    if (t->src_n > other->cfg.max_len) {
        err_set(err, "%s takes at most %d tokens; the sentence has %d", other_path, other->cfg.max_len, t->src_n);
        goto fail;
    }
    if (!target) {
        target = t->opt.mode == DECODE_TEACHER ? t->opt.target : t->out_ids;
        target_len = t->opt.mode == DECODE_TEACHER ? t->opt.target_len : t->out_n;
    }
    DecodeOptions own = t->opt;
    own.ablate = (Ablation){0};
    own.each_head = false;
    own.stages = NULL;
    if (own.mode == DECODE_TEACHER) own.mode = DECODE_GREEDY, own.target = NULL, own.target_len = 0, own.max_steps = 0;
    if (own.max_steps > other->cfg.max_len) own.max_steps = 0;  // the model's own limit
    if (!(tw->own = trace_run(other, t->src_ids, t->src_n, &own, err))) goto fail;
    tw->same_target = voc_same(mine->tgt, other->tgt);
    // one target for both, as long as both take it (with <eos>), and owned: the traces keep pointing at it
    int most = mine->cfg.max_len - 1;
    if (tw->same_target && other->cfg.max_len - 1 < most) most = other->cfg.max_len - 1;
    tw->target_len = target_len < most ? target_len : most;
    if (tw->target_len <= 0) {
        err_set(err, "no output to compare: the translation is empty");
        goto fail;
    }
    if (!(tw->target = malloc((size_t)tw->target_len * sizeof *tw->target))) {
        err_set(err, "out of memory");
        goto fail;
    }
    memcpy(tw->target, target, (size_t)tw->target_len * sizeof *target);
    if (!(tw->forced[0] = forced(mine, t, tw->target, tw->target_len, err))) goto fail;
    if (tw->same_target) tw->forced[1] = forced(other, t, tw->target, tw->target_len, err);
    else tw->forced[1] = forced(other, t, tw->own->out_ids, tw->own->out_n, err);
    if (!tw->forced[1]) goto fail;
    return 0;
fail:
    twin_deinit(tw);
    return -1;
}

void twin_deinit(Twin *tw) {
    trace_free(tw->forced[0]);
    trace_free(tw->forced[1]);
    trace_free(tw->own);
    mdl_free(tw->other);
    free(tw->target);
    *tw = (Twin){0};
}

static void write_tokens(FILE *fp, const Vocab *v, const int *ids, int n) {
    fputc('[', fp);
    for (int i = 0; i < n; i++) {
        if (i) fputc(',', fp);
        json_write_string(fp, voc_token(v, ids[i]));
    }
    fputc(']', fp);
}

void twin_write_json(FILE *fp, const void *twin) {
    const Twin *tw = twin;
    const Trace *f0 = tw->forced[0], *f1 = tw->forced[1];
    fputs("\"compare\":{\"model\":", fp);
    json_write_string(fp, tw->other->name);
    fprintf(fp, ",\"same_target\":%s,\"target_tokens\":", tw->same_target ? "true" : "false");
    write_tokens(fp, f0->model->tgt, f0->opt.target, f0->opt.target_len);
    fprintf(fp, ",\"mean_loss\":%.9g,\"other_mean_loss\":%.9g,\"other_output_tokens\":", (double)f0->mean_loss, (double)f1->mean_loss);
    write_tokens(fp, tw->other->tgt, tw->own->out_ids, tw->own->out_n);
    if (!tw->same_target) {
        fputs(",\"other_target_tokens\":", fp);
        write_tokens(fp, tw->other->tgt, f1->opt.target, f1->opt.target_len);
    }
    fputc('}', fp);
}
