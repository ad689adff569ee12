// The desktop window: an SDL event loop around App. It sleeps until an event
// or a playback tick is due, so an idle window uses no CPU.
#ifndef TT_WINDOW_H
#define TT_WINDOW_H

#include "app.h"

// Opens the window and runs until it is closed. Returns the exit status.
//
// With o->script, the window runs a script of events and checks instead of
// waiting for a person (window_script.h lists the forms of its lines).
int window_run(const AppOptions *o);

// The type size a screen this many pixels tall gets by default: 1 up to 840,
// in proportion above, so that at 1080 the smallest labels are 18 px (1.29).
float window_display_fit(int display_height);
// Draws on s (a window's framebuffer) from now on: 0, or -1 for a pixel
// format the drawing does not write (only ARGB8888 and RGB888), the
// canvas then unchanged.
int window_draw_on(Gfx *g, SDL_Surface *s);

// The size the window opens at on a screen whose usable area (without
// panels and docks) is usable_w × usable_h: nine tenths of it, never more,
// so it fits any screen; w and h stay as they are when the area is unknown.
void window_initial_size(int usable_w, int usable_h, int *w, int *h);

#endif
