// The view data of a trace: what the views show that the trace does not hold,
// worked out when the trace is new so that drawing never opens a file or
// allocates for it.
#include "view_private.h"

#include <math.h>
#include <stdlib.h>

#include "gold.h"
#include "stage.h"
#include "vocab.h"

enum { MOST_HEADS = 256 };  // as many as a trace records

struct ViewData {
    GoldAlignment *gold;        // NULL: none in the corpus, or not looked up (no step wants it)
    int n_steps;
    const Step **average_of;    // [i]: the average of step i's heads, or NULL; one allocation with
    Step *averages;             // one step for each group of heads averaged
    float *values;              // and their data
    float *range;               // Shift+C's shared scale: [2k], [2k + 1] the lowest and highest value of
    int layers;                 // (stage k / layers, layer k % layers) over the trace; NULL: not worked out
};

// The steps of the heads of the group whose first head is step first: true
// when all heads (h of them) are in the trace, their indices in at[0 … h − 1].
static bool group_heads(const Trace *t, int first, int h, int *at) {
    const Step *s = trace_step(t, first);
    int found = 0;
    for (int i = first; i < trace_count(t) && found < h; i++) {
        const Step *o = trace_step(t, i);
        if (o->stage == s->stage && o->layer == s->layer && o->dstep == s->dstep && o->head == found + 1) at[found++] = i;
    }
    return found == h;
}

// Whether step i is the first head of a group to average: every group when
// step < 0, else the group of that step only.
static bool averaged(const Trace *t, int i, int step) {
    const Step *s = trace_step(t, i), *shown = step >= 0 ? trace_step(t, step) : NULL;
    if (s->head != 1 || !s->stage->attention_weights) return false;
    return !shown || (shown->stage == s->stage && shown->layer == s->layer && shown->dstep == s->dstep);
}

// Each head's weights summed in head order, then divided: as the heads grid always showed them.
static int add_averages(ViewData *d, const Model *m, const Trace *t, int step, Error *err) {
    int h = m->cfg.nhead, n_groups = 0;
    size_t n_values = 0;
    int at[MOST_HEADS];
    if (h < 1 || h > MOST_HEADS) return 0;
    for (int i = 0; i < d->n_steps; i++)
        if (averaged(t, i, step) && group_heads(t, i, h, at)) {
            n_groups++;
            n_values += (size_t)trace_step(t, i)->rows * (size_t)trace_step(t, i)->cols;
        }
    size_t pointers = (size_t)d->n_steps * sizeof *d->average_of, steps = (size_t)n_groups * sizeof *d->averages;
    d->average_of = calloc(1, pointers + steps + n_values * sizeof *d->values);
    if (!d->average_of) return err_set(err, "the heads' averages: out of memory");
    d->averages = (Step *)((char *)d->average_of + pointers);
    d->values = (float *)((char *)d->averages + steps);
    Step *avg = d->averages;
    float *v = d->values;
    for (int i = 0; i < d->n_steps; i++) {
        if (!averaged(t, i, step) || !group_heads(t, i, h, at)) continue;
        const Step *s = trace_step(t, i);
        for (int r = 0; r < s->rows; r++)
            for (int k = 0; k < s->cols; k++) {
                float sum = 0.0f;
                for (int j = 0; j < h; j++) sum += trace_row(trace_step(t, at[j]), r)[k];
                v[(size_t)r * s->cols + k] = sum / (float)h;
            }
        *avg = *s;
        avg->head = 0;
        avg->data = v;
        avg->stride = s->cols;
        for (int j = 0; j < h; j++) d->average_of[at[j]] = avg;
        v += (size_t)s->rows * (size_t)s->cols;
        avg++;
    }
    return 0;
}

// The gold alignment of the sentence and the output, when a step that can show it is wanted.
static int add_gold(ViewData *d, const Model *m, const Trace *t, int step, Error *err) {
    bool wanted = false;
    const Step *src = NULL;
    for (int i = 0; i < d->n_steps; i++) {
        const Step *s = trace_step(t, i);
        if ((step < 0 || i == step) && view_gold_step(s)) wanted = true;
        if (!src && s->stage->part == STAGE_SOURCE && s->stage->kind_id == STAGE_KIND_TOKENS) src = s;
    }
    int n_out;
    const int *out = trace_output(t, &n_out);
    if (!wanted || !src || !src->col_labels || n_out < 1) return 0;
    const char **tgt = malloc((size_t)n_out * sizeof *tgt);
    if (!tgt) return err_set(err, "the gold alignment: out of memory");
    for (int j = 0; j < n_out; j++) tgt[j] = voc_token(m->tgt, out[j]);
    int rc = gold_find(m->path, src->col_labels, src->cols, tgt, n_out, &d->gold, err);
    free(tgt);
    return rc;
}

// Every stage's lowest and highest finite value in each layer, over the
// whole trace: one pass, where Shift+C's shared scale had scanned the trace
// at each heatmap it laid out. Only for a whole trace's data (step < 0).
static int add_ranges(ViewData *d, const Trace *t, Error *err) {
    d->layers = 1;
    for (int i = 0; i < d->n_steps; i++)
        if (trace_step(t, i)->layer >= d->layers) d->layers = trace_step(t, i)->layer + 1;
    size_t n = (size_t)stage_count() * (size_t)d->layers;
    if (!(d->range = malloc(2 * n * sizeof *d->range))) return err_set(err, "the colour scales: out of memory");
    for (size_t k = 0; k < n; k++) {
        d->range[2 * k] = INFINITY;
        d->range[2 * k + 1] = -INFINITY;
    }
    for (int i = 0; i < d->n_steps; i++) {
        const Step *s = trace_step(t, i);
        float *r = d->range + 2 * ((size_t)(s->stage - stage_at(0)) * (size_t)d->layers + (size_t)s->layer);
        view_grow_range(s, &r[0], &r[1]);
    }
    return 0;
}

bool view_data_shared_range(const ViewData *d, const Step *s, float *lo, float *hi) {
    if (!d || !d->range || s->layer < 0 || s->layer >= d->layers) return false;
    const float *r = d->range + 2 * ((size_t)(s->stage - stage_at(0)) * (size_t)d->layers + (size_t)s->layer);
    *lo = fminf(*lo, r[0]);
    *hi = fmaxf(*hi, r[1]);
    return true;
}

ViewData *view_data_new(const Model *m, const Trace *t, int step, Error *err) {
    ViewData *d = calloc(1, sizeof *d);
    if (!d) {
        err_set(err, "the view data: out of memory");
        return NULL;
    }
    d->n_steps = trace_count(t);
    if (step >= d->n_steps) err_set(err, "the view data: no step %d", step);
    else if (!add_averages(d, m, t, step, err) && !add_gold(d, m, t, step, err) && (step >= 0 || !add_ranges(d, t, err))) return d;
    view_data_free(d);
    return NULL;
}

void view_data_free(ViewData *d) {
    if (!d) return;
    gold_free(d->gold);
    free(d->average_of);
    free(d->range);
    free(d);
}

const CorpusPair *view_data_gold(const ViewData *d, const char **file) {
    if (!d || !d->gold) return NULL;
    if (file) *file = gold_file(d->gold);
    return gold_pair(d->gold);
}

const Step *view_data_average(const ViewData *d, int i) {
    return d && d->average_of && i >= 0 && i < d->n_steps ? d->average_of[i] : NULL;
}
