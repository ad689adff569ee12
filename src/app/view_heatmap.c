#include "view_private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Weights, probabilities and masks run from 0 to 1 (a mask's −∞ drawn apart).
static bool unit_scale(const Step *s) {
    StageKind k = s->stage->kind_id;
    return k == STAGE_KIND_ATTENTION || k == STAGE_KIND_PROBS || k == STAGE_KIND_MASK;
}

// Masked by the look-ahead mask: above the diagonal of the decoder's
// self-attention, unless the experiment without the mask runs.
static bool causal_masked(const ViewState *vs, const Step *s, int r, int c) {
    return c > r && s->stage->causal && !trace_options(vs->trace)->no_look_ahead_mask;
}

// Signed values (vectors, scores) are drawn on a map centred on 0.
static bool signed_values(const Step *s) {
    StageKind k = s->stage->kind_id;
    return k == STAGE_KIND_MATRIX || k == STAGE_KIND_SCORES;
}

// The colour scale: 0 to 1 for weights and probabilities; the values' own
// range otherwise, or with the scale shared, that of the stage over every
// head of its layer and every decoding step, so heads and steps compare;
// symmetric about 0 for signed values.
static void value_range(const ViewState *vs, const Step *s, float *lo, float *hi) {
    if (unit_scale(s)) {
        *lo = 0.0f;
        *hi = 1.0f;
        return;
    }
    *lo = INFINITY;
    *hi = -INFINITY;
    if (vs->opt.shared_scale && !view_data_shared_range(vs->data, s, lo, hi))
        for (int i = 0; i < trace_count(vs->trace); i++) {  // no data of the whole trace: looked for here
            const Step *o = trace_step(vs->trace, i);
            if (o->stage == s->stage && o->layer == s->layer) view_grow_range(o, lo, hi);
        }
    view_grow_range(s, lo, hi);
    if (!(*lo <= *hi)) *lo = *hi = 0.0f;
    if (signed_values(s)) {
        float m = fmaxf(fabsf(*lo), fabsf(*hi));
        *lo = -m;
        *hi = m;
    }
    if (*hi - *lo < 1e-6f) *hi = *lo + 1e-6f;
}

Color heat_color(const ViewState *vs, const HeatLayout *L, float v) {
    float t = (v - L->lo) / (L->hi - L->lo);
    return L->diverging ? cmap_diverging(t) : cmap_color(vs->cmap, t);
}

// A row's label: the query token, and for attention rows (and the mask over
// them) in the decoder also the token that row goes on to produce ("<bos> → 貓").
static const char *row_label(const ViewState *vs, const Step *s, int r, char *buf, size_t size) {
    if (!s->row_labels) {
        snprintf(buf, size, "%d", r + 1);  // counted from 1, as the narration and highlights count
        return buf;
    }
    const char *out = view_query_rows(s) ? view_produced(vs->trace, s, r) : NULL;
    if (!out) return s->row_labels[r];
    snprintf(buf, size, "%s \xE2\x86\x92 %s", s->row_labels[r], out);
    return buf;
}

// The room the row labels take, the gap after them included.
int heat_row_labels_width(Gfx *g, const ViewState *vs, const Step *s) {
    int label_w = 0;
    char buf[160];
    for (int r = 0; s->row_labels && r < s->rows; r++) {
        int w = gfx_text_width(g, row_label(vs, s, r, buf, sizeof buf), view_small_px(vs));
        if (w > label_w) label_w = w;
    }
    if (!s->row_labels) label_w = gfx_text_width(g, "00", view_small_px(vs));
    return label_w + gfx_px(g, 6);
}

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
int heat_colorbar_width(Gfx *g, const ViewState *vs) {
    return gfx_px(g, 14) + gfx_text_width(g, "-00.00", view_small_px(vs)) + 2 * gfx_px(g, 6);
}

