#include "status.h"

#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

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

void status_append(StatusLine *s, const char *fmt, ...) {
    size_t n = strlen(s->text);
    snprintf(s->text + n, sizeof s->text - n, "   ");
    n = strlen(s->text);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->text + n, sizeof s->text - n, fmt, ap);
    va_end(ap);
}

void status_cell(StatusLine *s, const Step *step, int r, int c, Lang lang) {
    double sum = 0.0;
    for (int k = 0; k < step->cols; k++) sum += isfinite(trace_row(step, r)[k]) ? trace_row(step, r)[k] : 0.0;
    char rl[64], cl[64];
    snprintf(rl, sizeof rl, "%s", step->row_labels ? step->row_labels[r] : "");
    snprintf(cl, sizeof cl, "%s", step->col_labels ? step->col_labels[c] : "");
    // numbered from 1, as the lessons count rows and columns
    status_set(s, i18n(lang, S_HOVER), r + 1, rl, c + 1, cl, (double)trace_row(step, r)[c], sum);
}
