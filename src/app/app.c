#include "app.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "bars.h"
#include "experiment.h"
#include "export.h"
#include "help.h"
#include "image.h"
#include "layout.h"
#include "lessonmode.h"
#include "nav.h"
#include "run.h"
#include "settings_panel.h"
#include "status.h"
#include "textbox.h"
#include "view.h"
#include "vocab.h"

#include "app_private.h"

// The history page of t. In a web page without the model's history file
// (a shipped model's is downloaded when first shown) the page waits for it.
static void update_history(App *a, const Trace *t) {
    char path[sizeof a->hist.fetch_path];
    if (a->fetch && access(snap_path_for(a->model_path, path, sizeof path), F_OK) != 0 && a->fetch(path)) {
        // the same file still on its way (a new sentence meanwhile) keeps its progress
        int so_far = a->hist.fetching && !strcmp(a->hist.fetch_path, path) ? a->hist.fetched_percent : 0;
        hist_clear(&a->hist);
        snprintf(a->hist.fetch_path, sizeof a->hist.fetch_path, "%s", path);
        a->hist.fetching = true;
        a->hist.fetched_percent = so_far;
        return;
    }
    hist_update(&a->hist, a->model_path, t);
}

// Whether path is the file the history page waits for.
static bool history_awaits(const App *a, const char *path) {
    return a->history_page && a->hist.fetching && !strcmp(path, a->hist.fetch_path);
}

int app_history_fetching(const App *a) { return a->history_page && a->hist.fetching ? a->hist.fetched_percent : -1; }

void app_file_progress(App *a, const char *path, int percent) {
    if (history_awaits(a, path)) a->hist.fetched_percent = percent < 0 ? 0 : percent > 100 ? 100 : percent;
}

void app_file_arrived(App *a, const char *path, bool ok, int http_status) {
    if (!history_awaits(a, path)) return;
    if (!ok) {
        a->hist.fetching = false;
        a->hist.fetch_failed = true;
        a->hist.fetch_status = http_status;
        return;
    }
    update_history(a, a->t);
    // what came and cannot be read (a server's page in its place) is asked for again next time
    if (!a->hist.snaps) remove(path);
    int k = a->lesson_history && a->hist.ready ? snap_find(a->hist.snaps, a->lesson_training_step) : -1;
    if (k >= 0) a->hist.at = k;
}

// Puts t, a trace of model m, in place of the trace: at its start, or at the
// same stage, head and decoding step when keep_place and t has them.
static void swap_trace(App *a, const Model *m, Trace *t, bool keep_place) {
    int step = 0;
    if (keep_place && a->t) {
        const Step *s = trace_step(a->t, a->step);
        char id[128];
        step = trace_find(t, trace_stage_id(s, id, sizeof id), s->head, s->dstep);
        if (step < 0) step = a->step < trace_count(t) ? a->step : trace_count(t) - 1;
    }
    view_data_free(a->view_data);
    trace_free(a->t);
    a->t = t;
    a->view_data = view_data_new(m, t, -1, NULL);  // once per trace: drawing only reads it
    a->step = step;
    a->hover_row = a->hover_col = -1;
    if (a->experiment) xp_update(&a->xp, m, a->model_path, t);
    else xp_clear(&a->xp);
    char other[sizeof a->compare_path];
    if (a->twin_page) twp_update(&a->twp, t, app_other_model(a, other, sizeof other));
    else twp_clear(&a->twp);
    if (a->history_page) update_history(a, t);
    else hist_clear(&a->hist);
}

// One page at a time in place of the step: the experiment, two models, the training history.
static void close_pages(App *a) {
    a->experiment = a->twin_page = a->history_page = false;
    xp_clear(&a->xp);
    twp_clear(&a->twp);
    hist_clear(&a->hist);
}

void app_set_history_page(App *a, bool open) {
    close_pages(a);
    a->history_page = open;
    if (open) update_history(a, a->t);
}

bool app_history_page(const App *a) { return a->history_page; }

bool app_map_hidden(const App *a) { return app_map_mode(a) == AMAP_HIDDEN; }

SDL_Rect app_map_rect(const App *a) { return a->lay.map; }

bool app_page_open(const App *a) { return a->experiment || a->twin_page || a->history_page; }
int app_history_snapshot(const App *a) { return a->history_page && a->hist.ready ? a->hist.at : -1; }

