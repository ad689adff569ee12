#include "view.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

// Where a heatmap's parts go, worked out once for drawing and hit testing.
typedef struct {
    SDL_Rect grid;          // the cells
    int cell_w, cell_h;
    int label_x;            // right edge of the row labels
    int title_y, col_label_y;
    SDL_Rect bar;           // the colour bar
    SDL_Rect norms;         // per-row norm bars (w 0: none)
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

// The token a decoder row produces: the choice made at decoding step r + 1,
// or in teacher forcing the target word r. NULL when not known (beam search).
static const char *produced(const Trace *tr, const Step *s, int r) {
    if (strncmp(s->name, "dec.", 4) || !s->row_labels || s->dstep < 1) return NULL;
    int loss = trace_find(tr, "dec.loss", 0, 1);
    if (loss >= 0) {
        const Step *l = trace_step(tr, loss);
        return r < l->rows ? l->row_labels[r] : NULL;
    }
    int i = trace_find(tr, "dec.choice", 0, r + 1);
    return i >= 0 ? trace_step(tr, i)->row_labels[0] : NULL;
}

// A row's label: the query token, and for attention rows in the decoder also
// the token that row goes on to produce ("<bos> → 貓").
static const char *row_label(const ViewState *vs, const Step *s, int r, char *buf, size_t size) {
    if (!s->row_labels) {
        snprintf(buf, size, "%d", r);
        return buf;
    }
    const char *out = strcmp(s->kind, "attention") && strcmp(s->kind, "scores") ? NULL : produced(vs->trace, s, r);
    if (!out) return s->row_labels[r];
    snprintf(buf, size, "%s \xE2\x86\x92 %s", s->row_labels[r], out);
    return buf;
}

static HeatLayout heat_layout(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s, bool has_title) {
    HeatLayout L = {0};
    int px = vs->font_px;
    L.small_px = px * 4 / 5 > 8 ? px * 4 / 5 : 8;
    int lh = gfx_line_height(g, L.small_px), pad = gfx_px(g, 6);
    L.title_y = area.y;
    int top = area.y + (has_title ? gfx_line_height(g, px) + pad : 0);
    int label_w = 0;
    char buf[160];
    for (int r = 0; s->row_labels && r < s->rows; r++) {
        int w = gfx_text_width(g, row_label(vs, s, r, buf, sizeof buf), L.small_px);
        if (w > label_w) label_w = w;
    }
    if (!s->row_labels) label_w = gfx_text_width(g, "00", L.small_px);
    label_w += pad;
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

void view_heatmap(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s, const char *title) {
    const Theme *t = vs->theme;
    HeatLayout L = heat_layout(g, area, vs, s, title != NULL);
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
        if (s->col_labels) gfx_text_fit(g, cx - L.cell_w / 2, L.col_label_y, L.cell_w, s->col_labels[c], L.small_px, col, GFX_CENTER);
        else {
            snprintf(buf, sizeof buf, "%d", c);
            gfx_text(g, cx, L.col_label_y, buf, L.small_px, col, GFX_CENTER);
        }
    }
    for (int r = 0; r < s->rows; r++) {
        int y = L.grid.y + r * L.cell_h;
        if (L.cell_h >= lh * 3 / 4 || r == vs->hover_row) {
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

// Horizontal bars scaled to [0, 1].
static void draw_bars(Gfx *g, SDL_Rect area, const ViewState *vs, const Bar *bars, int n, const char *fmt) {
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
        int w = (int)(fmaxf(0.0f, fminf(1.0f, bars[i].value)) * (float)bar_w);
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
    draw_bars(g, area, vs, bars, n, "%.3f");
}

static void draw_top_k(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s) {
    Bar bars[64];
    int chosen = chosen_at(vs->trace, s->dstep), n = s->rows < 64 ? s->rows : 64;
    const char *chosen_tok = chosen >= 0 ? voc_token(vs->model->tgt, chosen) : NULL;
    for (int i = 0; i < n; i++) bars[i] = (Bar){s->row_labels[i], s->data[i], chosen_tok && !strcmp(chosen_tok, s->row_labels[i])};
    draw_bars(g, area, vs, bars, n, "%.3f");
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
    for (int i = 0; i < n; i++) bars[i] = (Bar){s->row_labels[i], s->data[i] / mx, false};
    draw_bars(g, area, vs, bars, n, "%.3f");
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
    else view_heatmap(g, area, vs, s, NULL);
    gfx_clip(g, NULL);
}

bool view_hit(Gfx *g, SDL_Rect area, const ViewState *vs, int x, int y, int *row, int *col) {
    const Step *s = trace_step(vs->trace, vs->step);
    if (!s || !strcmp(s->kind, "tokens") || !strcmp(s->kind, "top_k") || !strcmp(s->kind, "choice") || !strcmp(s->kind, "beam") ||
        !strcmp(s->kind, "loss") || (!strcmp(s->kind, "probs") && s->rows == 1))
        return false;
    HeatLayout L = heat_layout(g, area, vs, s, false);
    if (x < L.grid.x || y < L.grid.y || x >= L.grid.x + L.grid.w || y >= L.grid.y + L.grid.h) return false;
    *col = (x - L.grid.x) / L.cell_w;
    *row = (y - L.grid.y) / L.cell_h;
    return true;
}
