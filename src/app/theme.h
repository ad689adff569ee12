// Colours: light and dark themes, and colour maps for heatmaps. The default
// map, viridis, reads in order of lightness and stays readable for the common
// kinds of colour blindness.
#ifndef TT_THEME_H
#define TT_THEME_H

#include <stdbool.h>

#include "gfx.h"

typedef enum { CMAP_VIRIDIS, CMAP_CIVIDIS, CMAP_MAGMA, CMAP_GREYS, CMAP_COUNT } Colormap;

// The map's colour at t in [0, 1] (clamped).
Color cmap_color(Colormap m, float t);
// The map for signed values: purple below 0, white at 0 (t = 0.5), orange
// above (ColorBrewer's PuOr, reversed: safe for the common colour blindness).
Color cmap_diverging(float t);
const char *cmap_name(Colormap m);

typedef struct {
    bool dark;
    Color background, panel, panel_edge;
    Color text, text_dim, accent, accent_text;
    Color masked;       // cells that are −∞ or masked out
    Color grid, hover, chosen, gold;
} Theme;

const Theme *theme_get(bool dark);
// Black or white, whichever reads better on background c.
Color theme_text_on(Color c);

#endif
