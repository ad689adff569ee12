#include "help.h"

#include <stdio.h>
#include <string.h>

enum { MAX_LINES = 64 };

typedef struct {
    int n;
    char keys[MAX_LINES][96], what[MAX_LINES][192];
} Entries;

// The shortcut list's lines, "key\tdescription"; in a web page the keys that
// stand for the browser's own follow.
static void read_entries(Entries *e, Lang lang, bool web) {
    e->n = 0;
    for (int part = 0; part < (web ? 2 : 1); part++) {
        for (const char *c = i18n(lang, part ? S_HELP_WEB_KEYS : S_HELP_KEYS); *c && e->n < MAX_LINES;) {
            const char *end = strchr(c, '\n'), *tab = strchr(c, '\t');
            size_t len = end ? (size_t)(end - c) : strlen(c);
            if (tab && tab < c + len) {
                snprintf(e->keys[e->n], sizeof e->keys[0], "%.*s", (int)(tab - c), c);
                snprintf(e->what[e->n], sizeof e->what[0], "%.*s", (int)(c + len - tab - 1), tab + 1);
                e->n++;
            }
            c += len + (end ? 1 : 0);
        }
    }
}

// The largest text that fits, in as few columns as it fits in (at most
// HELP_MAX_COLS), a long description wrapped under itself: at 1024 × 768 two
// columns keep the text readable where one would shrink it to a size no one
// can read from a desk away.
static void lay_out(Gfx *g, const Theme *th, const Entries *e, HelpLayout *l) {
    int W = gfx_width(g), H = gfx_height(g), margin = gfx_px(g, 8), heights[MAX_LINES];
    l->pad = gfx_px(g, 20), l->gap = gfx_px(g, 24);
    for (l->px = gfx_px(g, 18);; l->px = l->px * 9 / 10) {
        int px = l->px, pad = l->pad, gap = l->gap, widest_key = 0, widest = 0;
        l->title_h = gfx_line_height(g, px * 4 / 3) + gfx_line_height(g, px) / 2;
        for (int i = 0; i < e->n; i++) {  // (SDL_max evaluates its arguments twice: measured first)
            int kw = gfx_text_width(g, e->keys[i], px), ww = gfx_text_width(g, e->what[i], px);
            widest_key = SDL_max(widest_key, kw);
            widest = SDL_max(widest, ww);
        }
        bool fits = false;
        for (int cols = 1; cols <= HELP_MAX_COLS && !fits; cols++) {
            // a column as wide as its widest lines need, at most its share of the window less a
            // margin; a long key (the web page's) wraps too rather than squeeze its description
            int share = (W - 2 * margin - 2 * pad - (cols - 1) * 2 * gap) / cols;
            if (cols > 1 && share < 14 * px) break;  // too narrow to read as sentences
            l->cols = cols;
            l->key_w = SDL_max(SDL_min(widest_key, share * 2 / 5), px);
            l->what_w = SDL_max(SDL_min(widest, share - l->key_w - gap), px);
            int total = 0;  // a little room between entries, so that a wrapped line reads as part of its own
            for (int i = 0; i < e->n; i++) {
                int kh = gfx_text_wrap(g, 0, 0, l->key_w, e->keys[i], px, th->accent, false),
                    wh = gfx_text_wrap(g, 0, 0, l->what_w, e->what[i], px, th->text, false);
                total += heights[i] = SDL_max(kh, wh) + px / 4;
            }
            // the entries in order, a new column once this one holds its share
            int c = 0, h = 0, col_h = 0;
            for (int k = 0; k <= HELP_MAX_COLS; k++) l->col_start[k] = k ? e->n : 0;
            for (int i = 0; i < e->n; i++) {
                if (c + 1 < cols && h > 0 && h + heights[i] > (total + cols - 1) / cols) l->col_start[++c] = i, h = 0;
                h += heights[i];
                col_h = SDL_max(col_h, h);
            }
            l->box.w = cols * (l->key_w + gap + l->what_w) + (cols - 1) * 2 * gap + 2 * pad;
            l->box.h = l->title_h + col_h + 2 * pad;
            fits = l->box.w <= W - 2 * margin && l->box.h <= H - 2 * margin;
        }
        if (fits || px <= 8) break;
    }
    l->box.x = l->box.w < W ? (W - l->box.w) / 2 : 0;
    l->box.y = l->box.h < H ? (H - l->box.h) / 2 : 0;
}

void help_draw(Gfx *g, const Theme *th, Lang lang, bool web, HelpLayout *l) {
    int W = gfx_width(g), H = gfx_height(g);
    gfx_fill(g, (SDL_Rect){0, 0, W, H}, (th->background & 0x00FFFFFF) | 0xC0000000);
    Entries e;
    read_entries(&e, lang, web);
    int base = gfx_px(g, 18);
    if (l->w != W || l->h != H || l->base_px != base || l->lang != lang || l->web != web || l->n != e.n) {
        lay_out(g, th, &e, l);
        l->w = W, l->h = H, l->base_px = base, l->lang = lang, l->web = web, l->n = e.n;
    }
    int px = l->px, pad = l->pad, gap = l->gap;
    gfx_fill(g, l->box, th->panel);
    gfx_frame(g, l->box, 2, th->accent);
    gfx_text(g, l->box.x + pad, l->box.y + pad, i18n(lang, S_HELP_TITLE), px * 4 / 3, th->text, GFX_LEFT);
    for (int c = 0; c < l->cols; c++) {
        int x = l->box.x + pad + c * (l->key_w + gap + l->what_w + 2 * gap), y = l->box.y + pad + l->title_h;
        for (int i = l->col_start[c]; i < l->col_start[c + 1]; i++) {
            int kh = gfx_text_wrap(g, x, y, l->key_w, e.keys[i], px, th->accent, true),
                wh = gfx_text_wrap(g, x + l->key_w + gap, y, l->what_w, e.what[i], px, th->text, true);
            y += SDL_max(kh, wh) + px / 4;
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
