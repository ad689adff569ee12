// Errors are values: a function that can fail fills an Error and returns
// non-zero (or NULL). The message names the file, the place and the problem.
#ifndef TT_ERROR_H
#define TT_ERROR_H

#include <stddef.h>

typedef struct {
    char msg[512];
} Error;

// Sets the message (printf-style). err may be NULL. Always returns -1 so a
// caller can write `return err_set(err, "...")`.
int err_set(Error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

// Puts "prefix: " in front of the current message (e.g. the file name).
void err_prefix(Error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
