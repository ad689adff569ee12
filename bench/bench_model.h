// The paper-size model the benchmarks build in memory: d_model 512, 8 heads,
// 6+6 layers, d_ff 2048, random weights, generated vocabularies.
#ifndef TT_BENCH_MODEL_H
#define TT_BENCH_MODEL_H

#include <stdio.h>
#include <stdlib.h>

#include "model.h"
#include "vocab.h"

// A vocabulary of n tokens: the four specials, then w0004, w0005, …
static inline Vocab *generated_vocab(int n, Error *err) {
    char (*words)[16] = malloc((size_t)n * sizeof *words);
    const char **toks = malloc((size_t)n * sizeof *toks);
    Vocab *v = NULL;
    if (!words || !toks) {
        err_set(err, "out of memory");
        goto done;
    }
    static const char *const specials[] = {VOC_PAD, VOC_BOS, VOC_EOS, VOC_UNK};
    for (int i = 0; i < n; i++) {
        snprintf(words[i], sizeof words[i], "w%04d", i);
        toks[i] = i < 4 ? specials[i] : words[i];
    }
    v = voc_new(toks, n, err);
done:
    free(words);
    free(toks);
    return v;
}

// The paper-size model with vocab tokens each side and room for max_len
// positions, weights from seed 1; NULL after printing why.
static inline Model *paper_model(int vocab, int max_len) {
    Config cfg = {.d_model = 512, .nhead = 8, .n_enc = 6, .n_dec = 6, .d_ff = 2048, .eps = 1e-5f, .max_len = max_len};
    Error err;
    Vocab *src = generated_vocab(vocab, &err);
    Vocab *tgt = src ? generated_vocab(vocab, &err) : NULL;
    if (!src || !tgt) {
        voc_free(src);
        fprintf(stderr, "bench: paper vocabulary: %s\n", err.msg);
        return NULL;
    }
    Model *m = mdl_new(&cfg, src, tgt, &err);  // owns the vocabs, also on failure
    if (!m) {
        fprintf(stderr, "bench: paper model: %s\n", err.msg);
        return NULL;
    }
    mdl_init_random(m, 1);
    return m;
}

#endif
