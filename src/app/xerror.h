// Xlib's error handler for the window, where SDL draws through X11. Xlib's
// own ends the process on any error; one is harmless: SDL's wakeup event
// (X_SendEvent) to a window that has just gone, which a window closed right
// after another on the same display can meet (BadWindow, on SDL's second
// connection). That one is let pass; any other still ends the program, saying
// what it was. Kept apart from window.c: Xlib's type names (Window, Screen,
// Colormap) are the program's own there.
#ifndef TT_XERROR_H
#define TT_XERROR_H

// Installs the handler (nothing without X11). Call before SDL_Init, so that
// SDL keeps it as the handler it falls back on and puts it back when it quits.
void xerr_install(void);

#endif
