// The PNG export's module (appmodule.h): the drawing without the window. It
// brings FreeType, HarfBuzz and zlib but not SDL, whose ~55 libraries
// took an export most of its time to load.
#include "appmodule.h"
#include "export.h"
#include "gfx.h"

// default visibility: the one symbol the program looks up (APP_DRAW_MODULE_SYMBOL)
const AppModule tt_draw_module = {
    .version = APP_MODULE_VERSION,
    .window_run = NULL,
    .find_font = gfx_find_font,
    .render_step_png = exp_render_png,
};
