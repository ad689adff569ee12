// A lesson step's run: the settings it traces with (the lesson's, then the
// step's own), the model file it names, and whether a trace holds what the
// step shows (les_bind).
#include "lesson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *les_model_path(const Lesson *l, const char *model, const char *models_dir, char *buf, size_t size) {
    if (!les_model_name_ok(model)) return NULL;
    const char *m = model;
    size_t n = strlen(m);
    bool file = strchr(m, '/') || (n > 12 && !strcmp(m + n - 12, ".safetensors"));
    if (!file) {
        snprintf(buf, size, "%s/%s.safetensors", models_dir, m);
        return buf;
    }
    const char *slash = strrchr(l->path, '/');
    if (!slash) snprintf(buf, size, "%s", m);
    else snprintf(buf, size, "%.*s/%s", (int)(slash - l->path), l->path, m);
    return buf;
}

LesRun les_run_for_step(const Lesson *l, int i, const char *sentence_override) {
    LesRun r = l->run;
    const LesRun *s = &l->steps[i].run;
    r.model = s->model ? s->model : l->model;
    if (s->sentence) r.sentence = s->sentence;
    if (s->target) r.target = s->target;
    if (s->target_off) r.target = NULL;
    r.target_off = false;
    if (s->mode >= 0) r.mode = s->mode;
    if (s->beam >= 0) r.beam = s->beam;
    if (s->top_k >= 0) r.top_k = s->top_k;
    if (s->max_steps >= 0) r.max_steps = s->max_steps;
    if (s->temperature >= 0) r.temperature = s->temperature;
    if (s->top_p >= 0) r.top_p = s->top_p;
    if (s->allow_special >= 0) r.allow_special = s->allow_special;
    if (s->pad_to >= 0) r.pad_to = s->pad_to;
    if (s->look_ahead_mask >= 0) r.look_ahead_mask = s->look_ahead_mask;
    if (s->ablate_set) {
        r.ablate = s->ablate;
        r.ablate_set = true;
        r.ablate_line = s->ablate_line;
    }
    if (s->seed_set) {
        r.seed = s->seed;
        r.seed_set = true;
    }
    if (sentence_override) r.sentence = sentence_override;
    return r;
}

