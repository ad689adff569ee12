// Text through FreeType and HarfBuzz: one face of a font file, shaped and
// rasterised one line at a time. It places and draws glyphs as SDL_ttf 2.20
// does with its defaults (normal hinting, 72 dpi, left to right), so the
// pictures are those the program drew through SDL_ttf (the blending within 2
// levels of SDL's); it needs no SDL, so the PNG export does not load SDL and
// the ~55 libraries it brings.
#ifndef TT_FONT_H
#define TT_FONT_H

#include <stdbool.h>

#include "error.h"

typedef struct Font Font;

// A line of text's coverage: w × h bytes, 0 (none) to 255 (full).
typedef struct {
    int w, h;
    unsigned char *alpha;
} FontImage;

// Opens face `index` of the font file at path, at px pixels (the em size).
// The file stays open and is read a block at a time as glyphs are first
// needed: a Chinese collection is 20 MB of which a few glyphs are used.
Font *font_new(const char *path, long index, int px, Error *err);
void font_free(Font *f);
// Sets the size; 0, or -1 (the size is unchanged).
int font_set_px(Font *f, int px);
int font_px(const Font *f);
// Pixels from the top of a line to its baseline, and from line to line.
int font_ascent(const Font *f);
int font_line_skip(const Font *f);
// Whether the face has a glyph for Unicode code point cp.
bool font_has_char(Font *f, unsigned cp);
// The size of the image font_render makes of utf8. 0, or -1 when a glyph
// cannot be loaded or shaping has no memory.
int font_measure(Font *f, const char *utf8, int *w, int *h);
// utf8 drawn: out->alpha is allocated (the caller frees it). 0, or -1 for
// an empty line (no width), a glyph that cannot be loaded, or no memory.
int font_render(Font *f, const char *utf8, FontImage *out);

#endif