// bar false: no colour bar (a panel of a grid that shares one), its room given to the cells.
HeatLayout heat_layout(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s, bool has_title, bool row_labels, bool bar) {
    HeatLayout L = {0};
    int px = vs->font_px;
    L.small_px = view_small_px(vs);
    int lh = gfx_line_height(g, L.small_px), pad = gfx_px(g, 6);
    L.title_y = area.y;
    L.col_label_y = area.y + (has_title ? gfx_line_height(g, px) + pad : 0);
    int label_w = row_labels ? heat_row_labels_width(g, vs, s) : 0;
    bool matrix = s->stage->kind_id == STAGE_KIND_MATRIX;
    int bar_w = bar ? heat_colorbar_width(g, vs) : 0;
    int norm_w = matrix && s->row_labels ? gfx_px(g, 90) : 0;
    if (area.w - label_w - bar_w - norm_w - pad < s->cols) norm_w = 0;  // too narrow for a pixel a column: the lengths go first
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
            int h = s->stage->kind_id == STAGE_KIND_PROBS ? SDL_min(L.cell_h, SDL_max(c, 2 * lh)) : c;
            L.cell_w = c;
            L.cell_h = h;
        }
        if (L.cell_w > max_cell) L.cell_w = max_cell;
        if (L.cell_h > max_cell) L.cell_h = max_cell;
        if (L.cell_w < 1) L.cell_w = 1;
        if (L.cell_h < 1) L.cell_h = 1;
        if (pass == 1 || !s->col_labels) break;
        // a label cut short turns them all (a cut "<bos>" reads badly),
        // and columns narrower than a turned line name only some
        int cut = 0, widest = 0, shift;
        for (int c = 0; c < s->cols; c++) {
            cut += !place_col_label(g, s, c, L.cell_w, label_w + pad / 2, L.small_px, &shift);
            widest = SDL_max(widest, col_label_width(g, s, c, L.small_px));
        }
        bool narrow = L.cell_w < lh * 3 / 4;
        if (cut < 1 && !narrow) break;
        // labels named in part stand on a leader line (draw_some_col_labels); they may need its room
        band = SDL_min(widest + (narrow ? gfx_px(g, 8) : 0), gfx_px(g, 110));
        L.col_label_up = band;
    }
    L.col_label_some = L.col_label_up && L.cell_w < lh * 3 / 4;  // after the taller band, which may narrow the cells
    L.label_x = area.x + label_w;
    L.grid = (SDL_Rect){L.label_x + pad / 2, top, L.cell_w * s->cols, L.cell_h * s->rows};
    // the colour bar as tall as the cells, or tall enough for its two numbers, inside the area
    if (bar) L.bar = (SDL_Rect){L.grid.x + L.grid.w + pad, top, gfx_px(g, 14), SDL_min(SDL_max(L.grid.h, gfx_px(g, 120)), area.y + area.h - top)};
    if (norm_w) L.norms = (SDL_Rect){L.bar.x + bar_w - pad, top, norm_w - pad, L.grid.h};
    L.right = L.grid.x + L.grid.w + bar_w + norm_w + pad - pad / 2;  // as much as avail_w left out
    // numbers where "-0.00" fits with a little room (zoomed, cells and text grow alike: a pixel must not hide them)
    L.values = L.cell_w >= gfx_text_width(g, "-0.00", L.small_px) + pad / 2 && L.cell_h >= lh;
    // numbers grow with their cells (a third of the height), as wide as the cell holds
    L.value_px = L.small_px;
    for (int v = SDL_min(L.cell_h * 3 / 10, px * 2); L.values && v > L.small_px; v = v * 9 / 10)
        if (gfx_text_width(g, "-0.00", v) + 2 * pad <= L.cell_w && gfx_line_height(g, v) <= L.cell_h) {
            L.value_px = v;
            break;
        }
    value_range(vs, s, &L.lo, &L.hi);
    L.diverging = signed_values(s);
    return L;
}

