// Views: each kind of trace step drawn into a rectangle of the canvas. The
// views read the trace and compute nothing of the model themselves.
#ifndef TT_VIEW_H
#define TT_VIEW_H

#include <stdbool.h>

#include "gfx.h"
#include "i18n.h"
#include "model.h"
#include "theme.h"
#include "trace.h"

// Which composite views are on (keys m, g, v, a in the window). All false,
// as a zeroed struct, is the default.
typedef struct {
    bool no_side_by_side;   // m: decoder self-attention steps alone, not beside mask, scores, masked scores, weights
    bool heads_grid;        // g: attention weights of every head of the layer, and their average
    bool lines;             // v: attention weights as lines between the tokens
    bool no_gold;           // a: hide the gold alignment over cross-attention
    bool hide_shape;        // lessons: a question is open, and the page's shape line would answer it
    int n_highlight;        // lessons: cells outlined in heatmaps
    struct {
        int row, col;       // from 1; 0 = the whole row or column
    } highlight[16];
} ViewOptions;

typedef struct {
    const Model *model;
    const Trace *trace;
    int step;               // index of the step shown
    const Theme *theme;
    Colormap cmap;
    int hover_row, hover_col;  // the cell under the mouse, or -1
    int font_px;            // label size, already scaled
    ViewOptions opt;
    Lang lang;              // of the words drawn inside the view
} ViewState;

// Draws the step vs->step into area: as one view, or with the options as
// several panels side by side or in a grid.
void view_draw(Gfx *g, SDL_Rect area, const ViewState *vs);

// The matrix cell at canvas point (x, y) of the view drawn in area, if any:
// in a composite view, the same cell of the panel under the point; in a line
// view, the line under the point or a token's strongest line.
bool view_hit(Gfx *g, SDL_Rect area, const ViewState *vs, int x, int y, int *row, int *col);

// The view switches that change how step vs->step is shown (keys G, V, M, A).
typedef struct {
    bool heads_grid, lines;     // attention weights
    bool side_by_side;          // the decoder's masking steps
    bool gold;                  // cross-attention weights with a gold alignment in the corpus
} ViewSwitches;
ViewSwitches view_switches(const ViewState *vs);

// Draws one step as a heatmap (used by composite views too): title above it
// when title is not NULL.
void view_heatmap(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s, const char *title);

#endif
