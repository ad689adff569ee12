// The help overlay: the shortcut list over the whole window; and what the
// window says over itself when it is too small.
#ifndef TT_HELP_H
#define TT_HELP_H

#include "gfx.h"
#include "i18n.h"
#include "theme.h"

enum { HELP_MAX_COLS = 4 };

// Where the shortcut list goes, worked out again only when the window's
// size, its type size, the language or the platform change (measuring every
// wrapped line at each size tried takes tens of milliseconds). Zeroed: none yet.
typedef struct {
    int w, h, base_px, n;  // what it was laid out for
    Lang lang;
    bool web;
    int px, pad, gap, cols, key_w, what_w, title_h;
    int col_start[HELP_MAX_COLS + 1];  // column c holds entries col_start[c] .. col_start[c + 1] - 1
    SDL_Rect box;
} HelpLayout;

// The shortcut list: in as few columns as fit, long descriptions wrapped,
// smaller type only when even that does not fit the window.
void help_draw(Gfx *g, const Theme *th, Lang lang, bool web, HelpLayout *layout);
// Over everything, when the window is too small for the layout (under 480 ×
// 300 at its type size): says so, in small type.
void help_draw_too_small(Gfx *g, const Theme *th, Lang lang);

#endif
