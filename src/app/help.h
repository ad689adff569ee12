// The help overlay: the shortcut list over the whole window; and what the
// window says over itself when it is too small.
#ifndef TT_HELP_H
#define TT_HELP_H

#include "gfx.h"
#include "i18n.h"
#include "theme.h"

// The shortcut list, measured: one column, two when it is too tall, smaller
// type when even that does not fit the window.
void help_draw(Gfx *g, const Theme *th, Lang lang, bool web);
// Over everything, when the window is too small for the layout (under 480 ×
// 300 at its type size): says so, in small type.
void help_draw_too_small(Gfx *g, const Theme *th, Lang lang);

#endif
