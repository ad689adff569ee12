// Small pieces of the window drawn the same way everywhere: buttons and toggles.
#ifndef TT_WIDGETS_H
#define TT_WIDGETS_H

#include <SDL.h>
#include <stdbool.h>

#include "gfx.h"
#include "theme.h"

// A small button with its label centred, filled when on.
void wg_button(Gfx *g, const Theme *th, SDL_Rect r, const char *label, int px, bool on);
// A toggle (a layer or head chip, a view switch) at x, y with its label and
// pad on either side, lit when on. Returns its rectangle.
SDL_Rect wg_toggle(Gfx *g, const Theme *th, int x, int y, const char *label, int px, int pad, bool on);

#endif
