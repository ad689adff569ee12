// Moving through a trace by the stage table: Shift+arrows' stops, and the
// same stage at another layer or head. Plain functions of the trace.
#ifndef TT_NAV_H
#define TT_NAV_H

#include "trace.h"

// From step, the nearest step that way (dir 1 or −1) whose stage is a stop
// (stage.h): head-less stops, and per-head ones of head only; the last or
// first step when there is none.
int nav_stop(const Trace *t, int step, int head, int dir);
// The step of step's stage and decoding step at layer and head, or -1.
int nav_same_stage(const Trace *t, int step, int layer, int head);

#endif
