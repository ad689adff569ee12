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
    // The largest text that fits, in one column or two, a long description
    // wrapped under itself: at 1024 × 768 two columns keep the text readable
    // where one would shrink it to a size no one can read from a desk away.
    int margin = gfx_px(g, 8), px = gfx_px(g, 18), cols = 1, key_w = 0, what_w = 0, title_h = 0, col_h = 0, heights[MAX_LINES];
    int col_start[3] = {0, n, n};  // entries col_start[c] .. col_start[c + 1] - 1 go in column c
    SDL_Rect box = {0};
    for (;; px = px * 9 / 10) {
        title_h = gfx_line_height(g, px * 4 / 3) + gfx_line_height(g, px) / 2;
        key_w = 0;
        int widest = 0;
        for (int i = 0; i < n; i++) {
            key_w = SDL_max(key_w, gfx_text_width(g, keys[i], px));
            widest = SDL_max(widest, gfx_text_width(g, what[i], px));
        }
        bool fits = false;
        for (int try_cols = 1; try_cols <= 2 && !fits; try_cols++) {
            // a column as wide as its widest line needs, at most its share of the window less a margin
            int room = (W - 2 * margin - 2 * pad - (try_cols - 1) * 2 * gap) / try_cols - key_w - gap;
            if (try_cols > 1 && room < 8 * px) continue;  // too narrow to read as sentences
            cols = try_cols;
            what_w = SDL_max(SDL_min(widest, room), px);
            int total = 0;  // a little room between entries, so that a wrapped line reads as part of its own
            for (int i = 0; i < n; i++) total += heights[i] = gfx_text_wrap(g, 0, 0, what_w, what[i], px, th->text, false) + px / 4;
            // the entries in order, a new column once this one holds its share
            int c = 0, h = 0;
            col_h = 0;
            col_start[1] = col_start[2] = n;
            for (int i = 0; i < n; i++) {
                if (c + 1 < cols && h > 0 && h + heights[i] > (total + cols - 1) / cols) col_start[++c] = i, h = 0;
                h += heights[i];
                col_h = SDL_max(col_h, h);
            }
            box.w = cols * (key_w + gap + what_w) + (cols - 1) * 2 * gap + 2 * pad;
            box.h = title_h + col_h + 2 * pad;
            fits = box.w <= W - 2 * margin && box.h <= H - 2 * margin;
        }
        if (fits || px <= 8) break;
    }
    box.x = box.w < W ? (W - box.w) / 2 : 0;
    box.y = box.h < H ? (H - box.h) / 2 : 0;
    gfx_fill(g, box, th->panel);
    gfx_frame(g, box, 2, th->accent);
    gfx_text(g, box.x + pad, box.y + pad, title, px * 4 / 3, th->text, GFX_LEFT);
    for (int c = 0; c < cols; c++) {
        int x = box.x + pad + c * (key_w + gap + what_w + 2 * gap), y = box.y + pad + title_h;
        for (int i = col_start[c]; i < col_start[c + 1]; i++) {
            gfx_text(g, x, y, keys[i], px, th->accent, GFX_LEFT);
            y += gfx_text_wrap(g, x + key_w + gap, y, what_w, what[i], px, th->text, true) + px / 4;
        }
    }
}

void help_draw_too_small(Gfx *g, const Theme *th, Lang lang) {
    int W = gfx_width(g), H = gfx_height(g);
    if (W >= gfx_px(g, 480) && H >= gfx_px(g, 300)) return;
    gfx_fill(g, (SDL_Rect){0, 0, W, H}, th->panel);
    int m = SDL_min(8, W / 10), tiny = SDL_max(10, SDL_min(gfx_px(g, 16), W / 9));
    gfx_text_wrap(g, m, m, W - 2 * m, i18n(lang, S_TOO_SMALL), tiny, th->text, true);
}
