#include "view.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gold.h"

// Where a heatmap's parts go, worked out once for drawing and hit testing.
typedef struct {
    SDL_Rect grid;          // the cells
    int cell_w, cell_h;
    int label_x;            // right edge of the row labels
    int title_y, col_label_y;
    int col_label_up;       // > 0: the column labels read upwards, in a band this tall
    bool col_label_some;    // columns too narrow for every label: only those worth naming (draw_some_col_labels)
    SDL_Rect bar;           // the colour bar
    SDL_Rect norms;         // per-row norm bars (w 0: none)
    int right;              // right edge of all that is drawn
    int small_px;
    bool values;            // numbers fit in the cells
    float lo, hi;           // the colour scale
} HeatLayout;

static bool unit_scale(const Step *s) {
    return !strcmp(s->kind, "attention") || !strcmp(s->kind, "probs") || !strcmp(s->kind, "mask");
}

// Masked by the look-ahead mask: above the diagonal of the decoder's self-attention.
static bool causal_masked(const Step *s, int r, int c) {
    return c > r && (!strcmp(s->name, "dec.self_attn.weights") || !strcmp(s->name, "dec.self_attn.masked_scores") ||
                     !strcmp(s->name, "dec.look_ahead_mask"));
}

static void value_range(const Step *s, float *lo, float *hi) {
    if (unit_scale(s)) {
        *lo = 0.0f;
        *hi = 1.0f;
        return;
    }
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int i = 0; i < s->rows * s->cols; i++)
        if (isfinite(s->data[i])) {
            *lo = fminf(*lo, s->data[i]);
            *hi = fmaxf(*hi, s->data[i]);
        }
    if (!(*lo <= *hi)) *lo = *hi = 0.0f;
    if (*hi - *lo < 1e-6f) *hi = *lo + 1e-6f;
}

static void format_value(char *buf, size_t size, float v) {
    if (isinf(v)) snprintf(buf, size, v < 0 ? "\xE2\x88\x92\xE2\x88\x9E" : "\xE2\x88\x9E");  // −∞, ∞
    else if (fabsf(v) >= 100.0f) snprintf(buf, size, "%.0f", (double)v);
    else if (fabsf(v) >= 10.0f) snprintf(buf, size, "%.1f", (double)v);
    else snprintf(buf, size, "%.2f", (double)v);
}

// The step of this stage, or NULL. Like trace_find, but comparing fields
// rather than formatting ids: labels look steps up on every redraw and hover.
static const Step *find_step(const Trace *tr, const char *name, int layer, int head, int dstep) {
    for (int i = 0; i < trace_count(tr); i++) {
        const Step *s = trace_step(tr, i);
        if (s->dstep == dstep && s->head == head && s->layer == layer && !strcmp(s->name, name)) return s;
    }
    return NULL;
}

// The token a decoder row produces: the choice made at decoding step r + 1,
// or in teacher forcing the target word r. NULL when not known (beam search).
static const char *produced(const Trace *tr, const Step *s, int r) {
    if (strncmp(s->name, "dec.", 4) || !s->row_labels || s->dstep < 1) return NULL;
    const Step *loss = find_step(tr, "dec.loss", 0, 0, 1);
    if (loss) return r < loss->rows ? loss->row_labels[r] : NULL;
    const Step *choice = find_step(tr, "dec.choice", 0, 0, r + 1);
    return choice ? choice->row_labels[0] : NULL;
}

// A row's label: the query token, and for attention rows (and the mask over
// them) in the decoder also the token that row goes on to produce ("<bos> → 貓").
static const char *row_label(const ViewState *vs, const Step *s, int r, char *buf, size_t size) {
    if (!s->row_labels) {
        snprintf(buf, size, "%d", r);
        return buf;
    }
    bool query_rows = !strcmp(s->kind, "attention") || !strcmp(s->kind, "scores") || !strcmp(s->kind, "mask");
    const char *out = query_rows ? produced(vs->trace, s, r) : NULL;
    if (!out) return s->row_labels[r];
    snprintf(buf, size, "%s \xE2\x86\x92 %s", s->row_labels[r], out);
    return buf;
}

static int small_px(const ViewState *vs) { return vs->font_px * 4 / 5 > 8 ? vs->font_px * 4 / 5 : 8; }

// The room the row labels take, the gap after them included.
static int row_labels_width(Gfx *g, const ViewState *vs, const Step *s) {
    int label_w = 0;
    char buf[160];
    for (int r = 0; s->row_labels && r < s->rows; r++) {
        int w = gfx_text_width(g, row_label(vs, s, r, buf, sizeof buf), small_px(vs));
        if (w > label_w) label_w = w;
    }
    if (!s->row_labels) label_w = gfx_text_width(g, "00", small_px(vs));
    return label_w + gfx_px(g, 6);
}

// row_labels false: the panel to the left shows them (composite views).
// A column label's width with a gap that keeps it apart from the next.
static int col_label_width(Gfx *g, const Step *s, int c, int px) { return gfx_text_width(g, s->col_labels[c], px) + gfx_px(g, 6); }

// Where column c's label goes: centred on its column, or widened into the
// room its neighbours' labels leave (left of the first column: first_room),
// shifted off a side that has none. Sets *shift (pixels from the column's
// centre); false when it does not fit even so.
static bool place_col_label(Gfx *g, const Step *s, int c, int cell_w, int first_room, int px, int *shift) {
    *shift = 0;
    int w = col_label_width(g, s, c, px);
    if (w <= cell_w) return true;
    int left = c == 0 ? first_room : (cell_w - SDL_min(cell_w, col_label_width(g, s, c - 1, px))) / 2;
    int right = c == s->cols - 1 ? 0 : (cell_w - SDL_min(cell_w, col_label_width(g, s, c + 1, px))) / 2;
    if (w > cell_w + left + right) return false;
    int half = (w - cell_w + 1) / 2;
    if (half > left) *shift = half - left;
    else if (half > right) *shift = right - half;
    return true;
}

// The colour bar's width with its numbers.
static int colorbar_width(Gfx *g, const ViewState *vs) {
    return gfx_px(g, 14) + gfx_text_width(g, "-00.00", small_px(vs)) + 2 * gfx_px(g, 6);
}

// bar false: no colour bar (a panel of a grid that shares one), its room given to the cells.
static HeatLayout heat_layout(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s, bool has_title, bool row_labels, bool bar) {
    HeatLayout L = {0};
    int px = vs->font_px;
    L.small_px = small_px(vs);
    int lh = gfx_line_height(g, L.small_px), pad = gfx_px(g, 6);
    L.title_y = area.y;
    L.col_label_y = area.y + (has_title ? gfx_line_height(g, px) + pad : 0);
    int label_w = row_labels ? row_labels_width(g, vs, s) : 0;
    bool matrix = !strcmp(s->kind, "matrix");
    int bar_w = bar ? colorbar_width(g, vs) : 0;
    int norm_w = matrix && s->row_labels ? gfx_px(g, 90) : 0;
    int max_cell = gfx_px(g, 96);
    // Column labels take one line; when a token does not fit its column but
    // a line turned upwards does, they read upwards in a taller band.
    int band = lh, top = 0;
    for (int pass = 0; pass < 2; pass++) {
        top = L.col_label_y + band + pad / 2;
        int avail_w = area.w - label_w - bar_w - norm_w - pad, avail_h = area.y + area.h - top;
        if (avail_w < s->cols) avail_w = s->cols;
        if (avail_h < s->rows) avail_h = s->rows;
        L.cell_w = avail_w / s->cols;
        L.cell_h = avail_h / s->rows;
        if (!matrix) {  // attention-like matrices get square cells
            int c = L.cell_w < L.cell_h ? L.cell_w : L.cell_h;
            // but a row of probabilities over a whole vocabulary may be taller than its narrow cells
            int h = !strcmp(s->kind, "probs") ? SDL_min(L.cell_h, SDL_max(c, 2 * lh)) : c;
            L.cell_w = c;
            L.cell_h = h;
        }
        if (L.cell_w > max_cell) L.cell_w = max_cell;
        if (L.cell_h > max_cell) L.cell_h = max_cell;
        if (L.cell_w < 1) L.cell_w = 1;
        if (L.cell_h < 1) L.cell_h = 1;
        if (pass == 1 || !s->col_labels) break;
        // one label cut short reads well enough; two or more turn them all,
        // and columns narrower than a turned line name only some
        int cut = 0, widest = 0, shift;
        for (int c = 0; c < s->cols; c++) {
            cut += !place_col_label(g, s, c, L.cell_w, label_w + pad / 2, L.small_px, &shift);
            widest = SDL_max(widest, col_label_width(g, s, c, L.small_px));
        }
        bool narrow = L.cell_w < lh * 3 / 4;
        if (cut < 2 && !narrow) break;
        // labels named in part stand on a leader line (draw_some_col_labels); they may need its room
        band = SDL_min(widest + (narrow ? gfx_px(g, 8) : 0), gfx_px(g, 110));
        L.col_label_up = band;
    }
    L.col_label_some = L.col_label_up && L.cell_w < lh * 3 / 4;  // after the taller band, which may narrow the cells
    L.label_x = area.x + label_w;
    L.grid = (SDL_Rect){L.label_x + pad / 2, top, L.cell_w * s->cols, L.cell_h * s->rows};
    if (bar) L.bar = (SDL_Rect){L.grid.x + L.grid.w + pad, top, gfx_px(g, 14), L.grid.h > gfx_px(g, 120) ? L.grid.h : gfx_px(g, 120)};
    if (norm_w) L.norms = (SDL_Rect){L.bar.x + bar_w - pad, top, norm_w - pad, L.grid.h};
    L.right = L.grid.x + L.grid.w + bar_w + norm_w + pad - pad / 2;  // as much as avail_w left out
    L.values = L.cell_w >= gfx_text_width(g, "-0.00", L.small_px) + pad && L.cell_h >= lh;
    value_range(s, &L.lo, &L.hi);
    return L;
}

