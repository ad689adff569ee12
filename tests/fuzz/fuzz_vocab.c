// libFuzzer harness: vocabularies, as a model file's metadata holds them (a
// JSON array of strings) and as a vocabulary file lists them (one a line,
// as init --src-vocab reads it).
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_file.h"
#include "vocab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fz_strndup(data, size);
    Error err;
    Vocab *v = voc_from_json(text, &err);
    if (v) {
        char *json = voc_to_json(v);
        free(json);
        voc_free(v);
    }
    // one token a line, blank lines skipped (src/main.c, read_vocab)
    const char **toks = malloc((size / 2 + 2) * sizeof *toks);
    if (!toks) abort();
    int n = 0;
    for (char *save = NULL, *line = strtok_r(text, "\r\n", &save); line; line = strtok_r(NULL, "\r\n", &save)) toks[n++] = line;
    v = voc_new(toks, n, &err);
    if (v) {
        Tokens tok;
        if (voc_tokenize(v, "the cat 我 愛", &tok, &err) == 0) voc_tokens_deinit(&tok);
        voc_free(v);
    }
    free(toks);
    free(text);
    return 0;
}
