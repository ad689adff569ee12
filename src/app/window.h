// The desktop window: an SDL event loop around App. It sleeps until an event
// or a playback tick is due, so an idle window uses no CPU.
#ifndef TT_WINDOW_H
#define TT_WINDOW_H

#include "app.h"

// Opens the window and runs until it is closed. Returns the exit status.
int window_run(const AppOptions *o);

#endif