static void draw_colorbar(Gfx *g, const HeatLayout *L, const ViewState *vs, const Step *s) {
    const Theme *t = vs->theme;
    if (s->stage->kind_id == STAGE_KIND_MASK) {
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
        gfx_fill(g, (SDL_Rect){L->bar.x, L->bar.y + y, L->bar.w, 1}, heat_color(vs, L, L->lo + u * (L->hi - L->lo)));
    }
    gfx_frame(g, L->bar, 1, t->panel_edge);
    char buf[32];
    int x = L->bar.x + L->bar.w + gfx_px(g, 4), lh = gfx_line_height(g, L->small_px);
    view_format_value(buf, sizeof buf, L->hi);
    gfx_text(g, x, L->bar.y - lh / 4, buf, L->small_px, t->text_dim, GFX_LEFT);
    view_format_value(buf, sizeof buf, L->lo);
    gfx_text(g, x, SDL_max(L->bar.y + L->bar.h - lh, L->bar.y + lh), buf, L->small_px, t->text_dim, GFX_LEFT);
    // the masked cells named beside the bar's middle: −∞ before the softmax, an exact 0 after it
    if (L->diverging && L->bar.h >= 4 * lh)  // the centre of a signed scale
        gfx_text(g, x, L->bar.y + L->bar.h / 2 - lh / 2, "0", L->small_px, t->text_dim, GFX_LEFT);
    bool masks = causal_masked(vs, s, 0, 1) && (s->stage->kind_id == STAGE_KIND_ATTENTION || s->stage->kind_id == STAGE_KIND_SCORES);
    if (!masks || L->bar.h < (L->diverging ? 6 : 4) * lh) return;
    bool zero = s->stage->kind_id == STAGE_KIND_ATTENTION;
    // at the bar's middle, or between 0 and the bottom on a signed scale, whose middle says 0
    int mid = L->diverging ? L->bar.y + L->bar.h * 3 / 4 : L->bar.y + L->bar.h / 2;
    SDL_Rect sw = {x, mid - L->bar.w / 2, L->bar.w, L->bar.w};
    gfx_fill(g, sw, zero ? t->background : t->masked);
    if (!zero) gfx_hatch(g, sw, gfx_px(g, 7), t->panel_edge);
    gfx_frame(g, sw, 1, t->panel_edge);
    gfx_text(g, sw.x + sw.w + gfx_px(g, 4), sw.y + (sw.h - lh) / 2, zero ? "0" : "\xE2\x88\x92\xE2\x88\x9E", L->small_px, t->text_dim,
             GFX_LEFT);  // 0 or −∞
}

// Columns too narrow for every label: the columns of each row's largest
// values (five of a single row such as the logits, three of two or three
// rows, one of more), the hovered one and a lesson's, read upwards. A label
// that would overlap the one before it moves right, with a leader line to its column.
static void draw_some_col_labels(Gfx *g, const HeatLayout *L, const ViewState *vs, const Step *s) {
    const Theme *t = vs->theme;
    enum { MOST = 4096, MOST_K = 5 };     // rows are tokens: far fewer
    int best[MOST], n_best = 0;           // the columns named for their values
    int k = s->rows == 1 ? MOST_K : s->rows <= 3 ? 3 : 1;
    for (int r = 0; r < s->rows && n_best + k <= MOST; r++) {
        const float *row = trace_row(s, r);
        int top[MOST_K], n = 0;           // this row's largest, largest first
        for (int c = 0; c < s->cols; c++) {
            if (!isfinite(row[c])) continue;
            int at = n < k ? n++ : k;
            while (at > 0 && row[c] > row[top[at - 1]]) {
                if (at < k) top[at] = top[at - 1];
                at--;
            }
            if (at < k) top[at] = c;
        }
        for (int i = 0; i < n; i++) best[n_best++] = top[i];
    }
    int lh = gfx_line_height(g, L->small_px), last = -lh, bottom = L->col_label_y + L->col_label_up;
    int leader = gfx_px(g, 8);
    for (int c = 0; c < s->cols; c++) {
        int cx = L->grid.x + c * L->cell_w + L->cell_w / 2, x = SDL_max(cx, last + lh);
        if (x + lh / 2 > L->right) break;  // never into the next panel
        bool named = c == vs->hover_col;
        for (int k = 0; k < vs->opt.n_highlight && !named; k++) named = vs->opt.highlight[k].col - 1 == c;
        for (int k = 0; k < n_best && !named; k++) named = best[k] == c;
        // only some are named, so one with no room in the band is left out rather than cut
        if (!named || gfx_text_width(g, s->col_labels[c], L->small_px) > L->col_label_up - leader) continue;
        Color col = c == vs->hover_col ? t->hover : t->text_dim;
        gfx_text_up(g, x - lh / 2, bottom - leader, L->col_label_up - leader, s->col_labels[c], L->small_px, col);
        gfx_line(g, (float)x, (float)(bottom - leader / 2), (float)cx, (float)bottom, 1.0f, col);
        last = x;
    }
}

// A gold ring's radius in a cell of value v: it passes outside the number's
// corners, so that the number stays readable; its line's width and edge.
static float ring_radius(Gfx *g, const HeatLayout *L, float v, float *width, float *edge) {
    float half = 0.5f * (float)(L->cell_w < L->cell_h ? L->cell_w : L->cell_h), radius = 0.72f * half;
    *width = fmaxf(2.0f, radius / 8.0f);
    *edge = 2.0f * gfx_scale(g);
    if (L->values) {
        char buf[32];
        view_format_value(buf, sizeof buf, v);
        float clear = hypotf(0.5f * (float)gfx_text_width(g, buf, L->value_px), 0.4f * (float)gfx_line_height(g, L->value_px)) +
                      0.5f * *width + 2.0f * *edge;
        if (clear > radius) radius = clear;
    }
    return radius;
}

