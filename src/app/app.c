#include "app.h"

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "image.h"
#include "lessonmode.h"
#include "view.h"
#include "vocab.h"

#define EDIT_MAX 16384
#define MAX_SPANS 64        // unknown words underlined
#define MAX_SUGGEST 8       // words offered under the text box

// The settings panel's rows (only those that apply to the strategy are shown).
typedef enum { ROW_MODEL, ROW_STRATEGY, ROW_BEAM, ROW_TEMPERATURE, ROW_TOP_K, ROW_TOP_P, ROW_SEED, ROW_MAX_STEPS, ROW_EXPORT_SCALE, ROW_COUNT } SettingsRow;

// A clickable part of the settings panel: a row's − or + (delta), or a strategy (choice ≥ 0).
typedef struct {
    SDL_Rect r;
    SettingsRow row;
    int delta, choice;
} Hit;

struct App {
    Gfx *g;
    Model *m;
    Trace *t;
    DecodeOptions decode;
    char sentence[EDIT_MAX];    // the sentence the trace is of
    char edit[EDIT_MAX];        // the text box
    size_t cursor;              // byte offset in edit
    int text_scroll;            // pixels of the text box's text scrolled off to the left, keeping the cursor in view
    int text_x, text_px;        // where the last frame drew the text box's text (before scrolling), and its size
    float base_scale;           // the "normal size" Ctrl+0 returns to (app_set_base_scale)
    float zoom;                 // Ctrl + / −, on top of it: the scale drawn is base_scale × zoom
    char composition[256];      // IME text being composed, drawn in place
    bool editing;
    int step;
    int last_head;              // the head last shown: Shift+arrows keep it over head-less steps
    bool playing;
    Uint32 last_tick;
    int speed_ms;
    bool dark, help, quit, fullscreen, fullscreen_changed;
    Colormap cmap;
    Lang lang;
    char status[1024];
    int hover_row, hover_col;
    bool dragging;
    SDL_Rect text_box, view_area, timeline, chips[2][16];  // chips: [0] layers, [1] heads
    int n_chips[2];
    SDL_Rect switches[4];       // the view switches shown for this step, as switch_keys (w 0: not shown)
    ViewOptions view;           // composite views: keys m, g, v, a
    // teacher forcing (--target): the reference translation, and its tokens in the model's target vocabulary
    char *target_text;
    Tokens target;
    // the class list (--sentences), borrowed; list_at is -1 for a sentence not from it
    const SentenceList *list;
    int list_at;
    SDL_Rect list_prev, list_next;
    // the text box's words, worked out again when stale: unknown ones underlined, suggestions for the one at the cursor
    bool analysed, text_changed, keep_status, status_hint;
    int n_spans, span_start[MAX_SPANS], span_end[MAX_SPANS];
    int n_suggest, suggest_sel;
    bool suggest_closed;
    const char *suggest[MAX_SUGGEST];   // into the source vocabulary
    size_t word_start, word_end;        // the word at the cursor, as bytes of edit
    SDL_Rect suggest_rects[MAX_SUGGEST];
    // settings: the models to pick from, and the panel
    char **models;
    int n_models, model_at;
    char model_path[4096];
    bool settings;
    SettingsRow settings_row;
    SDL_Rect settings_button, settings_box;
    SDL_Rect help_button, play_button;  // "?" beside the settings; play / pause before the timeline
    LessonMode *lesson;         // lessons and the picker, or NULL without a lessons folder
    int export_scale;           // Ctrl+S writes the view at this many pixels per design pixel (settings)
    Hit hits[48];
    int n_hits;
};

// The view switches' keys, in the order of App.switches and their buttons.
static const SDL_Keycode switch_keys[4] = {SDLK_g, SDLK_v, SDLK_m, SDLK_a};

static void set_status(App *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_status(App *a, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->status, sizeof a->status, fmt, ap);
    va_end(ap);
    a->status_hint = false;
}

// Appends " \"word\"" for each token read as <unk> to words.
static void unknown_words(const Vocab *v, const Tokens *tok, char *words, size_t size) {
    for (int i = 0; i < tok->n; i++)
        if (tok->ids[i] == voc_unk(v) && strlen(words) + strlen(tok->pieces[i]) + 4 < size) {
            strcat(words, " \"");
            strcat(words, tok->pieces[i]);
            strcat(words, "\"");
        }
}

// Tokenizes and traces text with model m and decoding d; teacher forcing
// takes target, in m's target vocabulary. Returns the trace, or NULL with the
// reason in the status line; the unknown source words go into unknown.
static Trace *run_text(App *a, const Model *m, DecodeOptions d, const Tokens *target, const char *text, char *unknown, size_t size) {
    Tokens tok;
    Error err;
    if (voc_tokenize(m->src, text, &tok, &err)) {
        set_status(a, "%s", err.msg);
        return NULL;
    }
    Trace *t = NULL;
    if (tok.n_unknown == tok.n) {
        set_status(a, "%s", i18n(a->lang, S_NO_KNOWN_WORD));
    } else if (tok.n > m->cfg.max_len) {
        set_status(a, i18n(a->lang, S_TOO_LONG), tok.n, m->cfg.max_len);
    } else {
        d.target = d.mode == DECODE_TEACHER ? target->ids : NULL;
        d.target_len = d.mode == DECODE_TEACHER ? target->n : 0;
        t = trace_run(m, tok.ids, tok.n, &d, &err);
        if (!t) set_status(a, "%s", err.msg);
    }
    unknown[0] = '\0';
    if (t) unknown_words(m->src, &tok, unknown, size);
    voc_tokens_deinit(&tok);
    return t;
}

// Puts t in place of the trace: at its start, or at the same stage, head and
// decoding step when keep_place and t has them.
static void swap_trace(App *a, Trace *t, bool keep_place) {
    int step = 0;
    if (keep_place && a->t) {
        const Step *s = trace_step(a->t, a->step);
        char id[128];
        step = trace_find(t, trace_stage_id(s, id, sizeof id), s->head, s->dstep);
        if (step < 0) step = a->step < trace_count(t) ? a->step : trace_count(t) - 1;
    }
    trace_free(a->t);
    a->t = t;
    a->step = step;
    a->hover_row = a->hover_col = -1;
}

int app_set_sentence(App *a, const char *text) {
    char unknown[512];
    Trace *t = run_text(a, a->m, a->decode, &a->target, text, unknown, sizeof unknown);
    if (!t) return -1;
    swap_trace(a, t, false);
    if (text != a->sentence) snprintf(a->sentence, sizeof a->sentence, "%s", text);
    a->status[0] = '\0';
    a->analysed = false;
    if (*unknown) set_status(a, i18n(a->lang, S_UNKNOWN_WORDS), unknown);
    return 0;
}

// The target's tokens in m's target vocabulary. Returns 0, or -1 with err set.
static int tokenize_target(const char *text, const Model *m, Tokens *out, Error *err) {
    memset(out, 0, sizeof *out);
    if (!text) return 0;
    if (voc_tokenize(m->tgt, text, out, err)) {
        err_prefix(err, "target sentence");
        return -1;
    }
    return 0;
}

static bool same_file(const char *x, const char *y) {
    struct stat sx, sy;
    if (stat(x, &sx) || stat(y, &sy)) return !strcmp(x, y);
    return sx.st_dev == sy.st_dev && sx.st_ino == sy.st_ino;
}

