#include "xerror.h"

#ifdef TT_HAVE_X11
#include <stdio.h>
#include <stdlib.h>

#include <X11/Xlib.h>
#include <X11/Xproto.h>

static int x_error(Display *d, XErrorEvent *e) {
    if (e->error_code == BadWindow && e->request_code == X_SendEvent) return 0;
    char text[160];
    XGetErrorText(d, e->error_code, text, sizeof text);
    fprintf(stderr, "transformer-tracer: X error: %s (request %d)\n", text, e->request_code);
    exit(1);
}

void xerr_install(void) { XSetErrorHandler(x_error); }
#else
void xerr_install(void) {}
#endif
