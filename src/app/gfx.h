// Drawing onto pixels in memory. The window, the headless tests and the PNG
// export all draw through this one module, so all three show the same
// pixels; the window only shows the finished frame. It calls no SDL (only
// its rectangle type is used): the export runs without loading SDL.
#ifndef TT_GFX_H
#define TT_GFX_H

#include <SDL.h>
#include <stdbool.h>
#include <stdint.h>

#include "error.h"

// Colours are 0xAARRGGBB.
typedef uint32_t Color;

typedef struct Gfx Gfx;

enum { GFX_LEFT = 0, GFX_CENTER = 1, GFX_RIGHT = 2 };

// The font file the app uses, found at start: TRANSFORMER_TRACER_FONT, then
// Noto Sans CJK (Debian's fonts-noto-cjk), which covers Latin, Traditional
// and Simplified Chinese in one face. NULL with err set when none is found.
const char *gfx_find_font(Error *err);

// A w × h canvas at UI scale 1 (gfx_set_scale changes it: Ctrl +/−, HiDPI).
Gfx *gfx_new(int w, int h, const char *font_path, Error *err);
void gfx_free(Gfx *g);
// Resizes the canvas (contents are lost), back to a canvas of its own. Returns 0 or -1.
int gfx_resize(Gfx *g, int w, int h);
// The pixels drawn on: 0xAARRGGBB words (alpha may be padding), pitch in bytes.
typedef struct {
    void *pixels;
    int w, h, pitch;
} GfxPixels;
// Draws on the caller's pixels from now on, e.g. a window's framebuffer
// (ARGB8888 or RGB888), so that showing a frame copies nothing. The caller
// keeps them, and calls this again (or gfx_resize) when they go away.
// -1 for a size or pitch that cannot be; the canvas is then unchanged.
int gfx_use_pixels(Gfx *g, void *pixels, int w, int h, int pitch);
const GfxPixels *gfx_pixels(const Gfx *g);
int gfx_width(const Gfx *g);
int gfx_height(const Gfx *g);
void gfx_set_scale(Gfx *g, float scale);
float gfx_scale(const Gfx *g);
// A length in design pixels times the UI scale, rounded.
int gfx_px(const Gfx *g, float design_px);

// Restricts drawing to r (NULL: the whole canvas).
void gfx_clip(Gfx *g, const SDL_Rect *r);
// The rectangle drawing is restricted to now.
SDL_Rect gfx_get_clip(const Gfx *g);
// Where a and b overlap (as SDL_IntersectRect): false when they do not.
bool gfx_intersect(const SDL_Rect *a, const SDL_Rect *b, SDL_Rect *out);
// The smallest rectangle holding a and b (as SDL_UnionRect).
SDL_Rect gfx_union(SDL_Rect a, SDL_Rect b);
// whole true: text not wholly inside the clip rectangle is left out rather
// than cut (a scrolled column of lines shows no half lines).
void gfx_clip_whole_text(Gfx *g, bool whole);
void gfx_clear(Gfx *g, Color c);
// Fills r, blending by the colour's alpha.
void gfx_fill(Gfx *g, SDL_Rect r, Color c);
// A rectangle's outline, t pixels thick, inside r.
void gfx_frame(Gfx *g, SDL_Rect r, int t, Color c);
// Diagonal lines every spacing pixels across r (for masked cells).
void gfx_hatch(Gfx *g, SDL_Rect r, int spacing, Color c);
// An anti-aliased line of the given width.
void gfx_line(Gfx *g, float x0, float y0, float x1, float y1, float width, Color c);

// Text in UTF-8 at a pixel height (already scaled). y is the top of the line.
// Returns the width drawn. Text is cached, so redrawing the same label is cheap.
int gfx_text(Gfx *g, int x, int y, const char *utf8, int px, Color c, int align);
int gfx_text_width(Gfx *g, const char *utf8, int px);
// Line height for a pixel size.
int gfx_line_height(Gfx *g, int px);
// Draws text fitted into width w: cut with "…" when too long. Returns the width drawn.
int gfx_text_fit(Gfx *g, int x, int y, int w, const char *utf8, int px, Color c, int align);
// Draws a formula as the trace writes it, typeset: "x_ab" with ab lowered,
// "xᵀ" and "x^(…)" with T and … raised, "W₁" with 1 lowered, each smaller.
// Falls back to gfx_text_fit when it is wider than w. Returns the width drawn.
int gfx_math(Gfx *g, int x, int y, int w, const char *utf8, int px, Color c);
// The size at which utf8 fits in w: from design size `from` down a pixel at a
// time to `to` (then `to`, which may not fit: the caller cuts or wraps).
int gfx_px_to_fit(Gfx *g, const char *utf8, int w, int from, int to);
// The width gfx_math takes for utf8 with no limit (the plain text's when it is not typeset).
int gfx_math_width(Gfx *g, const char *utf8, int px);
// The same, keeping the end of the text: "…" replaces its start.
int gfx_text_fit_end(Gfx *g, int x, int y, int w, const char *utf8, int px, Color c, int align);
// Draws text turned a quarter left, reading upwards: the tops of its letters
// face x, its last letter ends at bottom, cut with "…" to at most len pixels.
// Returns the length drawn.
int gfx_text_up(Gfx *g, int x, int bottom, int len, const char *utf8, int px, Color c);
// Draws text wrapped into lines of width w: at spaces, and between CJK
// characters (not before closing punctuation); "\n" starts a paragraph.
// Returns the height used. With draw false it only measures.
int gfx_text_wrap(Gfx *g, int x, int y, int w, const char *utf8, int px, Color c, bool draw);
// The width of the widest unit gfx_text_wrap does not break: the narrowest
// width that wraps utf8 without cutting anything.
int gfx_text_widest_unit(Gfx *g, const char *utf8, int px);
// The same, each line typeset as gfx_math does (lesson narration: d_model, Kᵀ, W₁).
int gfx_math_wrap(Gfx *g, int x, int y, int w, const char *utf8, int px, Color c, bool draw);

// Where text went, for tests of the layout: while recording, every text drawn
// (gfx_text and the functions built on it) adds a mark, up to max.
typedef struct {
    SDL_Rect r;         // the text's box on the canvas (turned text: its turned box)
    int px;             // its size
    bool cut;           // shortened with "…" to fit
    bool clipped;       // not wholly inside the clip rectangle or the canvas: part of it not shown
    bool sub;           // a formula's raised or lowered part, smaller by design
    bool turned;        // read upwards (gfx_text_up): its line's height runs across r.w
    char text[48];      // what was drawn, its first 47 bytes at most (whole characters), for messages
} GfxTextMark;
// Starts recording into marks (NULL: stops); *n counts the marks made.
void gfx_record_text(Gfx *g, GfxTextMark *marks, int max, int *n);

#endif
