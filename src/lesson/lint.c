// Lint: what the parser checks, then what needs the model: the model loads,
// the sentences tokenize, and every step binds to a stage of its trace.
#include <stdlib.h>
#include <string.h>

#include "kvcache.h"
#include "lesson.h"
#include "snapshots.h"
#include "twin.h"
#include "vocab.h"

// Words of text the vocabulary does not know, as a problem at line.
static void check_words(const Vocab *v, const char *what, const char *text, const char *path, int line, LesProblems *pr) {
    Tokens tok;
    Error err;
    if (voc_tokenize(v, text, &tok, &err)) {
        les_problem(pr, "%s:%d: %s: %s", path, line, what, err.msg);
        return;
    }
    char list[300] = "";
    size_t used = 0;
    for (int i = 0; i < tok.n; i++) {
        if (tok.ids[i] != voc_unk(v)) continue;
        int w = snprintf(list + used, sizeof list - used, "%s\"%s\"", used ? ", " : "", tok.pieces[i]);
        if (w < 0 || (size_t)w >= sizeof list - used) break;
        used += (size_t)w;
    }
    if (tok.n_unknown) les_problem(pr, "%s:%d: the %s has words the model does not know: %s", path, line, what, list);
    voc_tokens_deinit(&tok);
}

// A bound step's view options and highlighted cells fit its stage.
static void check_view(const LesStep *ls, const Trace *t, const Step *s, const char *path, LesProblems *pr) {
    int vline = ls->view_line ? ls->view_line : ls->line;
    const StageInfo *st = s->stage;
    bool attention = st->block == STAGE_BLOCK_SELF_ATTN || st->block == STAGE_BLOCK_CROSS_ATTN;
    if ((ls->grid || ls->lines) && !st->attention_weights)
        les_problem(pr, "%s:%d: view %s is for attention weights, and %s is not", path, vline, ls->grid ? "grid" : "lines", ls->stage);
    if (ls->alone && !(st->part == STAGE_DECODER && st->block == STAGE_BLOCK_SELF_ATTN))
        les_problem(pr, "%s:%d: view alone is for decoder self-attention stages", path, vline);
    if (ls->lines && !attention) les_problem(pr, "%s:%d: view lines is for attention stages", path, vline);
    if (ls->kv_cache && !kv_step_before(t, s))
        les_problem(pr, "%s:%d: view kv-cache is for the decoder's matrices from decoding step 2, in generation (not teacher forcing)", path,
                    vline);
    // the window outlines cells of heatmaps, and rows of the top-k bars, the beam table and the loss
    static const char *const no_cells[] = {"tokens", "probs", "choice"};
    for (size_t k = 0; ls->n_cells && k < sizeof no_cells / sizeof no_cells[0]; k++)
        if (!strcmp(s->kind, no_cells[k]) && !(!strcmp(s->kind, "probs") && s->rows > 1)) {
            les_problem(pr, "%s:%d: highlight has no effect on %s, which is not drawn as a heatmap", path, ls->highlight_line, ls->stage);
            return;
        }
    for (int c = 0; c < ls->n_cells; c++) {
        const LesCell *cell = &ls->cells[c];
        if (cell->row > s->rows || cell->col > s->cols) {
            les_problem(pr, "%s:%d: highlight %d,%d is outside the %d × %d matrix of %s", path, ls->highlight_line, cell->row, cell->col, s->rows,
                        s->cols, ls->stage);
            break;
        }
    }
}

// The model named, loaded; the one already loaded when it is the same name.
// NULL with a problem at line when it does not load.
static Model *model_named(const Lesson *l, const char *name, const char *models_dir, Model **have, const char **have_name, int line,
                          LesProblems *pr) {
    if (*have && !strcmp(*have_name, name)) return *have;
    mdl_free(*have);
    *have = NULL;
    *have_name = name;
    char model_path[4096];
    if (!les_model_path(l, name, models_dir, model_path, sizeof model_path)) return NULL;  // the parser said why
    Error err;
    if (!(*have = mdl_load(model_path, &err))) les_problem(pr, "%s:%d: model \"%s\": %s", l->path, line, name, err.msg);
    return *have;
}

