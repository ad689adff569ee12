// What gfx.c and gfx_wrap.c share, and nothing else uses.
#ifndef TT_GFX_PRIVATE_H
#define TT_GFX_PRIVATE_H

#include <stdbool.h>

// Bytes of the UTF-8 character at s (1 for a broken one), and its code point.
int gfx_utf8_char(const char *s, unsigned *cp);
// Whether a code point is a wide (CJK) character: Chinese breaks between any two.
bool gfx_wide_char(unsigned cp);

#endif
