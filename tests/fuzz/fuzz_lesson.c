// libFuzzer harness: the lesson parser (docs/LESSONS.md), each step's
// settings, and binding every step to a trace of the shipped model.
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_file.h"
#include "lesson.h"
#include "model.h"
#include "trace.h"
#include "vocab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static Model *model;
static Trace *trace;

// One trace of the shipped model for the binding, made once.
static void setup(void) {
    if (trace) return;
    char path[4096];
    snprintf(path, sizeof path, "%s/models/en-zh.safetensors", fz_assets());
    Error err;
    model = mdl_load(path, &err);
    Tokens tok;
    if (!model || voc_tokenize(model->src, "the cat sits on the mat .", &tok, &err)) {
        fprintf(stderr, "fuzz_lesson: %s (set TT_FUZZ_ASSETS to the assets folder)\n", err.msg);
        abort();
    }
    DecodeOptions opt = {.mode = DECODE_GREEDY};
    trace = trace_run(model, tok.ids, tok.n, &opt, &err);
    voc_tokens_deinit(&tok);
    if (!trace) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    setup();
    LesProblems problems = {0};
    Lesson *l = les_parse((const char *)data, size, "fuzz.lesson", &problems);
    if (l) {
        char buf[4096], why[256];
        (void)les_model_path(l, l->model, "models", buf, sizeof buf);
        for (int i = 0; i < l->n_steps; i++) {
            LesRun r = les_run_for_step(l, i, NULL);
            LesRun o = les_run_for_step(l, i, "the cat");
            (void)les_run_equal(&r, &o);
            (void)les_bind(l, i, trace, why, sizeof why);
        }
        les_free(l);
    }
    les_problems_deinit(&problems);
    return 0;
}