static void draw_colorbar(Gfx *g, const HeatLayout *L, const ViewState *vs, const Step *s) {
    const Theme *t = vs->theme;
    if (!strcmp(s->name, "dec.look_ahead_mask") || !strcmp(s->name, "src.padding_mask")) {
        // a mask holds only 0 and −∞: two swatches say so, a colour scale would not
        int lh = gfx_line_height(g, L->small_px), x = L->bar.x + L->bar.w + gfx_px(g, 4);
        SDL_Rect zero = {L->bar.x, L->bar.y, L->bar.w, L->bar.w}, minus = {L->bar.x, L->bar.y + L->bar.w + lh, L->bar.w, L->bar.w};
        gfx_fill(g, zero, cmap_color(vs->cmap, 0.0f));
        gfx_fill(g, minus, t->masked);
        gfx_hatch(g, minus, gfx_px(g, 7), t->panel_edge);
        gfx_frame(g, zero, 1, t->panel_edge);
        gfx_frame(g, minus, 1, t->panel_edge);
        gfx_text(g, x, zero.y + (zero.h - lh) / 2, "0", L->small_px, t->text_dim, GFX_LEFT);
        gfx_text(g, x, minus.y + (minus.h - lh) / 2, "\xE2\x88\x92\xE2\x88\x9E", L->small_px, t->text_dim, GFX_LEFT);  // −∞
        return;
    }
    for (int y = 0; y < L->bar.h; y++) {
        float u = 1.0f - (float)y / (float)(L->bar.h > 1 ? L->bar.h - 1 : 1);
        gfx_fill(g, (SDL_Rect){L->bar.x, L->bar.y + y, L->bar.w, 1}, cmap_color(vs->cmap, u));
    }
    gfx_frame(g, L->bar, 1, t->panel_edge);
    char buf[32];
    int x = L->bar.x + L->bar.w + gfx_px(g, 4), lh = gfx_line_height(g, L->small_px);
    format_value(buf, sizeof buf, L->hi);
    gfx_text(g, x, L->bar.y - lh / 4, buf, L->small_px, t->text_dim, GFX_LEFT);
    format_value(buf, sizeof buf, L->lo);
    gfx_text(g, x, L->bar.y + L->bar.h - lh + lh / 4, buf, L->small_px, t->text_dim, GFX_LEFT);
}

// The gold link k as a cell of s: row j produces the corpus target's token j
// and column i is source token i. False when s does not show that link (a
// row not decoded yet, or one that produced another token).
static bool gold_cell(const ViewState *vs, const Step *s, const CorpusPair *gold, int k, int *row, int *col) {
    AlignLink l = gold->links[k];
    const char *out = l.tgt < s->rows ? produced(vs->trace, s, l.tgt) : NULL;
    if (l.src >= s->cols || !out || strcmp(out, gold->tgt[l.tgt])) return false;
    *row = l.tgt;
    *col = l.src;
    return true;
}

// The gold alignment to draw over s, if it marks any cell: only
// cross-attention weights align source and target words.
static const CorpusPair *gold_for(const ViewState *vs, const Step *s, const char **file) {
    if (vs->opt.no_gold || strcmp(s->name, "dec.cross_attn.weights")) return NULL;
    const CorpusPair *gold = gold_find(vs->model, vs->trace, file);
    for (int k = 0, r, c; gold && k < gold->n_links; k++)
        if (gold_cell(vs, s, gold, k, &r, &c)) return gold;
    return NULL;
}

// A circle's outline, from short straight pieces.
static void draw_ring(Gfx *g, float cx, float cy, float radius, float width, Color c) {
    enum { PIECES = 24 };
    for (int i = 0; i < PIECES; i++) {
        float a0 = 6.2831853f * (float)i / PIECES, a1 = 6.2831853f * (float)(i + 1) / PIECES;
        gfx_line(g, cx + radius * cosf(a0), cy + radius * sinf(a0), cx + radius * cosf(a1), cy + radius * sinf(a1), width, c);
    }
}

static void draw_dashed(Gfx *g, float x0, float y0, float x1, float y1, float width, float dash, Color c) {
    float len = hypotf(x1 - x0, y1 - y0);
    for (float d = 0.0f; d < len; d += 2.0f * dash) {
        float e = fminf(d + dash, len);
        gfx_line(g, x0 + (x1 - x0) * d / len, y0 + (y1 - y0) * d / len, x0 + (x1 - x0) * e / len, y0 + (y1 - y0) * e / len, width, c);
    }
}

// Columns too narrow for every label: the columns of each row's largest
// value, the hovered one and a lesson's, read upwards. A label that would
// overlap the one before it moves right, with a leader line to its column.
static void draw_some_col_labels(Gfx *g, const HeatLayout *L, const ViewState *vs, const Step *s) {
    const Theme *t = vs->theme;
    bool *named = calloc((size_t)s->cols, sizeof *named);
    if (!named) return;
    for (int r = 0; r < s->rows; r++) {
        int best = -1;
        for (int c = 0; c < s->cols; c++) {
            float v = s->data[r * s->cols + c];
            if (isfinite(v) && (best < 0 || v > s->data[r * s->cols + best])) best = c;
        }
        if (best >= 0) named[best] = true;
    }
    for (int k = 0; k < vs->opt.n_highlight; k++) {
        int c = vs->opt.highlight[k].col - 1;
        if (c >= 0 && c < s->cols) named[c] = true;
    }
    bool hover = vs->hover_col >= 0 && vs->hover_col < s->cols;
    if (hover) named[vs->hover_col] = true;
    int lh = gfx_line_height(g, L->small_px), last = -lh, bottom = L->col_label_y + L->col_label_up;
    int leader = gfx_px(g, 8);
    for (int c = 0; c < s->cols; c++) {
        int cx = L->grid.x + c * L->cell_w + L->cell_w / 2, x = SDL_max(cx, last + lh);
        if (!named[c]) continue;
        Color col = c == vs->hover_col ? t->hover : t->text_dim;
        gfx_text_up(g, x - lh / 2, bottom - leader, L->col_label_up - leader, s->col_labels[c], L->small_px, col);
        gfx_line(g, (float)x, (float)(bottom - leader / 2), (float)cx, (float)bottom, 1.0f, col);
        last = x;
    }
    free(named);
}