const char *app_other_model(const App *a, char *buf, size_t size) {
    if (a->lesson_compare[0]) snprintf(buf, size, "%s", a->lesson_compare);
    else if (a->compare_path[0]) snprintf(buf, size, "%s", a->compare_path);
    else twp_default_other(a->model_path, buf, size);
    return buf;
}

void app_set_twin_page(App *a, bool open) {
    close_pages(a);
    a->twin_page = open;
    char other[sizeof a->compare_path];
    if (open) twp_update(&a->twp, a->t, app_other_model(a, other, sizeof other));
}

bool app_twin_page(const App *a) { return a->twin_page; }

// A lesson step's history: the page at that training step; -1 closes a page a step opened.
static void lesson_history(App *a, int training_step) {
    if (training_step >= 0) {
        if (!a->history_page || (!a->hist.ready && !a->hist.fetching)) app_set_history_page(a, true);  // or try again
        a->lesson_history = true;
        a->lesson_training_step = training_step;
        int k = a->hist.ready ? snap_find(a->hist.snaps, training_step) : -1;
        if (k >= 0) a->hist.at = k, a->hist.playing = false;
    } else if (a->lesson_history) {  // only its own page: another step's may be open
        a->lesson_history = false;
        if (a->history_page) app_set_history_page(a, false);
    }
}

// A lesson step's compare: its second model on the page; NULL closes a page a step opened.
static void lesson_compare(App *a, const char *model_path) {
    if (model_path) {
        snprintf(a->lesson_compare, sizeof a->lesson_compare, "%s", model_path);
        app_set_twin_page(a, true);
    } else if (a->lesson_compare[0]) {
        a->lesson_compare[0] = '\0';
        if (a->twin_page) app_set_twin_page(a, false);
    }
}

int app_set_sentence(App *a, const char *text) {
    char unknown[512];
    Trace *t = run_text(a->m, a->decode, &a->target, text, a->lang, &a->status, unknown, sizeof unknown);
    if (!t) return -1;
    swap_trace(a, a->m, t, false);
    if (text != a->sentence) snprintf(a->sentence, sizeof a->sentence, "%s", text);
    a->status.text[0] = '\0';
    tb_stale(&a->tb);
    if (*unknown) status_set(&a->status, i18n(a->lang, S_UNKNOWN_WORDS), unknown);
    return 0;
}

// The host lesson mode drives the App through (lessonmode.h).
static const LmHost lesson_host = {
    .model_path = app_model_path, .set_model = app_set_model, .model = app_model, .status = app_status,
    .show_status = app_show_status, .show_trace = app_show_trace, .trace = app_trace, .set_sentence = app_set_sentence,
    .sentence = app_sentence, .set_step = app_set_step, .view = app_view, .set_view = app_set_view, .lang = app_lang, .busy = app_busy,
    .compare = lesson_compare, .history = lesson_history,
};

// The folder of path, into dir ("." when it has none).
static const char *folder_of(const char *path, char *dir, size_t size) {
    snprintf(dir, size, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash) return ".";
    *slash = '\0';
    return dir;
}

