#include "evaluate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "trace.h"

typedef struct {
    const Model *m;
    AerStats *st;       // n_dec × (nhead + 1)
    AlignLink *links;   // max_len
    float *avg;         // max_len × max_len
    int *ids;           // max_len
} Ctx;

static AerStats *cell(Ctx *c, int layer, int head) { return &c->st[(layer - 1) * (c->m->cfg.nhead + 1) + head]; }

static void add_alignments(Ctx *c, const int *src, int n_src, const int *tgt, int n_tgt, const CorpusPair *p) {
    const Model *m = c->m;
    DecodeOptions o = {.mode = DECODE_TEACHER, .target = tgt, .target_len = n_tgt};
    Error err;
    Trace *t = trace_run(m, src, n_src, &o, &err);
    if (!t) return;
    int rows = n_tgt + 1, H = m->cfg.nhead, eos = voc_eos(m->tgt);
    // the last row produces <eos>, which has no gold link
    memcpy(c->ids, tgt, (size_t)n_tgt * sizeof *c->ids);
    c->ids[n_tgt] = eos;
    char stage[64];
    for (int l = 1; l <= m->cfg.n_dec; l++) {
        snprintf(stage, sizeof stage, "dec.L%d.cross_attn.weights", l);
        memset(c->avg, 0, (size_t)rows * n_src * sizeof *c->avg);
        for (int h = 1; h <= H; h++) {
            const Step *s = trace_step(t, trace_find(t, stage, h, 1));
            int k = met_argmax_links(s->data, rows, n_src, c->ids, eos, c->links);
            met_aer_add(cell(c, l, h), c->links, k, p->links, p->n_links, NULL, 0);
            for (int i = 0; i < rows * n_src; i++) c->avg[i] += s->data[i] / H;
        }
        int k = met_argmax_links(c->avg, rows, n_src, c->ids, eos, c->links);
        met_aer_add(cell(c, l, 0), c->links, k, p->links, p->n_links, NULL, 0);
    }
    trace_free(t);
}

void ev_target_coverage(const Model *m, const Corpus *c, int limit, long *tokens, long *unknown) {
    *tokens = *unknown = 0;
    int n = corpus_size(c);
    if (limit > 0 && limit < n) n = limit;
    for (int i = 0; i < n; i++) {
        const CorpusPair *p = corpus_pair(c, i);
        for (int k = 0; k < p->n_tgt; k++) *unknown += voc_id(m->tgt, p->tgt[k]) < 0;
        *tokens += p->n_tgt;
    }
}

int ev_run(const Model *m, const Corpus *corpus, int limit, EvalResult *r, Error *err) {
    const Config *cfg = &m->cfg;
    memset(r, 0, sizeof *r);
    r->n_dec = cfg->n_dec;
    r->nhead = cfg->nhead;
    size_t cells = (size_t)cfg->n_dec * (cfg->nhead + 1), L = (size_t)cfg->max_len;
    Ctx c = {.m = m, .st = calloc(cells, sizeof *c.st), .links = malloc(L * sizeof *c.links),
             .avg = malloc(L * L * sizeof *c.avg), .ids = malloc(L * sizeof *c.ids)};
    int *src = malloc(L * sizeof *src), *tgt = malloc(L * sizeof *tgt);
    r->aer = calloc(cells, sizeof *r->aer);
    int rc = -1;
    if (!c.st || !c.links || !c.avg || !c.ids || !src || !tgt || !r->aer) {
        err_set(err, "out of memory for the evaluation");
        goto done;
    }
    for (size_t i = 0; i < cells; i++) met_aer_init(&c.st[i]);
    BleuStats bleu;
    met_bleu_init(&bleu);
    int n = corpus_size(corpus);
    if (limit > 0 && limit < n) n = limit;
    for (int i = 0; i < n; i++) {
        const CorpusPair *p = corpus_pair(corpus, i);
        if (p->n_src > cfg->max_len || p->n_tgt + 1 > cfg->max_len) {
            r->too_long++;
            continue;
        }
        voc_lookup(m->src, p->src, p->n_src, src);
        voc_lookup(m->tgt, p->tgt, p->n_tgt, tgt);
        DecodeOptions o = {.mode = DECODE_GREEDY};
        Trace *t = trace_run(m, src, p->n_src, &o, err);
        if (!t) {
            err_prefix(err, "line %d", p->line);
            goto done;
        }
        int len;
        const int *out = trace_output(t, &len);
        r->exact += met_exact_match_ids(out, len, tgt, p->n_tgt);
        met_bleu_add_ids(&bleu, out, len, tgt, p->n_tgt);
        trace_free(t);
        r->evaluated++;
        if (p->has_align) {
            add_alignments(&c, src, p->n_src, tgt, p->n_tgt, p);
            r->aligned++;
        }
    }
    r->bleu = met_bleu(&bleu);
    for (size_t i = 0; i < cells; i++) r->aer[i] = met_aer(&c.st[i]);
    rc = 0;
done:
    free(c.st);
    free(c.links);
    free(c.avg);
    free(c.ids);
    free(src);
    free(tgt);
    if (rc) ev_result_deinit(r);
    return rc;
}

void ev_result_deinit(EvalResult *r) {
    free(r->aer);
    r->aer = NULL;
}

double ev_aer(const EvalResult *r, int layer, int head) { return r->aer[(layer - 1) * (r->nhead + 1) + head]; }
