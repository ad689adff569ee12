// Composite views: several steps as panels, each a heatmap or a line view
// (the heads of a layer and their average, the masking steps side by side),
// or one step alone; and which cell of them is under a point.
#include "view_private.h"

#include <stdio.h>
#include <string.h>

#include "kvcache.h"

enum { MAX_PANELS = 17 };

typedef struct {
    int n, cols;                    // cols 0: the grid with the largest cells
    int current;                    // the panel of the step shown, framed; -1: none
    const Step *steps[MAX_PANELS];
    char titles[MAX_PANELS][48];    // "" for a lone panel: the page's title names it
    const char *ops[MAX_PANELS];    // a sign between panel i and i + 1, or NULL
    bool lines;                     // line views instead of heatmaps
    bool shared_bar;                // one scale for all (the heads grid): a colour bar on each row's last panel only
    bool no_average;                // the heads grid without the heads' average (view data missing): the view says so
    const CorpusPair *gold;         // the gold alignment drawn, or NULL
    const char *gold_file;
    char note[300];                 // a line under the panels, or ""
    bool note_below;                // the note on a line of its own under the gold's (no room beside it)
    char note2[300];                // a second line (the KV cache's arithmetic), or ""
    SDL_Rect legend;                // where those lines go (h 0: none)
    bool kv;                        // the KV cache view: rows kept from the step before are washed, new ones outlined
    bool own_row_labels;            // every panel names its rows (they differ: steps t − 1 and t)
    const Step *kv_prev[MAX_PANELS];  // what each panel's rows are compared with (NULL: every row is new)
    SDL_Rect cells[MAX_PANELS];     // each panel's place, framed when current
    SDL_Rect inner[MAX_PANELS];     // its view, inset in the cell
} Panels;

// One head's attention weights: shown in the grid of every head, or as lines.
bool panels_heads_grid(const Step *s) { return s->head > 0 && s->stage->attention_weights; }

// The steps the look-ahead mask is made for: the mask and the three matrices it turns into weights.
bool panels_side_by_side(const Step *s) { return s->stage->group == STAGE_GROUP_MASKING; }

// Mask + raw scores = masked scores → softmax weights, of one layer, head and decoding step.
static void add_masking_steps(const ViewState *vs, const Step *s, Panels *p) {
    static const StringId titles[] = {S_V_MASK, S_V_RAW_SCORES, S_V_MASKED_SCORES, S_V_SOFTMAX_WEIGHTS};
    static const char *const ops[] = {"+", "=", "\xE2\x86\x92", NULL};  // →
    int layer = s->layer ? s->layer : 1, head = s->head ? s->head : 1;   // the mask has neither: show layer 1, head 1
    const StageInfo *group[4];
    if (stage_group(STAGE_GROUP_MASKING, group, 4) != 4) return;
    for (int i = 0; i < 4; i++) {
        const StageInfo *st = group[i];
        p->steps[i] = view_find_step(vs->trace, st, st->layered ? layer : 0, st->per_head ? head : 0, s->dstep);
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
        p->steps[h] = view_find_step(vs->trace, s->stage, s->layer, h + 1, s->dstep);
        if (!p->steps[h]) return;
        snprintf(p->titles[h], sizeof p->titles[h], i18n(vs->lang, S_V_HEAD_N), h + 1);
    }
    // worked out once per trace (view_data_new): drawing only reads it
    p->steps[heads] = view_data_average(vs->data, vs->step);
    if (!p->steps[heads]) {
        p->no_average = true;
        return;
    }
    snprintf(p->titles[heads], sizeof p->titles[heads], "%s", i18n(vs->lang, S_V_AVERAGE));
    p->n = heads + 1;
    p->shared_bar = true;  // every head's weights, and their average, run from 0 to 1
}

// The KV cache view applies to a decoder stage that step t − 1 recorded too (kv_step_before).
bool panels_kv_cache(const ViewState *vs, const Step *s) { return kv_step_before(vs->trace, s) != NULL; }

// A count of multiply-adds as people read it: 1.67 M, 1.04 G; 167 萬, 4.42 億.
static void format_count(char *buf, size_t size, uint64_t n, Lang lang) {
    double v = (double)n;
    if (lang == LANG_ZH_TW) {
        if (v >= 1e8) snprintf(buf, size, "%.2f \xE5\x84\x84", v / 1e8);        // 億
        else if (v >= 1e4) snprintf(buf, size, "%.0f \xE8\x90\xAC", v / 1e4);   // 萬
        else snprintf(buf, size, "%.0f", v);
    } else if (v >= 1e9) snprintf(buf, size, "%.2f G", v / 1e9);
    else if (v >= 1e6) snprintf(buf, size, "%.2f M", v / 1e6);
    else if (v >= 1e3) snprintf(buf, size, "%.1f k", v / 1e3);
    else snprintf(buf, size, "%.0f", v);
}

