// The App's insides, shared by app.c (its state, the trace and drawing) and
// app_input.c (keys, mouse and the text box); no other file includes this.
#ifndef TT_APP_PRIVATE_H
#define TT_APP_PRIVATE_H

#include "app.h"
#include "archmap.h"
#include "bars.h"
#include "experiment.h"
#include "help.h"
#include "history.h"
#include "layout.h"
#include "lessonmode.h"
#include "settings_panel.h"
#include "status.h"
#include "textbox.h"
#include "twinpage.h"
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
    SDL_Rect view_zoomed;       // where the last frame laid the view out: lay.parts.view, or larger when zoomed (panned by pan_x, pan_y);
                                // with a page open, the page's place the same way (lay.page, or larger)
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
    HelpLayout help_layout;     // where the last frame put the help (help.h)
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
    bool twin_page;             // B: two models side by side in place of the step (twinpage.h)
    TwpData twp;                // what it shows, of t
    char compare_path[4096];    // its second model (--compare); "": the model's twin (twp_default_other)
    char lesson_compare[4096];  // a lesson step's compare: its second model, before any other; "": none
    bool history_page;          // H: the training history in place of the step (history.h)
    HistData hist;              // what it shows, of t
    bool lesson_history;        // a lesson step opened it (history:)
    int lesson_training_step;   // ... at this training step: shown again when a fetched history arrives
    bool (*fetch)(const char *path);  // AppOptions.fetch
    AmapMode map_mode;          // P: the map of the model full, small or hidden,
    bool map_chosen;            // once P was pressed; before, app_map_mode picks by the room
    AmapMode map_drawn;         // how the last frame drew it, in lay.map: what clicks and the pointer find
    // Shift+P, the presenter view: the map hidden and a lesson's narration
    // folded to a strip, so the step takes the window; what they were, to go back to
    bool presenter;
    AmapMode before_map_mode;
    bool before_map_chosen, before_collapsed;
};

// The map of the model as drawn: P's choice, or full where the window has
// room for it beside the step and small beside a lesson's narration.
AmapMode app_map_mode(const App *a);

// Whether a page is shown in place of the step (the experiment, two models, the training history).
bool app_page_open(const App *a);
// The second model of the page of two models: --compare, or the model's twin. Returns buf.
const char *app_other_model(const App *a, char *buf, size_t size);

// Ctrl + / −: the scale drawn is base_scale × zoom.
void app_apply_zoom(App *a, float zoom);
// Shift+← / →: the previous or next stop of the stage table (dir −1 or 1).
void app_go_stop(App *a, int dir);
// The same stage at another layer or head, where the trace has it.
void app_jump_to(App *a, int layer, int head);
// Space and the play button: play the steps at the set speed, or pause.
void app_toggle_playing(App *a);
// What the views are given to draw the App's step (hover: the cell under the mouse).
ViewState app_view_state(const App *a, bool hover);
// What the settings panel is given to draw and to take an event.
SpState app_sp_state(const App *a);
// Ctrl+S: the view shown, as PNG and CSV; Ctrl+Shift+S: the whole window.
void app_save(App *a, bool window);

#endif
