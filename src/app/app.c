#include "app.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

// The App owns the model, the trace and the place in it, and dispatches
// events and drawing to its parts: the text box, the settings panel, lesson
// mode (which sees the App only through the LmHost table below), the layout.
struct App {
    Gfx *g;
    Model *m;
    Trace *t;
    ViewData *view_data;        // of t: the gold alignment and the heads' averages (NULL when memory ran out: the views say so)
    DecodeOptions decode;
    char sentence[TB_MAX];      // the sentence the trace is of
    TextBox tb;
    SettingsPanel sp;
    StatusLine status;
    Layout lay;                 // where the last frame put everything: clicks look here
    SDL_Rect view_zoomed;       // where the last frame laid the view out: lay.parts.view, or larger when zoomed (panned by pan_x, pan_y)
    int pan_x, pan_y;
    int mouse_x, mouse_y;       // the pointer: the wheel pans the view under it
    float base_scale;           // the "normal size" Ctrl+0 returns to (app_set_base_scale)
    float zoom;                 // Ctrl + / −, on top of it: the scale drawn is base_scale × zoom
    int step;
    int last_head;              // the head last shown: Shift+arrows keep it over head-less steps
    bool playing;
    Uint32 last_tick;
    int speed_ms;
    bool dark, help, quit, fullscreen, fullscreen_changed;
    bool web;                   // in a web page (AppOptions.web)
    Colormap cmap;
    Lang lang;
    int hover_row, hover_col;
    bool dragging;
    Bars bars;                  // the chips and view switches the last frame drew
    ViewOptions view;           // composite views: keys m, g, v, a
    // teacher forcing (--target): the reference translation, and its tokens in the model's target vocabulary
    char *target_text;
    Tokens target;
    // the class list (--sentences), borrowed; list_at is -1 for a sentence not from it
    const SentenceList *list;
    SentenceList *own_list;     // a list opened in the window (app_set_sentences), or NULL
    int list_at;
    char model_path[4096];
    LessonMode *lesson;         // lessons and the picker, or NULL without a lessons folder
    bool experiment;            // E: the experiment page in place of the step (experiment.h)
    XpData xp;                  // what it shows, of t
};

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
static void apply_zoom(App *a, float zoom) {
    a->zoom = fminf(fmaxf(zoom, 0.5f / a->base_scale), 4.0f / a->base_scale);
    gfx_set_scale(a->g, a->base_scale * a->zoom);
}

void app_set_base_scale(App *a, float scale) {
    if (!(scale > 0.0f)) return;
    a->base_scale = scale;
    apply_zoom(a, a->zoom);  // the user's zoom is kept
}

