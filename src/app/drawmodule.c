// The PNG export's module (appmodule.h): the drawing without the window. It
// brings FreeType, HarfBuzz and zlib but not SDL, whose ~55 libraries
// took an export most of its time to load.
#include "appmodule.h"
#include "export.h"
#include "gfx.h"
#include "theme.h"

static int render_step_png(const Model *m, const Trace *t, int step, int w, int h, float scale, bool dark, int cmap, const char *font,
                           const char *path, Error *err) {
    return exp_render_png(m, t, step, w, h, scale, dark, (Colormap)cmap, font, path, err);
}

// default visibility: the one symbol the program looks up (APP_DRAW_MODULE_SYMBOL)
const AppModule tt_draw_module = {
    .version = APP_MODULE_VERSION,
    .window_run = NULL,
    .find_font = gfx_find_font,
    .render_step_png = render_step_png,
};
