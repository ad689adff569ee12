// Attention as lines between tokens, as BertViz draws it: keys on the left,
// queries on the right, each line as wide as its weight.
#include "view_private.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

// Where a line view's tokens go: keys (the columns) on the left, queries (the
// rows) on the right, the lines between them.
typedef struct {
    int px, lh, row_h;
    int heading_y;
    int key_x, query_x;     // the lines' ends: right of the key labels, left of the query labels
    int key_y, query_y;     // centre of the first key and of the first query
} LineLayout;

// A query row is labelled with the token it produces, when known: that is
// the word a cross-attention row aligns with the source.
static const char *query_label(const ViewState *vs, const Step *s, int r) {
    const char *out = view_produced(vs->trace, s, r);
    return out ? out : s->row_labels ? s->row_labels[r] : "";
}

static LineLayout line_layout(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s, bool has_title) {
    LineLayout L = {0};
    int pad = gfx_px(g, 8), n = s->rows > s->cols ? s->rows : s->cols;
    L.px = vs->font_px;
    L.lh = gfx_line_height(g, L.px);
    L.heading_y = area.y + (has_title ? gfx_line_height(g, vs->font_px) + pad : 0);
    int top = L.heading_y + gfx_line_height(g, view_small_px(vs)) + pad;
    L.row_h = (area.y + area.h - top) / n;
    if (L.row_h > 2 * L.lh) L.row_h = 2 * L.lh;
    if (L.row_h < L.lh && L.px > 8) {  // small panels: smaller labels
        L.px = L.px * L.row_h / L.lh > 8 ? L.px * L.row_h / L.lh : 8;
        L.lh = gfx_line_height(g, L.px);
    }
    if (L.row_h < 1) L.row_h = 1;
    int key_w = 0, query_w = 0;
    for (int c = 0; s->col_labels && c < s->cols; c++) {
        int w = gfx_text_width(g, s->col_labels[c], L.px);
        if (w > key_w) key_w = w;
    }
    for (int r = 0; r < s->rows; r++) {
        int w = gfx_text_width(g, query_label(vs, s, r), L.px);
        if (w > query_w) query_w = w;
    }
    int gap = area.w - key_w - query_w - 2 * pad, most = gfx_px(g, 420), least = gfx_px(g, 40);
    gap = gap > most ? most : gap < least ? least : gap;
    L.key_x = area.x + (area.w - key_w - query_w - 2 * pad - gap) / 2 + key_w + pad;
    L.query_x = L.key_x + gap;
    // the shorter column is centred on the longer one
    L.key_y = top + (n - s->cols) * L.row_h / 2 + L.row_h / 2;
    L.query_y = top + (n - s->rows) * L.row_h / 2 + L.row_h / 2;
    return L;
}

void lines_draw(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s, const char *title, const CorpusPair *gold) {
    const Theme *t = vs->theme;
    LineLayout L = line_layout(g, area, vs, s, title != NULL);
    int pad = gfx_px(g, 4), heading_px = view_small_px(vs);
    if (title) gfx_text_fit(g, area.x, area.y, area.w, title, vs->font_px, t->text, GFX_LEFT);
    bool cross = s->stage->block == STAGE_BLOCK_CROSS_ATTN;
    gfx_text(g, L.key_x, L.heading_y, i18n(vs->lang, cross ? S_V_SOURCE : S_V_KEYS), heading_px, t->text_dim, GFX_RIGHT);
    gfx_text(g, L.query_x, L.heading_y, i18n(vs->lang, view_produced(vs->trace, s, 0) ? S_V_PRODUCES : S_V_QUERIES), heading_px, t->text_dim,
             GFX_LEFT);
    // a hovered row (a query's distribution) in full, the others faded; the
    // hover colour is left to the labels, as it is close to gold
    bool focus = vs->hover_row >= 0 && vs->hover_row < s->rows;
    float scale = gfx_scale(g);
    for (int r = 0; r < s->rows; r++)
        for (int c = 0; c < s->cols; c++) {
            float w = trace_row(s, r)[c];
            if (!(w >= LINE_MIN_WEIGHT)) continue;  // faint, masked or NaN
            float alpha = 0.15f + 0.85f * w;
            if (focus && r != vs->hover_row) alpha *= 0.2f;
            gfx_line(g, (float)L.key_x, (float)(L.key_y + c * L.row_h), (float)L.query_x, (float)(L.query_y + r * L.row_h),
                     scale * (1.0f + 7.0f * fminf(w, 1.0f)), view_with_alpha(t->accent, alpha));
        }
    for (int k = 0; gold && k < gold->n_links; k++) {
        int r, c;
        if (view_gold_cell(vs, s, gold, k, &r, &c))
            view_draw_dashed(g, (float)L.key_x, (float)(L.key_y + c * L.row_h), (float)L.query_x, (float)(L.query_y + r * L.row_h),
                        2.0f * scale, 7.0f * scale, t->gold);
    }
    for (int c = 0; s->col_labels && c < s->cols; c++)
        gfx_text(g, L.key_x - pad, L.key_y + c * L.row_h - L.lh / 2, s->col_labels[c], L.px, c == vs->hover_col ? t->hover : t->text, GFX_RIGHT);
    for (int r = 0; r < s->rows; r++)
        gfx_text(g, L.query_x + pad, L.query_y + r * L.row_h - L.lh / 2, query_label(vs, s, r), L.px, r == vs->hover_row ? t->hover : t->text,
                 GFX_LEFT);
}

static float point_segment_distance(float px, float py, float x0, float y0, float x1, float y1) {
    float dx = x1 - x0, dy = y1 - y0, len2 = dx * dx + dy * dy;
    float u = len2 > 0.0f ? fmaxf(0.0f, fminf(1.0f, ((px - x0) * dx + (py - y0) * dy) / len2)) : 0.0f;
    return hypotf(px - x0 - u * dx, py - y0 - u * dy);
}

// A token gives its strongest line; between the columns, the nearest line drawn.
bool lines_hit(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s, bool has_title, int x, int y, int *row, int *col) {
    LineLayout L = line_layout(g, area, vs, s, has_title);
    if (x <= L.key_x || x >= L.query_x) {
        bool key = x <= L.key_x;
        int dy = y - ((key ? L.key_y : L.query_y) - L.row_h / 2), i = dy / L.row_h, n = key ? s->cols : s->rows;
        if (dy < 0 || i >= n) return false;
        int best = 0;
        for (int j = 1; j < (key ? s->rows : s->cols); j++)
            if (key ? trace_row(s, j)[i] > trace_row(s, best)[i] : trace_row(s, i)[j] > trace_row(s, i)[best]) best = j;
        *row = key ? best : i;
        *col = key ? i : best;
        return true;
    }
    float nearest = (float)gfx_px(g, 6);
    bool hit = false;
    for (int r = 0; r < s->rows; r++)
        for (int c = 0; c < s->cols; c++) {
            if (!(trace_row(s, r)[c] >= LINE_MIN_WEIGHT)) continue;
            float d = point_segment_distance((float)x, (float)y, (float)L.key_x, (float)(L.key_y + c * L.row_h), (float)L.query_x,
                                             (float)(L.query_y + r * L.row_h));
            if (d < nearest) {
                nearest = d;
                *row = r;
                *col = c;
                hit = true;
            }
        }
    return hit;
}