App *app_new(const AppOptions *o, Gfx *g, Error *err) {
    App *a = calloc(1, sizeof *a);
    if (!a) {
        err_set(err, "out of memory");
        return NULL;
    }
    a->g = g;
    a->decode = o->decode;
    a->decode.target = NULL;
    a->decode.target_len = 0;
    a->dark = o->dark;
    a->web = o->web;
    a->fetch = o->fetch;
    a->cmap = o->cmap;
    a->lang = o->lang;
    a->speed_ms = 700;
    a->hover_row = a->hover_col = -1;
    tb_init(&a->tb, g, &a->status);
    a->list = o->sentences;
    a->list_at = -1;
    a->base_scale = o->scale > 0 ? o->scale : 1.0f;
    a->zoom = 1.0f;
    gfx_set_scale(g, a->base_scale);
    a->m = mdl_load(o->model_path, err);
    if (!a->m) {
        free(a);
        return NULL;
    }
    snprintf(a->model_path, sizeof a->model_path, "%s", o->model_path);
    if (o->compare_path) snprintf(a->compare_path, sizeof a->compare_path, "%s", o->compare_path);
    tb_set_corpus(&a->tb, o->model_path);
    if (o->target) {  // --target: teacher forcing
        a->decode.mode = DECODE_TEACHER;
        bool ok = run_tokenize_target(o->target, a->m, &a->target, err) == 0;
        if (ok && !(a->target_text = strdup(o->target))) ok = err_set(err, "out of memory") == 0;
        if (!ok) {
            app_free(a);
            return NULL;
        }
    } else if (o->decode.mode == DECODE_TEACHER && o->decode.target &&
               run_target_from_ids(a->m->tgt, o->decode.target, o->decode.target_len, &a->target, &a->target_text, err)) {
        app_free(a);
        return NULL;
    }
    char dir[sizeof a->model_path];
    const char *models_dir = o->models_dir ? o->models_dir : folder_of(a->model_path, dir, sizeof dir);
    sp_init(&a->sp, models_dir, a->model_path);
    const char *src = o->src ? o->src : "i love natural language processing";
    if (!o->src && a->list) {  // the class list's first sentence
        src = sl_get(a->list, 0);
        a->list_at = 0;
    }
    tb_set_text(&a->tb, src);
    if (app_set_sentence(a, src)) {
        // keep why the sentence asked for could not run, above the default one
        char why[sizeof a->status.text];
        snprintf(why, sizeof why, "%s", a->status.text);
        if (app_set_sentence(a, "i love natural language processing")) {
            err_set(err, "%s", a->status.text);
            app_free(a);
            return NULL;
        }
        if (a->list_at == 0)
            status_set(&a->status, i18n(a->lang, S_LIST_CANNOT_RUN), 1, sl_count(a->list), sl_line(a->list, 0), why);
        else
            status_set(&a->status, "%s", why);
    }
    if (o->lesson || o->lessons_dir) {
        a->lesson = lm_new(o->lessons_dir, models_dir, &lesson_host);
        if (!a->lesson) {
            err_set(err, "out of memory");
            app_free(a);
            return NULL;
        }
        if (o->lesson) lm_open(a->lesson, a, o->lesson);
        else if (o->picker) lm_show_picker(a->lesson, true);
    }
    return a;
}

void app_show_trace(App *a, Trace *t, const char *sentence, const DecodeOptions *d) {
    swap_trace(a, a->m, t, false);
    if (sentence != a->sentence) snprintf(a->sentence, sizeof a->sentence, "%s", sentence);
    if (!tb_editing(&a->tb)) tb_set_text(&a->tb, a->sentence);
    // later sentences run with the same strategy; teacher forcing stays the lesson's
    DecodeMode keep = a->decode.mode;
    a->decode = *d;
    a->decode.target = NULL;
    a->decode.target_len = 0;
    if (a->decode.mode == DECODE_TEACHER) a->decode.mode = keep == DECODE_TEACHER && a->target_text ? keep : DECODE_GREEDY;
    tb_stale(&a->tb);
    a->status.text[0] = '\0';
}

void app_set_view(App *a, const ViewOptions *v) { a->view = *v; }
const ViewOptions *app_view(const App *a) { return &a->view; }

// The zoom within what the canvas allows (gfx_set_scale: 0.5 to 4), so that
// pressing on at a limit does not pile up presses to undo.
void app_apply_zoom(App *a, float zoom) {
    a->zoom = fminf(fmaxf(zoom, 0.5f / a->base_scale), 4.0f / a->base_scale);
    gfx_set_scale(a->g, a->base_scale * a->zoom);
}

void app_set_base_scale(App *a, float scale) {
    if (!(scale > 0.0f)) return;
    a->base_scale = scale;
    app_apply_zoom(a, a->zoom);  // the user's zoom is kept
}

SDL_Rect app_button(const App *a, SDL_Keycode key) {
    for (int i = 0; i < BARS_SWITCHES; i++)
        if (bars_switch_keys[i] == key) return a->bars.switches[i];
    if (key == SDLK_SLASH) return a->lay.help_button;
    if (key == SDLK_SPACE) return a->lay.play_button;
    return (SDL_Rect){0};
}
bool app_busy(const App *a) { return tb_editing(&a->tb) || a->help || a->sp.open; }
Lang app_lang(const App *a) { return a->lang; }
const char *app_model_path(const App *a) { return a->model_path; }
struct LessonMode *app_lessons(App *a) { return a->lesson; }

