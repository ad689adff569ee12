// Saving canvases as PNG files, atomically (temporary file, then rename).
#ifndef TT_IMAGE_H
#define TT_IMAGE_H

#include "error.h"
#include "gfx.h"

// Writes 0xAARRGGBB pixels as an 8-bit RGB PNG.
int img_save_png(const char *path, const GfxPixels *s, Error *err);

#endif
