#include "settings.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "error.h"

typedef struct {
    const char *name;
    bool whole;         // a whole number
    double lo, hi;
    bool lo_open;       // above lo, not lo itself
} Bounds;

static const Bounds bounds[SETTING_COUNT] = {
    [SETTING_BEAM] = {"beam", true, 1, 64, false},
    // below 0.01 the scaled logits overflow or sampling is greedy in all but name
    [SETTING_TEMPERATURE] = {"temperature", false, 0.01, 100, false},
    [SETTING_TOP_K] = {"top-k", true, 0, 1000000, false},
    [SETTING_TOP_P] = {"top-p", false, 0, 1, true},
    [SETTING_MAX_STEPS] = {"max-steps", true, 1, 4096, false},
    [SETTING_STEP] = {"step", true, 0, 4096, false},
    [SETTING_HEAD] = {"head", true, 0, 256, false},
    [SETTING_LAYER] = {"layer", true, 1, 64, false},
};

const char *setting_name(Setting s) { return s >= 0 && s < SETTING_COUNT ? bounds[s].name : "?"; }

bool setting_in_bounds(Setting s, double v) {
    const Bounds *b = &bounds[s];
    double lo = b->whole ? b->lo : (double)(float)b->lo, hi = b->whole ? b->hi : (double)(float)b->hi;
    return isfinite(v) && (b->lo_open ? v > lo : v >= lo) && v <= hi;
}

int setting_parse(Setting s, const char *text, double *out, char *why, size_t size) {
    const Bounds *b = &bounds[s];
    char *end;
    errno = 0;
    // the values are stored as int and float: check what will be stored
    double v = b->whole ? (double)strtol(text, &end, 10) : (double)(float)strtod(text, &end);
    bool in = end != text && !*end && !errno && setting_in_bounds(s, v);
    if (in) {
        *out = v;
        return 0;
    }
    if (b->whole)
        snprintf(why, size, "takes a whole number from %.0f to %.0f, got \"%s\"", b->lo, b->hi, ERR_QUOTE(text, 40));
    else
        snprintf(why, size, "takes a number %s %g %s %g, got \"%s\"", b->lo_open ? "above" : "from", b->lo, b->lo_open ? "and at most" : "to", b->hi,
                 ERR_QUOTE(text, 40));
    return -1;
}