static bool str_eq(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

bool les_run_equal(const LesRun *a, const LesRun *b) {
    return str_eq(a->model, b->model) && str_eq(a->sentence, b->sentence) && str_eq(a->target, b->target) && a->mode == b->mode && a->beam == b->beam &&
           a->top_k == b->top_k && a->max_steps == b->max_steps && a->temperature == b->temperature && a->top_p == b->top_p &&
           a->allow_special == b->allow_special && a->look_ahead_mask == b->look_ahead_mask && a->pad_to == b->pad_to && a->ablate.n == b->ablate.n &&
           !memcmp(a->ablate.items, b->ablate.items, (size_t)a->ablate.n * sizeof *a->ablate.items) && a->seed_set == b->seed_set &&
           (!a->seed_set || a->seed == b->seed);
}

DecodeOptions les_decode_options(const LesRun *r) {
    DecodeOptions o = {.mode = r->mode >= 0 ? (DecodeMode)r->mode : DECODE_GREEDY, .seed = r->seed_set ? r->seed : 1};
    if (r->beam > 0) o.beam_width = r->beam;
    if (r->top_k >= 0) o.top_k = r->top_k;
    if (r->max_steps > 0) o.max_steps = r->max_steps;
    if (r->temperature > 0) o.temperature = r->temperature;
    if (r->top_p > 0) o.top_p = r->top_p;
    o.allow_special = r->allow_special == 1;
    if (r->pad_to > 0) o.pad_to = r->pad_to;
    o.no_look_ahead_mask = r->look_ahead_mask == 0;
    o.ablate = r->ablate;
    return o;
}

Trace *les_trace(const Model *m, const LesRun *r, bool own_sentence, Error *err) {
    if (!r->sentence) {
        err_set(err, "no sentence to run");
        return NULL;
    }
    Tokens src = {0}, tgt = {0};
    int *forced = NULL;     // the model's own translation, as the target
    Trace *t = NULL;
    if (voc_tokenize(m->src, r->sentence, &src, err)) return NULL;
    if (src.n_unknown == src.n) {
        err_set(err, "no word of \"%s\" is in the model's vocabulary", r->sentence);
        goto done;
    }
    if (src.n > m->cfg.max_len) {
        err_set(err, "the sentence has %d tokens; this model takes at most %d", src.n, m->cfg.max_len);
        goto done;
    }
    DecodeOptions o = les_decode_options(r);
    if (r->target && own_sentence) {
        // the lesson's target belongs to its own sentence: force the model's translation instead
        DecodeOptions g = {.mode = DECODE_GREEDY};
        Trace *first = trace_run(m, src.ids, src.n, &g, err);
        if (!first) goto done;
        int n;
        const int *ids = trace_output(first, &n);
        forced = malloc((size_t)(n ? n : 1) * sizeof *forced);
        if (forced) memcpy(forced, ids, (size_t)n * sizeof *ids);
        trace_free(first);
        if (!forced) {
            err_set(err, "out of memory");
            goto done;
        }
        if (!n) {
            err_set(err, "the model translates \"%s\" to nothing, so there is no target to force", r->sentence);
            goto done;
        }
        o.mode = DECODE_TEACHER;
        o.target = forced;
        o.target_len = n;
    } else if (r->target) {
        if (voc_tokenize(m->tgt, r->target, &tgt, err)) {
            err_prefix(err, "target");
            goto done;
        }
        o.mode = DECODE_TEACHER;
        o.target = tgt.ids;
        o.target_len = tgt.n;
    }
    t = trace_run(m, src.ids, src.n, &o, err);
done:
    free(forced);
    voc_tokens_deinit(&src);
    voc_tokens_deinit(&tgt);
    return t;
}

// Where step s looked: its stage (NULL: not in the table), layer, head and
// decoding step; the trace's last decoding step, and whether the stage has
// decoding steps in it.
typedef struct {
    const StageInfo *stage;
    int layer, head, dstep, last;
    bool decoder;
} Binding;

// Why step s is not in t: a stage the trace does not have (or the table does
// not know), a head or a decoding step it lacks.
static void why_unbound(const LesStep *s, const Binding *b, const Trace *t, char *why, size_t size) {
    if (!why || !size) return;
    bool anywhere = false, head_ok = false;
    int layers = 0;  // of the stage, in this trace
    for (int k = 0; b->stage && k < trace_count(t); k++) {
        const Step *st = trace_step(t, k);
        if (st->stage != b->stage) continue;
        if (st->layer > layers) layers = st->layer;
        if (st->layer != b->layer) continue;
        anywhere = true;
        head_ok = head_ok || st->head == b->head;
    }
    if (!anywhere) {
        int n = snprintf(why, size, "this trace has no stage \"%s\" (stage ids: docs/TRACE.md)", s->stage);
        size_t at = n > 0 && (size_t)n < size ? (size_t)n : size;
        // the table says more: a layer past the model's, or a layered stage named without one
        const StageInfo *named = b->stage ? NULL : stage_find(s->stage);
        char id[128];
        if (b->stage && layers > 0 && b->layer > layers)
            snprintf(why + at, size - at, "; this model has %d %s layer%s", layers,
                     b->stage->part == STAGE_ENCODER ? "encoder" : "decoder", layers == 1 ? "" : "s");
        else if (named && named->layered)
            snprintf(why + at, size - at, "; name its layer, e.g. \"%s\"", stage_id(named, 1, id, sizeof id));
    } else if (!head_ok) snprintf(why, size, "stage \"%s\" has no head %d here", s->stage, b->head);
    else if (!b->decoder || b->dstep == 0) snprintf(why, size, "stage \"%s\" has no decoding steps; leave out step", s->stage);
    else
        snprintf(why, size, "this translation has only %d decoding step%s, not step %d", b->last, b->last == 1 ? "" : "s", b->dstep);
}

int les_bind(const Lesson *l, int i, const Trace *t, char *why, size_t size) {
    const LesStep *s = &l->steps[i];
    if (why && size) why[0] = '\0';
    if (!s->stage) {
        snprintf(why, size, "this step names no stage");
        return -1;
    }
    Binding b = {0};
    b.stage = stage_parse_id(s->stage, &b.layer);
    b.head = s->head ? s->head : (b.stage && b.stage->per_head ? 1 : 0);
    // the decoding steps this trace has, and whether the stage is recorded at each
    for (int k = 0; k < trace_count(t); k++) {
        const Step *st = trace_step(t, k);
        if (st->dstep > b.last) b.last = st->dstep;
        b.decoder = b.decoder || (st->stage == b.stage && st->dstep > 0);
    }
    b.dstep = s->dstep == -1 ? b.last : s->dstep ? s->dstep : (b.decoder ? 1 : 0);
    int idx = b.stage ? trace_find(t, s->stage, b.head, b.dstep) : -1;
    if (idx < 0) why_unbound(s, &b, t, why, size);
    return idx;
}
