// Views: each kind of trace step drawn into a rectangle of the canvas. The
// views read the trace and compute nothing of the model themselves.
#ifndef TT_VIEW_H
#define TT_VIEW_H

#include <stdbool.h>

#include "gfx.h"
#include "model.h"
#include "theme.h"
#include "trace.h"

typedef struct {
    const Model *model;
    const Trace *trace;
    int step;               // index of the step shown
    const Theme *theme;
    Colormap cmap;
    int hover_row, hover_col;  // the cell under the mouse, or -1
    int font_px;            // label size, already scaled
} ViewState;

// Draws the step vs->step into area.
void view_draw(Gfx *g, SDL_Rect area, const ViewState *vs);

// The matrix cell at canvas point (x, y) of the view drawn in area, if any.
bool view_hit(Gfx *g, SDL_Rect area, const ViewState *vs, int x, int y, int *row, int *col);

// Draws one step as a heatmap (used by composite views too): title above it
// when title is not NULL.
void view_heatmap(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s, const char *title);

#endif
