// libFuzzer harness: typed text, as the text box and --src pass it on — the
// UTF-8 check, the tokenizer with both of the shipped model's vocabularies
// (English words; unsegmented Chinese by longest match), then a trace when
// the sentence fits the model.
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_file.h"
#include "model.h"
#include "trace.h"
#include "vocab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static Model *model;

static const Model *shipped_model(void) {
    if (!model) {
        char path[4096];
        snprintf(path, sizeof path, "%s/models/en-zh.safetensors", fz_assets());
        Error err;
        model = mdl_load(path, &err);
        if (!model) {
            fprintf(stderr, "fuzz_tokenize: %s (set TT_FUZZ_ASSETS to the assets folder)\n", err.msg);
            abort();
        }
    }
    return model;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const Model *m = shipped_model();
    char *text = fz_strndup(data, size);
    (void)voc_utf8_invalid_at((const char *)data, (long)size);
    Error err;
    Tokens tok;
    if (voc_tokenize(m->tgt, text, &tok, &err) == 0) voc_tokens_deinit(&tok);
    if (voc_tokenize(m->src, text, &tok, &err) == 0) {
        if (tok.n <= m->cfg.max_len && tok.n_unknown < tok.n) {
            DecodeOptions opt = {.mode = DECODE_GREEDY, .max_steps = 2};
            trace_free(trace_run(m, tok.ids, tok.n, &opt, &err));
        }
        voc_tokens_deinit(&tok);
    }
    free(text);
    return 0;
}
