// The desktop window: an SDL event loop around App. It sleeps until an event
// or a playback tick is due, so an idle window uses no CPU.
#ifndef TT_WINDOW_H
#define TT_WINDOW_H

#include "app.h"

// Opens the window and runs until it is closed. Returns the exit status.
//
// With o->script, the window runs a script instead of waiting for a person:
// each line's events go through the real loop (SDL_PushEvent, then the usual
// event handling and drawing), checks run on the state after that, and the
// window closes at the end with status 1 if any check failed. Lines:
//   key [ctrl+][shift+][alt+]NAME [xN]   a key, NAME as SDL_GetKeyFromName reads it (Right, PageDown, F2, L, /, BackSpace)
//   text TEXT                            text from an input method (SDL_TEXTINPUT, in 31-byte events as SDL sends them)
//   type TEXT                            typed on a keyboard: each ASCII character's key press, then its text
//   paste TEXT                           TEXT put on the clipboard, then Ctrl+V
//   compose TEXT                         an input method's text being composed (SDL_TEXTEDITING)
//   click X Y / move X Y                 left click / mouse motion, in window coordinates
//   resize W H                           resizes the window
//   model FILE                           loads another model (app_set_model, as the settings panel does)
//   decode greedy|beam|sample            another decoding strategy (app_set_decode)
//   expect-step N                        the step index (0-based, as "index" in the trace JSON)
//   expect-stage ID / expect-head N      the step's stage id and head
//   expect-sentence TEXT                 the sentence the trace is of
//   expect-status-contains TEXT          the status line
//   expect-canvas W H                    the canvas size in pixels
//   export FILE.png                      saves the canvas as drawn
//   expect-png FILE.png W H              FILE.png decodes to W × H
//   quit                                 closes the window as the window manager would
// Blank lines and lines starting with # are skipped. TEXT is taken as written
// after one space; \xNN and \\ stand for a byte and a backslash.
// Prints "script: N passed, N failed", and FILE:LINE for each failure.
int window_run(const AppOptions *o);

// The type size a screen this many pixels tall gets by default: 1 up to 840,
// in proportion above, so that at 1080 the smallest labels are 18 px (1.29).
float window_display_fit(int display_height);

#endif