// A step's second model loads and reads the step's sentence: the same source vocabulary.
static void check_compare(const Lesson *l, const LesStep *ls, const Trace *t, const char *models_dir, LesProblems *pr) {
    char path[4096];
    if (!les_model_path(l, ls->compare, models_dir, path, sizeof path)) return;  // the parser said why
    Error err;
    Model *other = mdl_load(path, &err);
    if (!other) les_problem(pr, "%s:%d: compare \"%s\": %s", l->path, ls->compare_line, ls->compare, err.msg);
    else if (!voc_same(other->src, trace_model(t)->src))
        les_problem(pr, "%s:%d: compare \"%s\" reads another source vocabulary than the step's model: it cannot take the same sentence", l->path,
                    ls->compare_line, ls->compare);
    mdl_free(other);
}

// A step's history: its model keeps snapshots of its training, one at that step.
static void check_history(const Lesson *l, const LesStep *ls, const Trace *t, LesProblems *pr) {
    const Model *m = trace_model(t);
    char path[4096], steps[512];
    Error err;
    Snapshots *s = snap_load(snap_path_for(m->path, path, sizeof path), m, &err);
    if (!s) les_problem(pr, "%s:%d: history: %s", l->path, ls->history_line, err.msg);
    else if (snap_find(s, ls->history) < 0)
        les_problem(pr, "%s:%d: history %d: the model's training history has no snapshot at that step; it has %s", l->path, ls->history_line,
                    ls->history, snap_steps_text(s, steps, sizeof steps));
    snap_free(s);
}

int les_lint(const char *path, const char *models_dir, LesProblems *pr) {
    int before = pr->n;
    Lesson *l = les_load(path, pr);
    if (!l) return pr->n - before;
    if (!l->model || !l->run.sentence) {
        les_free(l);
        return pr->n - before;
    }
    Model *m = NULL;
    const char *m_name = NULL;
    if (!model_named(l, l->model, models_dir, &m, &m_name, l->model_line, pr)) {
        les_free(l);
        return pr->n - before;
    }
    check_words(m->src, "sentence", l->run.sentence, path, l->run_line, pr);
    if (l->run.target) check_words(m->tgt, "target", l->run.target, path, l->run_line, pr);
    Trace *t = NULL;
    LesRun have = {0};
    bool have_set = false;  // settings that do not run are reported once, not at every step
    Error err;
    for (int i = 0; i < l->n_steps; i++) {
        const LesStep *ls = &l->steps[i];
        LesRun r = les_run_for_step(l, i, NULL);
        if (!have_set || !les_run_equal(&r, &have)) {
            trace_free(t);
            t = NULL;
            have = r;
            have_set = true;
            const Model *sm = model_named(l, r.model, models_dir, &m, &m_name, ls->line, pr);
            if (!sm) continue;
            if (ls->run.sentence || ls->run.model) check_words(sm->src, "step's sentence", r.sentence, path, ls->line, pr);
            if (ls->run.target || (ls->run.model && r.target)) check_words(sm->tgt, "step's target", r.target, path, ls->line, pr);
            char why[256];
            if (abl_check(&r.ablate, sm->cfg.n_enc, sm->cfg.n_dec, sm->cfg.nhead, why, sizeof why)) {  // said where it is set
                les_problem(pr, "%s:%d: %s", path, r.ablate_line ? r.ablate_line : ls->line, why);
                continue;
            }
            t = les_trace(sm, &r, false, &err);
            if (!t) les_problem(pr, "%s:%d: this step's sentence does not run: %s", path, ls->line, err.msg);
        }
        if (!t) continue;
        char why[256];
        int idx = les_bind(l, i, t, why, sizeof why);
        if (idx < 0) {
            int line = ls->stage_line ? ls->stage_line : ls->line;
            if (strstr(why, "head") && ls->head_line) line = ls->head_line;
            else if (strstr(why, "decoding step") && ls->step_line) line = ls->step_line;
            les_problem(pr, "%s:%d: %s", path, line, why);
            continue;
        }
        check_view(ls, t, trace_step(t, idx), path, pr);
        if (ls->compare) check_compare(l, ls, t, models_dir, pr);
        if (ls->history >= 0) check_history(l, ls, t, pr);
        if (ls->compare && ls->history >= 0)  // one page at a time in place of the step
            les_problem(pr, "%s:%d: a step shows one page: compare or history, not both", l->path, ls->history_line);
    }
    trace_free(t);
    mdl_free(m);
    les_free(l);
    return pr->n - before;
}