void app_show_status(App *a, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->status.text, sizeof a->status.text, fmt, ap);
    va_end(ap);
}

void app_free(App *a) {
    if (!a) return;
    sl_free(a->own_list);
    lm_free(a->lesson);
    close_pages(a);
    view_data_free(a->view_data);
    trace_free(a->t);
    mdl_free(a->m);
    voc_tokens_deinit(&a->target);
    free(a->target_text);
    sp_deinit(&a->sp);
    tb_deinit(&a->tb);
    free(a);
}

int app_step(const App *a) { return a->step; }
const Trace *app_trace(const App *a) { return a->t; }
const char *app_status(const App *a) { return a->status.text; }
const char *app_sentence(const App *a) { return a->sentence; }
bool app_quit_requested(const App *a) { return a->quit; }

bool app_fullscreen_requested(App *a, bool *on) {
    bool changed = a->fullscreen_changed;
    a->fullscreen_changed = false;
    *on = a->fullscreen;
    return changed;
}

void app_set_step(App *a, int step) {
    int n = trace_count(a->t);
    a->step = step < 0 ? 0 : step >= n ? n - 1 : step;
    a->hover_row = a->hover_col = -1;
    if (trace_step(a->t, a->step)->head) a->last_head = trace_step(a->t, a->step)->head;
}

// ---- navigation ----------------------------------------------------------

// Shift+→ (dir 1) and Shift+← (dir −1), on the step's head, else the last one
// shown (head 1 before any), so that head-less stops do not lose it.
void app_go_stop(App *a, int dir) {
    int head = trace_step(a->t, a->step)->head ? trace_step(a->t, a->step)->head : a->last_head;
    app_set_step(a, nav_stop(a->t, a->step, head >= 1 && head <= a->m->cfg.nhead ? head : 1, dir));
}

// The same stage at another head or layer, if the trace has it.
void app_jump_to(App *a, int layer, int head) {
    int i = nav_same_stage(a->t, a->step, layer, head);
    if (i >= 0) app_set_step(a, i);
}

// ---- model, decoding, the sentence list -----------------------------------------

static const char *base_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

int app_set_model(App *a, const char *path) {
    Error err;
    Model *m = mdl_load(path, &err);
    if (!m) {
        status_set(&a->status, i18n(a->lang, S_MODEL_FAILED), err.msg);
        return -1;
    }
    Tokens target;
    char unknown[512];
    Trace *t = NULL;
    DecodeOptions d = a->decode;  // silenced parts the new model lacks are let go
    Ablation dropped;
    abl_keep(&d.ablate, m->cfg.n_enc, m->cfg.n_dec, m->cfg.nhead, &dropped);
    if (run_tokenize_target(a->target_text, m, &target, &err)) status_set(&a->status, "%s", err.msg);
    else t = run_text(m, d, &target, a->sentence, a->lang, &a->status, unknown, sizeof unknown);
    if (!t) {  // the sentence (or target) does not run on it: keep what works
        char why[2 * sizeof a->status.text];
        snprintf(why, sizeof why, "%s: %s", path, a->status.text);
        status_set(&a->status, i18n(a->lang, S_MODEL_FAILED), why);
        voc_tokens_deinit(&target);
        mdl_free(m);
        return -1;
    }
    a->decode.ablate = d.ablate;
    snprintf(a->model_path, sizeof a->model_path, "%s", path);  // before swap_trace: the experiment page reads it
    swap_trace(a, m, t, true);  // the old trace's labels point into the old model: free it first
    mdl_free(a->m);
    a->m = m;
    voc_tokens_deinit(&a->target);
    a->target = target;
    sp_set_model(&a->sp, path);
    tb_set_corpus(&a->tb, path);  // another vocabulary and corpus
    char what[600], name[256];
    snprintf(what, sizeof what, "%s (%s)", i18n_model_name(a->lang, m->name, name, sizeof name), base_name(path));
    status_set(&a->status, i18n(a->lang, S_MODEL_LOADED), what);
    if (*unknown) status_append(&a->status, i18n(a->lang, S_UNKNOWN_WORDS), unknown);
    char names[ABL_MAX * 32];
    if (dropped.n) status_append(&a->status, i18n(a->lang, S_XP_DROPPED), abl_format(&dropped, names, sizeof names));
    return 0;
}

