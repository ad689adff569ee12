#include "status.h"

#include <stdarg.h>
#include <stdio.h>

void status_set(StatusLine *s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->text, sizeof s->text, fmt, ap);
    va_end(ap);
    s->hint = false;
}

void status_clear(StatusLine *s) {
    s->text[0] = '\0';
    s->hint = false;
}
