// Saving canvases as PNG files, atomically (temporary file, then rename).
#ifndef TT_IMAGE_H
#define TT_IMAGE_H

#include <SDL.h>

#include "error.h"

// Writes an ARGB8888 surface as an 8-bit RGB PNG.
int img_save_png(const char *path, SDL_Surface *s, Error *err);

#endif
