#include "help.h"

#include <stdio.h>
#include <string.h>

void help_draw(Gfx *g, const Theme *th, Lang lang, bool web) {
    int W = gfx_width(g), H = gfx_height(g), pad = gfx_px(g, 20), gap = gfx_px(g, 24);
    gfx_fill(g, (SDL_Rect){0, 0, W, H}, (th->background & 0x00FFFFFF) | 0xC0000000);
    enum { MAX_LINES = 64 };
    char keys[MAX_LINES][96], what[MAX_LINES][192];
    int n = 0;
    // in a web page, the keys that stand for the browser's own follow
    for (int part = 0; part < (web ? 2 : 1); part++) {
        for (const char *c = i18n(lang, part ? S_HELP_WEB_KEYS : S_HELP_KEYS); *c && n < MAX_LINES;) {
            const char *end = strchr(c, '\n'), *tab = strchr(c, '\t');
            size_t len = end ? (size_t)(end - c) : strlen(c);
            if (tab && tab < c + len) {
                snprintf(keys[n], sizeof keys[n], "%.*s", (int)(tab - c), c);
                snprintf(what[n], sizeof what[n], "%.*s", (int)(c + len - tab - 1), tab + 1);
                n++;
            }
            c += len + (end ? 1 : 0);
        }
    }
    const char *title = i18n(lang, S_HELP_TITLE);
    int px = gfx_px(g, 18), cols = 1, rows = n, key_w = 0, col_w = 0, lh = 0, title_h = 0;
    SDL_Rect box = {0};
    for (;;) {
        lh = gfx_line_height(g, px);
        title_h = gfx_line_height(g, px * 4 / 3) + lh / 2;
        int what_w = 0;
        key_w = 0;
        for (int i = 0; i < n; i++) {
            int kw = gfx_text_width(g, keys[i], px), ww = gfx_text_width(g, what[i], px);
            key_w = kw > key_w ? kw : key_w;
            what_w = ww > what_w ? ww : what_w;
        }
        col_w = key_w + gap + what_w;
        cols = title_h + n * lh + 2 * pad <= H ? 1 : 2;
        rows = (n + cols - 1) / cols;
        box.w = cols * col_w + (cols - 1) * 2 * gap + 2 * pad;
        box.h = title_h + rows * lh + 2 * pad;
        if ((box.w <= W && box.h <= H) || px <= 8) break;
        px = px * 9 / 10;
    }
    box.x = box.w < W ? (W - box.w) / 2 : 0;
    box.y = box.h < H ? (H - box.h) / 2 : 0;
    gfx_fill(g, box, th->panel);
    gfx_frame(g, box, 2, th->accent);
    gfx_text(g, box.x + pad, box.y + pad, title, px * 4 / 3, th->text, GFX_LEFT);
    for (int i = 0; i < n; i++) {
        int x = box.x + pad + (i / rows) * (col_w + 2 * gap), y = box.y + pad + title_h + (i % rows) * lh;
        gfx_text(g, x, y, keys[i], px, th->accent, GFX_LEFT);
        gfx_text(g, x + key_w + gap, y, what[i], px, th->text, GFX_LEFT);
    }
}

void help_draw_too_small(Gfx *g, const Theme *th, Lang lang) {
    int W = gfx_width(g), H = gfx_height(g);
    if (W >= gfx_px(g, 480) && H >= gfx_px(g, 300)) return;
    gfx_fill(g, (SDL_Rect){0, 0, W, H}, th->panel);
    int m = SDL_min(8, W / 10), tiny = SDL_max(10, SDL_min(gfx_px(g, 16), W / 9));
    gfx_text_wrap(g, m, m, W - 2 * m, i18n(lang, S_TOO_SMALL), tiny, th->text, true);
}
