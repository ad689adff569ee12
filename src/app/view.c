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
static HeatLayout heat_layout(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s, bool has_title, bool row_labels) {
    HeatLayout L = {0};
    int px = vs->font_px;
    L.small_px = small_px(vs);
    int lh = gfx_line_height(g, L.small_px), pad = gfx_px(g, 6);
    L.title_y = area.y;
    int top = area.y + (has_title ? gfx_line_height(g, px) + pad : 0);
    int label_w = row_labels ? row_labels_width(g, vs, s) : 0;
    L.col_label_y = top;
    top += lh + pad / 2;
    bool matrix = !strcmp(s->kind, "matrix");
    int bar_w = gfx_px(g, 14) + gfx_text_width(g, "-00.00", L.small_px) + 2 * pad;
    int norm_w = matrix && s->row_labels ? gfx_px(g, 90) : 0;
    int avail_w = area.w - label_w - bar_w - norm_w - pad, avail_h = area.y + area.h - top;
    if (avail_w < s->cols) avail_w = s->cols;
    if (avail_h < s->rows) avail_h = s->rows;
    int max_cell = gfx_px(g, 96);
    L.cell_w = avail_w / s->cols;
    L.cell_h = avail_h / s->rows;
    if (!matrix) {  // attention-like matrices get square cells
        int c = L.cell_w < L.cell_h ? L.cell_w : L.cell_h;
        L.cell_w = L.cell_h = c;
    }
    if (L.cell_w > max_cell) L.cell_w = max_cell;
    if (L.cell_h > max_cell) L.cell_h = max_cell;
    if (L.cell_w < 1) L.cell_w = 1;
    if (L.cell_h < 1) L.cell_h = 1;
    L.label_x = area.x + label_w;
    L.grid = (SDL_Rect){L.label_x + pad / 2, top, L.cell_w * s->cols, L.cell_h * s->rows};
    L.bar = (SDL_Rect){L.grid.x + L.grid.w + pad, top, gfx_px(g, 14), L.grid.h > gfx_px(g, 120) ? L.grid.h : gfx_px(g, 120)};
    if (norm_w) L.norms = (SDL_Rect){L.bar.x + bar_w - pad, top, norm_w - pad, L.grid.h};
    L.right = L.grid.x + L.grid.w + bar_w + norm_w + pad - pad / 2;  // as much as avail_w left out
    L.values = L.cell_w >= gfx_text_width(g, "-0.00", L.small_px) + pad && L.cell_h >= lh;
    value_range(s, &L.lo, &L.hi);
    return L;
}