static int compare_paths(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

// The models to pick from: every .safetensors file in dir, then the current
// one if it is not among them.
static void find_models(App *a, const char *dir) {
    int cap = 1;
    DIR *d = dir ? opendir(dir) : NULL;
    for (struct dirent *e; d && (e = readdir(d));) cap++;
    if (d) rewinddir(d);
    a->models = calloc((size_t)cap, sizeof *a->models);
    if (!a->models) {
        if (d) closedir(d);
        return;
    }
    for (struct dirent *e; d && a->n_models < cap - 1 && (e = readdir(d));) {
        size_t len = strlen(e->d_name), ext = strlen(".safetensors");
        if (len <= ext || strcmp(e->d_name + len - ext, ".safetensors") || e->d_name[0] == '.') continue;
        size_t size = strlen(dir) + len + 2;
        char *path = malloc(size);
        if (!path) break;
        snprintf(path, size, "%s/%s", dir, e->d_name);
        a->models[a->n_models++] = path;
    }
    if (d) closedir(d);
    qsort(a->models, (size_t)a->n_models, sizeof *a->models, compare_paths);
    a->model_at = -1;
    for (int i = 0; i < a->n_models && a->model_at < 0; i++)
        if (same_file(a->models[i], a->model_path)) a->model_at = i;
    if (a->model_at < 0 && (a->models[a->n_models] = strdup(a->model_path))) a->model_at = a->n_models++;
}

// Teacher forcing given as ids (o->decode.target): the tokens, and their text
// for tokenizing again in another model's vocabulary.
static int target_from_ids(App *a, const int *ids, int n, Error *err) {
    Tokens *t = &a->target;
    t->ids = malloc((size_t)n * sizeof *t->ids);
    t->pieces = calloc((size_t)n, sizeof *t->pieces);
    size_t size = 1;
    for (int i = 0; i < n; i++) size += strlen(voc_token(a->m->tgt, ids[i])) + 1;
    a->target_text = calloc(1, size);
    if (!t->ids || !t->pieces || !a->target_text) return err_set(err, "out of memory");
    for (int i = 0; i < n; i++) {
        const char *tok = voc_token(a->m->tgt, ids[i]);
        if (!(t->pieces[i] = strdup(tok))) return err_set(err, "out of memory");
        t->ids[i] = ids[i];
        t->n = i + 1;
        if (i) strcat(a->target_text, " ");
        strcat(a->target_text, tok);
    }
    return 0;
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
    a->cmap = o->cmap;
    a->lang = o->lang;
    a->speed_ms = 700;
    a->export_scale = 2;
    a->hover_row = a->hover_col = -1;
    a->suggest_sel = -1;
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
        bool ok = tokenize_target(o->target, a->m, &a->target, err) == 0;
        if (ok && !(a->target_text = strdup(o->target))) ok = err_set(err, "out of memory") == 0;
        if (!ok) {
            app_free(a);
            return NULL;
        }
    } else if (o->decode.mode == DECODE_TEACHER && o->decode.target && target_from_ids(a, o->decode.target, o->decode.target_len, err)) {
        app_free(a);
        return NULL;
    }
    if (o->models_dir) {
        find_models(a, o->models_dir);
    } else {
        char dir[sizeof a->model_path];
        snprintf(dir, sizeof dir, "%s", a->model_path);
        char *slash = strrchr(dir, '/');
        if (slash) *slash = '\0';
        find_models(a, slash ? dir : ".");
    }
    const char *src = o->src ? o->src : "i love natural language processing";
    if (!o->src && a->list) {  // the class list's first sentence
        src = sl_get(a->list, 0);
        a->list_at = 0;
    }
    snprintf(a->edit, sizeof a->edit, "%s", src);
    a->cursor = strlen(a->edit);
    if (app_set_sentence(a, src)) {
        // keep why the sentence asked for could not run, above the default one
        char why[sizeof a->status];
        snprintf(why, sizeof why, "%s", a->status);
        if (app_set_sentence(a, "i love natural language processing")) {
            err_set(err, "%s", a->status);
            app_free(a);
            return NULL;
        }
        if (a->list_at == 0)
            set_status(a, i18n(a->lang, S_LIST_CANNOT_RUN), 1, sl_count(a->list), sl_line(a->list, 0), why);
        else
            set_status(a, "%s", why);
    }
    if (o->lesson || o->lessons_dir) {
        char dir[sizeof a->model_path];
        snprintf(dir, sizeof dir, "%s", a->model_path);
        char *slash = strrchr(dir, '/');
        if (slash) *slash = '\0';
        a->lesson = lm_new(o->lessons_dir, o->models_dir ? o->models_dir : slash ? dir : ".");
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
    swap_trace(a, t, false);
    if (sentence != a->sentence) snprintf(a->sentence, sizeof a->sentence, "%s", sentence);
    if (!a->editing) {
        snprintf(a->edit, sizeof a->edit, "%s", a->sentence);
        a->cursor = strlen(a->edit);
    }
    // later sentences run with the same strategy; teacher forcing stays the lesson's
    DecodeMode keep = a->decode.mode;
    a->decode = *d;
    a->decode.target = NULL;
    a->decode.target_len = 0;
    if (a->decode.mode == DECODE_TEACHER) a->decode.mode = keep == DECODE_TEACHER && a->target_text ? keep : DECODE_GREEDY;
    a->analysed = false;
    a->status[0] = '\0';
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
        if (switch_keys[i] == key) return a->switches[i];
    if (key == SDLK_SLASH) return a->help_button;
    if (key == SDLK_SPACE) return a->play_button;
    return (SDL_Rect){0};
}
bool app_busy(const App *a) { return a->editing || a->help || a->settings; }
Lang app_lang(const App *a) { return a->lang; }
const char *app_model_path(const App *a) { return a->model_path; }
struct LessonMode *app_lessons(App *a) { return a->lesson; }

void app_show_status(App *a, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->status, sizeof a->status, fmt, ap);
    va_end(ap);
}

void app_free(App *a) {
    if (!a) return;
    lm_free(a->lesson);
    trace_free(a->t);
    mdl_free(a->m);
    voc_tokens_deinit(&a->target);
    free(a->target_text);
    for (int i = 0; i < a->n_models; i++) free(a->models[i]);
    free(a->models);
    free(a);
}

int app_step(const App *a) { return a->step; }
const Trace *app_trace(const App *a) { return a->t; }
const char *app_status(const App *a) { return a->status; }
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

// The head Shift+arrows stay on: the step's own, else the last one shown
// (head 1 before any), so that head-less stops do not lose it.
static int nav_head(const App *a) {
    int head = trace_step(a->t, a->step)->head;
    if (!head) head = a->last_head;
    return head >= 1 && head <= a->m->cfg.nhead ? head : 1;
}

// Shift+→ (dir 1) and Shift+← (dir −1): the nearest step that way whose stage
// is a stop (stage.h), skipping other heads' steps; the last or first step
// when there is none.
static void go_stop(App *a, int dir) {
    int n = trace_count(a->t), head = nav_head(a);
    for (int i = a->step + dir; i >= 0 && i < n; i += dir) {
        const Step *s = trace_step(a->t, i);
        if (s->stage->stop && (!s->stage->per_head || s->head == head)) {
            app_set_step(a, i);
            return;
        }
    }
    app_set_step(a, dir > 0 ? n - 1 : 0);
}

// The same stage at another head or layer, if the trace has it.
static void jump_to(App *a, int layer, int head) {
    const Step *s = trace_step(a->t, a->step);
    char id[128];
    Step probe = *s;
    probe.layer = layer;
    trace_stage_id(&probe, id, sizeof id);
    int i = trace_find(a->t, id, head, s->dstep);
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
        set_status(a, i18n(a->lang, S_MODEL_FAILED), err.msg);
        return -1;
    }
    Tokens target;
    char unknown[512];
    Trace *t = NULL;
    if (tokenize_target(a->target_text, m, &target, &err)) set_status(a, "%s", err.msg);
    else t = run_text(a, m, a->decode, &target, a->sentence, unknown, sizeof unknown);
    if (!t) {  // the sentence (or target) does not run on it: keep what works
        char why[2 * sizeof a->status];
        snprintf(why, sizeof why, "%s: %s", path, a->status);
        set_status(a, i18n(a->lang, S_MODEL_FAILED), why);
        voc_tokens_deinit(&target);
        mdl_free(m);
        return -1;
    }
    swap_trace(a, t, true);  // the old trace's labels point into the old model: free it first
    mdl_free(a->m);
    a->m = m;
    voc_tokens_deinit(&a->target);
    a->target = target;
    snprintf(a->model_path, sizeof a->model_path, "%s", path);
    a->model_at = -1;
    for (int i = 0; i < a->n_models && a->model_at < 0; i++)
        if (same_file(a->models[i], path)) a->model_at = i;
    a->analysed = false;  // another vocabulary
    char what[600];
    snprintf(what, sizeof what, "%s (%s)", m->name, base_name(path));
    set_status(a, i18n(a->lang, S_MODEL_LOADED), what);
    if (*unknown) {
        size_t n = strlen(a->status);
        snprintf(a->status + n, sizeof a->status - n, "   ");
        n = strlen(a->status);
        snprintf(a->status + n, sizeof a->status - n, i18n(a->lang, S_UNKNOWN_WORDS), unknown);
    }
    return 0;
}

int app_set_decode(App *a, const DecodeOptions *d) {
    const char *bad = NULL;
    if (d->mode < DECODE_GREEDY || d->mode > DECODE_TEACHER) bad = "unknown decoding strategy";
    else if (d->mode == DECODE_TEACHER && !a->target_text) bad = "teacher forcing needs a target sentence (--target)";
    else if (d->beam_width < 0 || d->beam_width > 64) bad = "the beam width must be 1 to 64";
    else if (!(d->temperature >= 0.0f && d->temperature <= 100.0f)) bad = "the temperature must be above 0 and at most 100";
    else if (d->top_k < 0) bad = "top-k must be 0 (all) or more";
    else if (!(d->top_p >= 0.0f && d->top_p <= 1.0f)) bad = "top-p must be in (0, 1]";
    else if (d->max_steps < 0 || d->max_steps > 4096 || d->show_top < 0 || d->show_top > 64 || d->pad_to < 0 || d->pad_to > 4096)
        bad = "a step count is out of range";
    if (bad) {
        set_status(a, i18n(a->lang, S_DECODE_FAILED), bad);
        return -1;
    }
    DecodeOptions nd = *d;
    nd.target = NULL;  // run_text puts in the App's target
    nd.target_len = 0;
    char unknown[512];
    Trace *t = run_text(a, a->m, nd, &a->target, a->sentence, unknown, sizeof unknown);
    if (!t) {
        char why[sizeof a->status];
        snprintf(why, sizeof why, "%s", a->status);
        set_status(a, i18n(a->lang, S_DECODE_FAILED), why);
        return -1;
    }
    a->decode = nd;
    swap_trace(a, t, true);
    a->status[0] = '\0';
    if (*unknown) set_status(a, i18n(a->lang, S_UNKNOWN_WORDS), unknown);
    return 0;
}

const DecodeOptions *app_decode(const App *a) { return &a->decode; }
const Model *app_model(const App *a) { return a->m; }
int app_list_index(const App *a) { return a->list_at; }
bool app_settings_open(const App *a) { return a->settings; }

static void stop_editing(App *a);

void app_list_go(App *a, int delta) {
    if (!a->list) {
        set_status(a, "%s", i18n(a->lang, S_NO_LIST));
        return;
    }
    int n = sl_count(a->list), i = a->list_at < 0 ? (delta > 0 ? 0 : n - 1) : a->list_at + delta;
    if (i < 0 || i >= n) {
        set_status(a, "%s", i18n(a->lang, i < 0 ? S_LIST_FIRST : S_LIST_LAST));
        return;
    }
    a->list_at = i;
    if (a->editing) stop_editing(a);
    // the sentence goes into the text box too, so one that cannot run is there to fix (Ctrl+L)
    snprintf(a->edit, sizeof a->edit, "%s", sl_get(a->list, i));
    a->cursor = strlen(a->edit);
    a->analysed = false;
    if (app_set_sentence(a, a->edit)) {
        char why[sizeof a->status];
        snprintf(why, sizeof why, "%s", a->status);
        set_status(a, i18n(a->lang, S_LIST_CANNOT_RUN), i + 1, n, sl_line(a->list, i), why);
    }
}

// ---- text box --------------------------------------------------------------