static void heatmap(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s, const char *title, bool row_labels, bool bar,
                    const CorpusPair *gold) {
    const Theme *t = vs->theme;
    HeatLayout L = heat_layout(g, area, vs, s, title != NULL, row_labels, bar);
    if (title) gfx_text_fit(g, area.x, L.title_y, area.w, title, vs->font_px, t->text, GFX_LEFT);
    char buf[32];
    int lh = gfx_line_height(g, L.small_px);
    // column labels: tokens when they fit, else every few feature indices
    int every = 1;
    if (!s->col_labels) {
        int w = gfx_text_width(g, "000", L.small_px) + gfx_px(g, 4);
        while (every * L.cell_w < w) every *= 2;
    }
    if (L.col_label_some) draw_some_col_labels(g, &L, vs, s);
    for (int c = 0; c < s->cols && !L.col_label_some; c += every) {
        int cx = L.grid.x + c * L.cell_w + L.cell_w / 2;
        Color col = c == vs->hover_col ? t->hover : t->text_dim;
        if (L.col_label_up)
            gfx_text_up(g, cx - lh / 2, L.col_label_y + L.col_label_up, L.col_label_up, s->col_labels[c], L.small_px, col);
        else if (s->col_labels) {
            int shift, first_room = L.grid.x - area.x;
            if (place_col_label(g, s, c, L.cell_w, first_room, L.small_px, &shift))
                gfx_text(g, cx + shift, L.col_label_y, s->col_labels[c], L.small_px, col, GFX_CENTER);
            else
                gfx_text_fit(g, cx, L.col_label_y, L.cell_w, s->col_labels[c], L.small_px, col, GFX_CENTER);
        } else {
            snprintf(buf, sizeof buf, "%d", c);
            gfx_text(g, cx, L.col_label_y, buf, L.small_px, col, GFX_CENTER);
        }
    }
    for (int r = 0; r < s->rows; r++) {
        int y = L.grid.y + r * L.cell_h;
        if (row_labels && (L.cell_h >= lh * 3 / 4 || r == vs->hover_row)) {
            Color col = r == vs->hover_row ? t->hover : t->text;
            char lb[160];
            const char *label = row_label(vs, s, r, lb, sizeof lb);
            gfx_text(g, L.label_x - gfx_px(g, 4), y + (L.cell_h - lh) / 2, label, L.small_px, col, GFX_RIGHT);
        }
        for (int c = 0; c < s->cols; c++) {
            float v = s->data[r * s->cols + c];
            SDL_Rect cell = {L.grid.x + c * L.cell_w, y, L.cell_w, L.cell_h};
            bool masked = isinf(v) || causal_masked(s, r, c);
            Color fill = masked ? t->masked : cmap_color(vs->cmap, (v - L.lo) / (L.hi - L.lo));
            gfx_fill(g, cell, fill);
            if (masked) gfx_hatch(g, cell, gfx_px(g, 7), t->panel_edge);  // never mistaken for a small value
            if (L.values) {
                format_value(buf, sizeof buf, v);
                gfx_text(g, cell.x + L.cell_w / 2, cell.y + (L.cell_h - lh) / 2, buf, L.small_px,
                         masked ? t->text : theme_text_on(fill), GFX_CENTER);
            }
        }
    }
    if (L.cell_w >= 4 && L.cell_h >= 4)  // thin separators keep cells apart on a projector
        for (int c = 1; c < s->cols; c++) gfx_fill(g, (SDL_Rect){L.grid.x + c * L.cell_w, L.grid.y, 1, L.grid.h}, t->panel & 0x60FFFFFF);
    if (vs->hover_row >= 0 && vs->hover_row < s->rows && vs->hover_col >= 0 && vs->hover_col < s->cols)
        gfx_frame(g, (SDL_Rect){L.grid.x + vs->hover_col * L.cell_w, L.grid.y + vs->hover_row * L.cell_h, L.cell_w, L.cell_h},
                  gfx_px(g, 2), t->hover);
    // a lesson's cells (a whole row, a column or one cell), in its own head's panel only
    bool own_panel = !vs->opt.heads_grid || s->head == trace_step(vs->trace, vs->step)->head;
    for (int k = 0; own_panel && k < vs->opt.n_highlight; k++) {
        int r = vs->opt.highlight[k].row - 1, c = vs->opt.highlight[k].col - 1;
        if (r >= s->rows || c >= s->cols) continue;
        SDL_Rect box = {L.grid.x + (c < 0 ? 0 : c * L.cell_w), L.grid.y + (r < 0 ? 0 : r * L.cell_h), c < 0 ? L.grid.w : L.cell_w,
                        r < 0 ? L.grid.h : L.cell_h};
        gfx_frame(g, (SDL_Rect){box.x - gfx_px(g, 2), box.y - gfx_px(g, 2), box.w + gfx_px(g, 4), box.h + gfx_px(g, 4)}, gfx_px(g, 3), t->chosen);
    }
    for (int k = 0; gold && k < gold->n_links; k++) {  // a gold ring, edged to show on any cell colour
        int r, c;
        if (!gold_cell(vs, s, gold, k, &r, &c)) continue;
        float v = s->data[r * s->cols + c], half = 0.5f * (float)(L.cell_w < L.cell_h ? L.cell_w : L.cell_h), radius = 0.72f * half;
        float cx = (float)L.grid.x + ((float)c + 0.5f) * (float)L.cell_w, cy = (float)L.grid.y + ((float)r + 0.5f) * (float)L.cell_h;
        float width = fmaxf(2.0f, radius / 8.0f), edge = 2.0f * gfx_scale(g);
        Color under = theme_text_on(cmap_color(vs->cmap, (v - L.lo) / (L.hi - L.lo)));
        if (L.values) {  // the ring passes outside the number's corners, so the number stays readable
            format_value(buf, sizeof buf, v);
            float clear = hypotf(0.5f * (float)gfx_text_width(g, buf, L.small_px), 0.4f * (float)lh) + 0.5f * width + 2.0f * edge;
            if (clear > radius) radius = clear;
            if (radius + 0.5f * width + edge > half) {  // no room for a ring around it: a frame along the cell's edge
                SDL_Rect cell = {L.grid.x + c * L.cell_w, L.grid.y + r * L.cell_h, L.cell_w, L.cell_h};
                int w = (int)lroundf(width);
                gfx_frame(g, cell, w + (int)lroundf(edge), under);
                gfx_frame(g, cell, w, t->gold);
                continue;
            }
        }
        draw_ring(g, cx, cy, radius, width + edge, under);
        draw_ring(g, cx, cy, radius, width, t->gold);
    }
    if (bar) draw_colorbar(g, &L, vs, s);
    if (L.norms.w > 0) {  // per-token vector length: how large each row is
        float mx = 0.0f, norm[256];
        int rows = s->rows < 256 ? s->rows : 256;
        for (int r = 0; r < rows; r++) {
            double sq = 0.0;
            for (int c = 0; c < s->cols; c++) sq += (double)s->data[r * s->cols + c] * s->data[r * s->cols + c];
            norm[r] = (float)sqrt(sq);
            mx = fmaxf(mx, norm[r]);
        }
        gfx_text(g, L.norms.x, L.col_label_y, "\xE2\x80\x96x\xE2\x80\x96", L.small_px, t->text_dim, GFX_LEFT);  // ‖x‖
        for (int r = 0; r < rows; r++) {
            int y = L.grid.y + r * L.cell_h, w = mx > 0 ? (int)((float)L.norms.w * 0.6f * norm[r] / mx) : 0;
            gfx_fill(g, (SDL_Rect){L.norms.x, y + L.cell_h / 4, w, L.cell_h / 2 > 1 ? L.cell_h / 2 : 1}, t->accent);
            if (L.cell_h >= lh) {
                snprintf(buf, sizeof buf, "%.1f", (double)norm[r]);
                gfx_text(g, L.norms.x + w + gfx_px(g, 4), y + (L.cell_h - lh) / 2, buf, L.small_px, t->text_dim, GFX_LEFT);
            }
        }
    }
}

void view_heatmap(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s, const char *title) {
    heatmap(g, area, vs, s, title, true, true, gold_for(vs, s, NULL));
}

// Token boxes with ids under them; <unk> stands out.
static void draw_tokens(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s) {
    const Theme *t = vs->theme;
    int px = vs->font_px * 3 / 2, small = vs->font_px * 4 / 5, pad = gfx_px(g, 10), x = area.x, y = area.y + pad;
    int lh = gfx_line_height(g, px);
    char buf[32];
    for (int c = 0; c < s->cols; c++) {
        const char *tok = s->col_labels ? s->col_labels[c] : "?";
        int w = gfx_text_width(g, tok, px) + 2 * pad;
        if (x + w > area.x + area.w && x > area.x) {
            x = area.x;
            y += lh + gfx_line_height(g, small) + 3 * pad;
        }
        bool unk = !strcmp(tok, VOC_UNK);
        SDL_Rect box = {x, y, w, lh + pad};
        gfx_fill(g, box, unk ? t->chosen : c == vs->hover_col ? t->hover : t->accent);
        gfx_text(g, x + w / 2, y + pad / 2, tok, px, t->accent_text, GFX_CENTER);
        snprintf(buf, sizeof buf, "%d", (int)s->data[c]);
        gfx_text(g, x + w / 2, y + lh + pad + gfx_px(g, 4), buf, small, t->text_dim, GFX_CENTER);
        x += w + pad;
    }
}

typedef struct {
    const char *label;
    float value;
    bool mark;
} Bar;

static Color with_alpha(Color c, float a) { return (c & 0x00FFFFFFu) | (Color)lroundf(255.0f * fminf(1.0f, a)) << 24; }

// Horizontal bars, full length at the value full.
// Whether a lesson outlines row r (from 0) of the step: a cell of it, or all of it.
static bool row_highlighted(const ViewState *vs, int r) {
    for (int k = 0; k < vs->opt.n_highlight; k++)
        if (vs->opt.highlight[k].row == r + 1) return true;
    return false;
}

// A lesson's outline around a row of bars or of a table.
static void outline_row(Gfx *g, const ViewState *vs, SDL_Rect r) {
    int m = gfx_px(g, 2);
    gfx_frame(g, (SDL_Rect){r.x - m, r.y - m, r.w + 2 * m, r.h + 2 * m}, gfx_px(g, 3), vs->theme->chosen);
}

