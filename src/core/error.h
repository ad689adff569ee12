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

// Quotes untrusted text (a value from a file or the command line) for a
// message: printable characters and valid UTF-8 that voc_forbidden_at allows
// are copied; a forbidden character is written U+XXXX and a byte that is not
// UTF-8 \xNN, so a message never holds a control character and stays one
// line. At most max_bytes of text are shown, then "…". Returns buf.
const char *err_quote(char *buf, size_t size, const char *text, size_t max_bytes);

// err_quote into a buffer that lasts to the end of the enclosing block, for
// an argument of err_set; max_bytes is a constant (one byte can take six).
#define ERR_QUOTE(text, max_bytes) err_quote((char[6 * (max_bytes) + 4]){0}, 6 * (max_bytes) + 4, (text), (max_bytes))

#endif
