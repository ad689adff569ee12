// The experiment page (E in the window): what silencing heads changes. The
// output, the teacher-forced loss at each position and the alignment error
// rate without and with the silencing, side by side, and a table of every
// head silenced alone. Worked out when asked for (xp_update), drawn from
// what was worked out.
#ifndef TT_EXPERIMENT_H
#define TT_EXPERIMENT_H

#include <SDL.h>
#include <stdbool.h>

#include "gfx.h"
#include "trace.h"
#include "view.h"

typedef struct {
    bool ready;             // cmp holds the comparison of the trace shown
    TraceCompare cmp;
    char why[sizeof(Error)];  // why nothing could be worked out
} XpData;

// Works the comparison out for trace t of model m (loaded from model_path).
void xp_update(XpData *x, const Model *m, const char *model_path, const Trace *t);
void xp_clear(XpData *x);
// The page in area.
void xp_draw(Gfx *g, SDL_Rect area, const ViewState *vs, const XpData *x);
// The sub-layer a step belongs to, for silencing it or its head: false for a step of none.
bool xp_part_of(const Step *s, AblPart *part);

#endif
