// libFuzzer harness: the corpus and alignment reader, strict and with
// skip_bad, and a walk over every pair it returns.
#include <assert.h>
#include <stdint.h>
#include <string.h>

#include "corpus.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fz_write_file(data, size);
    for (int skip = 0; skip < 2; skip++) {
        Error err;
        Corpus *c = corpus_read(path, skip, &err);
        if (!c) continue;
        for (int i = 0; i < corpus_size(c); i++) {
            const CorpusPair *p = corpus_pair(c, i);
            size_t bytes = strlen(p->src_text) + strlen(p->tgt_text);
            for (int k = 0; k < p->n_src; k++) bytes += strlen(p->src[k]);
            for (int k = 0; k < p->n_tgt; k++) bytes += strlen(p->tgt[k]);
            for (int k = 0; k < p->n_links; k++)
                assert(p->links[k].src >= 0 && p->links[k].src < p->n_src && p->links[k].tgt >= 0 && p->links[k].tgt < p->n_tgt);
            (void)bytes;
        }
        (void)corpus_first_skip(c);
        corpus_free(c);
    }
    return 0;
}