bool heat_gold_rings(Gfx *g, const HeatLayout *L, const ViewState *vs, const Step *s, const CorpusPair *gold) {
    float half = 0.5f * (float)(L->cell_w < L->cell_h ? L->cell_w : L->cell_h);
    for (int k = 0; k < gold->n_links; k++) {
        int r, c;
        float width, edge;
        if (view_gold_cell(vs, s, gold, k, &r, &c) && ring_radius(g, L, trace_row(s, r)[c], &width, &edge) + 0.5f * width + edge > half)
            return false;
    }
    return true;
}

void heat_draw(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s, const char *title, bool row_labels, bool bar,
               const CorpusPair *gold) {
    const Theme *t = vs->theme;
    HeatLayout L = heat_layout(g, area, vs, s, title != NULL, row_labels, bar);
    if (title) gfx_text_fit(g, area.x, L.title_y, area.w, title, vs->font_px, t->text, GFX_LEFT);
    char buf[32];
    int lh = gfx_line_height(g, L.small_px), vlh = gfx_line_height(g, L.value_px);
    // column labels: tokens when they fit, else feature numbers counted from 1:
    // the first, then every few (1, 4, 8, … when every is 4)
    int every = 1;
    if (!s->col_labels) {
        int w = gfx_text_width(g, "000", L.small_px) + gfx_px(g, 4);
        while (every * L.cell_w < w) every *= 2;
    }
    if (L.col_label_some) draw_some_col_labels(g, &L, vs, s);
    for (int c = 0; c < s->cols && !L.col_label_some; c++) {
        if (!s->col_labels && c > 0 && (c + 1) % every) continue;
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
            snprintf(buf, sizeof buf, "%d", c + 1);
            gfx_text(g, cx, L.col_label_y, buf, L.small_px, col, GFX_CENTER);
        }
    }
    // rows too short for a label each: every few rows named, never one over another
    int label_every = L.cell_h >= lh * 3 / 4 ? 1 : (lh * 3 / 4 + L.cell_h - 1) / L.cell_h;
    for (int r = 0; r < s->rows; r++) {
        int y = L.grid.y + r * L.cell_h;
        bool named = r % label_every == 0 && (vs->hover_row < 0 || abs(r - vs->hover_row) >= label_every);
        if (row_labels && (named || r == vs->hover_row)) {
            Color col = r == vs->hover_row ? t->hover : t->text;
            char lb[160];
            const char *label = row_label(vs, s, r, lb, sizeof lb);
            gfx_text(g, L.label_x - gfx_px(g, 4), y + (L.cell_h - lh) / 2, label, L.small_px, col, GFX_RIGHT);
        }
        for (int c = 0; c < s->cols; c++) {
            float v = trace_row(s, r)[c];
            SDL_Rect cell = {L.grid.x + c * L.cell_w, y, L.cell_w, L.cell_h};
            // −∞ (a masked score) hatched grey; the exact 0 the softmax makes of it left blank, edged
            bool zero = causal_masked(vs, s, r, c) && s->stage->kind_id == STAGE_KIND_ATTENTION && v == 0.0f;
            bool masked = !zero && (isinf(v) || causal_masked(vs, s, r, c));
            Color fill = masked ? t->masked : zero ? t->background : heat_color(vs, &L, v);
            gfx_fill(g, cell, fill);
            if (masked) gfx_hatch(g, cell, gfx_px(g, 7), t->panel_edge);  // never mistaken for a small value
            if (zero) gfx_frame(g, cell, 1, t->panel_edge);
            if (L.values) {
                view_format_value(buf, sizeof buf, v);
                gfx_text(g, cell.x + L.cell_w / 2, cell.y + (L.cell_h - vlh) / 2, buf, L.value_px,
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
    // the gold alignment: rings, or where one cell has no room for a ring round
    // its number, frames along every cell's edge (one mark, as the legend shows)
    bool rings = gold && heat_gold_rings(g, &L, vs, s, gold);
    for (int k = 0; gold && k < gold->n_links; k++) {
        int r, c;
        if (!view_gold_cell(vs, s, gold, k, &r, &c)) continue;
        float v = trace_row(s, r)[c], width, edge, radius = ring_radius(g, &L, v, &width, &edge);
        Color under = theme_text_on(heat_color(vs, &L, v));  // edged to show on any cell colour
        if (!rings) {
            SDL_Rect cell = {L.grid.x + c * L.cell_w, L.grid.y + r * L.cell_h, L.cell_w, L.cell_h};
            int w = (int)lroundf(width);
            gfx_frame(g, cell, w + (int)lroundf(edge), under);
            gfx_frame(g, cell, w, t->gold);
            continue;
        }
        float cx = (float)L.grid.x + ((float)c + 0.5f) * (float)L.cell_w, cy = (float)L.grid.y + ((float)r + 0.5f) * (float)L.cell_h;
        view_draw_ring(g, cx, cy, radius, width + edge, under);
        view_draw_ring(g, cx, cy, radius, width, t->gold);
    }
    if (bar) draw_colorbar(g, &L, vs, s);
    if (L.norms.w > 0) {  // per-token vector length: how large each row is
        float mx = 0.0f, norm[256];
        int rows = s->rows < 256 ? s->rows : 256;
        for (int r = 0; r < rows; r++) {
            double sq = 0.0;
            for (int c = 0; c < s->cols; c++) sq += (double)trace_row(s, r)[c] * trace_row(s, r)[c];
            norm[r] = (float)sqrt(sq);
            mx = fmaxf(mx, norm[r]);
        }
        const char *head = "\xE2\x80\x96x\xE2\x80\x96";  // ‖x‖
        if (gfx_text_width(g, head, L.small_px) <= L.norms.w) gfx_text(g, L.norms.x, L.col_label_y, head, L.small_px, t->text_dim, GFX_LEFT);
        // the longest bar leaves room for the largest value after it, or the values go
        snprintf(buf, sizeof buf, "%.1f", (double)mx);
        int label_w = gfx_text_width(g, buf, L.small_px) + gfx_px(g, 4);
        bool labels = L.cell_h >= lh && L.norms.w - label_w >= L.norms.w / 4;
        int longest = labels ? SDL_min(L.norms.w * 6 / 10, L.norms.w - label_w) : L.norms.w * 6 / 10;
        for (int r = 0; r < rows; r++) {
            int y = L.grid.y + r * L.cell_h, w = mx > 0 ? (int)((float)longest * norm[r] / mx) : 0;
            gfx_fill(g, (SDL_Rect){L.norms.x, y + L.cell_h / 4, w, L.cell_h / 2 > 1 ? L.cell_h / 2 : 1}, t->accent);
            if (labels) {
                snprintf(buf, sizeof buf, "%.1f", (double)norm[r]);
                gfx_text(g, L.norms.x + w + gfx_px(g, 4), y + (L.cell_h - lh) / 2, buf, L.small_px, t->text_dim, GFX_LEFT);
            }
        }
    }
}

void view_heatmap(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s, const char *title) {
    heat_draw(g, area, vs, s, title, true, true, view_gold_for(vs, s, NULL));
}


// A given matrix is drawn as scores are: its own colour scale, −∞ hatched,
// square cells, no decoder row labels (its stage is none of the model's).
static const StageInfo given_stage = {.name = "given", .kind = "scores", .kind_id = STAGE_KIND_SCORES, .part = STAGE_SOURCE};

void view_given(Gfx *g, SDL_Rect area, const ViewState *vs) {
    const ViewGiven *gv = &vs->opt.given;
    const char *rows[VIEW_GIVEN_MAX], *cols[VIEW_GIVEN_MAX];
    bool row_named = false, col_named = false;
    for (int i = 0; i < gv->rows; i++) row_named |= (rows[i] = gv->row_labels[i])[0] != '\0';
    for (int i = 0; i < gv->cols; i++) col_named |= (cols[i] = gv->col_labels[i])[0] != '\0';
    Step s = {.name = given_stage.name, .stage = &given_stage, .kind = given_stage.kind, .rows = gv->rows, .cols = gv->cols,
              .sym_rows = "", .sym_cols = "", .formula = "", .data = (float *)gv->values, .row_labels = row_named ? rows : NULL,
              .col_labels = col_named ? cols : NULL};
    ViewState own = *vs;  // the lesson's outlines and the mouse are the model's view's
    own.opt.n_highlight = 0;
    own.opt.heads_grid = false;
    own.hover_row = own.hover_col = -1;
    // its title wrapped over as many lines as it needs: it says what the course's matrix is
    const char *title = gv->title[vs->lang == LANG_ZH_TW ? 1 : 0];
    int top = title[0] ? gfx_text_wrap(g, area.x, area.y, area.w, title, vs->font_px, vs->theme->text, true) + gfx_px(g, 4) : 0;
    heat_draw(g, (SDL_Rect){area.x, area.y + top, area.w, area.h - top}, &own, &s, NULL, true, false, NULL);
}

// Each column's width for its widest cell (w) and for its longest unbreakable
// part (least); returns the sum of w, and the sum of least in *least_total.
static int table_widths(Gfx *g, const ViewState *vs, int *w, int *least, int *least_total) {
    const ViewTable *tb = &vs->opt.table;
    int lang = vs->lang == LANG_ZH_TW ? 1 : 0, px = view_small_px(vs), pad = gfx_px(g, 8), total = 0;
    *least_total = 0;
    for (int c = 0; c < tb->cols; c++) {
        w[c] = least[c] = 0;
        for (int r = 0; r < tb->rows; r++) {
            w[c] = SDL_max(w[c], gfx_text_width(g, tb->cells[lang][r][c], px) + 2 * pad);
            least[c] = SDL_max(least[c], gfx_text_widest_unit(g, tb->cells[lang][r][c], px) + 2 * pad);
        }
        total += w[c];
        *least_total += least[c];
    }
    return total;
}

int view_table_least_width(Gfx *g, const ViewState *vs) {
    int w[VIEW_TABLE_COLS], least[VIEW_TABLE_COLS], least_total;
    table_widths(g, vs, w, least, &least_total);
    return least_total;
}

void view_table(Gfx *g, SDL_Rect area, const ViewState *vs) {
    const ViewTable *tb = &vs->opt.table;
    const Theme *t = vs->theme;
    int lang = vs->lang == LANG_ZH_TW ? 1 : 0, px = view_small_px(vs), pad = gfx_px(g, 8);
    int y = area.y;
    if (tb->title[lang][0]) y += gfx_text_wrap(g, area.x, y, area.w, tb->title[lang], vs->font_px, t->text, true) + pad;
    // columns as wide as their widest cell; when the table is wider than the
    // area the widest column gives up room first, its cells wrapping, but
    // never below its longest unbreakable part
    int w[VIEW_TABLE_COLS], least[VIEW_TABLE_COLS], least_total, total = table_widths(g, vs, w, least, &least_total);
    for (int guard = 0; total > area.w && guard < 64; guard++) {
        int widest = -1, second = 0;
        for (int c = 0; c < tb->cols; c++)
            if (w[c] > least[c] && (widest < 0 || w[c] > w[widest])) widest = c;
        if (widest < 0) break;
        for (int c = 0; c < tb->cols; c++)
            if (c != widest) second = SDL_max(second, w[c]);
        int cut = SDL_min(total - area.w, SDL_max(w[widest] - SDL_max(second, least[widest]), 1));
        cut = SDL_min(cut, w[widest] - least[widest]);
        w[widest] -= cut;
        total -= cut;
    }
    if (total > area.w) {  // still too wide: every column shrinks alike, its words cut short
        int sum = 0;
        for (int c = 0; c < tb->cols; c++) sum += (w[c] = w[c] * area.w / total);
        total = sum;
    }
    for (int r = 0; r < tb->rows; r++) {
        int row_h = 0;  // the row as tall as its tallest wrapped cell
        for (int c = 0; c < tb->cols; c++)
            if (w[c] > 2 * pad) row_h = SDL_max(row_h, gfx_text_wrap(g, 0, 0, w[c] - 2 * pad, tb->cells[lang][r][c], px, 0, false));
        row_h += pad;
        if (y + row_h > area.y + area.h) break;
        if (r == 0) gfx_fill(g, (SDL_Rect){area.x, y, SDL_min(total, area.w), row_h}, t->panel);
        int x = area.x;
        for (int c = 0; c < tb->cols; x += w[c], c++)
            if (w[c] > 2 * pad)
                gfx_text_wrap(g, x + pad, y + pad / 2, w[c] - 2 * pad, tb->cells[lang][r][c], px, r == 0 ? t->text_dim : t->text, true);
        gfx_fill(g, (SDL_Rect){area.x, y + row_h - 1, SDL_min(total, area.w), 1}, t->panel_edge);
        y += row_h;
    }
}