static void insert_text(App *a, const char *text) {
    size_t len = strlen(a->edit), add = strlen(text);
    if (len + add >= EDIT_MAX) {
        add = EDIT_MAX - 1 - len;
        while (add > 0 && ((unsigned char)text[add] & 0xC0) == 0x80) add--;  // keep whole characters
        set_status(a, i18n(a->lang, S_PASTE_CUT), EDIT_MAX - 1);
    }
    memmove(a->edit + a->cursor + add, a->edit + a->cursor, len - a->cursor + 1);
    memcpy(a->edit + a->cursor, text, add);
    a->cursor += add;
    a->keep_status = add < strlen(text);
    a->suggest_closed = false;  // the message that text was left out stays over the unknown words
    a->text_changed = true;
    a->analysed = false;
}

static size_t prev_char(const char *s, size_t i) {
    while (i > 0 && ((unsigned char)s[--i] & 0xC0) == 0x80) {}
    return i;
}

static size_t next_char(const char *s, size_t i) {
    if (!s[i]) return i;
    i++;
    while (s[i] && ((unsigned char)s[i] & 0xC0) == 0x80) i++;
    return i;
}

static void start_editing(App *a) {
    a->editing = true;
    a->cursor = strlen(a->edit);
    a->analysed = false;
    a->suggest_closed = false;
    SDL_StartTextInput();
}

// Space and the play button: play the steps at the set speed, or pause.
static void toggle_playing(App *a) {
    a->playing = !a->playing;
    a->last_tick = SDL_GetTicks();
}

// The view switches, by key or by their buttons: M the masking steps side by
// side, G every head, V lines, A the gold alignment.
static bool toggle_view(App *a, SDL_Keycode key) {
    ViewOptions *v = &a->view;
    if (key == SDLK_m) v->no_side_by_side = !v->no_side_by_side;
    else if (key == SDLK_g) v->heads_grid = !v->heads_grid;
    else if (key == SDLK_v) v->lines = !v->lines;
    else if (key == SDLK_a) v->no_gold = !v->no_gold;
    else return false;
    return true;
}

// The character boundary of the text box's text nearest to window x: a
// binary search, as the width of a prefix grows with its length (a click in
// 16 KB of text measures some 30 prefixes, not thousands).
static size_t char_at_x(App *a, int x) {
    int want = x - (a->text_x - a->text_scroll);
    size_t len = strlen(a->edit), lo = 0, hi = len;  // lo: a boundary left of want (or 0), hi: one right of it (or len)
    char head[EDIT_MAX];
    while (next_char(a->edit, lo) < hi) {
        size_t mid = lo + (hi - lo) / 2;
        while (mid > lo && ((unsigned char)a->edit[mid] & 0xC0) == 0x80) mid--;  // a character's first byte
        if (mid == lo) mid = next_char(a->edit, lo);
        snprintf(head, sizeof head, "%.*s", (int)mid, a->edit);
        if (gfx_text_width(a->g, head, a->text_px) <= want) lo = mid;
        else hi = mid;
    }
    // the nearer of the two boundaries
    snprintf(head, sizeof head, "%.*s", (int)lo, a->edit);
    int w_lo = gfx_text_width(a->g, head, a->text_px);
    snprintf(head, sizeof head, "%.*s", (int)hi, a->edit);
    int w_hi = gfx_text_width(a->g, head, a->text_px);
    return want - w_lo <= w_hi - want ? lo : hi;
}

static void stop_editing(App *a) {
    a->editing = false;
    a->composition[0] = '\0';
    a->analysed = false;
    SDL_StopTextInput();
}

// A byte that belongs to a word (as the tokenizer splits them): not ASCII
// space or punctuation, except an apostrophe or hyphen inside a word.
static bool word_byte(const char *s, size_t i) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x80 || (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')) return true;
    return (c == '\'' || c == '-') && i > 0 && word_byte(s, i - 1) && s[i + 1] && word_byte(s, i + 1);
}

// Lower-cases as the tokenizer does (ASCII and Latin-1 capitals), byte for byte.
static void lower_copy(char *out, const char *in) {
    size_t i = 0;
    for (; in[i]; i++) {
        unsigned char c = (unsigned char)in[i];
        out[i] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
        if (c == 0xC3 && in[i + 1]) {
            unsigned char d = (unsigned char)in[i + 1];
            out[++i] = (char)(d >= 0x80 && d <= 0x9E && d != 0x97 ? d + 0x20 : d);
        }
    }
    out[i] = '\0';
}

// Whether some word of the vocabulary starts with prefix.
static bool starts_a_word(const Vocab *v, const char *prefix) {
    size_t n = strlen(prefix);
    for (int id = 0; id < voc_size(v); id++)
        if (!strncmp(voc_token(v, id), prefix, n)) return true;
    return false;
}

static int compare_words(const void *x, const void *y) { return strcmp(*(const char *const *)x, *(const char *const *)y); }

// Works out, when stale, which words of the text box the model does not know
// (byte ranges, for the underline) and which vocabulary words start like the
// word at the cursor. While typing, the status line names the unknown words.
static void analyse_text(App *a) {
    if (a->analysed) return;
    a->analysed = true;
    a->n_spans = a->n_suggest = 0;
    const char *text = a->editing ? a->edit : a->sentence;
    static char low[EDIT_MAX];
    lower_copy(low, text);
    Tokens tok;
    Error err;
    char words[512] = "";
    if (*text && voc_tokenize(a->m->src, text, &tok, &err) == 0) {
        // each piece is the next occurrence of its lower-cased text
        size_t at = 0;
        for (int i = 0; i < tok.n; i++) {
            const char *p = strstr(low + at, tok.pieces[i]);
            if (!p) break;
            at = (size_t)(p - low) + strlen(tok.pieces[i]);
            if (tok.ids[i] != voc_unk(a->m->src)) continue;
            if (a->editing && at == a->cursor && starts_a_word(a->m->src, tok.pieces[i])) continue;  // still being typed
            if (a->n_spans < MAX_SPANS) {
                a->span_start[a->n_spans] = (int)(p - low);
                a->span_end[a->n_spans++] = (int)at;
            }
            if (strlen(words) + strlen(tok.pieces[i]) + 8 < sizeof words) {
                strcat(words, " \"");
                strcat(words, tok.pieces[i]);
                strcat(words, "\"");
            } else if (!strstr(words, " \xE2\x80\xA6")) {
                strcat(words, " \xE2\x80\xA6");  // …
            }
        }
        voc_tokens_deinit(&tok);
    }
    if (a->editing && a->text_changed) {
        a->text_changed = false;
        if (*words && !a->keep_status) {
            set_status(a, i18n(a->lang, S_UNKNOWN_TYPING), words);
            a->status_hint = true;
        } else if (!*words && a->status_hint) {
            a->status[0] = '\0';
            a->status_hint = false;
        }
        a->keep_status = false;
    }
    // the word at the cursor: suggestions for it, unless composing or closed with Esc
    if (!a->editing || a->composition[0] || a->suggest_closed) return;
    size_t b = a->cursor, e = a->cursor;
    while (b > 0 && word_byte(a->edit, b - 1)) b--;
    while (a->edit[e] && word_byte(a->edit, e)) e++;
    size_t plen = a->cursor - b;
    if (!plen) return;
    a->word_start = b;
    a->word_end = e;
    const char *found[64];
    int n = 0;
    for (int id = 0; id < voc_size(a->m->src) && n < 64; id++) {
        const char *w = voc_token(a->m->src, id);
        if (w[0] == '<' || strncmp(w, low + b, plen)) continue;  // special tokens are never typed
        found[n++] = w;
    }
    qsort(found, (size_t)n, sizeof *found, compare_words);
    // the word already typed in full, and nothing longer: nothing to offer
    if (n == 1 && strlen(found[0]) == e - b && !strncmp(found[0], low + b, e - b)) n = 0;
    a->n_suggest = n < MAX_SUGGEST ? n : MAX_SUGGEST;
    memcpy(a->suggest, found, (size_t)a->n_suggest * sizeof *found);
    if (a->suggest_sel >= a->n_suggest) a->suggest_sel = -1;
}

int app_unknown_spans(App *a, int *start, int *end, int max) {
    analyse_text(a);
    for (int i = 0; i < a->n_spans && i < max; i++) {
        start[i] = a->span_start[i];
        end[i] = a->span_end[i];
    }
    return a->n_spans;
}

int app_suggestions(App *a, const char **words, int max) {
    analyse_text(a);
    for (int i = 0; i < a->n_suggest && i < max; i++) words[i] = a->suggest[i];
    return a->n_suggest;
}

// Puts suggestion i in place of the word at the cursor, with a space after it.
static void accept_suggestion(App *a, int i) {
    const char *w = a->suggest[i];
    size_t wl = strlen(w), tail = strlen(a->edit + a->word_end);
    bool space = a->edit[a->word_end] != ' ';
    if (a->word_start + wl + space + tail >= EDIT_MAX) return;
    memmove(a->edit + a->word_start + wl + space, a->edit + a->word_end, tail + 1);
    memcpy(a->edit + a->word_start, w, wl);
    if (space) a->edit[a->word_start + wl] = ' ';
    a->cursor = a->word_start + wl + 1;
    a->suggest_sel = -1;
    a->text_changed = true;
    a->analysed = false;
}

