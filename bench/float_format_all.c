// Every float through json_format_float against printf's "%.9g": the check
// behind the trace's fast number writer (src/core/json.c). Takes about ten
// minutes a sign on one core; by hand, never as a test.
//     build/bench/float_format_all [negative]
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "json.h"

int main(int argc, char **argv) {
    uint64_t sign = argc > 1 && strcmp(argv[1], "negative") == 0 ? 0x80000000u : 0;
    uint64_t checked = 0, wrong = 0;
    for (uint64_t b = 0; b < 0x7f800000u; b++) {  // every finite float of the sign (NaN and the infinities are words)
        uint32_t bits = (uint32_t)(b | sign);
        float v;
        memcpy(&v, &bits, sizeof v);
        char ours[JSON_FLOAT_MAX], want[64];
        json_format_float(ours, v);
        snprintf(want, sizeof want, "%.9g", (double)v);
        checked++;
        if (strcmp(ours, want) != 0 && wrong++ < 20) printf("0x%08x: expected %s, got %s\n", bits, want, ours);
    }
    printf("%llu floats checked, %llu written differently from printf\n", (unsigned long long)checked, (unsigned long long)wrong);
    return wrong != 0;
}
