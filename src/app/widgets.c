#include "widgets.h"

void wg_button(Gfx *g, const Theme *th, SDL_Rect r, const char *label, int px, bool on) {
    gfx_fill(g, r, on ? th->accent : th->panel);
    gfx_frame(g, r, 1, on ? th->accent : th->panel_edge);
    int lh = gfx_line_height(g, px);
    gfx_text(g, r.x + r.w / 2, r.y + (r.h - lh) / 2, label, px, on ? th->accent_text : th->text, GFX_CENTER);
}

SDL_Rect wg_toggle(Gfx *g, const Theme *th, int x, int y, const char *label, int px, int pad, bool on) {
    SDL_Rect r = {x, y, gfx_text_width(g, label, px) + 2 * pad, gfx_line_height(g, px)};
    gfx_fill(g, r, on ? th->accent : th->panel);
    gfx_frame(g, r, 1, th->panel_edge);
    gfx_text(g, x + pad, y, label, px, on ? th->accent_text : th->text, GFX_LEFT);
    return r;
}