static bool edit_key(App *a, const SDL_KeyboardEvent *k) {
    SDL_Keycode sym = k->keysym.sym;
    if (k->keysym.mod & KMOD_ALT && (sym == SDLK_LEFT || sym == SDLK_RIGHT)) return false;  // the sentence list
    analyse_text(a);
    if (a->n_suggest) {  // the suggestions under the box take Tab, ↓ ↑, Enter once one is chosen, and Esc
        switch (sym) {
        case SDLK_TAB: accept_suggestion(a, a->suggest_sel >= 0 ? a->suggest_sel : 0); return true;
        case SDLK_DOWN: a->suggest_sel = (a->suggest_sel + 1) % a->n_suggest; return true;
        case SDLK_UP: a->suggest_sel = a->suggest_sel <= 0 ? a->n_suggest - 1 : a->suggest_sel - 1; return true;
        case SDLK_RETURN:
        case SDLK_KP_ENTER:
            if (a->suggest_sel < 0) break;
            accept_suggestion(a, a->suggest_sel);
            return true;
        case SDLK_ESCAPE:
            a->suggest_closed = true;
            a->analysed = false;
            return true;
        default: break;
        }
    }
    if (sym != SDLK_RETURN && sym != SDLK_KP_ENTER && sym != SDLK_ESCAPE && sym != SDLK_TAB) {
        a->analysed = false;  // the cursor or the text may move: the word at the cursor with it
        a->suggest_sel = -1;
    }
    switch (sym) {
    case SDLK_TAB: return true;  // never a shortcut while typing
    case SDLK_RETURN:
    case SDLK_KP_ENTER:
        if (app_set_sentence(a, a->edit) == 0) stop_editing(a);  // on failure the text stays for fixing
        return true;
    case SDLK_ESCAPE: stop_editing(a); return true;
    case SDLK_BACKSPACE:
        a->text_changed = true;
        a->suggest_closed = false;
        if (a->cursor > 0) {
            size_t p = prev_char(a->edit, a->cursor);
            memmove(a->edit + p, a->edit + a->cursor, strlen(a->edit) - a->cursor + 1);
            a->cursor = p;
        }
        return true;
    case SDLK_DELETE:
        a->text_changed = true;
        if (a->edit[a->cursor]) {
            size_t q = next_char(a->edit, a->cursor);
            memmove(a->edit + a->cursor, a->edit + q, strlen(a->edit) - q + 1);
        }
        return true;
    case SDLK_LEFT: a->cursor = prev_char(a->edit, a->cursor); return true;
    case SDLK_RIGHT: a->cursor = next_char(a->edit, a->cursor); return true;
    case SDLK_HOME: a->cursor = 0; return true;
    case SDLK_END: a->cursor = strlen(a->edit); return true;
    case SDLK_v:
        if (k->keysym.mod & KMOD_CTRL) {
            char *clip = SDL_GetClipboardText();
            if (clip) {
                for (char *c = clip; *c; c++)
                    if (*c == '\n' || *c == '\r' || *c == '\t') *c = ' ';
                insert_text(a, clip);
                SDL_free(clip);
            }
        }
        return true;
    default: return false;
    }
}

// ---- export ----------------------------------------------------------------

static void draw_step_page(Gfx *g, const Model *m, const Trace *t, int step, const Theme *th, Colormap cmap, Lang lang, SDL_Rect area,
                           int hover_row, int hover_col, ViewOptions opt);

int app_render_step_png(const Model *m, const Trace *t, int step, int w, int h, float scale, bool dark, Colormap cmap, const char *font,
                        const char *path, Error *err) {
    int W = (int)lroundf((float)w * scale), H = (int)lroundf((float)h * scale);
    Gfx *g = gfx_new(W, H, font, err);
    if (!g) return -1;
    gfx_set_scale(g, scale);
    const Theme *th = theme_get(dark);
    gfx_clear(g, th->background);
    int pad = gfx_px(g, 16);
    draw_step_page(g, m, t, step, th, cmap, LANG_EN, (SDL_Rect){pad, pad, W - 2 * pad, H - 2 * pad}, -1, -1, (ViewOptions){0});
    int rc = img_save_png(path, gfx_surface(g), err);
    gfx_free(g);
    return rc;
}

// A label as a CSV field (RFC 4180): always quoted, so that a token such as
// "1" stays text, with each quote inside doubled.
static void csv_label(FILE *fp, const char *label) {
    fputc('"', fp);
    for (const char *c = label; *c; c++) {
        if (*c == '"') fputc('"', fp);
        fputc(*c, fp);
    }
    fputc('"', fp);
}

static int write_csv(const Step *s, const char *path, Error *err) {
    AtomicFile af;
    if (fio_atomic_open(&af, path, err)) return -1;
    for (int c = 0; c < s->cols; c++) {
        fputc(',', af.fp);
        if (s->col_labels) csv_label(af.fp, s->col_labels[c]);
        else fprintf(af.fp, "%d", c);
    }
    fputc('\n', af.fp);
    for (int r = 0; r < s->rows; r++) {
        if (s->row_labels) csv_label(af.fp, s->row_labels[r]);
        else fprintf(af.fp, "%d", r);
        for (int c = 0; c < s->cols; c++) fprintf(af.fp, ",%.9g", (double)s->data[r * s->cols + c]);
        fputc('\n', af.fp);
    }
    return fio_atomic_commit(&af, err);
}

// base + ext, or base-2 + ext, base-3 + ext…: a name no earlier export has,
// so that saving again never overwrites a picture already on a slide.
static void free_name(const char *base, const char *ext, char *out, size_t size) {
    snprintf(out, size, "%s%s", base, ext);
    for (int i = 2; i < 10000 && access(out, F_OK) == 0; i++) snprintf(out, size, "%s-%d%s", base, i, ext);
}

// The absolute form of a file just written, for the status line.
static const char *shown_path(const char *path, char *out, size_t size) {
    char cwd[PATH_MAX];
    if (path[0] != '/' && getcwd(cwd, sizeof cwd)) snprintf(out, size, "%s/%s", cwd, path[0] == '.' && path[1] == '/' ? path + 2 : path);
    else snprintf(out, size, "%s", path);
    return out;
}

int app_export_view(App *a, const char *dir, float scale, char *out, size_t size, Error *err) {
    const Step *s = trace_step(a->t, a->step);
    char id[128], base[512];
    trace_stage_id(s, id, sizeof id);
    char suffix[32] = "";
    if (s->head) snprintf(suffix, sizeof suffix, "-h%d", s->head);
    if (s->dstep) snprintf(suffix + strlen(suffix), sizeof suffix - strlen(suffix), "-step%d", s->dstep);
    if ((size_t)snprintf(base, sizeof base, "%s/tracer-%s%s", dir, id, suffix) >= sizeof base)
        return err_set(err, "%s: the folder's name is too long", dir);
    char png[600], csv[600];
    free_name(base, ".png", png, sizeof png);
    // the numbers beside the picture, under the same name
    snprintf(csv, sizeof csv, "%.*s.csv", (int)(strlen(png) - 4), png);
    Error ferr;
    const char *font = gfx_find_font(&ferr);
    if (!font) return err_set(err, "%s", ferr.msg);
    if (app_render_step_png(a->m, a->t, a->step, 1200, 800, scale, a->dark, a->cmap, font, png, err)) return -1;
    if (write_csv(s, csv, err)) return -1;
    snprintf(out, size, "%s", png);
    return 0;
}

// ---- settings ----------------------------------------------------------------

// The rows that apply to the current strategy, in order. Returns how many.
static int settings_rows(const App *a, SettingsRow *rows) {
    int n = 0;
    rows[n++] = ROW_MODEL;
    rows[n++] = ROW_STRATEGY;
    if (a->decode.mode == DECODE_BEAM) rows[n++] = ROW_BEAM;
    if (a->decode.mode == DECODE_SAMPLE) {
        rows[n++] = ROW_TEMPERATURE;
        rows[n++] = ROW_TOP_K;
        rows[n++] = ROW_TOP_P;
        rows[n++] = ROW_SEED;
    }
    if (a->decode.mode != DECODE_TEACHER) rows[n++] = ROW_MAX_STEPS;  // teacher forcing runs the target's length
    rows[n++] = ROW_EXPORT_SCALE;
    return n;
}

