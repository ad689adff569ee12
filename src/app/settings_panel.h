// The settings panel, under its button: the model (from the models found in
// a folder), the decoding strategy and its parameters, the export's scale.
// It changes nothing itself: an event that changes a setting says so
// (SpChange), and the App runs the sentence again with it.
#ifndef TT_SETTINGS_PANEL_H
#define TT_SETTINGS_PANEL_H

#include <SDL.h>
#include <stdbool.h>

#include "gfx.h"
#include "i18n.h"
#include "model.h"
#include "theme.h"
#include "trace.h"

// The panel's rows (only those that apply to the strategy are shown).
typedef enum { ROW_MODEL, ROW_STRATEGY, ROW_BEAM, ROW_TEMPERATURE, ROW_TOP_K, ROW_TOP_P, ROW_SEED, ROW_MAX_STEPS, ROW_SPECIAL, ROW_MASK, ROW_EXPORT_SCALE,
               ROW_COUNT } SettingsRow;

// A clickable part of the panel: a row's − or + (delta), a strategy (choice ≥ 0),
// or a slider's track (choice SP_SLIDER).
enum { SP_SLIDER = -2 };
typedef struct {
    SDL_Rect r;
    SettingsRow row;
    int delta, choice;
} SpHit;

typedef struct {
    char **models;              // the models to pick from
    int n_models, model_at;     // model_at: the current one's, or -1
    bool open;
    SettingsRow row;            // the row the arrow keys change
    int export_scale;           // Ctrl+S writes the view at this many pixels per design pixel
    SDL_Rect button, box;       // where the last frame drew the button and the panel
    SpHit hits[48];
    int n_hits;
    bool dragging;              // a slider's knob is held: the mouse's motion sets drag_row
    SettingsRow drag_row;
    SDL_Rect drag_track;
} SettingsPanel;

// What the panel shows: the App's, read at each call.
typedef struct {
    const DecodeOptions *decode;
    const Model *model;
    const char *model_path;
    bool has_target;            // teacher forcing is offered
} SpState;

// A change asked for: another model, or other decoding options.
typedef struct {
    enum { SP_NONE, SP_MODEL, SP_DECODE } what;
    const char *model;          // SP_MODEL: its path (the panel's)
    DecodeOptions decode;       // SP_DECODE
} SpChange;

// Finds the models: every .safetensors file in dir, then model_path if it is
// not among them.
void sp_init(SettingsPanel *sp, const char *dir, const char *model_path);
void sp_deinit(SettingsPanel *sp);
// The current model is now path.
void sp_set_model(SettingsPanel *sp, const char *path);

// Arrow keys in the open panel (↑ ↓ a row, ← → its value), clicks on it and
// on its button; the beam width, temperature, top-k and top-p are sliders,
// which a press on the track and a drag set, changing on every step. Returns whether it took the event; a change goes into out.
bool sp_event(SettingsPanel *sp, const SDL_Event *e, const SpState *st, SpChange *out);
// The panel under sp->button, when open.
void sp_draw(SettingsPanel *sp, Gfx *g, const SpState *st, const Theme *th, Lang lang);

#endif
