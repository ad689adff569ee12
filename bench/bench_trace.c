// bench: how long building a whole trace takes, and how much memory it holds.
// Two cases, both a 12-token source and 12 greedy decoding steps (<eos>
// ignored, so the step count is fixed): the default toy model, and a
// paper-size model (d_model 512, 8 heads, 6+6 layers) with random weights.
// Figures and how to reproduce them: docs/PERFORMANCE.md.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "model.h"
#include "trace.h"
#include "tt_config.h"
#include "vocab.h"
#include "bench_clock.h"
#include "bench_model.h"

#define SENTENCE_TOKENS 12
#define DECODE_STEPS 12
#define TOY_SENTENCE "the big red cat sits on the small mat . i love"
#define PAPER_VOCAB 1000
#define DEFAULT_TOY_REPS 500
#define DEFAULT_PAPER_REPS 10

typedef struct {
    int reps;               // 0: the case's default
    const char *model;      // toy model file
    const char *only;       // "toy", "paper" or NULL for both
} Args;

// What one case measured.
typedef struct {
    const char *name;
    char shape[96];         // e.g. "E512 H8 6+6 F2048 V1000/1000"
    long params;
    int reps;
    double median_ms, min_ms, p90_ms;
    int steps;              // recorded steps (trace_count)
    int out_tokens;         // generated tokens
    int out_ids[DECODE_STEPS];
    size_t trace_bytes;
    long peak_rss_kb;       // peak RSS of the process so far
} Result;

static int by_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void describe(Result *r, const Model *m) {
    const Config *c = &m->cfg;
    snprintf(r->shape, sizeof r->shape, "E%d H%d %d+%d F%d V%d/%d", c->d_model, c->nhead, c->n_enc, c->n_dec, c->d_ff, c->src_vocab,
             c->tgt_vocab);
    r->params = m->n_params;
}

// Times trace_run on ids: warm-up runs, then reps timed runs (trace_free is
// not timed). Returns 0 or 1 with a message printed.
static int time_traces(Result *r, const Model *m, const int *ids, int n, int reps, int warmup) {
    DecodeOptions opt = {.mode = DECODE_GREEDY, .max_steps = DECODE_STEPS, .ignore_eos = true};
    double *ms = malloc((size_t)reps * sizeof *ms);
    if (!ms) {
        fprintf(stderr, "bench: out of memory\n");
        return 1;
    }
    Error err;
    for (int i = 0; i < warmup + reps; i++) {
        double t0 = now_ms();
        Trace *t = trace_run(m, ids, n, &opt, &err);
        double t1 = now_ms();
        if (!t) {
            fprintf(stderr, "bench: %s: trace_run: %s\n", r->name, err.msg);
            free(ms);
            return 1;
        }
        if (i >= warmup) ms[i - warmup] = t1 - t0;
        r->steps = trace_count(t);
        const int *out = trace_output(t, &r->out_tokens);
        for (int k = 0; k < r->out_tokens && k < DECODE_STEPS; k++) r->out_ids[k] = out[k];
        r->trace_bytes = trace_bytes(t);
        trace_free(t);
    }
    qsort(ms, (size_t)reps, sizeof *ms, by_double);
    r->reps = reps;
    r->min_ms = ms[0];
    r->median_ms = reps % 2 ? ms[reps / 2] : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
    int p90 = (9 * reps + 9) / 10 - 1;  // nearest rank: ceil(0.9 reps) - 1
    r->p90_ms = ms[p90];
    free(ms);
    r->peak_rss_kb = peak_rss_kb();
    if (r->out_tokens != DECODE_STEPS) {
        fprintf(stderr, "bench: %s: expected: %d output tokens, got: %d\n", r->name, DECODE_STEPS, r->out_tokens);
        return 1;
    }
    return 0;
}

static int run_toy(Result *r, const Args *a) {
    r->name = "toy";
    Error err;
    Model *m = mdl_load(a->model, &err);
    if (!m) {
        fprintf(stderr, "bench: %s\n", err.msg);
        return 1;
    }
    int rc = 1;
    Tokens tok = {0};
    if (voc_tokenize(m->src, TOY_SENTENCE, &tok, &err)) {
        fprintf(stderr, "bench: tokenizing \"%s\": %s\n", TOY_SENTENCE, err.msg);
        goto done;
    }
    if (tok.n != SENTENCE_TOKENS || tok.n_unknown) {
        fprintf(stderr, "bench: \"%s\" should be %d known tokens with %s; got %d tokens, %d unknown\n", TOY_SENTENCE, SENTENCE_TOKENS,
                a->model, tok.n, tok.n_unknown);
        goto done;
    }
    describe(r, m);
    int reps = a->reps > 0 ? a->reps : DEFAULT_TOY_REPS;
    rc = time_traces(r, m, tok.ids, tok.n, reps, reps < 20 ? 1 : 20);
done:
    voc_tokens_deinit(&tok);
    mdl_free(m);
    return rc;
}

