// The window's status line: what the last action said, and whether it is a
// hint from typing (unknown words), which goes once they are fixed.
#ifndef TT_STATUS_H
#define TT_STATUS_H

#include <stdbool.h>

typedef struct {
    char text[1024];
    bool hint;  // set by typing: the text box clears it when the words are fixed
} StatusLine;

// Says something (a hint no more).
void status_set(StatusLine *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void status_clear(StatusLine *s);

#endif
