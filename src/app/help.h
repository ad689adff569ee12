// The help overlay: the shortcut list over the whole window.
#ifndef TT_HELP_H
#define TT_HELP_H

#include "gfx.h"
#include "i18n.h"
#include "theme.h"

// The shortcut list, measured: one column, two when it is too tall, smaller
// type when even that does not fit the window.
void help_draw(Gfx *g, const Theme *th, Lang lang);

#endif
