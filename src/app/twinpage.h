// The page of two models side by side (B in the window; docs/TRACE.md,
// "Experiments"): the stage shown, of the same sentence, through the model
// and a second one (by default its untrained twin), each with its output and
// its loss on the same target. Worked out when asked for (twp_update), drawn
// from what was worked out.
#ifndef TT_TWINPAGE_H
#define TT_TWINPAGE_H

#include <SDL.h>
#include <stdbool.h>

#include "gfx.h"
#include "trace.h"
#include "twin.h"
#include "view.h"

typedef struct {
    bool ready;                 // tw holds the comparison of the trace shown
    Twin tw;
    ViewData *data[2];          // of tw.forced[0] and [1]: the gold alignment, the heads' averages
    char why[sizeof(Error)];    // why nothing could be worked out
} TwpData;

// The second model by default: NAME-random.safetensors beside a model NAME,
// or NAME beside NAME-random; "" when there is none. Returns buf.
const char *twp_default_other(const char *model_path, char *buf, size_t size);
// Works the comparison out for trace t against the model in other_path ("": none).
void twp_update(TwpData *x, const Trace *t, const char *other_path);
void twp_clear(TwpData *x);
// The page in area, for the step vs->step of vs->trace.
void twp_draw(Gfx *g, SDL_Rect area, const ViewState *vs, const TwpData *x);

#endif