int app_set_decode(App *a, const DecodeOptions *d) {
    const char *bad = run_check_decode(d, a->target_text != NULL);
    if (bad) {
        status_set(&a->status, i18n(a->lang, S_DECODE_FAILED), bad);
        return -1;
    }
    DecodeOptions nd = *d;
    nd.target = NULL;  // run_text puts in the App's target
    nd.target_len = 0;
    char unknown[512];
    Trace *t = run_text(a->m, nd, &a->target, a->sentence, a->lang, &a->status, unknown, sizeof unknown);
    if (!t) {
        char why[sizeof a->status.text];
        snprintf(why, sizeof why, "%s", a->status.text);
        status_set(&a->status, i18n(a->lang, S_DECODE_FAILED), why);
        return -1;
    }
    a->decode = nd;
    swap_trace(a, a->m, t, true);
    a->status.text[0] = '\0';
    if (*unknown) status_set(&a->status, i18n(a->lang, S_UNKNOWN_WORDS), unknown);
    return 0;
}

const DecodeOptions *app_decode(const App *a) { return &a->decode; }
const Model *app_model(const App *a) { return a->m; }
int app_list_index(const App *a) { return a->list_at; }

void app_set_sentences(App *a, SentenceList *list) {
    sl_free(a->own_list);
    a->own_list = list;
    a->list = list;
    a->list_at = -1;
    app_list_go(a, 1);
}
bool app_settings_open(const App *a) { return a->sp.open; }

SDL_Rect app_slider(const App *a, int row) {
    for (int i = 0; i < a->sp.n_hits; i++)
        if ((int)a->sp.hits[i].row == row && a->sp.hits[i].choice == SP_SLIDER) return a->sp.hits[i].r;
    return (SDL_Rect){0};
}

SDL_Rect app_settings_box(const App *a) { return a->sp.box; }

int app_unknown_spans(App *a, int *start, int *end, int max) {
    tb_analyse(&a->tb, a->m->src, a->sentence, a->lang);
    return tb_unknown_spans(&a->tb, start, end, max);
}

int app_suggestions(App *a, const char **words, int max) {
    tb_analyse(&a->tb, a->m->src, a->sentence, a->lang);
    return tb_suggestions(&a->tb, words, max);
}

void app_list_go(App *a, int delta) {
    if (!a->list) {
        status_set(&a->status, "%s", i18n(a->lang, S_NO_LIST));
        return;
    }
    int n = sl_count(a->list), i = a->list_at < 0 ? (delta > 0 ? 0 : n - 1) : a->list_at + delta;
    if (i < 0 || i >= n) {
        status_set(&a->status, "%s", i18n(a->lang, i < 0 ? S_LIST_FIRST : S_LIST_LAST));
        return;
    }
    a->list_at = i;
    if (tb_editing(&a->tb)) tb_stop(&a->tb);
    // the sentence goes into the text box too, so one that cannot run is there to fix (Ctrl+L)
    tb_set_text(&a->tb, sl_get(a->list, i));
    if (app_set_sentence(a, tb_text(&a->tb))) {
        char why[sizeof a->status.text];
        snprintf(why, sizeof why, "%s", a->status.text);
        status_set(&a->status, i18n(a->lang, S_LIST_CANNOT_RUN), i + 1, n, sl_line(a->list, i), why);
    }
}

// Space and the play button: play the steps at the set speed, or pause.
void app_toggle_playing(App *a) {
    a->playing = !a->playing;
    a->last_tick = SDL_GetTicks();
}

// ---- export ----------------------------------------------------------------

// What the views are given to draw the App's step (hover: the cell under the mouse).
ViewState app_view_state(const App *a, bool hover) {
    return (ViewState){.model = a->m, .trace = a->t, .data = a->view_data, .step = a->step, .theme = theme_get(a->dark), .cmap = a->cmap,
                       .hover_row = hover ? a->hover_row : -1, .hover_col = hover ? a->hover_col : -1, .font_px = gfx_px(a->g, 18),
                       .opt = a->view, .lang = a->lang};
}

