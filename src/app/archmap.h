// The map of the model beside the step: the encoder and decoder stacks as in
// the paper's figure, their layers and sub-layers, the memory's arrow into
// every cross-attention. It is made from the stage table and the trace, so it
// is right for any number of layers and for whichever stages were recorded.
// The current box is highlighted, the decoding step and the token it produces
// are under it, and a click on a box goes to that box's value at the same
// decoding step and head.
#ifndef TT_ARCHMAP_H
#define TT_ARCHMAP_H

#include "gfx.h"
#include "i18n.h"
#include "theme.h"
#include "trace.h"

// How the map is drawn: full, with words, or small, without, at the page's
// left; as a strip of two rows (the encoder's boxes over the decoder's) at
// the top of a lesson's narration, so that the view keeps its width; or not.
// P cycles the first three; beside the narration, small is the strip.
typedef enum { AMAP_FULL, AMAP_SMALL, AMAP_HIDDEN, AMAP_STRIP } AmapMode;
enum { AMAP_CHOICES = 3 };

// The width the map takes at the page's left at g's scale (0: hidden, or the strip).
int amap_width(Gfx *g, AmapMode mode, Lang lang);
// The strip's height.
int amap_strip_height(Gfx *g);
// The map in area, with step's box highlighted.
void amap_draw(Gfx *g, SDL_Rect area, const Trace *t, int step, AmapMode mode, const Theme *th, Lang lang);
// The step a click at (x, y) goes to: the box's value at step's decoding
// step, at head for a value per head; -1 when the click is on no box.
int amap_click(Gfx *g, SDL_Rect area, const Trace *t, int step, int head, AmapMode mode, int x, int y);

#endif
