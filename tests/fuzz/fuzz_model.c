// libFuzzer harness: a model file through the safetensors reader (every
// tensor read), the model loader, and a short trace of the model it loads.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_file.h"
#include "model.h"
#include "safetensors.h"
#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fz_write_file(data, size);
    Error err;
    StFile *f = st_open(path, &err);
    if (f) {
        for (int i = 0; i < st_count(f); i++) {
            const StTensor *t = st_tensor_at(f, i);
            size_t numel = (t->end - t->begin) / 4;
            float *out = malloc(numel ? numel * sizeof *out : 1);
            if (!out) abort();
            (void)st_read_f32(f, t, out, &err);
            free(out);
        }
        (void)st_meta(f, "name");
        st_free(f);
    }
    Model *m = mdl_load(path, &err);
    if (m) {
        // a model that loads must also run: three source tokens, three steps
        int src[3];
        for (int i = 0; i < 3; i++) src[i] = i % m->cfg.src_vocab;
        DecodeOptions opt = {.mode = DECODE_GREEDY, .max_steps = 3};
        Trace *t = trace_run(m, src, m->cfg.max_len < 3 ? m->cfg.max_len : 3, &opt, &err);
        trace_free(t);
        mdl_free(m);
    }
    return 0;
}
