// The module's entry points (appmodule.h): thin adapters onto the app.
#include "appmodule.h"

#include "app.h"
#include "export.h"
#include "gfx.h"
#include "theme.h"
#include "window.h"

_Static_assert(APP_CMAP_COUNT == CMAP_COUNT, "APP_CMAP_NAMES must list every Colormap");

static int run_window(const AppWindowArgs *w) {
    AppOptions o = {.model_path = w->model_path, .src = w->src, .decode = w->decode, .dark = w->dark, .cmap = (Colormap)w->cmap,
                    .scale = w->scale, .script = w->script, .target = w->target, .sentences = w->sentences,
                    .models_dir = w->models_dir, .lesson = w->lesson, .lessons_dir = w->lessons_dir, .picker = w->picker,
                    .compare_path = w->compare_path};
    return window_run(&o);
}

// default visibility: the one symbol the program looks up (APP_MODULE_SYMBOL)
const AppModule tt_app_module = {
    .version = APP_MODULE_VERSION,
    .window_run = run_window,
    .find_font = gfx_find_font,
    .render_step_png = exp_render_png,
};