SDL_Rect app_button(const App *a, SDL_Keycode key) {
    for (int i = 0; i < 4; i++)
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
    xp_clear(&a->xp);
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
static void go_stop(App *a, int dir) {
    int head = trace_step(a->t, a->step)->head ? trace_step(a->t, a->step)->head : a->last_head;
    app_set_step(a, nav_stop(a->t, a->step, head >= 1 && head <= a->m->cfg.nhead ? head : 1, dir));
}

// The same stage at another head or layer, if the trace has it.
static void jump_to(App *a, int layer, int head) {
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
    if (run_tokenize_target(a->target_text, m, &target, &err)) status_set(&a->status, "%s", err.msg);
    else t = run_text(m, a->decode, &target, a->sentence, a->lang, &a->status, unknown, sizeof unknown);
    if (!t) {  // the sentence (or target) does not run on it: keep what works
        char why[2 * sizeof a->status.text];
        snprintf(why, sizeof why, "%s: %s", path, a->status.text);
        status_set(&a->status, i18n(a->lang, S_MODEL_FAILED), why);
        voc_tokens_deinit(&target);
        mdl_free(m);
        return -1;
    }
    swap_trace(a, m, t, true);  // the old trace's labels point into the old model: free it first
    mdl_free(a->m);
    a->m = m;
    voc_tokens_deinit(&a->target);
    a->target = target;
    snprintf(a->model_path, sizeof a->model_path, "%s", path);
    sp_set_model(&a->sp, path);
    tb_stale(&a->tb);  // another vocabulary
    char what[600];
    snprintf(what, sizeof what, "%s (%s)", m->name, base_name(path));
    status_set(&a->status, i18n(a->lang, S_MODEL_LOADED), what);
    if (*unknown) status_append(&a->status, i18n(a->lang, S_UNKNOWN_WORDS), unknown);
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
static void toggle_playing(App *a) {
    a->playing = !a->playing;
    a->last_tick = SDL_GetTicks();
}

// ---- export ----------------------------------------------------------------

// What the views are given to draw the App's step (hover: the cell under the mouse).
static ViewState view_state(const App *a, bool hover) {
    return (ViewState){.model = a->m, .trace = a->t, .data = a->view_data, .step = a->step, .theme = theme_get(a->dark), .cmap = a->cmap,
                       .hover_row = hover ? a->hover_row : -1, .hover_col = hover ? a->hover_col : -1, .font_px = gfx_px(a->g, 18),
                       .opt = a->view, .lang = a->lang};
}

bool app_cell_size(App *a, int *w, int *h) {
    ViewState vs = view_state(a, false);
    return view_cell_size(a->g, a->view_zoomed, &vs, w, h);
}

int app_render_step_png(const Model *m, const Trace *t, int step, int w, int h, float scale, bool dark, Colormap cmap, const char *font,
                        const char *path, Error *err) {
    int W = (int)lroundf((float)w * scale), H = (int)lroundf((float)h * scale);
    Gfx *g = gfx_new(W, H, font, err);
    if (!g) return -1;
    gfx_set_scale(g, scale);
    const Theme *th = theme_get(dark);
    gfx_clear(g, th->background);
    int pad = gfx_px(g, 16);
    ViewData *data = view_data_new(m, t, step, err);  // only what this step shows: the corpus is read only for gold
    if (!data) {
        gfx_free(g);
        return -1;
    }
    ViewState vs = {.model = m, .trace = t, .data = data, .step = step, .theme = th, .cmap = cmap, .hover_row = -1, .hover_col = -1,
                    .font_px = gfx_px(g, 18), .lang = LANG_EN};
    lay_draw_page(g, (SDL_Rect){pad, pad, W - 2 * pad, H - 2 * pad}, &vs, NULL);
    view_data_free(data);
    int rc = img_save_png(path, gfx_surface(g), err);
    gfx_free(g);
    return rc;
}

int app_export_view(App *a, const char *dir, float scale, char *out, size_t size, Error *err) {
    const Step *s = trace_step(a->t, a->step);
    char png[600], csv[600];
    if (exp_names(dir, s, png, csv, sizeof png, err)) return -1;
    Error ferr;
    const char *font = gfx_find_font(&ferr);
    if (!font) return err_set(err, "%s", ferr.msg);
    if (app_render_step_png(a->m, a->t, a->step, 1200, 800, scale, a->dark, a->cmap, font, png, err)) return -1;
    if (exp_write_csv(s, csv, err)) return -1;
    snprintf(out, size, "%s", png);
    return 0;
}

// Ctrl+S: the view shown, as PNG and CSV; Ctrl+Shift+S: the whole window.
static void save(App *a, bool window) {
    Error err;
    char path[700], shown[PATH_MAX + 720];
    int rc;
    if (window) {
        exp_free_name("./tracer-window", ".png", path, sizeof path);
        rc = img_save_png(path, gfx_surface(a->g), &err);
    } else {
        rc = app_export_view(a, ".", (float)a->sp.export_scale, path, sizeof path, &err);
    }
    if (rc) status_set(&a->status, "%s", err.msg);
    else status_set(&a->status, i18n(a->lang, S_SAVED), exp_shown_path(path, shown, sizeof shown));
}

// ---- events ----------------------------------------------------------------

// The text box's event; Enter runs its sentence, and typing stops when it ran.
static bool text_box_event(App *a, const SDL_Event *e) {
    TbResult r = tb_event(&a->tb, e, a->m->src, a->sentence, a->lang);
    if (r == TB_RUN && app_set_sentence(a, tb_text(&a->tb)) == 0) tb_stop(&a->tb);  // on failure the text stays for fixing
    return r != TB_IGNORED;
}

// The settings panel's event; a change it asks for runs here.
static SpState sp_state(const App *a) {
    return (SpState){.decode = &a->decode, .model = a->m, .model_path = a->model_path, .has_target = a->target_text != NULL};
}

static bool settings_event(App *a, const SDL_Event *e) {
    SpState st = sp_state(a);
    SpChange c;
    bool taken = sp_event(&a->sp, e, &st, &c);
    if (c.what == SP_MODEL) app_set_model(a, c.model);
    else if (c.what == SP_DECODE) app_set_decode(a, &c.decode);
    return taken;
}

// The experiment: silences a head of the sub-layer of the step shown (head 0:
// the whole sub-layer), or lets it speak again; the sentence runs again.
static bool silence(App *a, int head) {
    const Step *s = trace_step(a->t, a->step);
    AblPart part;
    if (!s || !xp_part_of(s, &part)) return false;
    if (part == ABL_ENC_FFN || part == ABL_DEC_FFN) head = 0;  // a feed-forward sub-layer has no heads
    DecodeOptions d = a->decode;
    if (abl_toggle(&d.ablate, (AblItem){(uint8_t)part, (uint8_t)s->layer, (uint16_t)head})) {
        status_set(&a->status, "%s", i18n(a->lang, S_XP_FULL));
        return true;
    }
    app_set_decode(a, &d);
    return true;
}

static bool toggle_experiment(App *a) {
    a->experiment = !a->experiment;
    if (a->experiment) xp_update(&a->xp, a->m, a->model_path, a->t);
    else xp_clear(&a->xp);
    return true;
}

static bool key_down(App *a, const SDL_Event *e) {
    const SDL_KeyboardEvent *k = &e->key;
    bool ctrl = k->keysym.mod & KMOD_CTRL, shift = k->keysym.mod & KMOD_SHIFT, alt = k->keysym.mod & KMOD_ALT;
    SDL_Keycode sym = k->keysym.sym;
    bool arrow = sym == SDLK_LEFT || sym == SDLK_RIGHT;
    if (tb_editing(&a->tb)) {
        if (text_box_event(a, e)) return true;
        // while typing, plain keys are text: only Ctrl, Alt + arrows and F keys act as shortcuts
        if (!ctrl && !(alt && arrow) && !(sym >= SDLK_F1 && sym <= SDLK_F12)) return false;
    } else if (settings_event(a, e)) {
        return true;
    }
    const Step *s = trace_step(a->t, a->step);
    switch (sym) {
    case SDLK_RIGHT:
        if (alt) app_list_go(a, 1);
        else shift ? go_stop(a, 1) : app_set_step(a, a->step + 1);
        return true;
    case SDLK_LEFT:
        if (alt) app_list_go(a, -1);
        else shift ? go_stop(a, -1) : app_set_step(a, a->step - 1);
        return true;
    case SDLK_HOME: app_set_step(a, 0); return true;
    case SDLK_END: app_set_step(a, trace_count(a->t) - 1); return true;
    case SDLK_SPACE: toggle_playing(a); return true;
    case SDLK_LEFTBRACKET: a->speed_ms = a->speed_ms * 3 / 2 > 5000 ? 5000 : a->speed_ms * 3 / 2; return true;
    case SDLK_RIGHTBRACKET: a->speed_ms = a->speed_ms * 2 / 3 < 50 ? 50 : a->speed_ms * 2 / 3; return true;
    case SDLK_PAGEUP:
        if (ctrl) app_list_go(a, -1);  // as tabs in a browser
        else if (s->layer > 1) jump_to(a, s->layer - 1, s->head);
        return true;
    case SDLK_PAGEDOWN:
        if (ctrl) app_list_go(a, 1);
        else jump_to(a, s->layer + 1, s->head);
        return true;
    case SDLK_d:
    case SDLK_COMMA: {  // D, or Ctrl+, as elsewhere
        bool settings_key = sym == SDLK_COMMA ? ctrl : !ctrl;
        if (settings_key) a->sp.open = !a->sp.open;
        return settings_key;
    }
    case SDLK_F11:
        a->fullscreen = !a->fullscreen;
        a->fullscreen_changed = true;
        return true;
    case SDLK_F2: a->lang = (Lang)((a->lang + 1) % LANG_COUNT); return true;
    case SDLK_e: return !ctrl && toggle_experiment(a);
    case SDLK_x:
        if (ctrl) return false;
        if (e->key.keysym.mod & KMOD_SHIFT) {  // silence nothing
            DecodeOptions d = a->decode;
            d.ablate = (Ablation){0};
            app_set_decode(a, &d);
            return true;
        }
        return silence(a, trace_step(a->t, a->step)->head);
    case SDLK_F1: a->help = !a->help; return true;
    case SDLK_ESCAPE:
        if (a->help) a->help = false;
        else a->sp.open = false;
        return true;
    case SDLK_q:
        if (ctrl) a->quit = true;
        return ctrl;
    case SDLK_l:
        if (ctrl) tb_start(&a->tb);
        return ctrl;
    case SDLK_t:
        if (!ctrl) a->dark = !a->dark;
        return !ctrl;
    case SDLK_c:
        if (ctrl) return false;
        a->cmap = (Colormap)((a->cmap + 1) % CMAP_COUNT);
        status_set(&a->status, i18n(a->lang, S_CMAP), cmap_name(a->cmap));  // the change is seen and named
        return true;
    case SDLK_m:
    case SDLK_g:
    case SDLK_v:
    case SDLK_a: return !ctrl && bars_toggle_view(&a->view, sym);
    case SDLK_0:
    case SDLK_EQUALS:
    case SDLK_PLUS:
    case SDLK_KP_PLUS:
    case SDLK_MINUS:
    case SDLK_KP_MINUS:
        if (!ctrl) return false;
        apply_zoom(a, sym == SDLK_0 ? 1.0f : sym == SDLK_MINUS || sym == SDLK_KP_MINUS ? a->zoom / 1.15f : a->zoom * 1.15f);
        if (a->zoom > 1.0f) status_set(&a->status, i18n(a->lang, S_ZOOMED), (int)lroundf(100.0f * a->zoom));
        else a->status.text[0] = '\0';
        return ctrl;
    case SDLK_s:
        if (ctrl) save(a, shift);
        return ctrl;
    default:
        if (sym >= SDLK_1 && sym <= SDLK_9 && s->head > 0) {
            jump_to(a, s->layer, (int)(sym - SDLK_1) + 1);
            return true;
        }
        return false;
    }
}

static void hover(App *a, int x, int y) {
    ViewState vs = view_state(a, false);
    int r, c;
    SDL_Point p = {x, y};
    if (!SDL_PointInRect(&p, &a->lay.parts.view) || !view_hit(a->g, a->view_zoomed, &vs, x, y, &r, &c)) {
        a->hover_row = a->hover_col = -1;
        return;
    }
    a->hover_row = r;
    a->hover_col = c;
    status_cell(&a->status, trace_step(a->t, a->step), r, c, a->lang);
}

// The step under x on the timeline.
static int timeline_index(const App *a, int x) { return bars_timeline_step(&a->lay, a->t, x); }

static void timeline_to(App *a, int x) { app_set_step(a, timeline_index(a, x)); }

static bool mouse_down(App *a, const SDL_Event *e) {
    SDL_Point p = {e->button.x, e->button.y};
    // what is drawn on top first: the settings panel, the suggestions under the text box
    if (settings_event(a, e) || text_box_event(a, e)) return true;
    if (SDL_PointInRect(&p, &a->lay.settings_button)) {
        a->sp.open = !a->sp.open;
        return true;
    }
    if (SDL_PointInRect(&p, &a->lay.help_button)) {
        a->help = !a->help;
        return true;
    }
    if (SDL_PointInRect(&p, &a->lay.play_button)) {
        toggle_playing(a);
        return true;
    }
    if (a->list && (SDL_PointInRect(&p, &a->lay.list_prev) || SDL_PointInRect(&p, &a->lay.list_next))) {
        app_list_go(a, SDL_PointInRect(&p, &a->lay.list_next) ? 1 : -1);
        return true;
    }
    if (SDL_PointInRect(&p, &a->lay.timeline)) {
        a->dragging = true;
        timeline_to(a, p.x);
        return true;
    }
    const Step *s = trace_step(a->t, a->step);
    BarsClick c = bars_click(&a->bars, p.x, p.y);
    if (c.what == BARS_SWITCH) return bars_toggle_view(&a->view, bars_switch_keys[c.index]);
    if (c.what == BARS_LAYER) jump_to(a, c.index, s->head);
    if (c.what == BARS_HEAD && (SDL_GetModState() & KMOD_ALT)) return silence(a, c.index);  // Alt+click: silence that head
    if (c.what == BARS_HEAD) jump_to(a, s->layer, c.index);
    return c.what != BARS_NONE;
}

// Zoomed in, the view is laid out as it is at the normal size, times the
// zoom: it grows and never shrinks, though the top row and the timeline grow
// too and leave the page less room; what does not fit is panned to (pan).
static SDL_Rect zoomed_view(App *a, const FrameContent *c) {
    SDL_Rect r = a->lay.parts.view;
    if (a->zoom <= 1.0f) {
        a->pan_x = a->pan_y = 0;
        return r;
    }
    float scale = gfx_scale(a->g);
    Layout normal;
    gfx_set_scale(a->g, a->base_scale);
    lay_frame(a->g, c, &normal);
    gfx_set_scale(a->g, scale);
    int w = SDL_max(r.w, (int)lroundf((float)normal.parts.view.w * a->zoom));
    int h = SDL_max(r.h, (int)lroundf((float)normal.parts.view.h * a->zoom));
    a->pan_x = SDL_max(0, SDL_min(a->pan_x, w - r.w));
    a->pan_y = SDL_max(0, SDL_min(a->pan_y, h - r.h));
    return (SDL_Rect){r.x - a->pan_x, r.y - a->pan_y, w, h};
}

// The wheel over a zoomed view pans it (Shift, or a sideways wheel: across).
static bool pan(App *a, const SDL_Event *e) {
    SDL_Point p = {a->mouse_x, a->mouse_y};
    const SDL_Rect *r = &a->lay.parts.view;
    if (!SDL_PointInRect(&p, r) || (a->view_zoomed.w <= r->w && a->view_zoomed.h <= r->h)) return false;
    int step = gfx_px(a->g, 60), dx = e->wheel.x, dy = e->wheel.y;
    if (SDL_GetModState() & KMOD_SHIFT) {
        dx = dy ? -dy : dx;
        dy = 0;
    }
    a->pan_x += dx * step;
    a->pan_y -= dy * step;
    return true;  // kept in range at the next frame
}

static bool free_event(App *a, const SDL_Event *e) {
    switch (e->type) {
    case SDL_QUIT: a->quit = true; return false;
    case SDL_KEYDOWN:
        if (e->key.keysym.sym == SDLK_SLASH && (e->key.keysym.mod & KMOD_SHIFT) && !tb_editing(&a->tb)) {
            a->help = !a->help;
            return true;
        }
        return key_down(a, e);
    case SDL_TEXTINPUT:
    case SDL_TEXTEDITING: return text_box_event(a, e);
    case SDL_MOUSEBUTTONDOWN: return e->button.button == SDL_BUTTON_LEFT && mouse_down(a, e);
    case SDL_MOUSEBUTTONUP:
        a->dragging = false;
        return settings_event(a, e);  // a slider let go
    case SDL_MOUSEWHEEL: return pan(a, e);
    case SDL_MOUSEMOTION:
        if (a->sp.dragging) return settings_event(a, e);  // a slider's knob: the sentence runs again at each value
        a->mouse_x = e->motion.x;
        a->mouse_y = e->motion.y;
        if (a->dragging) timeline_to(a, e->motion.x);
        else hover(a, e->motion.x, e->motion.y);
        if (SDL_PointInRect(&(SDL_Point){e->motion.x, e->motion.y}, &a->lay.timeline)) {  // the timeline names the step under the pointer
            char name[512];
            const Step *under = trace_step(a->t, timeline_index(a, e->motion.x));
            status_set(&a->status, "%s", view_step_name(a->t, under, a->lang, name, sizeof name));
        }
        return true;
    case SDL_WINDOWEVENT: return true;
    default: return false;
    }
}

// A lesson sees each event first; a sentence the user ran re-binds it.
bool app_event(App *a, const SDL_Event *e) {
    if (a->lesson && lm_event(a->lesson, a, e)) return true;
    bool redraw = free_event(a, e);
    if (a->lesson) lm_after_event(a->lesson, a);
    return redraw;
}

bool app_tick(App *a, Uint32 now) {
    if (!a->playing || now - a->last_tick < (Uint32)a->speed_ms) return false;
    a->last_tick = now;
    if (a->step + 1 >= trace_count(a->t)) a->playing = false;
    else app_set_step(a, a->step + 1);
    return true;
}

int app_next_tick(const App *a, Uint32 now) {
    if (!a->playing) return -1;
    Uint32 due = a->last_tick + (Uint32)a->speed_ms;
    return due > now ? (int)(due - now) : 0;
}

// ---- drawing ---------------------------------------------------------------


void app_draw(App *a) {
    Gfx *g = a->g;
    const Theme *th = theme_get(a->dark);
    gfx_clear(g, th->background);
    tb_analyse(&a->tb, a->m->src, a->sentence, a->lang);
    char counter[32], info[256];
    if (a->list) bars_counter(a->list_at, sl_count(a->list), counter, sizeof counter);
    FrameContent content = {.settings_label = i18n(a->lang, S_SETTINGS_BUTTON), .info = bars_info(a->m, a->t, a->lang, info, sizeof info),
                            .counter = a->list ? counter : NULL, .lesson_panel = a->lesson && lm_panel_shown(a->lesson),
                            .lesson_strip = a->lesson && lm_panel_collapsed(a->lesson) ? lm_strip_width(g) : 0,
                            .view = &a->view};
    lay_frame(g, &content, &a->lay);
    a->view_zoomed = zoomed_view(a, &content);
    tb_draw(&a->tb, a->lay.text_box, th, a->lang, a->sentence);
    bars_draw_top(g, &a->lay, th, a->lang, a->list ? counter : NULL, info, a->help, a->sp.open);
    ViewState vs = view_state(a, true);
    bars_draw_chips(&a->bars, g, &a->lay, &vs);
    if (content.lesson_panel) lm_draw_panel(a->lesson, g, a->lay.lesson_panel, th, a->lang);
    if (a->experiment) xp_draw(g, a->lay.page, &vs, &a->xp);
    else lay_draw_page(g, a->lay.page, &vs, &a->view_zoomed);
    bars_draw_timeline(g, &a->lay, th, a->t, a->step, a->playing, a->lang);
    char lesson[600];  // where the lesson is, when nothing else is said
    const char *said = *a->status.text || !a->lesson ? a->status.text : lm_status(a->lesson, a->lang, lesson, sizeof lesson);
    bars_draw_status(g, &a->lay, th, said, a->playing);
    tb_draw_suggestions(&a->tb, th, a->lang);
    SpState st = sp_state(a);
    a->sp.button = a->lay.settings_button;
    sp_draw(&a->sp, g, &st, th, a->lang);
    if (a->help) help_draw(g, th, a->lang, a->web);
    if (a->lesson) lm_draw_picker(a->lesson, g, th, a->lang);
    help_draw_too_small(g, th, a->lang);
}
