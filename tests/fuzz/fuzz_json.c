// libFuzzer harness: the strict JSON parser behind safetensors headers and
// vocabularies, with and without NaN/Infinity.
#include <stdint.h>
#include <string.h>

#include "json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    Error err;
    for (int nonfinite = 0; nonfinite < 2; nonfinite++) {
        Json *j = json_parse((const char *)data, size, nonfinite, &err);
        if (j) {
            (void)json_duplicate_key(j);
            (void)json_get(j, "__metadata__");
            (void)json_at(j, 0);
            json_free(j);
        }
    }
    return 0;
}
