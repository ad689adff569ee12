#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int err_set(Error *err, const char *fmt, ...) {
    if (!err) return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return -1;
}

void err_prefix(Error *err, const char *fmt, ...) {
    if (!err) return;
    char head[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(head, sizeof head, fmt, ap);
    va_end(ap);
    // head, then ": ", then the old message, cut to fit
    size_t hl = strlen(head), ol = strnlen(err->msg, sizeof err->msg - 1), cap = sizeof err->msg - 1;
    if (hl + 2 > cap) hl = cap - 2;
    if (hl + 2 + ol > cap) ol = cap - hl - 2;
    memmove(err->msg + hl + 2, err->msg, ol);
    memcpy(err->msg, head, hl);
    memcpy(err->msg + hl, ": ", 2);
    err->msg[hl + 2 + ol] = '\0';
}
