// What the view files share: the layout helpers, the lookups of related
// steps, and each family's entry points for the table in view.c. Not for
// callers outside the views.
#ifndef TT_VIEW_PRIVATE_H
#define TT_VIEW_PRIVATE_H

#include "view.h"

// ---- shared (view.c) ----

Color view_with_alpha(Color c, float a);
// A value as a cell shows it: "−∞", "123", "12.3" or "1.23".
void view_format_value(char *buf, size_t size, float v);
// Widens [*lo, *hi] to step s's finite values.
void view_grow_range(const Step *s, float *lo, float *hi);
// The step of this stage, layer, head and decoding step, or NULL.
const Step *view_find_step(const Trace *tr, const StageInfo *stage, int layer, int head, int dstep);
// The first step of this kind at decoding step dstep, or NULL.
const Step *view_find_kind(const Trace *tr, StageKind kind, int dstep);
// The token a decoder row produces: the choice made at decoding step r + 1,
// or in teacher forcing the target word r. NULL when not known (beam search).
const char *view_produced(const Trace *tr, const Step *s, int r);
// Whether a lesson outlines row r (from 0) of the step: a cell of it, or all of it.
bool view_row_highlighted(const ViewState *vs, int r);
// A lesson's outline around a row of bars or of a table.
void view_outline_row(Gfx *g, const ViewState *vs, SDL_Rect r);
void view_draw_ring(Gfx *g, float cx, float cy, float radius, float width, Color c);
void view_draw_dashed(Gfx *g, float x0, float y0, float x1, float y1, float width, float dash, Color c);
// A view that cannot be drawn says why (id), in the view's language, at the top of area.
void view_say(Gfx *g, SDL_Rect area, const ViewState *vs, StringId id);
// Steps whose rows are queries: attention weights, scores and the mask over them.
bool view_query_rows(const Step *s);

// ---- the gold alignment over cross-attention (view.c) ----

// The gold link k as a cell of s: row j produces the corpus target's token j
// and column i is source token i. False when s does not show that link.
bool view_gold_cell(const ViewState *vs, const Step *s, const CorpusPair *gold, int k, int *row, int *col);
// Whether s can show a gold alignment: cross-attention weights.
bool view_gold_step(const Step *s);
// The gold alignment to draw over s, if it marks any cell; NULL when hidden.
const CorpusPair *view_gold_for(const ViewState *vs, const Step *s, const char **file);

// ---- heatmaps (view_heatmap.c) ----

// Where a heatmap's parts go, worked out once for drawing and hit testing.
typedef struct {
    SDL_Rect grid;          // the cells
    int cell_w, cell_h;
    int label_x;            // right edge of the row labels
    int title_y, col_label_y;
    int col_label_up;       // > 0: the column labels read upwards, in a band this tall
    bool col_label_some;    // columns too narrow for every label: only those worth naming
    SDL_Rect bar;           // the colour bar
    SDL_Rect norms;         // per-row norm bars (w 0: none)
    int right;              // right edge of all that is drawn
    int small_px;
    bool values;            // numbers fit in the cells
    int value_px;           // their size: larger in larger cells
    float lo, hi;           // the colour scale
    bool diverging;         // signed values: a map centred on 0, lo = −hi
} HeatLayout;

// A value's colour on L's scale.
Color heat_color(const ViewState *vs, const HeatLayout *L, float v);
// Whether s's gold alignment is drawn as rings (every marked cell has room
// for one round its number) or as frames along the cells' edges.
bool heat_gold_rings(Gfx *g, const HeatLayout *L, const ViewState *vs, const Step *s, const CorpusPair *gold);

// row_labels false: the panel to the left shows them; bar false: no colour
// bar (a panel of a grid that shares one), its room given to the cells.
HeatLayout heat_layout(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s, bool has_title, bool row_labels, bool bar);
void heat_draw(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s, const char *title, bool row_labels, bool bar,
               const CorpusPair *gold);
// The room the row labels take, the gap after them included.
int heat_row_labels_width(Gfx *g, const ViewState *vs, const Step *s);
// The colour bar's width with its numbers.
int heat_colorbar_width(Gfx *g, const ViewState *vs);

// ---- attention as lines between tokens (view_lines.c) ----

// Fainter links are left out: they are noise and hide the ones that matter.
#define LINE_MIN_WEIGHT 0.02f

void lines_draw(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s, const char *title, const CorpusPair *gold);
// A token gives its strongest line; between the columns, the nearest line drawn.
bool lines_hit(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s, bool has_title, int x, int y, int *row, int *col);

// ---- panels: one step, or several side by side or in a grid (view_panels.c) ----

void panels_draw(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s);
bool panels_hit(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s, int x, int y, int *row, int *col);
// The size of a cell of the step's own heatmap panel; false when it is not drawn as one.
bool panels_cell_size(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s, int *w, int *h);
// The switches that apply to s (ViewSwitches without the gold).
bool panels_heads_grid(const Step *s);
bool panels_side_by_side(const Step *s);
bool panels_kv_cache(const ViewState *vs, const Step *s);

// ---- bars and choices (view_bars.c) ----

void bar_view_tokens(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s);
void bar_view_probs(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s);
void bar_view_top_k(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s);
void bar_view_choice(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s);
void bar_view_loss(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s);

// ---- beam search: the tree and the table (view_beam.c) ----

void beam_draw(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s);

#endif
