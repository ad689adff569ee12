// Where the window's parts go, computed once per frame and used both to draw
// them and to find what a click is on; and the step page (title, view,
// formula) drawn in its rectangle, in the window and in an exported PNG.
#ifndef TT_LAYOUT_H
#define TT_LAYOUT_H

#include <SDL.h>
#include <stdbool.h>

#include "gfx.h"
#include "view.h"

// A step page: its title line, the view, the formula panel under it (one
// line taller with a lesson's code line), and a lesson's given matrix beside
// the view (w 0: none).
typedef struct {
    SDL_Rect title, view, given, formula;
} PageRects;

// What the top row holds, for measuring.
typedef struct {
    const char *settings_label;  // the settings button's
    const char *info;            // the model and the strategy
    const char *counter;         // the class list's "n/N", or NULL without a list
    bool lesson_panel;           // the lesson's narration takes the right side
    int lesson_strip;            // > 0: folded to a strip this wide
    const ViewOptions *view;     // a lesson's code line and given matrix change the page; NULL: neither
    int map_w;                   // the map of the model at the page's left (archmap.h); 0: none
    int map_strip_h;             // or > 0: as a strip this tall at the top of the lesson's narration
} FrameContent;

typedef struct {
    int px, small, lh, pad, box_h;  // the type sizes, line height, margin and top row's height
    // the top row: the sentence box, the class list's ◀ n/N ▶, the model and strategy, ? and the settings button
    SDL_Rect text_box, list_prev, counter, list_next, info, help_button, settings_button;
    int chips_y;                 // the row of layer and head chips, view switches and the step number
    SDL_Rect page, lesson_panel; // the step page, and the lesson's narration (w 0: none)
    SDL_Rect map;                // the map of the model (w 0: none)
    PageRects parts;             // inside page
    SDL_Rect play_button, timeline, status;
} Layout;

// The window's layout on g's canvas at its scale.
void lay_frame(Gfx *g, const FrameContent *c, Layout *out);
// The parts of a step page in area, with opt's code line and given matrix (opt may be NULL).
PageRects lay_page(Gfx *g, SDL_Rect area, const ViewOptions *opt);
// Title, the view and the formula panel for the step vs shows, in area.
// view (NULL: the page's own) is where the view is laid out: a zoomed view
// is larger than its place and shows through it, panned.
void lay_draw_page(Gfx *g, SDL_Rect area, const ViewState *vs, const SDL_Rect *view);

#endif