// rows_are_steps: bar i is row i of the step, so a lesson can outline it.
// Returns the y under the last row drawn.
static int draw_bars(Gfx *g, SDL_Rect area, const ViewState *vs, const Bar *bars, int n, const char *fmt, float full, bool rows_are_steps) {
    const Theme *t = vs->theme;
    int px = vs->font_px, lh = gfx_line_height(g, px), pad = gfx_px(g, 6);
    int label_w = 0;
    for (int i = 0; i < n; i++) {
        int w = gfx_text_width(g, bars[i].label, px);
        if (w > label_w) label_w = w;
    }
    int row_h = lh + pad, bar_x = area.x + label_w + 2 * pad, bar_w = area.w - label_w - gfx_px(g, 110);
    char buf[32];
    int i = 0;
    for (; i < n && (i + 1) * row_h <= area.h; i++) {
        int y = area.y + i * row_h;
        Color c = bars[i].mark ? t->chosen : t->accent;
        gfx_text(g, bar_x - pad, y + pad / 2, bars[i].label, px, bars[i].mark ? t->chosen : t->text, GFX_RIGHT);
        int w = (int)(fmaxf(0.0f, fminf(1.0f, bars[i].value / full)) * (float)bar_w);
        gfx_fill(g, (SDL_Rect){bar_x, y + pad / 2, w > 1 ? w : 1, lh}, c);
        snprintf(buf, sizeof buf, fmt, (double)bars[i].value);
        gfx_text(g, bar_x + w + pad, y + pad / 2, buf, px, t->text_dim, GFX_LEFT);
        if (bars[i].mark) gfx_text(g, bar_x + w + gfx_px(g, 80), y + pad / 2, "\xE2\x97\x80", px, t->chosen, GFX_LEFT);  // ◀
        if (rows_are_steps && row_highlighted(vs, i)) outline_row(g, vs, (SDL_Rect){area.x, y, bar_x + bar_w + gfx_px(g, 100) - area.x, row_h});
    }
    return area.y + i * row_h;
}

// The token chosen at a decoding step, or -1.
static int chosen_at(const Trace *tr, int dstep) {
    int i = trace_find(tr, "dec.choice", 0, dstep);
    return i < 0 ? -1 : (int)trace_step(tr, i)->data[0];
}

// The draw of a sampling step: the tokens' shares of [0, 1) laid end to end
// in rank order, the chosen one's share marked, and u on it.
static void draw_strip(Gfx *g, SDL_Rect area, const ViewState *vs, const TraceRanked *r, int n, int chosen, float u, int y) {
    const Theme *t = vs->theme;
    int px = small_px(vs), lh = gfx_line_height(g, px), pad = gfx_px(g, 6);
    int x0 = area.x + pad, w = area.w - 2 * pad - gfx_px(g, 40), h = lh * 2;
    if (w < 20 || y + 3 * lh + h + pad > area.y + area.h) return;
    char buf[200];
    snprintf(buf, sizeof buf, i18n(vs->lang, S_V_DRAW_STRIP), (double)u, voc_token(vs->model->tgt, chosen));
    gfx_text(g, x0, y, buf, px, t->text_dim, GFX_LEFT);
    y += lh + lh;  // room for u's label above the strip
    double acc = 0.0;
    for (int i = 0; i < n && r[i].p > 0.0f; i++) {
        int a = x0 + (int)lround(acc * w);
        acc += r[i].p;
        int b = x0 + (int)lround(fmin(acc, 1.0) * w);
        Color c = r[i].id == chosen ? t->chosen : with_alpha(t->accent, i % 2 ? 0.45f : 0.8f);
        gfx_fill(g, (SDL_Rect){a, y, b - a > 1 ? b - a : 1, h}, c);
        const char *tok = voc_token(vs->model->tgt, r[i].id);
        if (b - a > gfx_text_width(g, tok, px) + pad)
            gfx_text(g, (a + b) / 2, y + (h - lh) / 2, tok, px, r[i].id == chosen ? t->accent_text : t->text, GFX_CENTER);
    }
    gfx_frame(g, (SDL_Rect){x0, y, w, h}, 1, t->panel_edge);
    gfx_text(g, x0, y + h + gfx_px(g, 2), "0", px, t->text_dim, GFX_CENTER);
    gfx_text(g, x0 + w, y + h + gfx_px(g, 2), "1", px, t->text_dim, GFX_CENTER);
    // u: a line through the strip and its value above it
    int ux = x0 + (int)lroundf(u * (float)w), m = gfx_px(g, 2);
    gfx_fill(g, (SDL_Rect){ux - m / 2, y - gfx_px(g, 4), m > 1 ? m : 1, h + gfx_px(g, 8)}, t->text);
    snprintf(buf, sizeof buf, "u = %.3f", (double)u);
    gfx_text(g, ux, y - lh - gfx_px(g, 4), buf, px, t->text, GFX_CENTER);
}

// The most likely tokens of the last row, best first. In a sampling step the
// tokens top-k and top-p removed (P = 0) are counted, not drawn; a chosen
// token below the bars takes the last bar, with its rank; and the draw u is
// shown on the tokens' shares.
static void draw_probs(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s) {
    const Theme *t = vs->theme;
    // the choice of this step: its token, and the draw u (−1 for greedy)
    int c = trace_find(vs->trace, "dec.choice", 0, s->dstep);
    const Step *choice = c >= 0 ? trace_step(vs->trace, c) : NULL;
    int V = s->cols, chosen = choice ? (int)choice->data[0] : -1;
    float u = choice ? choice->data[2] : -1.0f;
    const float *p = s->data + (size_t)(s->rows - 1) * V;
    bool sampled = !strcmp(s->name, "dec.sample");
    TraceRanked *r = malloc((size_t)V * sizeof *r);
    if (!r) return;
    int kept = 0, chosen_rank = -1;
    trace_rank(r, p, V);  // in the sampler's order: the strip lays them end to end as it did
    for (int j = 0; j < V; j++) {
        if (r[j].id == chosen) chosen_rank = j;
        kept += !sampled || r[j].p > 0.0f;
    }
    bool strip = sampled && chosen >= 0 && u >= 0.0f;
    // as many bars as leave room for the lines under them (draw_strip: 6 lines)
    int px = small_px(vs), lh = gfx_line_height(g, px), row_h = gfx_line_height(g, vs->font_px) + gfx_px(g, 6);
    int below = gfx_px(g, 8) + (sampled && kept < V ? lh : 0) + (strip ? 6 * lh : 0);
    int fit = (area.h - below) / row_h;
    Bar bars[12];
    int n = kept < 12 ? kept : 12;
    if (n > fit) n = SDL_min(n, SDL_max(fit, 2));  // never more than the tokens kept
    for (int i = 0; i < n; i++) bars[i] = (Bar){voc_token(vs->model->tgt, r[i].id), r[i].p, r[i].id == chosen};
    char ranked[160];
    if (chosen_rank >= n && n > 0) {
        snprintf(ranked, sizeof ranked, i18n(vs->lang, S_V_RANK), voc_token(vs->model->tgt, chosen), chosen_rank + 1);
        bars[n - 1] = (Bar){ranked, p[chosen], true};
    }
    int y = draw_bars(g, area, vs, bars, n, "%.3f", 1.0f, false) + gfx_px(g, 8);
    char buf[160];
    if (sampled && kept < V && y + lh <= area.y + area.h) {
        snprintf(buf, sizeof buf, i18n(vs->lang, S_V_REMOVED), V - kept);
        gfx_text(g, area.x + gfx_px(g, 6), y, buf, px, t->text_dim, GFX_LEFT);
        y += lh;
    }
    if (strip) draw_strip(g, area, vs, r, kept, chosen, u, y + lh);
    free(r);
}

static void draw_top_k(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s) {
    Bar bars[64];
    int chosen = chosen_at(vs->trace, s->dstep), n = s->rows < 64 ? s->rows : 64;
    const char *chosen_tok = chosen >= 0 ? voc_token(vs->model->tgt, chosen) : NULL;
    for (int i = 0; i < n; i++) bars[i] = (Bar){s->row_labels[i], s->data[i], chosen_tok && !strcmp(chosen_tok, s->row_labels[i])};
    draw_bars(g, area, vs, bars, n, "%.3f", 1.0f, true);
}

// The output so far, the new token marked.
static void draw_choice(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s) {
    const Theme *t = vs->theme;
    int px = vs->font_px * 3 / 2, pad = gfx_px(g, 10), x = area.x, y = area.y + pad, lh = gfx_line_height(g, px);
    for (int d = 1; d <= s->dstep; d++) {
        int id = chosen_at(vs->trace, d);
        if (id < 0) break;
        const char *tok = voc_token(vs->model->tgt, id);
        int w = gfx_text_width(g, tok, px) + 2 * pad;
        if (x + w > area.x + area.w) {
            x = area.x;
            y += lh + 2 * pad;
        }
        bool now = d == s->dstep;
        gfx_fill(g, (SDL_Rect){x, y, w, lh + pad}, now ? t->chosen : t->panel_edge);
        gfx_text(g, x + w / 2, y + pad / 2, tok, px, now ? t->accent_text : t->text, GFX_CENTER);
        x += w + pad;
    }
    char buf[96];
    if (s->data[2] >= 0.0f)
        snprintf(buf, sizeof buf, i18n(vs->lang, S_V_CHOICE_SAMPLED), (double)s->data[1], (double)s->data[2]);
    else
        snprintf(buf, sizeof buf, i18n(vs->lang, S_V_CHOICE_GREEDY), (double)s->data[1]);
    gfx_text(g, area.x, y + lh + 3 * pad, buf, vs->font_px, t->text_dim, GFX_LEFT);
}