static void draw_colorbar(Gfx *g, const HeatLayout *L, const ViewState *vs) {
    const Theme *t = vs->theme;
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

static void heatmap(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s, const char *title, bool row_labels, const CorpusPair *gold) {
    const Theme *t = vs->theme;
    HeatLayout L = heat_layout(g, area, vs, s, title != NULL, row_labels);
    if (title) gfx_text_fit(g, area.x, L.title_y, area.w, title, vs->font_px, t->text, GFX_LEFT);
    char buf[32];
    int lh = gfx_line_height(g, L.small_px);
    // column labels: tokens when they fit, else every few feature indices
    int every = 1;
    if (!s->col_labels) {
        int w = gfx_text_width(g, "000", L.small_px) + gfx_px(g, 4);
        while (every * L.cell_w < w) every *= 2;
    }
    for (int c = 0; c < s->cols; c += every) {
        int cx = L.grid.x + c * L.cell_w + L.cell_w / 2;
        Color col = c == vs->hover_col ? t->hover : t->text_dim;
        if (s->col_labels) gfx_text_fit(g, cx, L.col_label_y, L.cell_w, s->col_labels[c], L.small_px, col, GFX_CENTER);
        else {
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
    for (int k = 0; gold && k < gold->n_links; k++) {  // a gold ring, edged to show on any cell colour
        int r, c;
        if (!gold_cell(vs, s, gold, k, &r, &c)) continue;
        float v = s->data[r * s->cols + c], radius = 0.36f * (float)(L.cell_w < L.cell_h ? L.cell_w : L.cell_h);
        float cx = (float)L.grid.x + ((float)c + 0.5f) * (float)L.cell_w, cy = (float)L.grid.y + ((float)r + 0.5f) * (float)L.cell_h;
        float width = fmaxf(2.0f, radius / 8.0f);
        draw_ring(g, cx, cy, radius, width + 2.0f * gfx_scale(g), theme_text_on(cmap_color(vs->cmap, (v - L.lo) / (L.hi - L.lo))));
        draw_ring(g, cx, cy, radius, width, t->gold);
    }
    draw_colorbar(g, &L, vs);
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
    heatmap(g, area, vs, s, title, true, gold_for(vs, s, NULL));
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

// Horizontal bars, full length at the value full.
static void draw_bars(Gfx *g, SDL_Rect area, const ViewState *vs, const Bar *bars, int n, const char *fmt, float full) {
    const Theme *t = vs->theme;
    int px = vs->font_px, lh = gfx_line_height(g, px), pad = gfx_px(g, 6);
    int label_w = 0;
    for (int i = 0; i < n; i++) {
        int w = gfx_text_width(g, bars[i].label, px);
        if (w > label_w) label_w = w;
    }
    int row_h = lh + pad, bar_x = area.x + label_w + 2 * pad, bar_w = area.w - label_w - gfx_px(g, 110);
    char buf[32];
    for (int i = 0; i < n && (i + 1) * row_h <= area.h; i++) {
        int y = area.y + i * row_h;
        Color c = bars[i].mark ? t->chosen : t->accent;
        gfx_text(g, bar_x - pad, y + pad / 2, bars[i].label, px, bars[i].mark ? t->chosen : t->text, GFX_RIGHT);
        int w = (int)(fmaxf(0.0f, fminf(1.0f, bars[i].value / full)) * (float)bar_w);
        gfx_fill(g, (SDL_Rect){bar_x, y + pad / 2, w > 1 ? w : 1, lh}, c);
        snprintf(buf, sizeof buf, fmt, (double)bars[i].value);
        gfx_text(g, bar_x + w + pad, y + pad / 2, buf, px, t->text_dim, GFX_LEFT);
        if (bars[i].mark) gfx_text(g, bar_x + w + gfx_px(g, 80), y + pad / 2, "\xE2\x97\x80", px, t->chosen, GFX_LEFT);  // ◀
    }
}

// The token chosen at a decoding step, or -1.
static int chosen_at(const Trace *tr, int dstep) {
    int i = trace_find(tr, "dec.choice", 0, dstep);
    return i < 0 ? -1 : (int)trace_step(tr, i)->data[0];
}

static void draw_probs(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s) {
    // the most likely tokens of the last row, best first
    Bar bars[16];
    int n = 0, chosen = chosen_at(vs->trace, s->dstep);
    const float *p = s->data + (size_t)(s->rows - 1) * s->cols;
    bool used[4096] = {false};
    for (; n < 12 && n < s->cols; n++) {
        int best = -1;
        for (int j = 0; j < s->cols && j < 4096; j++)
            if (!used[j] && (best < 0 || p[j] > p[best])) best = j;
        if (best < 0) break;
        used[best] = true;
        bars[n] = (Bar){voc_token(vs->model->tgt, best), p[best], best == chosen};
    }
    draw_bars(g, area, vs, bars, n, "%.3f", 1.0f);
}

static void draw_top_k(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s) {
    Bar bars[64];
    int chosen = chosen_at(vs->trace, s->dstep), n = s->rows < 64 ? s->rows : 64;
    const char *chosen_tok = chosen >= 0 ? voc_token(vs->model->tgt, chosen) : NULL;
    for (int i = 0; i < n; i++) bars[i] = (Bar){s->row_labels[i], s->data[i], chosen_tok && !strcmp(chosen_tok, s->row_labels[i])};
    draw_bars(g, area, vs, bars, n, "%.3f", 1.0f);
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
        snprintf(buf, sizeof buf, "P = %.3f, random draw u = %.3f", (double)s->data[1], (double)s->data[2]);
    else
        snprintf(buf, sizeof buf, "P = %.3f (the largest)", (double)s->data[1]);
    gfx_text(g, area.x, y + lh + 3 * pad, buf, vs->font_px, t->text_dim, GFX_LEFT);
}

// Beam candidates, best first: kept ones in full colour, pruned ones dimmed.
static void draw_beam(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s) {
    const Theme *t = vs->theme;
    int px = vs->font_px, lh = gfx_line_height(g, px), row_h = lh + gfx_px(g, 4);
    char buf[64];
    int score_x = area.x + area.w - gfx_px(g, 260);
    gfx_text(g, area.x, area.y, "hypothesis + next token", px, t->text_dim, GFX_LEFT);
    gfx_text(g, score_x, area.y, "log P", px, t->text_dim, GFX_LEFT);
    gfx_text(g, score_x + gfx_px(g, 90), area.y, "score", px, t->text_dim, GFX_LEFT);
    for (int r = 0; r < s->rows && (r + 2) * row_h <= area.h; r++) {
        int y = area.y + (r + 1) * row_h;
        bool kept = s->data[r * 3 + 2] > 0.5f;
        Color c = kept ? t->text : t->text_dim;
        if (kept) gfx_fill(g, (SDL_Rect){area.x - gfx_px(g, 4), y, gfx_px(g, 4), lh}, t->chosen);
        gfx_text_fit(g, area.x + gfx_px(g, 6), y, score_x - area.x - gfx_px(g, 12), s->row_labels[r], px, c, GFX_LEFT);
        snprintf(buf, sizeof buf, "%.3f", (double)s->data[r * 3]);
        gfx_text(g, score_x, y, buf, px, c, GFX_LEFT);
        snprintf(buf, sizeof buf, "%.3f  %s", (double)s->data[r * 3 + 1], kept ? "kept" : "pruned");
        gfx_text(g, score_x + gfx_px(g, 90), y, buf, px, c, GFX_LEFT);
    }
}

static void draw_loss(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s) {
    Bar bars[64];
    int n = s->rows < 64 ? s->rows : 64;
    float mx = 1e-6f;
    for (int i = 0; i < n; i++) mx = fmaxf(mx, s->data[i]);
    for (int i = 0; i < n; i++) bars[i] = (Bar){s->row_labels[i], s->data[i], false};
    draw_bars(g, area, vs, bars, n, "%.3f", mx);  // lengths relative to the largest loss, numbers as they are
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

static Color with_alpha(Color c, float a) { return (c & 0x00FFFFFFu) | (Color)lroundf(255.0f * fminf(1.0f, a)) << 24; }

static void draw_lines(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s, const char *title, const CorpusPair *gold) {
    const Theme *t = vs->theme;
    LineLayout L = line_layout(g, area, vs, s, title != NULL);
    int pad = gfx_px(g, 4), heading_px = small_px(vs);
    if (title) gfx_text_fit(g, area.x, area.y, area.w, title, vs->font_px, t->text, GFX_LEFT);
    bool cross = !strcmp(s->name, "dec.cross_attn.weights");
    gfx_text(g, L.key_x, L.heading_y, cross ? "source" : "keys", heading_px, t->text_dim, GFX_RIGHT);
    gfx_text(g, L.query_x, L.heading_y, produced(vs->trace, s, 0) ? "produces" : "queries", heading_px, t->text_dim, GFX_LEFT);
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
    static const char *const titles[] = {"look-ahead mask", "raw scores", "masked scores", "softmax weights"};
    static const char *const ops[] = {"+", "=", "\xE2\x86\x92", NULL};  // →
    int layer = s->layer ? s->layer : 1, head = s->head ? s->head : 1;   // the mask has neither: show layer 1, head 1
    for (int i = 0; i < 4; i++) {
        p->steps[i] = find_step(vs->trace, names[i], i ? layer : 0, i ? head : 0, s->dstep);
        if (!p->steps[i]) return;
        snprintf(p->titles[i], sizeof p->titles[i], "%s", titles[i]);
        p->ops[i] = ops[i];
    }
    p->n = p->cols = 4;
    if (!s->layer) snprintf(p->note, sizeof p->note, "scores and weights of layer %d, head %d", layer, head);
}

// Every head of the layer at the same decoding step, and their mean (a display aid, not part of the model).
static void add_heads(const ViewState *vs, const Step *s, Panels *p) {
    int heads = vs->model->cfg.nhead;
    if (heads + 1 > MAX_PANELS) return;
    for (int h = 0; h < heads; h++) {
        p->steps[h] = find_step(vs->trace, s->name, s->layer, h + 1, s->dstep);
        if (!p->steps[h]) return;
        snprintf(p->titles[h], sizeof p->titles[h], "head %d", h + 1);
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
    snprintf(p->titles[heads], sizeof p->titles[heads], "average");
    p->n = heads + 1;
}

// Heatmap panels in a row share the rows: only the first shows their labels.
static bool shows_row_labels(const Panels *p, int i) { return p->n == 1 || i % p->cols == 0; }

// Cells of equal size, row by row, the first of each row wider by the row
// labels it shows; a lone panel takes the whole area.
static void place_panels(Gfx *g, SDL_Rect area, const ViewState *vs, Panels *p) {
    if (p->n == 1) {
        p->cells[0] = p->inner[0] = area;
        return;
    }
    int gap = gfx_px(g, 28), inset = gfx_px(g, 8), rows = (p->n + p->cols - 1) / p->cols;
    int label_w = p->lines ? 0 : row_labels_width(g, vs, p->steps[0]);
    int w = (area.w - label_w - (p->cols - 1) * gap) / p->cols, h = (area.h - (rows - 1) * gap) / rows;
    for (int i = 0; i < p->n; i++) {
        int col = i % p->cols, x = area.x + col * (w + gap) + (col ? label_w : 0), cell_w = w + (col ? 0 : label_w);
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
        HeatLayout L = heat_layout(g, p->inner[i], vs, p->steps[i], true, shows_row_labels(p, i));
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
    if (p->lines && !p->note[0]) snprintf(p->note, sizeof p->note, "line width \xE2\x88\x9D weight; under %.2f not drawn", (double)LINE_MIN_WEIGHT);
    if (p->gold || p->note[0]) {  // a line under the panels
        int lh = gfx_line_height(g, small_px(vs));
        p->legend = (SDL_Rect){area.x, area.y + area.h - lh, area.w, lh};
        area.h -= lh + gfx_px(g, 8);
    }
    if (!p->cols) {
        int best = 1, best_cell = -1;
        for (p->cols = 1; p->cols <= p->n; p->cols++) {
            place_panels(g, area, vs, p);
            int cell = heat_layout(g, p->inner[0], vs, p->steps[0], true, true).cell_w;
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
        snprintf(buf, sizeof buf, "gold alignment (%s, line %d)", p->gold_file, p->gold->line);
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
        else heatmap(g, p.inner[i], vs, p.steps[i], title, shows_row_labels(&p, i), p.gold);
        if (i == p.current) gfx_frame(g, p.cells[i], gfx_px(g, 2), t->accent);
        if (p.ops[i] && i + 1 < p.n) {  // the sign between two panels, level with the cells
            HeatLayout L = heat_layout(g, p.inner[i + 1], vs, p.steps[i + 1], true, shows_row_labels(&p, i + 1));
            int px = vs->font_px * 3 / 2;
            gfx_text(g, (p.cells[i].x + p.cells[i].w + p.cells[i + 1].x) / 2, L.grid.y + L.grid.h / 2 - gfx_line_height(g, px) / 2,
                     p.ops[i], px, t->text_dim, GFX_CENTER);
        }
    }
    if (p.legend.h) draw_legend(g, &p, vs);
    free(p.average_data);
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
        HeatLayout L = heat_layout(g, p.inner[i], vs, p.steps[i], has_title, shows_row_labels(&p, i));
        if (x < L.grid.x || y < L.grid.y || x >= L.grid.x + L.grid.w || y >= L.grid.y + L.grid.h) break;
        *col = (x - L.grid.x) / L.cell_w;
        *row = (y - L.grid.y) / L.cell_h;
        hit = true;
    }
    free(p.average_data);
    return hit;
}
