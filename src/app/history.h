// The training history page (H in the window; docs/TRACE.md, "Attention
// learning"): the stage shown, of the same sentence, through the model at
// each snapshot of its training (snapshots.h), from untrained to trained;
// the loss curve with the snapshot's point marked, and the output at that
// point. ← → go through the snapshots, Space plays them, a click on the
// curve or a step chooses one.
#ifndef TT_HISTORY_H
#define TT_HISTORY_H

#include <SDL.h>
#include <stdbool.h>

#include "gfx.h"
#include "snapshots.h"
#include "trace.h"
#include "view.h"

typedef struct {
    bool ready;
    // the snapshots and their models, kept while the model stays the same:
    // a new sentence runs only the traces again
    Snapshots *snaps;
    const Model *snaps_of;            // the model they are the history of
    char snaps_path[4096];
    int n_models;
    Model *models[SNAP_MAX];
    int n, at;                        // snapshots traced, and the one shown
    Trace *forced[SNAP_MAX];          // each teacher-forced on the trace's output (or its target)
    Trace *own[SNAP_MAX];             // each one's own output, decoded as the trace was
    ViewData *data[SNAP_MAX];
    int *target;                      // what they are forced on (a copy: the trace may go first)
    bool playing;
    Uint32 last_tick;
    SDL_Rect chips[SNAP_MAX], curve;  // where the last frame drew them, for clicks
    char why[sizeof(Error)];
    // in a web page, a history downloaded when first shown (app_file_arrived):
    char fetch_path[4096];            // the file awaited or that could not come, or ""
    bool fetching, fetch_failed;
    int fetched_percent;              // while it comes
    int fetch_status;                 // when it failed: its HTTP status, 0 for no connection
} HistData;

// Works the history out for trace t of the model in model_path (its file of
// snapshots beside it); keeps the snapshot shown when it can, and the
// snapshots' models when the model is the same.
void hist_update(HistData *h, const char *model_path, const Trace *t);
void hist_clear(HistData *h);
// A key or a click on the page: true when it took it.
bool hist_event(HistData *h, const SDL_Event *e);
// Playing: moves to the next snapshot when it is time; true when it moved.
bool hist_tick(HistData *h, Uint32 now);
// Milliseconds to the next move while playing, or -1.
int hist_next_tick(const HistData *h, Uint32 now);
void hist_draw(Gfx *g, SDL_Rect area, const ViewState *vs, HistData *h);

#endif