static int clamp_int(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
static float clamp_float(float v, float lo, float hi) { return v < lo ? lo : v > hi ? hi : v; }

// The strategies offered: teacher forcing only with a target.
static int strategies(const App *a, DecodeMode *modes) {
    int n = 0;
    modes[n++] = DECODE_GREEDY;
    modes[n++] = DECODE_BEAM;
    modes[n++] = DECODE_SAMPLE;
    if (a->target_text) modes[n++] = DECODE_TEACHER;
    return n;
}

// Changes a row's value by delta steps (−1 / +1) and runs the sentence again.
static void settings_change(App *a, SettingsRow row, int delta) {
    DecodeOptions d = a->decode;
    DecodeMode modes[4];
    int n = strategies(a, modes), i = 0;
    switch (row) {
    case ROW_MODEL:
        if (a->n_models > 0) app_set_model(a, a->models[((a->model_at < 0 ? 0 : a->model_at) + delta + a->n_models) % a->n_models]);
        return;
    case ROW_STRATEGY:
        while (i < n && modes[i] != d.mode) i++;
        d.mode = modes[(i + delta + n) % n];
        break;
    case ROW_BEAM: d.beam_width = clamp_int((d.beam_width ? d.beam_width : 4) + delta, 1, 16); break;
    case ROW_TEMPERATURE:
        d.temperature = clamp_float(roundf(((d.temperature > 0 ? d.temperature : 1.0f) + 0.1f * (float)delta) * 10.0f) / 10.0f, 0.1f, 5.0f);
        break;
    case ROW_TOP_K: d.top_k = clamp_int(d.top_k + delta, 0, voc_size(a->m->tgt)); break;
    case ROW_TOP_P: d.top_p = clamp_float(roundf(((d.top_p > 0 ? d.top_p : 1.0f) + 0.05f * (float)delta) * 20.0f) / 20.0f, 0.05f, 1.0f); break;
    case ROW_SEED:
        if (delta < 0 && d.seed == 0) return;
        d.seed += (uint64_t)(int64_t)delta;
        break;
    case ROW_MAX_STEPS: d.max_steps = clamp_int((d.max_steps ? d.max_steps : a->m->cfg.max_len) + delta, 1, a->m->cfg.max_len); break;
    case ROW_EXPORT_SCALE: a->export_scale = clamp_int(a->export_scale + delta, 1, 4); return;
    default: return;
    }
    app_set_decode(a, &d);
}

static const char *mode_name(Lang lang, DecodeMode mode) {
    static const StringId names[] = {S_GREEDY, S_BEAM, S_SAMPLING, S_TEACHER_FORCING};
    return i18n(lang, names[mode]);
}

// Arrow keys in the open panel: ↑ ↓ choose a row, ← → change it.
static bool settings_key(App *a, SDL_Keycode sym) {
    SettingsRow rows[ROW_COUNT];
    int n = settings_rows(a, rows), at = 0;
    while (at < n && rows[at] != a->settings_row) at++;
    if (at == n) at = 1;  // the row went with the strategy
    switch (sym) {
    case SDLK_UP: a->settings_row = rows[(at + n - 1) % n]; return true;
    case SDLK_DOWN: a->settings_row = rows[(at + 1) % n]; return true;
    case SDLK_LEFT:
    case SDLK_RIGHT:
        a->settings_row = rows[at];
        settings_change(a, rows[at], sym == SDLK_LEFT ? -1 : 1);
        return true;
    default: return false;
    }
}

// ---- events ----------------------------------------------------------------

static bool key_down(App *a, const SDL_KeyboardEvent *k) {
    bool ctrl = k->keysym.mod & KMOD_CTRL, shift = k->keysym.mod & KMOD_SHIFT, alt = k->keysym.mod & KMOD_ALT;
    SDL_Keycode sym = k->keysym.sym;
    bool arrow = sym == SDLK_LEFT || sym == SDLK_RIGHT;
    if (a->editing) {
        if (edit_key(a, k)) return true;
        // while typing, plain keys are text: only Ctrl, Alt + arrows and F keys act as shortcuts
        if (!ctrl && !(alt && arrow) && !(sym >= SDLK_F1 && sym <= SDLK_F12)) return false;
    } else if (a->settings && !ctrl && !shift && !alt && settings_key(a, sym)) {
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
    case SDLK_SPACE:
        toggle_playing(a);
        return true;
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
        if (!ctrl) a->settings = !a->settings;
        return !ctrl;
    case SDLK_COMMA:
        if (ctrl) a->settings = !a->settings;
        return ctrl;
    case SDLK_F11:
        a->fullscreen = !a->fullscreen;
        a->fullscreen_changed = true;
        return true;
    case SDLK_F2: a->lang = (Lang)((a->lang + 1) % LANG_COUNT); return true;
    case SDLK_F1: a->help = !a->help; return true;
    case SDLK_ESCAPE:
        if (a->help) a->help = false;
        else a->settings = false;
        return true;
    case SDLK_q:
        if (ctrl) a->quit = true;
        return ctrl;
    case SDLK_l:
        if (ctrl) start_editing(a);
        return ctrl;
    case SDLK_t:
        if (!ctrl) a->dark = !a->dark;
        return !ctrl;
    case SDLK_c:
        if (!ctrl) a->cmap = (Colormap)((a->cmap + 1) % CMAP_COUNT);
        return !ctrl;
    case SDLK_m:
    case SDLK_g:
    case SDLK_v:
    case SDLK_a:
        return !ctrl && toggle_view(a, sym);
    case SDLK_0:
        if (ctrl) apply_zoom(a, 1.0f);
        return ctrl;
    case SDLK_EQUALS:
    case SDLK_PLUS:
    case SDLK_KP_PLUS:
        if (ctrl) apply_zoom(a, a->zoom * 1.15f);
        return ctrl;
    case SDLK_MINUS:
    case SDLK_KP_MINUS:
        if (ctrl) apply_zoom(a, a->zoom / 1.15f);
        return ctrl;
    case SDLK_s:
        if (ctrl) {
            Error err;
            char path[700], shown[PATH_MAX + 720];
            if (shift) {
                free_name("./tracer-window", ".png", path, sizeof path);
                if (img_save_png(path, gfx_surface(a->g), &err)) set_status(a, "%s", err.msg);
                else set_status(a, i18n(a->lang, S_SAVED), shown_path(path, shown, sizeof shown));
            } else if (app_export_view(a, ".", (float)a->export_scale, path, sizeof path, &err)) {
                set_status(a, "%s", err.msg);
            } else {
                set_status(a, i18n(a->lang, S_SAVED), shown_path(path, shown, sizeof shown));
            }
        }
        return ctrl;
    default:
        if (k->keysym.sym >= SDLK_1 && k->keysym.sym <= SDLK_9 && s->head > 0) {
            jump_to(a, s->layer, (int)(k->keysym.sym - SDLK_1) + 1);
            return true;
        }
        return false;
    }
}

static void hover(App *a, int x, int y) {
    ViewState vs = {.model = a->m, .trace = a->t, .step = a->step, .theme = theme_get(a->dark), .cmap = a->cmap, .hover_row = -1,
                    .hover_col = -1, .font_px = gfx_px(a->g, 18), .opt = a->view, .lang = a->lang};
    int r, c;
    if (!view_hit(a->g, a->view_area, &vs, x, y, &r, &c)) {
        a->hover_row = a->hover_col = -1;
        return;
    }
    a->hover_row = r;
    a->hover_col = c;
    const Step *s = trace_step(a->t, a->step);
    double sum = 0.0;
    for (int k = 0; k < s->cols; k++) sum += isfinite(s->data[r * s->cols + k]) ? s->data[r * s->cols + k] : 0.0;
    char rl[64], cl[64];
    snprintf(rl, sizeof rl, "%s", s->row_labels ? s->row_labels[r] : "");
    snprintf(cl, sizeof cl, "%s", s->col_labels ? s->col_labels[c] : "");
    // numbered from 1, as the lessons count rows and columns
    set_status(a, i18n(a->lang, S_HOVER), r + 1, rl, c + 1, cl, (double)s->data[r * s->cols + c], sum);
}

static bool mouse_down(App *a, int x, int y) {
    SDL_Point p = {x, y};
    // what is drawn on top first: the settings panel, the suggestions
    for (int i = 0; a->settings && i < a->n_hits; i++)
        if (SDL_PointInRect(&p, &a->hits[i].r)) {
            const Hit *h = &a->hits[i];
            a->settings_row = h->row;
            if (h->choice >= 0) {
                DecodeOptions d = a->decode;
                d.mode = (DecodeMode)h->choice;
                if (d.mode != a->decode.mode) app_set_decode(a, &d);
            } else {
                settings_change(a, h->row, h->delta);
            }
            return true;
        }
    if (a->settings && SDL_PointInRect(&p, &a->settings_box)) return true;
    for (int i = 0; a->editing && i < MAX_SUGGEST; i++)
        if (SDL_PointInRect(&p, &a->suggest_rects[i]) && i < a->n_suggest) {
            accept_suggestion(a, i);
            return true;
        }
    if (SDL_PointInRect(&p, &a->settings_button)) {
        a->settings = !a->settings;
        return true;
    }
    if (SDL_PointInRect(&p, &a->help_button)) {
        a->help = !a->help;
        return true;
    }
    if (SDL_PointInRect(&p, &a->play_button)) {
        toggle_playing(a);
        return true;
    }
    if (a->list && (SDL_PointInRect(&p, &a->list_prev) || SDL_PointInRect(&p, &a->list_next))) {
        app_list_go(a, SDL_PointInRect(&p, &a->list_next) ? 1 : -1);
        return true;
    }
    if (SDL_PointInRect(&p, &a->text_box)) {
        if (a->editing) a->cursor = char_at_x(a, x);
        else start_editing(a);
        a->analysed = false;
        return true;
    }
    if (SDL_PointInRect(&p, &a->timeline)) {
        a->dragging = true;
        app_set_step(a, (int)((long)(x - a->timeline.x) * trace_count(a->t) / (a->timeline.w > 0 ? a->timeline.w : 1)));
        return true;
    }
    for (int i = 0; i < 4; i++)
        if (SDL_PointInRect(&p, &a->switches[i])) return toggle_view(a, switch_keys[i]);
    const Step *s = trace_step(a->t, a->step);
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < a->n_chips[k]; i++)
            if (SDL_PointInRect(&p, &a->chips[k][i])) {
                if (k == 0) jump_to(a, i + 1, s->head);
                else jump_to(a, s->layer, i + 1);
                return true;
            }
    return false;
}

static bool free_event(App *a, const SDL_Event *e);

// A lesson sees each event first; a sentence the user ran re-binds it.
bool app_event(App *a, const SDL_Event *e) {
    if (a->lesson && lm_event(a->lesson, a, e)) return true;
    bool redraw = free_event(a, e);
    if (a->lesson) lm_after_event(a->lesson, a);
    return redraw;
}

