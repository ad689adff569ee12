// The window and the PNG export as modules the command line loads only for
// the subcommands that draw: SDL brings about 55 shared libraries (X11,
// Wayland, D-Bus, audio, ...), and mapping them cost a translation 80% of its
// time; the export's module draws without SDL. A module uses the core and
// lesson code of the program that loads it (one copy in the process), so
// this header includes no SDL.
#ifndef TT_APPMODULE_H
#define TT_APPMODULE_H

#include <stdbool.h>

#include "error.h"
#include "model.h"
#include "sentences.h"
#include "trace.h"

// Changes whenever AppModule or AppWindowArgs does: a module from another
// build is refused, not called.
#define APP_MODULE_VERSION 3
// Each module's one exported symbol, an AppModule: the window's (all of
// it), and the export's (no window_run; it loads no SDL).
#define APP_MODULE_SYMBOL "tt_app_module"
#define APP_DRAW_MODULE_SYMBOL "tt_draw_module"
// The colour maps' names, in the order of Colormap (theme.h; checked there).
#define APP_CMAP_NAMES {"viridis", "cividis", "magma", "greys"}
#define APP_CMAP_COUNT 4

// What the window opens with (AppOptions without SDL's types).
typedef struct {
    const char *model_path, *src, *target, *script, *lesson;
    const char *models_dir, *lessons_dir;
    const char *compare_path;       // the second model of the page of two models (--compare), or NULL
    const SentenceList *sentences;  // borrowed, or NULL
    DecodeOptions decode;
    bool dark, picker;
    int cmap;                       // a Colormap
    float scale;
} AppWindowArgs;

typedef struct {
    int version;                    // APP_MODULE_VERSION
    // window_run (window.h); returns the exit status; NULL in the export's module
    int (*window_run)(const AppWindowArgs *a);
    // gfx_find_font (gfx.h)
    const char *(*find_font)(Error *err);
    // exp_render_png (export.h)
    int (*render_step_png)(const Model *m, const Trace *t, int step, int w, int h, float scale, bool dark, int cmap, const char *font,
                           const char *path, Error *err);
} AppModule;

#endif
