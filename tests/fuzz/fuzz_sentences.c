// libFuzzer harness: the sentence-list reader (--sentences FILE), from memory
// and from a file, and every sentence it returns through the tokenizer.
#include <assert.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_file.h"
#include "sentences.h"
#include "vocab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    Error err;
    SentenceList *l = sl_parse("fuzz", (const char *)data, size, &err);
    sl_free(l);
    l = sl_load(fz_write_file(data, size), &err);
    if (l) {
        int prev = 0;
        for (int i = 0; i < sl_count(l); i++) {
            assert(sl_line(l, i) > prev);
            prev = sl_line(l, i);
            assert(strlen(sl_get(l, i)) > 0);
        }
        sl_free(l);
    }
    return 0;
}