// ---- beam search: the tree of hypotheses, and the table of the step ----

enum { BEAM_STEPS_MAX = 256 };

// The dec.beam tables of a trace by decoding step, and the output's path
// through them: the best row of the last step, then its parents (the
// trace's parent column, docs/TRACE.md).
typedef struct {
    const Step *step[BEAM_STEPS_MAX + 1];  // [d]: the table of decoding step d, 1 … last
    int last;
    int path[BEAM_STEPS_MAX + 1];          // [d]: the row of step d on the output's path, or -1
} BeamSteps;

static int beam_parent(const Step *s, int r) { return s->cols >= 4 ? (int)s->data[r * s->cols + 3] : -1; }
static bool beam_kept(const Step *s, int r) { return s->data[r * s->cols + 2] > 0.5f; }

static void beam_steps(const Trace *tr, BeamSteps *b) {
    memset(b, 0, sizeof *b);
    for (int i = 0; i < trace_count(tr); i++) {
        const Step *s = trace_step(tr, i);
        if (s->dstep >= 1 && s->dstep <= BEAM_STEPS_MAX && !strcmp(s->kind, "beam")) {
            b->step[s->dstep] = s;
            if (s->dstep > b->last) b->last = s->dstep;
        }
    }
    for (int d = 0; d <= BEAM_STEPS_MAX; d++) b->path[d] = -1;
    for (int d = b->last, r = 0; d >= 1 && b->step[d] && r >= 0 && r < b->step[d]->rows; d--) {
        b->path[d] = r;
        r = beam_parent(b->step[d], r);
    }
}

// The token a row adds (after "+ " in its label), or the word for a finished hypothesis carried over.
static const char *beam_token(const ViewState *vs, const Step *s, int r) {
    const char *label = s->row_labels ? s->row_labels[r] : "", *plus = strstr(label, "+ ");
    return plus ? plus + 2 : i18n(vs->lang, S_V_BEAM_DONE);
}

// The table: each candidate of the step, best first, kept ones marked and
// in full colour, the output's row in the path colour.
static void draw_beam_table(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s, int path_row) {
    const Theme *t = vs->theme;
    int px = vs->font_px, lh = gfx_line_height(g, px), row_h = lh + gfx_px(g, 4), gap = gfx_px(g, 16);
    char buf[64];
    int num_w = gfx_text_width(g, "-00.000", px), flag_w = 0;
    for (int k = S_V_BEAM_KEPT; k <= S_V_BEAM_PRUNED; k++) {
        int w = gfx_text_width(g, i18n(vs->lang, (StringId)k), px);
        if (w > flag_w) flag_w = w;
    }
    int flag_x = area.x + area.w - flag_w, score_x = flag_x - gap - num_w, logp_x = score_x - gap - num_w;
    int label_x = area.x + gfx_px(g, 8), label_w = logp_x - gap - label_x;
    gfx_text_fit(g, area.x, area.y, logp_x - gap - area.x, i18n(vs->lang, S_V_BEAM_HYPOTHESIS), px, t->text_dim, GFX_LEFT);
    gfx_text(g, logp_x + num_w, area.y, i18n(vs->lang, S_V_BEAM_LOGP), px, t->text_dim, GFX_RIGHT);
    gfx_text(g, score_x + num_w, area.y, i18n(vs->lang, S_V_BEAM_SCORE), px, t->text_dim, GFX_RIGHT);
    for (int r = 0; r < s->rows && (r + 2) * row_h <= area.h; r++) {
        int y = area.y + (r + 1) * row_h;
        bool kept = beam_kept(s, r);
        Color c = r == path_row ? t->chosen : kept ? t->text : t->text_dim;
        if (kept) gfx_fill(g, (SDL_Rect){area.x, y, gfx_px(g, 4), lh}, r == path_row ? t->chosen : t->accent);
        gfx_text_fit_end(g, label_x, y, label_w, s->row_labels[r], px, c, GFX_LEFT);  // the end: the token this row adds
        snprintf(buf, sizeof buf, "%.3f", (double)s->data[r * s->cols]);
        gfx_text(g, logp_x + num_w, y, buf, px, c, GFX_RIGHT);
        snprintf(buf, sizeof buf, "%.3f", (double)s->data[r * s->cols + 1]);
        gfx_text(g, score_x + num_w, y, buf, px, c, GFX_RIGHT);
        gfx_text(g, flag_x, y, i18n(vs->lang, kept ? S_V_BEAM_KEPT : S_V_BEAM_PRUNED), px, c, GFX_LEFT);
        if (row_highlighted(vs, r)) outline_row(g, vs, (SDL_Rect){area.x, y, area.w, lh});
    }
}

// One node of the tree: row r of decoding step d (d 0: the root, <bos>).
typedef struct {
    int d, r;
    int parent;     // index of the parent node, -1 for the root
    int y;          // centre
    bool kept, path;
} BeamNode;

// Node a goes above node b: by its parent's place, then by score (the row).
static bool beam_above(const BeamNode *nodes, int a, int b) {
    int pa = nodes[nodes[a].parent].y, pb = nodes[nodes[b].parent].y;
    return pa != pb ? pa < pb : nodes[a].r < nodes[b].r;
}

// Vertical places for one column's nodes (indices idx, n of them): each
// parent's children centred on it, pushed apart to one pitch and into [top, bottom].
static void place_column(BeamNode *nodes, int *idx, int n, int pitch, int top, int bottom) {
    for (int i = 1; i < n; i++)  // insertion sort: a column holds a few dozen nodes
        for (int j = i; j > 0 && beam_above(nodes, idx[j], idx[j - 1]); j--) {
            int tmp = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = tmp;
        }
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && nodes[idx[j]].parent == nodes[idx[i]].parent) j++;
        int centre = nodes[idx[i]].parent >= 0 ? nodes[nodes[idx[i]].parent].y : (top + bottom) / 2;
        for (int k = i; k < j; k++) nodes[idx[k]].y = centre + (2 * (k - i) - (j - i - 1)) * pitch / 2;
        i = j;
    }
    for (int i = 0; i < n; i++) {
        int least = i ? nodes[idx[i - 1]].y + pitch : top;
        if (nodes[idx[i]].y < least) nodes[idx[i]].y = least;
    }
    for (int i = n - 1; i >= 0; i--) {
        int most = i < n - 1 ? nodes[idx[i + 1]].y - pitch : bottom;
        if (nodes[idx[i]].y > most) nodes[idx[i]].y = most;
    }
}

