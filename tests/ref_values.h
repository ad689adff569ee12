// Reading the PyTorch reference files (tests/reference/): a nested JSON
// array of numbers flattened in row-major order. For the test programs that
// compare a trace with them; include after cmocka.h and json.h.
#ifndef TT_REF_VALUES_H
#define TT_REF_VALUES_H

// Flattens a nested JSON array of numbers into out (cap of them); returns the count.
static size_t ref_flatten(const Json *j, double *out, size_t cap) {
    if (j->type == JSON_NUMBER) {
        if (cap < 1) fail_msg("reference array larger than expected");
        out[0] = j->number;
        return 1;
    }
    if (j->type != JSON_ARRAY) fail_msg("reference value is not a number or an array");
    size_t n = 0;
    for (size_t i = 0; i < j->count; i++) n += ref_flatten(&j->items[i], out + n, cap - n);
    return n;
}

#endif
