// The window's status line: what the last action said, and whether it is a
// hint from typing (unknown words), which goes once they are fixed.
#ifndef TT_STATUS_H
#define TT_STATUS_H

#include <stdbool.h>

#include "i18n.h"
#include "trace.h"

typedef struct {
    char text[1024];
    bool hint;  // set by typing: the text box clears it when the words are fixed
} StatusLine;

// Says something (a hint no more).
void status_set(StatusLine *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void status_clear(StatusLine *s);
// Adds to what it says, after three spaces.
void status_append(StatusLine *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
// What cell r, c of step holds, with its labels and its row's sum.
void status_cell(StatusLine *s, const Step *step, int r, int c, Lang lang);

#endif