// The hypotheses as a tree growing left to right, one column per decoding
// step up to the one shown: every candidate a node with its token and total
// score; kept branches solid, pruned ones faded and dashed; the output's path
// in the path colour. When the steps do not fit, the earliest are left out.
static void draw_beam_tree(Gfx *g, SDL_Rect area, const ViewState *vs, const BeamSteps *b, int upto) {
    const Theme *t = vs->theme;
    int px = small_px(vs), pad = gfx_px(g, 6), n = 1;
    for (int d = 1; d <= upto; d++) n += b->step[d] ? b->step[d]->rows : 0;
    BeamNode *nodes = malloc((size_t)n * sizeof *nodes);
    int *idx = malloc((size_t)n * sizeof *idx), *first = calloc((size_t)upto + 2, sizeof *first);
    if (!nodes || !idx || !first) goto done;
    // heading, then the legend's line at the bottom
    char buf[160];
    snprintf(buf, sizeof buf, i18n(vs->lang, S_V_BEAM_TREE), trace_options(vs->trace)->beam_width);
    gfx_text_fit(g, area.x, area.y, area.w, buf, vs->font_px, t->text_dim, GFX_LEFT);
    int lh = gfx_line_height(g, px), heading = gfx_line_height(g, vs->font_px) + lh + pad;
    int top = area.y + heading + lh / 2, bottom = area.y + area.h - 2 * lh - pad;
    // nodes, column by column, parents as node indices
    nodes[0] = (BeamNode){0, 0, -1, 0, true, true};
    first[0] = 0;
    n = 1;
    int most = 1;
    for (int d = 1; d <= upto; d++) {
        const Step *s = b->step[d];
        first[d] = n;
        for (int r = 0; s && r < s->rows; r++) {
            int parent = d == 1 ? 0 : first[d - 1] + beam_parent(s, r);
            if (parent < first[d - 1] || parent >= first[d]) parent = first[d - 1];  // a trace without the parent column
            nodes[n++] = (BeamNode){d, r, parent, 0, beam_kept(s, r), b->path[d] == r};
        }
        if (s && s->rows > most) most = s->rows;
    }
    first[upto + 1] = n;
    // the pitch the fullest column allows; smaller labels when it is tight
    int pitch = most > 1 ? (bottom - top) / (most - 1) : bottom - top;
    if (pitch > 2 * lh) pitch = 2 * lh;
    if (pitch < lh + 2 && px > 8) {
        px = pitch * px / (lh + 2) > 8 ? pitch * px / (lh + 2) : 8;
        lh = gfx_line_height(g, px);
    }
    if (most > 1) {  // the fullest column is centred: start there, not at the top
        int used = (most - 1) * pitch;
        top = (top + bottom - used) / 2;
        bottom = top + used;
    }
    nodes[0].y = (top + bottom) / 2;
    for (int d = 1; d <= upto; d++) {
        int m = first[d + 1] - first[d];
        for (int i = 0; i < m; i++) idx[i] = first[d] + i;
        place_column(nodes, idx, m, pitch, top, bottom);
    }
    // each node's box: [x, x + box_w], its score after it; edges leave after the score
    int *box_w = idx;  // reused: widths by node
    int widest = 0;
    for (int i = 0; i < n; i++) {
        const char *tok = i ? beam_token(vs, b->step[nodes[i].d], nodes[i].r) : "<bos>";
        box_w[i] = gfx_text_width(g, tok, px) + 2 * pad;
        if (box_w[i] > widest) widest = box_w[i];
    }
    int score_w = gfx_text_width(g, "-00.00", px) + pad;
    // columns: as many of the last steps as fit at a width that holds the widest token and its score
    int col_min = widest + score_w + pad + gfx_px(g, 28);
    int cols = upto + 1, from = 0;
    if (cols * col_min > area.w) {
        from = cols - area.w / col_min;
        if (from < 1) from = 1;
        cols = upto + 1 - from;
    }
    int skip_w = from ? gfx_text_width(g, "\xE2\x80\xA6", px) + gfx_px(g, 18) : 0;  // "…" for the steps left out
    int col_w = (area.w - skip_w) / (cols > 0 ? cols : 1);
    if (col_w > 3 * col_min) col_w = 3 * col_min;
    area.x += skip_w;
    float scale = gfx_scale(g);
    for (int d = from; d <= upto; d++) {
        int x = area.x + (d - from) * col_w;
        snprintf(buf, sizeof buf, "%d", d);
        if (d) gfx_text(g, x + pad, area.y + heading - lh, buf, px, d == upto ? t->text : t->text_dim, GFX_LEFT);
    }
    if (from > 0) gfx_text(g, area.x - skip_w, (top + bottom) / 2 - lh / 2, "\xE2\x80\xA6", px, t->text_dim, GFX_LEFT);  // …
    // edges first, the path's last, so that the nodes and the path sit on top
    for (int pass = 0; pass < 2; pass++)
        for (int i = 1; i < n; i++) {
            const BeamNode *c = &nodes[i], *p = &nodes[c->parent];
            if (c->d < from || (pass == 1) != (c->path && p->path)) continue;
            float x1 = (float)(area.x + (c->d - from) * col_w);
            // from a step left out: a short level stub from the "…"
            bool shown = c->d - 1 >= from;
            float x0 = shown ? (float)(area.x + (c->d - 1 - from) * col_w + box_w[c->parent] + (c->d - 1 ? score_w : 0))
                             : (float)(area.x - skip_w / 2);
            float y0 = shown ? (float)p->y : (float)c->y, y1 = (float)c->y;
            if (pass == 1) gfx_line(g, x0, y0, x1, y1, 3.0f * scale, t->chosen);
            else if (c->kept) gfx_line(g, x0, y0, x1, y1, 1.5f * scale, t->text_dim);
            else draw_dashed(g, x0, y0, x1, y1, 1.0f * scale, 3.0f * scale, with_alpha(t->text_dim, 0.55f));
        }
    for (int i = from ? first[from] : 0; i < n; i++) {
        const BeamNode *nd = &nodes[i];
        int x = area.x + (nd->d - from) * col_w, y = nd->y - lh / 2;
        SDL_Rect box = {x, y, box_w[i], lh};
        const char *tok = i ? beam_token(vs, b->step[nd->d], nd->r) : "<bos>";
        Color text = nd->path ? t->accent_text : nd->kept ? t->text : with_alpha(t->text_dim, 0.7f);
        if (nd->path) gfx_fill(g, box, t->chosen);
        else if (nd->kept) {
            gfx_fill(g, box, t->panel);
            gfx_frame(g, box, 1, t->panel_edge);
        }
        gfx_text(g, x + pad, y, tok, px, text, GFX_LEFT);
        if (!i) continue;
        snprintf(buf, sizeof buf, "%.2f", (double)b->step[nd->d]->data[nd->r * b->step[nd->d]->cols + 1]);
        gfx_text(g, x + box_w[i] + pad / 2, y, buf, px, nd->path ? t->chosen : nd->kept ? t->text_dim : with_alpha(t->text_dim, 0.6f), GFX_LEFT);
    }
    // legend: the path, a kept branch, a pruned one
    int ly = area.y + area.h - lh, lx = area.x, sample = gfx_px(g, 30);
    float cy = (float)ly + (float)lh / 2.0f;
    gfx_line(g, (float)lx, cy, (float)(lx + sample), cy, 3.0f * scale, t->chosen);
    lx += sample + pad;
    lx += gfx_text(g, lx, ly, i18n(vs->lang, S_V_BEAM_PATH), px, t->text_dim, GFX_LEFT) + 3 * pad;
    gfx_line(g, (float)lx, cy, (float)(lx + sample), cy, 1.5f * scale, t->text_dim);
    lx += sample + pad;
    lx += gfx_text(g, lx, ly, i18n(vs->lang, S_V_BEAM_KEPT), px, t->text_dim, GFX_LEFT) + 3 * pad;
    draw_dashed(g, (float)lx, cy, (float)(lx + sample), cy, 1.0f * scale, 3.0f * scale, with_alpha(t->text_dim, 0.55f));
    lx += sample + pad;
    gfx_text(g, lx, ly, i18n(vs->lang, S_V_BEAM_PRUNED), px, t->text_dim, GFX_LEFT);
done:
    free(nodes);
    free(idx);
    free(first);
}

// The tree beside the table when both fit, else the tree above the table.
static void draw_beam(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s) {
    BeamSteps *b = malloc(sizeof *b);
    if (!b) return;
    beam_steps(vs->trace, b);
    int upto = s->dstep < BEAM_STEPS_MAX ? s->dstep : BEAM_STEPS_MAX;
    int path_row = s->dstep <= BEAM_STEPS_MAX ? b->path[s->dstep] : -1;
    int table_w = gfx_px(g, 470), gap = gfx_px(g, 32);
    if (area.w - table_w - gap >= gfx_px(g, 480)) {
        draw_beam_tree(g, (SDL_Rect){area.x, area.y, area.w - table_w - gap, area.h}, vs, b, upto);
        draw_beam_table(g, (SDL_Rect){area.x + area.w - table_w, area.y, table_w, area.h}, vs, s, path_row);
    } else {
        int tree_h = area.h * 3 / 5;
        draw_beam_tree(g, (SDL_Rect){area.x, area.y, area.w, tree_h}, vs, b, upto);
        draw_beam_table(g, (SDL_Rect){area.x, area.y + tree_h + gfx_px(g, 12), area.w, area.h - tree_h - gfx_px(g, 12)}, vs, s, path_row);
    }
    free(b);
}

static void draw_loss(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s) {
    Bar bars[64];
    int n = s->rows < 64 ? s->rows : 64;
    float mx = 1e-6f;
    for (int i = 0; i < n; i++) mx = fmaxf(mx, s->data[i]);
    for (int i = 0; i < n; i++) bars[i] = (Bar){s->row_labels[i], s->data[i], false};
    draw_bars(g, area, vs, bars, n, "%.3f", mx, true);  // lengths relative to the largest loss, numbers as they are
}

// ---- line view: attention as lines between tokens, as BertViz draws it ----

// Fainter links are left out: they are noise and hide the ones that matter.
#define LINE_MIN_WEIGHT 0.02f

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
    const char *out = produced(vs->trace, s, r);
    return out ? out : s->row_labels ? s->row_labels[r] : "";
}

