// The bounds of every decoding and step setting, in one table: the command
// line's options and a lesson's keys are checked by the same function, so a
// value one accepts the other accepts too, and decoding never meets a value
// it cannot run (a temperature of 1e-40 overflows every logit).
#ifndef TT_SETTINGS_H
#define TT_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

typedef enum {
    SETTING_BEAM,           // beam width
    SETTING_TEMPERATURE,    // sampling temperature
    SETTING_TOP_K,          // sampling: the k most likely tokens; 0 = all
    SETTING_TOP_P,          // sampling: nucleus mass
    SETTING_MAX_STEPS,      // most output tokens
    SETTING_STEP,           // a decoding step, from 1; 0 = where none applies
    SETTING_HEAD,           // an attention head, from 1; 0 = where none applies
    SETTING_LAYER,          // a layer (of a stage id), or the number of layers
    SETTING_COUNT
} Setting;

// The setting's name as a lesson's key ("top-k"); the option is "--" and it.
const char *setting_name(Setting s);

// Parses text as setting s: a whole number or a finite number, within the
// setting's bounds. Returns 0 and sets *out, or -1 with why saying what the
// setting takes, e.g. "takes a number from 0.01 to 100, got \"1e-40\"" (the
// caller puts the option's or key's name in front).
int setting_parse(Setting s, const char *text, double *out, char *why, size_t size);

// Whether v, as stored, is within setting s's bounds (the same test as setting_parse).
bool setting_in_bounds(Setting s, double v);

#endif