static int run_paper(Result *r, const Args *a) {
    r->name = "paper";
    Model *m = paper_model(PAPER_VOCAB, 64);
    if (!m) return 1;
    int ids[SENTENCE_TOKENS];
    for (int i = 0; i < SENTENCE_TOKENS; i++) ids[i] = 4 + (i * 83) % (PAPER_VOCAB - 4);  // distinct ordinary words
    describe(r, m);
    int reps = a->reps > 0 ? a->reps : DEFAULT_PAPER_REPS;
    int rc = time_traces(r, m, ids, SENTENCE_TOKENS, reps, 1);
    mdl_free(m);
    return rc;
}

static void print_result(const Result *r) {
    printf("%-6s %-30s %10ld %5d %10.3f %10.3f %10.3f %6d %6d %11.2f %9.1f\n", r->name, r->shape, r->params, r->reps, r->median_ms,
           r->min_ms, r->p90_ms, r->steps, r->out_tokens, (double)r->trace_bytes / (1024.0 * 1024.0), (double)r->peak_rss_kb / 1024.0);
}

static void print_machine_line(const Result *r) {
    printf("bench: %s median_ms=%.4f min_ms=%.4f p90_ms=%.4f reps=%d steps=%d out_tokens=%d trace_bytes=%zu params=%ld peak_rss_kb=%ld\n",
           r->name, r->median_ms, r->min_ms, r->p90_ms, r->reps, r->steps, r->out_tokens, r->trace_bytes, r->params, r->peak_rss_kb);
    printf("bench: %s output ids", r->name);  // to compare with bench/torch_trace.py
    for (int i = 0; i < r->out_tokens; i++) printf(" %d", r->out_ids[i]);
    putchar('\n');
}

static int usage(const char *msg) {
    if (msg) fprintf(stderr, "bench: %s\n", msg);
    fprintf(stderr,
            "usage: bench [--reps N] [--model FILE] [--only toy|paper]\n"
            "  --reps N        timed repetitions of each case (default %d toy, %d paper)\n"
            "  --model FILE    the toy model (default %s/models/en-zh-random.safetensors)\n"
            "  --only CASE     run one case: toy or paper\n",
            DEFAULT_TOY_REPS, DEFAULT_PAPER_REPS, TT_SOURCE_ASSETS);
    return 2;
}

int main(int argc, char **argv) {
    Args a = {.model = TT_SOURCE_ASSETS "/models/en-zh-random.safetensors"};
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            usage(NULL);
            return 0;
        }
        if (strcmp(arg, "--reps") && strcmp(arg, "--model") && strcmp(arg, "--only")) return usage("unknown option");
        if (i + 1 >= argc) return usage("an option is missing its value");
        const char *val = argv[++i];
        if (!strcmp(arg, "--reps")) {
            char *end;
            long n = strtol(val, &end, 10);
            if (end == val || *end || n < 1 || n > 10000000) return usage("--reps takes a number from 1 to 10000000");
            a.reps = (int)n;
        } else if (!strcmp(arg, "--model")) {
            a.model = val;
        } else {
            if (strcmp(val, "toy") && strcmp(val, "paper")) return usage("--only takes toy or paper");
            a.only = val;
        }
    }
    printf("trace of a %d-token sentence, %d greedy decoding steps; wall time per trace_run\n", SENTENCE_TOKENS, DECODE_STEPS);
    printf("%-6s %-30s %10s %5s %10s %10s %10s %6s %6s %11s %9s\n", "case", "model", "params", "reps", "median ms", "min ms", "p90 ms",
           "steps", "tokens", "trace MiB", "RSS MiB");
    fflush(stdout);
    Result res[2];
    int n = 0;
    if (!a.only || !strcmp(a.only, "toy")) {
        res[n] = (Result){0};
        if (run_toy(&res[n], &a)) return 1;
        print_result(&res[n++]);
        fflush(stdout);
    }
    if (!a.only || !strcmp(a.only, "paper")) {
        res[n] = (Result){0};
        if (run_paper(&res[n], &a)) return 1;
        print_result(&res[n++]);
    }
    printf("peak RSS: %.1f MiB (RSS MiB above is the peak so far, after each case)\n", (double)peak_rss_kb() / 1024.0);
    for (int i = 0; i < n; i++) print_machine_line(&res[i]);
    return 0;
}
