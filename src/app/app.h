// The tracer window's state and behaviour, apart from the window itself: it
// takes SDL events and draws onto a Gfx canvas, so tests and the headless
// export drive it without a display.
#ifndef TT_APP_H
#define TT_APP_H

#include <SDL.h>
#include <stdbool.h>

#include "gfx.h"
#include "i18n.h"
#include "model.h"
#include "sentences.h"
#include "theme.h"
#include "trace.h"
#include "view.h"

typedef struct {
    const char *model_path;     // NULL: the shipped default
    const char *src;            // the first sentence
    DecodeOptions decode;
    bool dark;
    Colormap cmap;
    Lang lang;
    float scale;                // UI scale; 0 = 1
    const char *script;         // window: a file of events and checks to run (--script), or NULL
    const char *target;         // teacher forcing (--target): the reference translation, or NULL
    const SentenceList *sentences;  // a class list (--sentences), borrowed: it must outlive the App; or NULL
    const char *models_dir;     // the folder of models the settings offer; NULL: model_path's folder
    const char *lesson;         // a lesson to open (--lesson), or NULL
    const char *lessons_dir;    // the lesson picker's folder; NULL: no lessons
    bool picker;                // open on the lesson picker
    bool web;                   // in a web page: the help lists the keys that stand for the browser's own
    const char *compare_path;   // the second model of the page B shows (--compare); NULL: the model's untrained twin
    // In a web page, where a shipped model's training history is not in the
    // page's data: asks for the file at path; true when it is on its way
    // (the App is then told with app_file_arrived). NULL: never.
    bool (*fetch)(const char *path);
} AppOptions;

typedef struct App App;

// Loads the model and traces the sentence. A sentence that cannot run is
// reported in the status line, not as an error.
App *app_new(const AppOptions *o, Gfx *g, Error *err);
void app_free(App *a);

// Handles one event; returns true when the window must be redrawn.
bool app_event(App *a, const SDL_Event *e);
// Advances playback; returns true when it moved (call when a timer fires).
bool app_tick(App *a, Uint32 now_ms);
// Milliseconds until the next playback tick, or -1 when not playing.
int app_next_tick(const App *a, Uint32 now_ms);
// Draws the whole window onto the canvas.
void app_draw(App *a);
bool app_quit_requested(const App *a);
// The normal size (what Ctrl+0 returns to): the window sets it from the
// display and HiDPI; a zoom with Ctrl + / − is kept relative to it.
void app_set_base_scale(App *a, float scale);
bool app_fullscreen_requested(App *a, bool *on);

// For tests and scripts.
int app_step(const App *a);
// B: the page of two models side by side, open or closed (worked out when opened).
void app_set_twin_page(App *a, bool open);
bool app_twin_page(const App *a);
// H: the page of the model's training history, open or closed (worked out when opened).
void app_set_history_page(App *a, bool open);
bool app_history_page(const App *a);
// Whether the map of the model is hidden (P cycles it: full, small, hidden);
// where the last frame drew it.
bool app_map_hidden(const App *a);
SDL_Rect app_map_rect(const App *a);
// A file asked for with AppOptions.fetch: so much of it has come; it came
// (ok), or it could not be had: http_status says why (0: no connection).
void app_file_progress(App *a, const char *path, int percent);
void app_file_arrived(App *a, const char *path, bool ok, int http_status);
// While the history page waits for its file: how much of it has come (0 to
// 100); otherwise -1.
int app_history_fetching(const App *a);
// The snapshot the history page shows (0: untrained), or -1 when it is closed or has none.
int app_history_snapshot(const App *a);
void app_set_step(App *a, int step);
const Trace *app_trace(const App *a);
const char *app_status(const App *a);
// Runs a new sentence (as if typed and Enter pressed). Returns 0, or -1 with the reason in the status line.
int app_set_sentence(App *a, const char *text);
const char *app_sentence(const App *a);
// Loads another model and runs the sentence on it, keeping the place in the
// trace where it can. Returns 0, or -1 with the current model kept and the
// reason in the status line.
int app_set_model(App *a, const char *path);
// Runs the sentence again with other decoding options (their target fields
// are ignored: teacher forcing uses the App's target). Returns 0, or -1 with
// the options unchanged and the reason in the status line.
int app_set_decode(App *a, const DecodeOptions *d);
const DecodeOptions *app_decode(const App *a);
const Model *app_model(const App *a);
// Where the last frame drew the button that does what key does: a view
// switch (SDLK_g, _v, _m, _a), help (SDLK_SLASH) or play (SDLK_SPACE);
// w 0 when there is none (a switch that does not apply to the step shown).
SDL_Rect app_button(const App *a, SDL_Keycode key);
// The sentence list: the current sentence's index (-1: not from the list) and
// a move by delta sentences, as Ctrl+PageDown / Ctrl+PageUp do.
int app_list_index(const App *a);
void app_list_go(App *a, int delta);
// Replaces the sentence list with list (owned from now on) and runs its first sentence.
void app_set_sentences(App *a, SentenceList *list);
// The text box: words the model does not know, as byte ranges of the text
// shown, and the suggested words for the one at the cursor. Return counts.
int app_unknown_spans(App *a, int *start, int *end, int max);
int app_suggestions(App *a, const char **words, int max);
bool app_settings_open(const App *a);
// Where the last frame drew the settings panel's slider of row (a SettingsRow); w 0 when none.
SDL_Rect app_slider(const App *a, int row);
// Where the last frame drew the settings panel; w 0 when closed.
SDL_Rect app_settings_box(const App *a);
// The size of a heatmap cell of the step shown in the last frame drawn, for
// tests of the layout; false when the step is not shown as a heatmap.
bool app_cell_size(App *a, int *w, int *h);
// For lesson mode (lessonmode.c): show a trace made elsewhere (owned from
// now on) of sentence, run with d (its target, if any, is the trace's); the view's
// options; the status line; whether the text box, help or settings have the keys.
void app_show_trace(App *a, Trace *t, const char *sentence, const DecodeOptions *d);
void app_set_view(App *a, const ViewOptions *v);
const ViewOptions *app_view(const App *a);
void app_show_status(App *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool app_busy(const App *a);
Lang app_lang(const App *a);
const char *app_model_path(const App *a);
struct LessonMode *app_lessons(App *a);

// Saves the current view (PNG, rendered at scale, plus CSV) into dir; writes the PNG path into out.
int app_export_view(App *a, const char *dir, float scale, char *out, size_t size, Error *err);

#endif