bool app_cell_size(App *a, int *w, int *h) {
    ViewState vs = app_view_state(a, false);
    return view_cell_size(a->g, a->view_zoomed, &vs, w, h);
}

int app_export_view(App *a, const char *dir, float scale, char *out, size_t size, Error *err) {
    const Step *s = trace_step(a->t, a->step);
    char png[600], csv[600];
    if (exp_names(dir, s, png, csv, sizeof png, err)) return -1;
    Error ferr;
    const char *font = gfx_find_font(&ferr);
    if (!font) return err_set(err, "%s", ferr.msg);
    if (exp_render_png(a->m, a->t, a->step, 1200, 800, scale, a->dark, a->cmap, font, png, err)) return -1;
    if (exp_write_csv(s, csv, err)) return -1;
    snprintf(out, size, "%s", png);
    return 0;
}

// Ctrl+S: the view shown, as PNG and CSV; Ctrl+Shift+S: the whole window.
void app_save(App *a, bool window) {
    Error err;
    char path[700], shown[PATH_MAX + 720];
    int rc;
    if (window) {
        exp_free_name("./tracer-window", ".png", path, sizeof path);
        rc = img_save_png(path, gfx_pixels(a->g), &err);
    } else {
        rc = app_export_view(a, ".", (float)a->sp.export_scale, path, sizeof path, &err);
    }
    if (rc) status_set(&a->status, "%s", err.msg);
    else status_set(&a->status, i18n(a->lang, S_SAVED), exp_shown_path(path, shown, sizeof shown));
}

// Zoomed in, the view is laid out as it is at the normal size, times the
// zoom: it grows and never shrinks, though the top row and the timeline grow
// too and leave the page less room; what does not fit is panned to (pan).
// Where the view, or a page open in its place, is laid out: its own place,
// or, zoomed, that of the normal size times the zoom, panned (Ctrl + enlarges,
// never shrinks: a page's type grows with its room).
static SDL_Rect zoomed_view(App *a, const FrameContent *c) {
    bool page = app_page_open(a);
    SDL_Rect r = page ? a->lay.page : a->lay.parts.view;
    if (a->zoom <= 1.0f) {
        a->pan_x = a->pan_y = 0;
        return r;
    }
    float scale = gfx_scale(a->g);
    Layout normal;
    gfx_set_scale(a->g, a->base_scale);
    lay_frame(a->g, c, &normal);
    gfx_set_scale(a->g, scale);
    SDL_Rect n = page ? normal.page : normal.parts.view;
    int w = SDL_max(r.w, (int)lroundf((float)n.w * a->zoom));
    int h = SDL_max(r.h, (int)lroundf((float)n.h * a->zoom));
    a->pan_x = SDL_max(0, SDL_min(a->pan_x, w - r.w));
    a->pan_y = SDL_max(0, SDL_min(a->pan_y, h - r.h));
    return (SDL_Rect){r.x - a->pan_x, r.y - a->pan_y, w, h};
}

// What the settings panel is given to draw and to take an event.
SpState app_sp_state(const App *a) {
    return (SpState){.decode = &a->decode, .model = a->m, .model_path = a->model_path, .has_target = a->target_text != NULL};
}

bool app_tick(App *a, Uint32 now) {
    if (a->history_page && hist_tick(&a->hist, now)) return true;
    if (!a->playing || now - a->last_tick < (Uint32)a->speed_ms) return false;
    a->last_tick = now;
    if (a->step + 1 >= trace_count(a->t)) a->playing = false;
    else app_set_step(a, a->step + 1);
    return true;
}

int app_next_tick(const App *a, Uint32 now) {
    int history = a->history_page ? hist_next_tick(&a->hist, now) : -1;
    if (!a->playing) return history;
    Uint32 due = a->last_tick + (Uint32)a->speed_ms;
    int steps = due > now ? (int)(due - now) : 0;
    return history >= 0 && history < steps ? history : steps;
}

// ---- drawing ---------------------------------------------------------------