// What a KV cache saves on this translation and on the paper's base model.
static void kv_cost_note(const ViewState *vs, char *buf, size_t size) {
    const Trace *t = vs->trace;
    Config paper = kv_paper_config();
    KvCost here = kv_cost(&vs->model->cfg, trace_source_length(t), trace_decoding_steps(t));
    KvCost big = kv_cost(&paper, trace_source_length(t), trace_decoding_steps(t));
    char a[32], b[32], c[32], d[32];
    format_count(a, sizeof a, here.with_cache, vs->lang);
    format_count(b, sizeof b, here.without_cache, vs->lang);
    format_count(c, sizeof c, big.with_cache, vs->lang);
    format_count(d, sizeof d, big.without_cache, vs->lang);
    snprintf(buf, size, i18n(vs->lang, S_V_KV_COST), a, b, (double)here.without_cache / (double)(here.with_cache ? here.with_cache : 1), c,
             d, (double)big.without_cache / (double)(big.with_cache ? big.with_cache : 1));
}

// The KV cache view. On the self-attention's K or V: every decoder layer's K
// and V at this step, each against its step before: the cache itself. On
// any other decoder stage: the step before beside this one.
static void add_kv_cache(const ViewState *vs, const Step *s, Panels *p) {
    const StageInfo *k = stage_kv_cache(0), *v = stage_kv_cache(1);
    if (s->stage == k || s->stage == v) {
        int layers = vs->model->cfg.n_dec;
        if (2 * layers > MAX_PANELS) return;
        for (int l = 0; l < layers; l++)
            for (int w = 0; w < 2; w++) {
                const StageInfo *st = w ? v : k;
                int i = 2 * l + w;
                p->steps[i] = view_find_step(vs->trace, st, l + 1, s->head, s->dstep);
                p->kv_prev[i] = view_find_step(vs->trace, st, l + 1, s->head, s->dstep - 1);
                if (!p->steps[i]) return;
                snprintf(p->titles[i], sizeof p->titles[i], i18n(vs->lang, w ? S_V_KV_LAYER_V : S_V_KV_LAYER_K), l + 1);
            }
        p->n = 2 * layers;
        p->cols = 2;
        snprintf(p->note, sizeof p->note, i18n(vs->lang, S_V_KV_LAYERS), s->head ? s->head : 1);
    } else {
        p->steps[0] = kv_step_before(vs->trace, s);
        p->steps[1] = s;
        p->kv_prev[1] = p->steps[0];
        snprintf(p->titles[0], sizeof p->titles[0], i18n(vs->lang, S_V_KV_CACHED), s->dstep - 1);
        snprintf(p->titles[1], sizeof p->titles[1], i18n(vs->lang, S_V_KV_STEP), s->dstep);
        p->ops[0] = "\xE2\x86\x92";  // →
        p->n = 2;
        p->own_row_labels = true;
        p->cols = 0;
        int earlier = p->steps[0]->rows < s->rows ? p->steps[0]->rows : s->rows, changed = 0;
        for (int r = 0; r < earlier; r++) changed += !kv_row_unchanged(p->steps[0], s, r);
        if (changed) snprintf(p->note, sizeof p->note, i18n(vs->lang, S_V_KV_CHANGED), changed, earlier);
        else if (earlier < s->rows) snprintf(p->note, sizeof p->note, i18n(vs->lang, S_V_KV_KEPT), earlier, s->dstep - 1, earlier + 1);
        else snprintf(p->note, sizeof p->note, i18n(vs->lang, S_V_KV_ALL), s->dstep - 1);
    }
    p->kv = true;
    kv_cost_note(vs, p->note2, sizeof p->note2);
}