static bool free_event(App *a, const SDL_Event *e) {
    switch (e->type) {
    case SDL_QUIT: a->quit = true; return false;
    case SDL_KEYDOWN:
        if (e->key.keysym.sym == SDLK_SLASH && (e->key.keysym.mod & KMOD_SHIFT) && !a->editing) {
            a->help = !a->help;
            return true;
        }
        return key_down(a, &e->key);
    case SDL_TEXTINPUT:
        if (!a->editing) return false;
        insert_text(a, e->text.text);
        a->composition[0] = '\0';
        return true;
    case SDL_TEXTEDITING:
        snprintf(a->composition, sizeof a->composition, "%s", e->edit.text);
        a->analysed = false;  // no suggestions over a composition
        return true;
    case SDL_MOUSEBUTTONDOWN: return e->button.button == SDL_BUTTON_LEFT && mouse_down(a, e->button.x, e->button.y);
    case SDL_MOUSEBUTTONUP: a->dragging = false; return false;
    case SDL_MOUSEMOTION:
        if (a->dragging) {
            app_set_step(a, (int)((long)(e->motion.x - a->timeline.x) * trace_count(a->t) / (a->timeline.w > 0 ? a->timeline.w : 1)));
            return true;
        }
        hover(a, e->motion.x, e->motion.y);
        return true;
    case SDL_WINDOWEVENT: return true;
    default: return false;
    }
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

// Title, the view and the formula panel for one step: the window's middle,
// and the whole of an exported image.
static void draw_step_page(Gfx *g, const Model *m, const Trace *t, int step, const Theme *th, Colormap cmap, Lang lang, SDL_Rect area,
                           int hover_row, int hover_col, ViewOptions opt) {
    const Step *s = trace_step(t, step);
    int px = gfx_px(g, 18), big = gfx_px(g, 24), lh = gfx_line_height(g, px), pad = gfx_px(g, 10);
    char id[128], line[512];
    trace_stage_id(s, id, sizeof id);
    int n = snprintf(line, sizeof line, "%s", id);
    if (s->layer) n += snprintf(line + n, sizeof line - (size_t)n, "   %s %d", i18n(lang, S_LAYER), s->layer);
    if (s->head) n += snprintf(line + n, sizeof line - (size_t)n, "   %s %d", i18n(lang, S_HEAD), s->head);
    if (trace_options(t)->mode == DECODE_TEACHER && s->dstep)  // one pass over the whole target: no decoding steps
        snprintf(line + n, sizeof line - (size_t)n, "   %s", i18n(lang, S_TEACHER_FORCING));
    else if (s->dstep)
        snprintf(line + n, sizeof line - (size_t)n, "   %s %d", i18n(lang, S_DECODING_STEP), s->dstep);
    gfx_text_fit(g, area.x, area.y, area.w, line, big, th->text, GFX_LEFT);
    int top = area.y + gfx_line_height(g, big) + pad;
    int formula_h = 2 * lh + pad;
    SDL_Rect view = {area.x, top, area.w, area.y + area.h - top - formula_h - pad};
    ViewState vs = {.model = m, .trace = t, .step = step, .theme = th, .cmap = cmap, .hover_row = hover_row, .hover_col = hover_col,
                    .font_px = px, .opt = opt, .lang = lang};
    view_draw(g, view, &vs);
    SDL_Rect panel = {area.x, area.y + area.h - formula_h, area.w, formula_h};
    gfx_fill(g, panel, th->panel);
    gfx_frame(g, panel, 1, th->panel_edge);
    gfx_math(g, panel.x + pad, panel.y + pad / 2, panel.w - 2 * pad, i18n_formula(lang, s->formula), px, th->text);
    if (opt.hide_shape) snprintf(line, sizeof line, "%s: %s", i18n(lang, S_SHAPE), i18n(lang, S_L_SHAPE_HIDDEN));
    else snprintf(line, sizeof line, "%s: %s \xC3\x97 %s = %d \xC3\x97 %d", i18n(lang, S_SHAPE), s->sym_rows, s->sym_cols, s->rows, s->cols);
    gfx_math(g, panel.x + pad, panel.y + pad / 2 + lh, panel.w - 2 * pad, line, px, th->text_dim);
}

static void draw_chips(App *a, int x, int y, int k, int count, int current, const char *prefix) {
    const Theme *th = theme_get(a->dark);
    int px = gfx_px(a->g, 16), pad = gfx_px(a->g, 6), lh = gfx_line_height(a->g, px);
    char buf[16];
    a->n_chips[k] = count < 16 ? count : 16;
    for (int i = 0; i < a->n_chips[k]; i++) {
        snprintf(buf, sizeof buf, "%s%d", prefix, i + 1);
        int w = gfx_text_width(a->g, buf, px) + 2 * pad;
        SDL_Rect r = {x, y, w, lh};
        bool on = i + 1 == current;
        gfx_fill(a->g, r, on ? th->accent : th->panel);
        gfx_frame(a->g, r, 1, th->panel_edge);
        gfx_text(a->g, x + pad, y, buf, px, on ? th->accent_text : th->text, GFX_LEFT);
        a->chips[k][i] = r;
        x += w + pad / 2;
    }
}

// The view switches that apply to the step shown, as toggles lit when on,
// from x; returns the x where they end.
static int draw_switches(App *a, int x, int y) {
    const Theme *th = theme_get(a->dark);
    int px = gfx_px(a->g, 16), pad = gfx_px(a->g, 6), lh = gfx_line_height(a->g, px);
    ViewState vs = {.model = a->m, .trace = a->t, .step = a->step, .opt = a->view, .lang = a->lang};
    ViewSwitches w = view_switches(&vs);
    // M does nothing where the grid or the lines show the weights instead (plan_panels)
    bool side_by_side = w.side_by_side && !(w.heads_grid && a->view.heads_grid) && !(w.lines && a->view.lines);
    const bool shown[4] = {w.heads_grid, w.lines, side_by_side, w.gold};
    const bool on[4] = {a->view.heads_grid, a->view.lines, !a->view.no_side_by_side, !a->view.no_gold};
    static const StringId labels[4] = {S_SW_GRID, S_SW_LINES, S_SW_SIDE_BY_SIDE, S_SW_GOLD};
    for (int i = 0; i < 4; i++) {
        a->switches[i] = (SDL_Rect){0};
        if (!shown[i]) continue;
        const char *label = i18n(a->lang, labels[i]);
        SDL_Rect r = {x, y, gfx_text_width(a->g, label, px) + 2 * pad, lh};
        gfx_fill(a->g, r, on[i] ? th->accent : th->panel);
        gfx_frame(a->g, r, 1, th->panel_edge);
        gfx_text(a->g, x + pad, y, label, px, on[i] ? th->accent_text : th->text, GFX_LEFT);
        a->switches[i] = r;
        x += r.w + pad / 2;
    }
    return x;
}

// The shortcut list, measured: one column, two when it is too tall, smaller
// type when even that does not fit the window.
static void draw_help(App *a) {
    const Theme *th = theme_get(a->dark);
    Gfx *g = a->g;
    int W = gfx_width(g), H = gfx_height(g), pad = gfx_px(g, 20), gap = gfx_px(g, 24);
    gfx_fill(g, (SDL_Rect){0, 0, W, H}, (th->background & 0x00FFFFFF) | 0xC0000000);
    enum { MAX_LINES = 64 };
    char keys[MAX_LINES][96], what[MAX_LINES][192];
    int n = 0;
    for (const char *c = i18n(a->lang, S_HELP_KEYS); *c && n < MAX_LINES;) {
        const char *end = strchr(c, '\n'), *tab = strchr(c, '\t');
        size_t len = end ? (size_t)(end - c) : strlen(c);
        if (tab && tab < c + len) {
            snprintf(keys[n], sizeof keys[n], "%.*s", (int)(tab - c), c);
            snprintf(what[n], sizeof what[n], "%.*s", (int)(c + len - tab - 1), tab + 1);
            n++;
        }
        c += len + (end ? 1 : 0);
    }
    const char *title = i18n(a->lang, S_HELP_TITLE);
    int px = gfx_px(g, 18), cols = 1, rows = n, key_w = 0, col_w = 0, lh = 0, title_h = 0;
    SDL_Rect box = {0};
    for (;;) {
        lh = gfx_line_height(g, px);
        title_h = gfx_line_height(g, px * 4 / 3) + lh / 2;
        int what_w = 0;
        key_w = 0;
        for (int i = 0; i < n; i++) {
            int kw = gfx_text_width(g, keys[i], px), ww = gfx_text_width(g, what[i], px);
            key_w = kw > key_w ? kw : key_w;
            what_w = ww > what_w ? ww : what_w;
        }
        col_w = key_w + gap + what_w;
        cols = title_h + n * lh + 2 * pad <= H ? 1 : 2;
        rows = (n + cols - 1) / cols;
        box.w = cols * col_w + (cols - 1) * 2 * gap + 2 * pad;
        box.h = title_h + rows * lh + 2 * pad;
        if ((box.w <= W && box.h <= H) || px <= 8) break;
        px = px * 9 / 10;
    }
    box.x = box.w < W ? (W - box.w) / 2 : 0;
    box.y = box.h < H ? (H - box.h) / 2 : 0;
    gfx_fill(g, box, th->panel);
    gfx_frame(g, box, 2, th->accent);
    gfx_text(g, box.x + pad, box.y + pad, title, px * 4 / 3, th->text, GFX_LEFT);
    for (int i = 0; i < n; i++) {
        int x = box.x + pad + (i / rows) * (col_w + 2 * gap), y = box.y + pad + title_h + (i % rows) * lh;
        gfx_text(g, x, y, keys[i], px, th->accent, GFX_LEFT);
        gfx_text(g, x + key_w + gap, y, what[i], px, th->text, GFX_LEFT);
    }
}

static Color error_color(const Theme *th) { return th->dark ? 0xFFFF6B6B : 0xFFD32F2F; }

// A wavy red line under x0..x1, as spelling checkers draw it.
static void squiggle(Gfx *g, int x0, int x1, int y, Color c) {
    float step = (float)gfx_px(g, 3), amp = (float)gfx_px(g, 2), w = (float)gfx_px(g, 1) + 0.5f;
    for (float x = (float)x0; x < (float)x1; x += step) {
        float xe = x + step > (float)x1 ? (float)x1 : x + step;
        bool up = (int)((x - (float)x0) / step) % 2 == 0;
        gfx_line(g, x, (float)y + (up ? amp : 0.0f), xe, (float)y + (up ? 0.0f : amp), w, c);
    }
}

// A small button with a label, filled when on.
static void button(Gfx *g, const Theme *th, SDL_Rect r, const char *label, int px, bool on) {
    gfx_fill(g, r, on ? th->accent : th->panel);
    gfx_frame(g, r, 1, on ? th->accent : th->panel_edge);
    int lh = gfx_line_height(g, px);
    gfx_text(g, r.x + r.w / 2, r.y + (r.h - lh) / 2, label, px, on ? th->accent_text : th->text, GFX_CENTER);
}

// The words the vocabulary offers for the one at the cursor, under it.
static void draw_suggestions(App *a, int tx) {
    memset(a->suggest_rects, 0, sizeof a->suggest_rects);
    if (!a->editing || !a->n_suggest) return;
    const Theme *th = theme_get(a->dark);
    Gfx *g = a->g;
    int px = gfx_px(g, 18), small = gfx_px(g, 14), pad = gfx_px(g, 8), row = gfx_line_height(g, px) + pad / 2;
    const char *hint = i18n(a->lang, S_SUGGEST_HINT);
    int w = gfx_text_width(g, hint, small);
    for (int i = 0; i < a->n_suggest; i++) {
        int ww = gfx_text_width(g, a->suggest[i], px);
        w = ww > w ? ww : w;
    }
    w += 2 * pad;
    char head[EDIT_MAX];
    snprintf(head, sizeof head, "%.*s", (int)a->word_start, a->edit);
    int x = tx + gfx_text_width(g, head, px) - pad, W = gfx_width(g);
    if (x + w > W) x = W - w;
    if (x < 0) x = 0;
    SDL_Rect box = {x, a->text_box.y + a->text_box.h, w, a->n_suggest * row + gfx_line_height(g, small) + pad};
    gfx_fill(g, box, th->panel);
    gfx_frame(g, box, 1, th->accent);
    for (int i = 0; i < a->n_suggest; i++) {
        SDL_Rect r = {x + 1, box.y + pad / 2 + i * row, w - 2, row};
        bool on = i == a->suggest_sel;
        if (on) gfx_fill(g, r, th->accent);
        gfx_text(g, x + pad, r.y + pad / 4, a->suggest[i], px, on ? th->accent_text : th->text, GFX_LEFT);
        a->suggest_rects[i] = r;
    }
    gfx_text(g, x + pad, box.y + pad / 2 + a->n_suggest * row, hint, small, th->text_dim, GFX_LEFT);
}

// A settings row's value as shown.
static void row_value(const App *a, SettingsRow row, char *buf, size_t size) {
    const DecodeOptions *d = &a->decode;
    switch (row) {
    case ROW_MODEL: snprintf(buf, size, "%s   %d/%d", base_name(a->model_path), a->model_at + 1, a->n_models); break;
    case ROW_BEAM: snprintf(buf, size, "%d", d->beam_width ? d->beam_width : 4); break;
    case ROW_TEMPERATURE: snprintf(buf, size, "%.1f", (double)(d->temperature > 0 ? d->temperature : 1.0f)); break;
    case ROW_TOP_K:
        if (d->top_k) snprintf(buf, size, "%d", d->top_k);
        else snprintf(buf, size, "%s", i18n(a->lang, S_ALL));
        break;
    case ROW_TOP_P: snprintf(buf, size, "%.2f", (double)(d->top_p > 0 ? d->top_p : 1.0f)); break;
    case ROW_SEED: snprintf(buf, size, "%llu", (unsigned long long)d->seed); break;
    case ROW_MAX_STEPS:
        if (d->max_steps) snprintf(buf, size, "%d", d->max_steps);
        else snprintf(buf, size, i18n(a->lang, S_MODEL_MAX), a->m->cfg.max_len);
        break;
    case ROW_EXPORT_SCALE: snprintf(buf, size, "%d\xC3\x97", a->export_scale); break;  // 2×
    default: buf[0] = '\0';
    }
}

static void add_hit(App *a, SDL_Rect r, SettingsRow row, int delta, int choice) {
    if (a->n_hits < (int)(sizeof a->hits / sizeof *a->hits)) a->hits[a->n_hits++] = (Hit){r, row, delta, choice};
}

// The settings panel, under its button: the model, the strategy and its parameters.
static void draw_settings(App *a) {
    a->n_hits = 0;
    a->settings_box = (SDL_Rect){0};
    if (!a->settings) return;
    const Theme *th = theme_get(a->dark);
    Gfx *g = a->g;
    int W = gfx_width(g), px = gfx_px(g, 18), small = gfx_px(g, 15), lh = gfx_line_height(g, px), pad = gfx_px(g, 12);
    int row_h = lh + pad / 2 + gfx_px(g, 4);
    static const StringId labels[ROW_COUNT] = {S_MODEL, S_DECODING, S_BEAM_WIDTH, S_TEMPERATURE, S_TOP_K, S_TOP_P, S_SEED, S_MAX_STEPS, S_EXPORT_SCALE};
    SettingsRow rows[ROW_COUNT];
    int n = settings_rows(a, rows), label_w = 0;
    for (int i = 0; i < n; i++) {
        int w = gfx_text_width(g, i18n(a->lang, labels[rows[i]]), px);
        label_w = w > label_w ? w : label_w;
    }
    DecodeMode modes[4];
    int n_modes = strategies(a, modes), chips_w = 0;
    for (int i = 0; i < n_modes; i++) chips_w += gfx_text_width(g, mode_name(a->lang, modes[i]), px) + 2 * pad + pad / 2;
    int title_h = gfx_line_height(g, gfx_px(g, 22)) + pad / 2;
    SDL_Rect box = {0, a->settings_button.y + a->settings_button.h + pad / 2, label_w + 2 * pad + (chips_w > gfx_px(g, 420) ? chips_w : gfx_px(g, 420)), 0};
    box.h = title_h + n * row_h + gfx_line_height(g, small) + 2 * pad;
    if (box.w > W) box.w = W;
    box.x = W - box.w - pad > 0 ? W - box.w - pad : 0;
    gfx_fill(g, box, th->panel);
    gfx_frame(g, box, 2, th->accent);
    gfx_text(g, box.x + pad, box.y + pad, i18n(a->lang, S_SETTINGS), gfx_px(g, 22), th->text, GFX_LEFT);
    int cx = box.x + pad + label_w + pad, cw = box.x + box.w - pad - cx;
    for (int i = 0; i < n; i++) {
        int y = box.y + pad + title_h + i * row_h;
        SDL_Rect line = {box.x + gfx_px(g, 4), y - gfx_px(g, 2), box.w - gfx_px(g, 8), row_h};
        if (rows[i] == a->settings_row) gfx_fill(g, line, (th->accent & 0x00FFFFFF) | 0x30000000);
        gfx_text(g, box.x + pad, y + (row_h - lh) / 2, i18n(a->lang, labels[rows[i]]), px, th->text, GFX_LEFT);
        SDL_Rect r = {cx, y + gfx_px(g, 2), 0, row_h - gfx_px(g, 6)};
        if (rows[i] == ROW_STRATEGY) {
            for (int k = 0; k < n_modes; k++) {
                const char *name = mode_name(a->lang, modes[k]);
                r.w = gfx_text_width(g, name, px) + 2 * pad;
                button(g, th, r, name, px, modes[k] == a->decode.mode);
                add_hit(a, r, rows[i], 0, (int)modes[k]);
                r.x += r.w + pad / 2;
            }
            continue;
        }
        // − value +
        char value[4800];
        row_value(a, rows[i], value, sizeof value);
        r.w = r.h;
        button(g, th, r, "\xE2\x88\x92", px, false);  // −
        add_hit(a, r, rows[i], -1, -1);
        SDL_Rect plus = {cx + cw - r.w, r.y, r.w, r.h};
        button(g, th, plus, "+", px, false);
        add_hit(a, plus, rows[i], 1, -1);
        int vx = r.x + r.w + pad / 2, vw = plus.x - pad / 2 - vx;
        gfx_text_fit(g, vx, y + (row_h - lh) / 2, vw, value, px, th->text, GFX_LEFT);
    }
    gfx_text_fit(g, box.x + pad, box.y + box.h - pad - gfx_line_height(g, small), box.w - 2 * pad, i18n(a->lang, S_SETTINGS_HINT), small,
                 th->text_dim, GFX_LEFT);
    a->settings_box = box;
}

void app_draw(App *a) {
    Gfx *g = a->g;
    const Theme *th = theme_get(a->dark);
    int W = gfx_width(g), H = gfx_height(g), px = gfx_px(g, 18), lh = gfx_line_height(g, px), pad = gfx_px(g, 12);
    gfx_clear(g, th->background);
    analyse_text(a);
    // the top row: the sentence box, the class list's ◀ n/N ▶, the model and strategy, the settings button
    int small = gfx_px(g, 16), box_h = lh + pad;
    const char *settings_label = i18n(a->lang, S_SETTINGS_BUTTON);
    int bw = gfx_text_width(g, settings_label, small) + pad;
    a->settings_button = (SDL_Rect){W - pad - bw, pad, bw, box_h};
    a->help_button = (SDL_Rect){a->settings_button.x - pad / 2 - box_h, pad, box_h, box_h};
    char counter[32] = "";
    int nav_w = 0;
    if (a->list) {
        if (a->list_at >= 0) snprintf(counter, sizeof counter, "%d/%d", a->list_at + 1, sl_count(a->list));
        else snprintf(counter, sizeof counter, "\xE2\x80\x93/%d", sl_count(a->list));  // –: a sentence not from the list
        nav_w = 2 * box_h + gfx_text_width(g, counter, px) + 2 * pad;
    }
    char info[256];
    const DecodeOptions *d = trace_options(a->t);  // what the trace on show was run with (a lesson step may differ from the settings)
    int n_info = snprintf(info, sizeof info, "%s  \xC2\xB7  %s", a->m->name, mode_name(a->lang, d->mode));
    if (n_info < 0 || n_info >= (int)sizeof info) n_info = (int)sizeof info - 1;  // a model's name has no length limit
    if (d->mode == DECODE_BEAM) snprintf(info + n_info, sizeof info - (size_t)n_info, " %d", d->beam_width ? d->beam_width : 4);
    if (d->mode == DECODE_SAMPLE)
        snprintf(info + n_info, sizeof info - (size_t)n_info, "  T %.1f  k %d  p %.2f  #%llu", (double)(d->temperature > 0 ? d->temperature : 1.0f),
                 d->top_k, (double)(d->top_p > 0 ? d->top_p : 1.0f), (unsigned long long)d->seed);
    // the sentence box takes 3/5 of the width, less what the model and strategy need beside it (it scrolls), 2/5 at least
    // (room: the box's margin, then pad / 2 + pad before the line and 2 pad after it, up to the ? button)
    int text_w = SDL_max(SDL_min(W * 3 / 5, a->help_button.x - 5 * pad - gfx_text_width(g, info, px)), W * 2 / 5) - nav_w;
    a->text_box = (SDL_Rect){pad, pad, text_w > box_h ? text_w : box_h, box_h};
    gfx_fill(g, a->text_box, th->panel);
    gfx_frame(g, a->text_box, a->editing ? 2 : 1, a->editing ? th->accent : th->panel_edge);
    const char *shown = a->editing ? a->edit : a->sentence;
    // a text longer than the box scrolls sideways so that the cursor and the
    // IME's text stay in view, with a margin; otherwise it starts at the left
    if (a->editing) {
        char head[EDIT_MAX];
        snprintf(head, sizeof head, "%.*s", (int)a->cursor, a->edit);
        int at = gfx_text_width(g, head, px) + gfx_text_width(g, a->composition, px);
        int view = a->text_box.w - pad, margin = SDL_min(gfx_px(g, 40), view / 4);
        int end = gfx_text_width(g, a->edit, px) + gfx_text_width(g, a->composition, px);
        if (at - a->text_scroll > view - margin) a->text_scroll = at - view + margin;
        if (at - a->text_scroll < margin) a->text_scroll = at - margin;
        if (end - a->text_scroll < view - margin) a->text_scroll = end - view + margin;  // no empty room at the right while there is text to the left
        if (a->text_scroll < 0) a->text_scroll = 0;
    } else {
        a->text_scroll = 0;
    }
    a->text_x = a->text_box.x + pad / 2;
    a->text_px = px;
    int tx = a->text_x - a->text_scroll, ty = a->text_box.y + pad / 2;
    gfx_clip(g, &a->text_box);
    int w = gfx_text(g, tx, ty, shown, px, th->text, GFX_LEFT);
    if (!*shown && a->editing) gfx_text(g, tx, ty, i18n(a->lang, S_TYPE_SENTENCE), px, th->text_dim, GFX_LEFT);
    for (int i = 0; i < a->n_spans; i++) {  // words the model does not know, underlined in red
        static char head[EDIT_MAX];
        snprintf(head, sizeof head, "%.*s", a->span_start[i], shown);
        int x0 = tx + gfx_text_width(g, head, px);
        if (x0 > a->text_box.x + a->text_box.w) break;
        snprintf(head, sizeof head, "%.*s", a->span_end[i] - a->span_start[i], shown + a->span_start[i]);
        squiggle(g, x0, x0 + gfx_text_width(g, head, px), ty + lh - gfx_px(g, 3), error_color(th));
    }
    if (a->editing) {
        char head[EDIT_MAX];
        snprintf(head, sizeof head, "%.*s", (int)a->cursor, a->edit);
        int cx = tx + gfx_text_width(g, head, px);
        if (a->composition[0]) {  // the IME's text, underlined, at the cursor
            int cw = gfx_text(g, cx, ty, a->composition, px, th->accent, GFX_LEFT);
            gfx_fill(g, (SDL_Rect){cx, ty + lh - 2, cw, 2}, th->accent);
            cx += cw;
        }
        gfx_fill(g, (SDL_Rect){cx, ty, 2, lh}, th->accent);
        SDL_Rect ime = {cx, ty, 1, lh};
        SDL_SetTextInputRect(&ime);
    }
    (void)w;
    gfx_clip(g, NULL);
    int x = a->text_box.x + a->text_box.w + pad / 2;
    a->list_prev = a->list_next = (SDL_Rect){0};
    if (a->list) {
        a->list_prev = (SDL_Rect){x, pad, box_h, box_h};
        button(g, th, a->list_prev, "\xE2\x97\x80", small, false);  // ◀
        x += box_h + pad / 2;
        x += gfx_text(g, x, ty, counter, px, th->text, GFX_LEFT) + pad / 2;
        a->list_next = (SDL_Rect){x, pad, box_h, box_h};
        button(g, th, a->list_next, "\xE2\x96\xB6", small, false);  // ▶
        x += box_h;
    }
    gfx_text_fit(g, x + pad, ty, a->help_button.x - x - 2 * pad, info, px, th->text_dim, GFX_LEFT);
    button(g, th, a->help_button, "?", small, a->help);
    button(g, th, a->settings_button, settings_label, small, a->settings);

    // layer and head selectors for steps that have them
    const Step *s = trace_step(a->t, a->step);
    int chips_y = a->text_box.y + a->text_box.h + pad / 2;
    a->n_chips[0] = a->n_chips[1] = 0;
    if (s->layer) draw_chips(a, pad, chips_y, 0, s->stage->part == STAGE_ENCODER ? a->m->cfg.n_enc : a->m->cfg.n_dec, s->layer, "L");
    if (s->head) draw_chips(a, W / 4, chips_y, 1, a->m->cfg.nhead, s->head, "H");
    int switches_end = draw_switches(a, a->n_chips[1] ? a->chips[1][a->n_chips[1] - 1].x + a->chips[1][a->n_chips[1] - 1].w + 2 * pad : W / 4, chips_y);
    char pos[64];
    snprintf(pos, sizeof pos, i18n(a->lang, S_STEP), a->step + 1, trace_count(a->t));
    int pos_w = gfx_text(g, W - pad, chips_y, pos, gfx_px(g, 16), th->text_dim, GFX_RIGHT);
    if (trace_options(a->t)->mode == DECODE_TEACHER) {  // the mode, unmistakable, and the target it is fed (--target, or a lesson's)
        const char *badge = i18n(a->lang, S_TEACHER_FORCING);
        int bx = SDL_max(W / 2, switches_end + 2 * pad), bh = gfx_line_height(g, small), bwid = gfx_text_width(g, badge, small) + pad;
        gfx_fill(g, (SDL_Rect){bx, chips_y, bwid, bh}, th->chosen);
        gfx_text(g, bx + pad / 2, chips_y, badge, small, theme_text_on(th->chosen), GFX_LEFT);
        char target[EDIT_MAX + 64];
        char fed[EDIT_MAX] = "";
        int n_out, used = 0;
        const int *out = trace_output(a->t, &n_out);  // in teacher forcing, the target itself
        for (int i = 0; i < n_out && used < (int)sizeof fed - 64; i++)
            used += snprintf(fed + used, sizeof fed - (size_t)used, "%s%s", i ? " " : "", voc_token(a->m->tgt, out[i]));
        snprintf(target, sizeof target, i18n(a->lang, S_TARGET), fed);
        gfx_text_fit(g, bx + bwid + pad / 2, chips_y, W - pad - pos_w - pad - (bx + bwid + pad / 2), target, small, th->text, GFX_LEFT);
    }

    // the step itself
    int status_h = lh + pad / 2, timeline_h = gfx_px(g, 22);
    int top = chips_y + gfx_line_height(g, gfx_px(g, 16)) + pad;
    SDL_Rect page = {pad, top, W - 2 * pad, H - top - timeline_h - status_h - 2 * pad};
    if (a->lesson && lm_panel_shown(a->lesson)) {  // the lesson's narration on the right
        int panel_w = W * 34 / 100;
        page.w -= panel_w + pad;
        lm_draw_panel(a->lesson, g, (SDL_Rect){page.x + page.w + pad, page.y, panel_w, page.h}, th, a->lang);
    }
    draw_step_page(g, a->m, a->t, a->step, th, a->cmap, a->lang, page, a->hover_row, a->hover_col, a->view);
    // the view area, for hit testing: below the page's title
    a->view_area = (SDL_Rect){page.x, page.y + gfx_line_height(g, gfx_px(g, 24)) + gfx_px(g, 10), page.w,
                              page.h - gfx_line_height(g, gfx_px(g, 24)) - gfx_px(g, 10) - (2 * lh + gfx_px(g, 10)) - gfx_px(g, 10)};

    // play / pause, then the timeline: encoder and each decoding step in turn, the current step marked
    int play_w = timeline_h * 3 / 2;
    a->play_button = (SDL_Rect){pad, H - status_h - timeline_h - pad, play_w, timeline_h};
    button(g, th, a->play_button, "", small, a->playing);
    if (a->playing) {  // pause: two bars
        int bw = SDL_max(1, timeline_h / 6), bh = timeline_h / 2, cx = a->play_button.x + play_w / 2, by = a->play_button.y + timeline_h / 4;
        gfx_fill(g, (SDL_Rect){cx - bw - bw / 2 - 1, by, bw, bh}, th->accent_text);
        gfx_fill(g, (SDL_Rect){cx + bw / 2 + 1, by, bw, bh}, th->accent_text);
    } else {
        gfx_text(g, a->play_button.x + play_w / 2, a->play_button.y + (timeline_h - gfx_line_height(g, small)) / 2, "\xE2\x96\xB6", small, th->text,
                 GFX_CENTER);  // ▶
    }
    int tl_x = pad + play_w + pad / 2;
    a->timeline = (SDL_Rect){tl_x, H - status_h - timeline_h - pad, W - pad - tl_x, timeline_h};
    int n = trace_count(a->t);
    for (int x = 0; x < a->timeline.w; x++) {
        const Step *ts = trace_step(a->t, (int)((long)x * n / a->timeline.w));
        Color c = ts->dstep == 0 ? th->accent : (ts->dstep % 2 ? th->panel_edge : th->text_dim);
        gfx_fill(g, (SDL_Rect){a->timeline.x + x, a->timeline.y, 1, a->timeline.h}, c);
    }
    int mx = a->timeline.x + (int)((long)a->step * a->timeline.w / (n > 0 ? n : 1));
    gfx_fill(g, (SDL_Rect){mx - gfx_px(g, 2), a->timeline.y - gfx_px(g, 3), gfx_px(g, 4), a->timeline.h + gfx_px(g, 6)}, th->chosen);

    // the status line
    char status[1100];
    const char *said = a->status;
    char lesson[600];
    if (!*said && a->lesson) said = lm_status(a->lesson, a->lang, lesson, sizeof lesson);  // where the lesson is, when nothing else is said
    snprintf(status, sizeof status, "%s%s", a->playing ? "\xE2\x96\xB6 " : "", said);  // ▶
    gfx_text_fit(g, pad, H - status_h - pad / 2, W - 2 * pad, status, px, th->text_dim, GFX_LEFT);
    draw_suggestions(a, tx);
    draw_settings(a);
    if (a->help) draw_help(a);
    if (a->lesson) lm_draw_picker(a->lesson, g, th, a->lang);
    // too small for the layout (under 480 × 300 at this type size): say so over it, in small type
    if (W < gfx_px(g, 480) || H < gfx_px(g, 300)) {
        gfx_fill(g, (SDL_Rect){0, 0, W, H}, th->panel);
        int m = SDL_min(8, W / 10), tiny = SDL_max(10, SDL_min(gfx_px(g, 16), W / 9));
        gfx_text_wrap(g, m, m, W - 2 * m, i18n(a->lang, S_TOO_SMALL), tiny, th->text, true);
    }
}