AmapMode app_map_mode(const App *a) {
    // beside a lesson's narration the view keeps its width: the small map is a strip above the narration
    bool narration = a->lesson && lm_panel_shown(a->lesson) && !lm_panel_collapsed(a->lesson);
    AmapMode m = narration ? AMAP_SMALL : AMAP_FULL;
    if (a->map_chosen) {  // full where it leaves the step at least half the room it has, else small
        int room = gfx_width(a->g) * (narration ? 66 : 100) / 100;
        m = a->map_mode == AMAP_FULL && 2 * amap_width(a->g, AMAP_FULL, a->lang) >= room ? AMAP_SMALL : a->map_mode;
    } else if (!narration) {
        // views of several panels side by side and the pages in the step's place need the width: small beside them
        ViewState vs = app_view_state(a, false);
        ViewSwitches sw = view_switches(&vs);
        bool wide = (sw.side_by_side && !a->view.no_side_by_side) || (sw.heads_grid && a->view.heads_grid) ||
                    (sw.kv_cache && a->view.kv_cache);
        // full where it takes a third of the width at most
        if (app_page_open(a) || wide || gfx_width(a->g) < 3 * amap_width(a->g, AMAP_FULL, a->lang)) m = AMAP_SMALL;
    }
    return m == AMAP_SMALL && narration ? AMAP_STRIP : m;
}

void app_draw(App *a) {
    Gfx *g = a->g;
    const Theme *th = theme_get(a->dark);
    gfx_clear(g, th->background);
    tb_analyse(&a->tb, a->m->src, a->sentence, a->lang);
    char counter[32], info[256];
    if (a->list) bars_counter(a->list_at, sl_count(a->list), counter, sizeof counter);
    AmapMode map = a->map_drawn = app_map_mode(a);  // once a frame: it measures the map and asks the view
    FrameContent content = {.settings_label = i18n(a->lang, S_SETTINGS_BUTTON), .info = bars_info(a->m, a->t, a->lang, info, sizeof info),
                            .counter = a->list ? counter : NULL, .lesson_panel = a->lesson && lm_panel_shown(a->lesson),
                            .lesson_strip = a->lesson && lm_panel_collapsed(a->lesson) ? lm_strip_width(g) : 0,
                            .view = &a->view, .map_w = amap_width(g, map, a->lang),
                            .map_strip_h = map == AMAP_STRIP ? amap_strip_height(g) : 0};
    lay_frame(g, &content, &a->lay);
    a->view_zoomed = zoomed_view(a, &content);
    tb_draw(&a->tb, a->lay.text_box, th, a->lang, a->sentence);
    bars_draw_top(g, &a->lay, th, a->lang, a->list ? counter : NULL, info, a->help, a->sp.open);
    ViewState vs = app_view_state(a, true);
    bars_draw_chips(&a->bars, g, &a->lay, &vs);
    if (content.lesson_panel) lm_draw_panel(a->lesson, g, a->lay.lesson_panel, th, a->lang);
    amap_draw(g, a->lay.map, a->t, a->step, map, th, a->lang);
    if (app_page_open(a)) {  // in the page's place, drawn larger and panned when zoomed
        SDL_Rect outer = gfx_get_clip(g), clip;
        if (SDL_IntersectRect(&a->lay.page, &outer, &clip)) {
            gfx_clip(g, &clip);
            if (a->experiment) xp_draw(g, a->view_zoomed, &vs, &a->xp);
            else if (a->twin_page) twp_draw(g, a->view_zoomed, &vs, &a->twp);
            else hist_draw(g, a->view_zoomed, &vs, &a->hist);
            gfx_clip(g, &outer);
        }
    } else
        lay_draw_page(g, a->lay.page, &vs, &a->view_zoomed);
    bars_draw_timeline(g, &a->lay, th, a->t, a->step, a->playing, a->lang);
    char lesson[600];  // where the lesson is, when nothing else is said
    const char *said = *a->status.text || !a->lesson ? a->status.text : lm_status(a->lesson, a->lang, lesson, sizeof lesson);
    bars_draw_status(g, &a->lay, th, said, a->playing);
    tb_draw_suggestions(&a->tb, th, a->lang);
    SpState st = app_sp_state(a);
    a->sp.button = a->lay.settings_button;
    sp_draw(&a->sp, g, &st, th, a->lang);
    if (a->help) help_draw(g, th, a->lang, a->web, &a->help_layout);
    if (a->lesson) lm_draw_picker(a->lesson, g, th, a->lang);
    help_draw_too_small(g, th, a->lang);
}
