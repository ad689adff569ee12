// Window scripts (--script): a file of key presses, text and checks run
// through the real event loop, for tests. Each line's events go through the
// loop (SDL_PushEvent, then the usual event handling and drawing), checks run
// on the state after that, and the window closes at the end with status 1 if
// any check failed. Lines:
//   key [ctrl+][shift+][alt+]NAME [xN]   a key, NAME as SDL_GetKeyFromName reads it (Right, PageDown, F2, L, /, BackSpace)
//   text TEXT                            text from an input method (SDL_TEXTINPUT, in 31-byte events as SDL sends them)
//   type TEXT                            typed on a keyboard: each ASCII character's key press, then its text
//   paste TEXT                           TEXT put on the clipboard, then Ctrl+V
//   compose TEXT                         an input method's text being composed (SDL_TEXTEDITING)
//   click X Y / move X Y                 left click / mouse motion, in window coordinates
//   resize W H                           resizes the window
//   drop FILE                            FILE dragged onto the window (a lesson, or a sentence list)
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
#ifndef TT_WINDOW_SCRIPT_H
#define TT_WINDOW_SCRIPT_H

#include <SDL.h>
#include <stdbool.h>

#include "app.h"
#include "error.h"
#include "gfx.h"

typedef struct Script Script;

// Reads the script and checks every line's form, so a typo is found before
// the window opens ("FILE:LINE: ..." in err).
Script *script_load(const char *path, Error *err);
void script_free(Script *sc);

// Runs lines up to and including the next one that makes events, and pushes
// them, then an event of the script's own that ends the batch. Checks print
// FILE:LINE when they fail. Returns false when the script has ended.
bool script_step(Script *sc, App *a, SDL_Window *win, Gfx *g);

// Whether e is the event that ends a batch (sc may be NULL).
bool script_is_wake(const Script *sc, const SDL_Event *e);

// After the window closed: names the first line not run, prints
// "script: N passed, N failed", frees sc and returns the exit status.
int script_finish(Script *sc);

#endif