static LineLayout line_layout(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s, bool has_title) {
    LineLayout L = {0};
    int pad = gfx_px(g, 8), n = s->rows > s->cols ? s->rows : s->cols;
    L.px = vs->font_px;
    L.lh = gfx_line_height(g, L.px);
    L.heading_y = area.y + (has_title ? gfx_line_height(g, vs->font_px) + pad : 0);
    int top = L.heading_y + gfx_line_height(g, small_px(vs)) + pad;
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

static void draw_lines(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s, const char *title, const CorpusPair *gold) {
    const Theme *t = vs->theme;
    LineLayout L = line_layout(g, area, vs, s, title != NULL);
    int pad = gfx_px(g, 4), heading_px = small_px(vs);
    if (title) gfx_text_fit(g, area.x, area.y, area.w, title, vs->font_px, t->text, GFX_LEFT);
    bool cross = !strcmp(s->name, "dec.cross_attn.weights");
    gfx_text(g, L.key_x, L.heading_y, i18n(vs->lang, cross ? S_V_SOURCE : S_V_KEYS), heading_px, t->text_dim, GFX_RIGHT);
    gfx_text(g, L.query_x, L.heading_y, i18n(vs->lang, produced(vs->trace, s, 0) ? S_V_PRODUCES : S_V_QUERIES), heading_px, t->text_dim,
             GFX_LEFT);
    // a hovered row (a query's distribution) in full, the others faded; the
    // hover colour is left to the labels, as it is close to gold
    bool focus = vs->hover_row >= 0 && vs->hover_row < s->rows;
    float scale = gfx_scale(g);
    for (int r = 0; r < s->rows; r++)
        for (int c = 0; c < s->cols; c++) {
            float w = s->data[r * s->cols + c];
            if (!(w >= LINE_MIN_WEIGHT)) continue;  // faint, masked or NaN
            float alpha = 0.15f + 0.85f * w;
            if (focus && r != vs->hover_row) alpha *= 0.2f;
            gfx_line(g, (float)L.key_x, (float)(L.key_y + c * L.row_h), (float)L.query_x, (float)(L.query_y + r * L.row_h),
                     scale * (1.0f + 7.0f * fminf(w, 1.0f)), with_alpha(t->accent, alpha));
        }
    for (int k = 0; gold && k < gold->n_links; k++) {
        int r, c;
        if (gold_cell(vs, s, gold, k, &r, &c))
            draw_dashed(g, (float)L.key_x, (float)(L.key_y + c * L.row_h), (float)L.query_x, (float)(L.query_y + r * L.row_h),
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
static bool lines_hit(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s, bool has_title, int x, int y, int *row, int *col) {
    LineLayout L = line_layout(g, area, vs, s, has_title);
    if (x <= L.key_x || x >= L.query_x) {
        bool key = x <= L.key_x;
        int dy = y - ((key ? L.key_y : L.query_y) - L.row_h / 2), i = dy / L.row_h, n = key ? s->cols : s->rows;
        if (dy < 0 || i >= n) return false;
        int best = 0;
        for (int j = 1; j < (key ? s->rows : s->cols); j++)
            if (key ? s->data[j * s->cols + i] > s->data[best * s->cols + i] : s->data[i * s->cols + j] > s->data[i * s->cols + best]) best = j;
        *row = key ? best : i;
        *col = key ? i : best;
        return true;
    }
    float nearest = (float)gfx_px(g, 6);
    bool hit = false;
    for (int r = 0; r < s->rows; r++)
        for (int c = 0; c < s->cols; c++) {
            if (!(s->data[r * s->cols + c] >= LINE_MIN_WEIGHT)) continue;
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

// ---- composite views: several steps as panels, each a heatmap or a line view ----

enum { MAX_PANELS = 17 };

typedef struct {
    int n, cols;                    // cols 0: the grid with the largest cells
    int current;                    // the panel of the step shown, framed; -1: none
    const Step *steps[MAX_PANELS];
    char titles[MAX_PANELS][48];    // "" for a lone panel: the page's title names it
    const char *ops[MAX_PANELS];    // a sign between panel i and i + 1, or NULL
    bool lines;                     // line views instead of heatmaps
    bool shared_bar;                // one scale for all (the heads grid): a colour bar on each row's last panel only
    Step average;                   // the heads' average, when shown
    float *average_data;
    const CorpusPair *gold;         // the gold alignment drawn, or NULL
    const char *gold_file;
    char note[160];                 // a line under the panels, or ""
    SDL_Rect legend;                // where that line goes (h 0: no line)
    SDL_Rect cells[MAX_PANELS];     // each panel's place, framed when current
    SDL_Rect inner[MAX_PANELS];     // its view, inset in the cell
} Panels;

static bool attention_weights(const Step *s) {
    return s->head > 0 && (!strcmp(s->name, "enc.self_attn.weights") || !strcmp(s->name, "dec.self_attn.weights") ||
                           !strcmp(s->name, "dec.cross_attn.weights"));
}

// The steps the look-ahead mask is made for: the mask and the three matrices it turns into weights.
static bool masking_step(const Step *s) {
    return !strcmp(s->name, "dec.look_ahead_mask") || !strcmp(s->name, "dec.self_attn.scores") ||
           !strcmp(s->name, "dec.self_attn.masked_scores") || !strcmp(s->name, "dec.self_attn.weights");
}

// Mask + raw scores = masked scores → softmax weights, of one layer, head and decoding step.
static void add_masking_steps(const ViewState *vs, const Step *s, Panels *p) {
    static const char *const names[] = {"dec.look_ahead_mask", "dec.self_attn.scores", "dec.self_attn.masked_scores",
                                        "dec.self_attn.weights"};
    static const StringId titles[] = {S_V_MASK, S_V_RAW_SCORES, S_V_MASKED_SCORES, S_V_SOFTMAX_WEIGHTS};
    static const char *const ops[] = {"+", "=", "\xE2\x86\x92", NULL};  // →
    int layer = s->layer ? s->layer : 1, head = s->head ? s->head : 1;   // the mask has neither: show layer 1, head 1
    for (int i = 0; i < 4; i++) {
        p->steps[i] = find_step(vs->trace, names[i], i ? layer : 0, i ? head : 0, s->dstep);
        if (!p->steps[i]) return;
        snprintf(p->titles[i], sizeof p->titles[i], "%s", i18n(vs->lang, titles[i]));
        p->ops[i] = ops[i];
    }
    p->n = 4;
    p->cols = 0;  // one row of four, or two of two when the room is narrow: whichever gives larger cells
    if (!s->layer) snprintf(p->note, sizeof p->note, i18n(vs->lang, S_V_MASK_NOTE), layer, head);
}

// Every head of the layer at the same decoding step, and their mean (a display aid, not part of the model).
static void add_heads(const ViewState *vs, const Step *s, Panels *p) {
    int heads = vs->model->cfg.nhead;
    if (heads + 1 > MAX_PANELS) return;
    for (int h = 0; h < heads; h++) {
        p->steps[h] = find_step(vs->trace, s->name, s->layer, h + 1, s->dstep);
        if (!p->steps[h]) return;
        snprintf(p->titles[h], sizeof p->titles[h], i18n(vs->lang, S_V_HEAD_N), h + 1);
    }
    p->average_data = malloc((size_t)s->rows * (size_t)s->cols * sizeof(float));
    if (!p->average_data) return;
    for (int k = 0; k < s->rows * s->cols; k++) {
        float sum = 0.0f;
        for (int h = 0; h < heads; h++) sum += p->steps[h]->data[k];
        p->average_data[k] = sum / (float)heads;
    }
    p->average = *s;
    p->average.head = 0;
    p->average.data = p->average_data;
    p->steps[heads] = &p->average;
    snprintf(p->titles[heads], sizeof p->titles[heads], "%s", i18n(vs->lang, S_V_AVERAGE));
    p->n = heads + 1;
    p->shared_bar = true;  // every head's weights, and their average, run from 0 to 1
}

// Heatmap panels in a row share the rows: only the first shows their labels.
static bool shows_row_labels(const Panels *p, int i) { return p->n == 1 || i % p->cols == 0; }

// Whether panel i draws a colour bar: all do, unless they share one scale;
// then the last column's (a short last row has none: the rows above show it).
static bool shows_bar(const Panels *p, int i) { return !p->shared_bar || p->n == 1 || i % p->cols == p->cols - 1; }

// Cells of equal size, row by row, the first of each row wider by the row
// labels it shows; a lone panel takes the whole area.
static void place_panels(Gfx *g, SDL_Rect area, const ViewState *vs, Panels *p) {
    if (p->n == 1) {
        p->cells[0] = p->inner[0] = area;
        return;
    }
    int gap = gfx_px(g, 28), inset = gfx_px(g, 8), rows = (p->n + p->cols - 1) / p->cols;
    int label_w = p->lines ? 0 : row_labels_width(g, vs, p->steps[0]);
    int bar_w = p->shared_bar && !p->lines ? colorbar_width(g, vs) : 0;  // a shared bar: only the last column has one
    int w = (area.w - label_w - bar_w - (p->cols - 1) * gap) / p->cols, h = (area.h - (rows - 1) * gap) / rows;
    for (int i = 0; i < p->n; i++) {
        int col = i % p->cols, x = area.x + col * (w + gap) + (col ? label_w : 0);
        int cell_w = w + (col ? 0 : label_w) + (shows_bar(p, i) ? bar_w : 0);
        p->cells[i] = (SDL_Rect){x, area.y + (i / p->cols) * (h + gap), cell_w, h};
        p->inner[i] = (SDL_Rect){p->cells[i].x + inset, p->cells[i].y + inset, cell_w - 2 * inset, h - 2 * inset};
    }
}

// Shrinks heatmap panels to the room their heatmaps use, column by column and
// row by row, and packs them to the top left, so that frames fit their panels.
static void fit_cells(Gfx *g, const ViewState *vs, Panels *p) {
    if (p->n == 1 || p->lines) return;
    int inset = gfx_px(g, 8), gap = gfx_px(g, 28), rows = (p->n + p->cols - 1) / p->cols;
    int used_w[MAX_PANELS] = {0}, used_h[MAX_PANELS] = {0};
    for (int i = 0; i < p->n; i++) {
        HeatLayout L = heat_layout(g, p->inner[i], vs, p->steps[i], true, shows_row_labels(p, i), shows_bar(p, i));
        int bottom = L.bar.y + L.bar.h > L.grid.y + L.grid.h ? L.bar.y + L.bar.h : L.grid.y + L.grid.h;
        int *w = &used_w[i % p->cols], *h = &used_h[i / p->cols];
        if (L.right - p->inner[i].x > *w) *w = L.right - p->inner[i].x;
        if (bottom - p->inner[i].y > *h) *h = bottom - p->inner[i].y;
    }
    int x[MAX_PANELS], y[MAX_PANELS];
    x[0] = p->cells[0].x;
    y[0] = p->cells[0].y;
    for (int c = 1; c < p->cols; c++) x[c] = x[c - 1] + used_w[c - 1] + 2 * inset + gap;
    for (int r = 1; r < rows; r++) y[r] = y[r - 1] + used_h[r - 1] + 2 * inset + gap;
    for (int i = 0; i < p->n; i++) {
        int c = i % p->cols, r = i / p->cols;
        p->cells[i] = (SDL_Rect){x[c], y[r], used_w[c] + 2 * inset, used_h[r] + 2 * inset};
        p->inner[i] = (SDL_Rect){x[c] + inset, y[r] + inset, used_w[c], used_h[r]};
    }
}

// What the step is shown as, and where each part goes: the one layout that
// drawing and hit testing share. Free p->average_data after.
static void plan_panels(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s, Panels *p) {
    memset(p, 0, sizeof *p);
    p->current = -1;
    bool weights = attention_weights(s);
    p->lines = weights && vs->opt.lines;
    if (weights && vs->opt.heads_grid) add_heads(vs, s, p);
    else if (!p->lines && !vs->opt.no_side_by_side && masking_step(s)) add_masking_steps(vs, s, p);
    if (p->n < 2) {
        p->n = p->cols = 1;
        p->steps[0] = s;
        p->titles[0][0] = '\0';
        p->ops[0] = NULL;
    }
    for (int i = 0; i < p->n; i++)
        if (p->n > 1 && p->steps[i] == s) p->current = i;
    p->gold = gold_for(vs, s, &p->gold_file);
    if (p->lines && !p->note[0]) snprintf(p->note, sizeof p->note, i18n(vs->lang, S_V_LINE_NOTE), (double)LINE_MIN_WEIGHT);
    if (p->gold || p->note[0]) {  // a line under the panels
        int lh = gfx_line_height(g, small_px(vs));
        p->legend = (SDL_Rect){area.x, area.y + area.h - lh, area.w, lh};
        area.h -= lh + gfx_px(g, 8);
    }
    if (!p->cols) {
        int best = 1, best_cell = -1;
        for (p->cols = 1; p->cols <= p->n; p->cols++) {
            if (p->ops[0] && p->n % p->cols) continue;  // an equation's rows stay whole
            place_panels(g, area, vs, p);
            int cell = heat_layout(g, p->inner[0], vs, p->steps[0], true, true, shows_bar(p, 0)).cell_w;
            if (cell > best_cell) {
                best_cell = cell;
                best = p->cols;
            }
        }
        p->cols = best;
    }
    place_panels(g, area, vs, p);
    fit_cells(g, vs, p);
}

static void draw_legend(Gfx *g, const Panels *p, const ViewState *vs) {
    const Theme *t = vs->theme;
    int px = small_px(vs), x = p->legend.x, y = p->legend.y, lh = p->legend.h;
    if (p->gold) {  // a sample of the mark, then where the gold comes from
        float cy = (float)y + (float)lh / 2.0f, scale = gfx_scale(g);
        if (p->lines) draw_dashed(g, (float)x, cy, (float)x + 34.0f * scale, cy, 2.0f * scale, 7.0f * scale, t->gold);
        else draw_ring(g, (float)x + 10.0f * scale, cy, 7.0f * scale, 2.0f * scale, t->gold);
        x += gfx_px(g, p->lines ? 42 : 26);
        char buf[96];
        snprintf(buf, sizeof buf, i18n(vs->lang, S_V_GOLD), p->gold_file, p->gold->line);
        x += gfx_text(g, x, y, buf, px, t->text_dim, GFX_LEFT) + gfx_px(g, 24);
    }
    gfx_text(g, x, y, p->note, px, t->text_dim, GFX_LEFT);
}

static void draw_panels(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s) {
    const Theme *t = vs->theme;
    Panels p;
    plan_panels(g, area, vs, s, &p);
    for (int i = 0; i < p.n; i++) {
        const char *title = p.titles[i][0] ? p.titles[i] : NULL;
        if (p.lines) draw_lines(g, p.inner[i], vs, p.steps[i], title, p.gold);
        else heatmap(g, p.inner[i], vs, p.steps[i], title, shows_row_labels(&p, i), shows_bar(&p, i), p.gold);
        if (i == p.current) gfx_frame(g, p.cells[i], gfx_px(g, 2), t->accent);
        if (p.ops[i] && i + 1 < p.n) {  // the sign between two panels, level with the cells
            bool wraps = (i + 1) % p.cols == 0;  // the next panel starts a row: the sign ends this one
            int k = wraps ? i : i + 1;
            HeatLayout L = heat_layout(g, p.inner[k], vs, p.steps[k], true, shows_row_labels(&p, k), shows_bar(&p, k));
            int px = vs->font_px * 3 / 2, right = p.cells[i].x + p.cells[i].w;
            int x = wraps ? right + gfx_px(g, 14) : (right + p.cells[i + 1].x) / 2;
            gfx_text(g, x, L.grid.y + L.grid.h / 2 - gfx_line_height(g, px) / 2, p.ops[i], px, t->text_dim, GFX_CENTER);
        }
    }
    if (p.legend.h) draw_legend(g, &p, vs);
    free(p.average_data);
}

ViewSwitches view_switches(const ViewState *vs) {
    const Step *s = trace_step(vs->trace, vs->step);
    ViewSwitches w = {0};
    if (!s) return w;
    w.heads_grid = w.lines = attention_weights(s);
    w.side_by_side = masking_step(s);
    ViewState with_gold = *vs;
    with_gold.opt.no_gold = false;
    w.gold = gold_for(&with_gold, s, NULL) != NULL;
    return w;
}

static bool shown_as_matrix(const Step *s) {
    return strcmp(s->kind, "tokens") && strcmp(s->kind, "top_k") && strcmp(s->kind, "choice") && strcmp(s->kind, "beam") &&
           strcmp(s->kind, "loss") && !(!strcmp(s->kind, "probs") && s->rows == 1);
}

void view_draw(Gfx *g, SDL_Rect area, const ViewState *vs) {
    const Step *s = trace_step(vs->trace, vs->step);
    if (!s) return;
    gfx_clip(g, &area);
    if (!strcmp(s->kind, "tokens")) draw_tokens(g, area, vs, s);
    else if (!strcmp(s->kind, "probs") && s->rows == 1) draw_probs(g, area, vs, s);
    else if (!strcmp(s->kind, "top_k")) draw_top_k(g, area, vs, s);
    else if (!strcmp(s->kind, "choice")) draw_choice(g, area, vs, s);
    else if (!strcmp(s->kind, "beam")) draw_beam(g, area, vs, s);
    else if (!strcmp(s->kind, "loss")) draw_loss(g, area, vs, s);
    else draw_panels(g, area, vs, s);
    gfx_clip(g, NULL);
}

bool view_hit(Gfx *g, SDL_Rect area, const ViewState *vs, int x, int y, int *row, int *col) {
    const Step *s = trace_step(vs->trace, vs->step);
    if (!s || !shown_as_matrix(s)) return false;
    Panels p;
    plan_panels(g, area, vs, s, &p);
    bool hit = false;
    SDL_Point pt = {x, y};
    for (int i = 0; i < p.n && !hit; i++) {
        if (!SDL_PointInRect(&pt, &p.cells[i])) continue;
        bool has_title = p.titles[i][0] != '\0';
        if (p.lines) {
            hit = lines_hit(g, p.inner[i], vs, p.steps[i], has_title, x, y, row, col);
            continue;
        }
        HeatLayout L = heat_layout(g, p.inner[i], vs, p.steps[i], has_title, shows_row_labels(&p, i), shows_bar(&p, i));
        if (x < L.grid.x || y < L.grid.y || x >= L.grid.x + L.grid.w || y >= L.grid.y + L.grid.h) break;
        *col = (x - L.grid.x) / L.cell_w;
        *row = (y - L.grid.y) / L.cell_h;
        hit = true;
    }
    free(p.average_data);
    return hit;
}