// Heatmap panels in a row share the rows: only the first shows their labels.
static bool shows_row_labels(const Panels *p, int i) { return p->n == 1 || p->own_row_labels || i % p->cols == 0; }

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
    int label_w = p->lines ? 0 : heat_row_labels_width(g, vs, p->steps[0]);
    int bar_w = p->shared_bar && !p->lines ? heat_colorbar_width(g, vs) : 0;  // a shared bar: only the last column has one
    int labels_w = p->own_row_labels ? p->cols * label_w : label_w;
    int w = (area.w - labels_w - bar_w - (p->cols - 1) * gap) / p->cols, h = (area.h - (rows - 1) * gap) / rows;
    for (int i = 0; i < p->n; i++) {
        int col = i % p->cols, x = area.x + col * (w + gap) + (p->own_row_labels ? col : col > 0) * label_w;
        int cell_w = w + (col && !p->own_row_labels ? 0 : label_w) + (shows_bar(p, i) ? bar_w : 0);
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

// The width of the legend's gold part: its mark, where it comes from, and the gap after them.
static int legend_gold_width(Gfx *g, const Panels *p, const ViewState *vs) {
    char buf[96];
    snprintf(buf, sizeof buf, i18n(vs->lang, S_V_GOLD), p->gold_file, p->gold->line);
    return gfx_px(g, p->lines ? 42 : 26) + gfx_text_width(g, buf, view_small_px(vs)) + gfx_px(g, 24);
}

// What the step is shown as, and where each part goes: the one layout that
// drawing and hit testing share.
static void plan_panels(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s, Panels *p) {
    memset(p, 0, sizeof *p);
    p->current = -1;
    bool weights = panels_heads_grid(s), kv = vs->opt.kv_cache && panels_kv_cache(vs, s);
    p->lines = weights && vs->opt.lines && !kv;
    if (kv) add_kv_cache(vs, s, p);
    else if (weights && vs->opt.heads_grid) add_heads(vs, s, p);
    else if (!p->lines && !vs->opt.no_side_by_side && panels_side_by_side(s)) add_masking_steps(vs, s, p);
    if (p->n < 2) {
        p->n = p->cols = 1;
        p->steps[0] = s;
        p->titles[0][0] = '\0';
        p->ops[0] = NULL;
    }
    for (int i = 0; i < p->n; i++)
        if (p->n > 1 && p->steps[i] == s) p->current = i;
    p->gold = view_gold_for(vs, s, &p->gold_file);
    if (!vs->data && !vs->opt.no_gold && view_gold_step(s))  // the gold may be there: say why it is not shown
        snprintf(p->note, sizeof p->note, "%s", i18n(vs->lang, S_V_NO_MEMORY));
    if (p->lines && !p->note[0]) snprintf(p->note, sizeof p->note, i18n(vs->lang, S_V_LINE_NOTE), (double)LINE_MIN_WEIGHT);
    if (p->gold || p->note[0] || p->note2[0]) {  // a line under the panels (the KV cache's notes wrap, never cut)
        int px = view_small_px(vs), h = gfx_line_height(g, px);
        if (p->kv)
            h = (p->gold ? h : 0) + gfx_text_wrap(g, 0, 0, area.w, p->note, px, 0, false) +
                gfx_text_wrap(g, 0, 0, area.w, p->note2, px, 0, false);
        else if (p->gold && p->note[0] && legend_gold_width(g, p, vs) + gfx_text_width(g, p->note, px) > area.w) {
            p->note_below = true;  // on a line of its own, rather than cut
            h *= 2;
        }
        p->legend = (SDL_Rect){area.x, area.y + area.h - h, area.w, h};
        area.h -= h + gfx_px(g, 8);
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
    int px = view_small_px(vs), x = p->legend.x, y = p->legend.y, lh = gfx_line_height(g, px);
    if (p->gold) {  // a sample of the mark, then where the gold comes from
        float cy = (float)y + (float)lh / 2.0f, scale = gfx_scale(g);
        // the mark the cells have: rings, or frames where a cell has no room for a ring
        bool rings = true;
        for (int i = 0; i < p->n && !p->lines; i++)
            if (view_gold_step(p->steps[i])) {
                HeatLayout L = heat_layout(g, p->inner[i], vs, p->steps[i], p->titles[i][0] != '\0', shows_row_labels(p, i), shows_bar(p, i));
                rings = heat_gold_rings(g, &L, vs, p->steps[i], p->gold);
                break;
            }
        if (p->lines) view_draw_dashed(g, (float)x, cy, (float)x + 34.0f * scale, cy, 2.0f * scale, 7.0f * scale, t->gold);
        else if (rings) view_draw_ring(g, (float)x + 10.0f * scale, cy, 7.0f * scale, 2.0f * scale, t->gold);
        else gfx_frame(g, (SDL_Rect){x + gfx_px(g, 3), (int)cy - gfx_px(g, 7), gfx_px(g, 14), gfx_px(g, 14)}, gfx_px(g, 2), t->gold);
        x += gfx_px(g, p->lines ? 42 : 26);
        char buf[96];
        snprintf(buf, sizeof buf, i18n(vs->lang, S_V_GOLD), p->gold_file, p->gold->line);
        x += gfx_text(g, x, y, buf, px, t->text_dim, GFX_LEFT) + gfx_px(g, 24);
        if (p->note_below) {
            x = p->legend.x;
            y += lh;
        }
    }
    if (p->kv) {  // its notes below the gold's line, wrapped
        if (p->gold) y += lh;
        y += gfx_text_wrap(g, p->legend.x, y, p->legend.w, p->note, px, t->text_dim, true);
        gfx_text_wrap(g, p->legend.x, y, p->legend.w, p->note2, px, t->text_dim, true);
        return;
    }
    gfx_text_fit(g, x, y, p->legend.x + p->legend.w - x, p->note, px, t->text_dim, GFX_LEFT);
}

// The KV cache's marks on panel i: rows kept from the step before washed
// pale (their numbers still readable), a changed or new row outlined.
static void draw_kv_marks(Gfx *g, const Panels *p, int i, const ViewState *vs) {
    const Step *s = p->steps[i], *prev = p->kv_prev[i];
    if (!prev) return;
    HeatLayout L = heat_layout(g, p->inner[i], vs, s, p->titles[i][0] != '\0', shows_row_labels(p, i), shows_bar(p, i));
    int m = gfx_px(g, 2);
    for (int r = 0; r < s->rows; r++) {
        SDL_Rect row = {L.grid.x, L.grid.y + r * L.cell_h, L.grid.w, L.cell_h};
        if (kv_row_unchanged(prev, s, r)) gfx_fill(g, row, view_with_alpha(vs->theme->background, 0.45f));
        else
            gfx_frame(g, (SDL_Rect){row.x - m, row.y - m, row.w + 2 * m, row.h + 2 * m}, gfx_px(g, 3),
                      r < prev->rows ? vs->theme->chosen : vs->theme->accent);
    }
}

void panels_draw(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s) {
    const Theme *t = vs->theme;
    Panels p;
    plan_panels(g, area, vs, s, &p);
    if (p.no_average) {
        view_say(g, area, vs, S_V_NO_MEMORY);
        return;
    }
    for (int i = 0; i < p.n; i++) {
        const char *title = p.titles[i][0] ? p.titles[i] : NULL;
        if (p.lines) lines_draw(g, p.inner[i], vs, p.steps[i], title, p.gold);
        else heat_draw(g, p.inner[i], vs, p.steps[i], title, shows_row_labels(&p, i), shows_bar(&p, i), p.gold);
        if (p.kv) draw_kv_marks(g, &p, i, vs);
        if (i == p.current) gfx_frame(g, p.cells[i], gfx_px(g, 2), t->accent);
        if (p.ops[i] && i + 1 < p.n) {  // the sign between two panels, level with the cells
            bool wraps = (i + 1) % p.cols == 0;  // the next panel starts a row: the sign ends this one
            if (wraps && p.kv) continue;          // step t under step t − 1 needs no arrow
            int k = wraps ? i : i + 1;
            HeatLayout L = heat_layout(g, p.inner[k], vs, p.steps[k], true, shows_row_labels(&p, k), shows_bar(&p, k));
            int px = vs->font_px * 3 / 2, right = p.cells[i].x + p.cells[i].w;
            int x = wraps ? right + gfx_px(g, 14) : (right + p.cells[i + 1].x) / 2;
            if (x + gfx_text_width(g, p.ops[i], px) / 2 > area.x + area.w) continue;  // a wrapped row with no room after it
            gfx_text(g, x, L.grid.y + L.grid.h / 2 - gfx_line_height(g, px) / 2, p.ops[i], px, t->text_dim, GFX_CENTER);
        }
    }
    if (p.legend.h) draw_legend(g, &p, vs);
}

bool panels_hit(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s, int x, int y, int *row, int *col) {
    Panels p;
    plan_panels(g, area, vs, s, &p);
    bool hit = false;
    if (p.no_average) return false;
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
    return hit;
}

bool panels_cell_size(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s, int *w, int *h) {
    Panels p;
    plan_panels(g, area, vs, s, &p);
    if (p.no_average || p.lines) return false;
    int i = p.current >= 0 ? p.current : 0;
    HeatLayout L = heat_layout(g, p.inner[i], vs, p.steps[i], p.titles[i][0] != '\0', shows_row_labels(&p, i), shows_bar(&p, i));
    *w = L.cell_w;
    *h = L.cell_h;
    return true;
}
