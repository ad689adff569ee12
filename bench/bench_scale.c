// bench_scale: how a trace grows with the decoding steps on a paper-size
// model (d_model 512, 8 heads, 6+6 layers, d_ff 2048, random weights, built
// in memory): a 7-token source, greedy decoding with <eos> ignored, 12, 24,
// 48, 96 and 192 steps. For each: trace_run's wall time (median of the
// repetitions), the memory trace_estimate says in advance, the trace's
// bytes, the peak RSS of a process holding the model and that one trace,
// and the npz file's size and writing time (optionally the JSON's too).
// Each step count runs in a child process of its own, forked after the model
// is built, so that its peak RSS is its own. Figures: docs/PERFORMANCE.md.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_clock.h"
#include "bench_model.h"
#include "trace.h"

#define SOURCE_TOKENS 7
#define PAPER_VOCAB 40  // about the shipped vocabularies' size: the weights are then the 177 MB
#define MAX_LEN 256

static int by_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

// Writes the trace to a temporary file with write; returns its bytes and the time in *ms, or -1.
static long timed_write(const Trace *t, bool npz, double *ms) {
    FILE *fp = tmpfile();
    if (!fp) return -1;
    Error err;
    double t0 = now_ms();
    int rc = npz ? trace_write_npz(t, fp, NULL, &err) : trace_write_json(t, fp, NULL);
    rc |= fflush(fp);
    *ms = now_ms() - t0;
    long bytes = rc ? -1 : ftell(fp);
    fclose(fp);
    return bytes;
}

// One step count, in this (child) process; prints its row. 0 or 1.
static int run_case(const Model *m, const int *ids, int steps, int reps, bool json) {
    DecodeOptions opt = {.mode = DECODE_GREEDY, .max_steps = steps, .ignore_eos = true};
    Error err;
    size_t estimate;
    if (trace_estimate(m, SOURCE_TOKENS, &opt, &estimate, &err)) {
        fprintf(stderr, "bench_scale: %s\n", err.msg);
        return 1;
    }
    double ms[64];
    Trace *t = NULL;
    for (int i = 0; i < reps; i++) {
        trace_free(t);
        double t0 = now_ms();
        t = trace_run(m, ids, SOURCE_TOKENS, &opt, &err);
        ms[i] = now_ms() - t0;
        if (!t) {
            fprintf(stderr, "bench_scale: %d steps: %s\n", steps, err.msg);
            return 1;
        }
    }
    int out_n;
    trace_output(t, &out_n);
    if (out_n != steps) {
        fprintf(stderr, "bench_scale: %d steps: expected: %d output tokens, got: %d\n", steps, steps, out_n);
        trace_free(t);
        return 1;
    }
    qsort(ms, (size_t)reps, sizeof *ms, by_double);
    double median = reps % 2 ? ms[reps / 2] : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
    long rss_trace = peak_rss_kb();
    double npz_ms, json_ms = 0.0;
    long npz = timed_write(t, true, &npz_ms), js = json ? timed_write(t, false, &json_ms) : 0;
    printf("%5d %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f %9.1f %10.1f", steps, median, ms[0], ms[reps - 1], (double)estimate / 1e6,
           (double)trace_bytes(t) / 1e6, (double)rss_trace / 1e3, (double)peak_rss_kb() / 1e3, (double)npz / 1e6, npz_ms);
    if (json) printf(" %10.1f %10.0f", (double)js / 1e6, json_ms);
    printf("\n");
    fflush(stdout);
    trace_free(t);
    return npz < 0 || js < 0;
}

static int usage(const char *msg) {
    if (msg) fprintf(stderr, "bench_scale: %s\n", msg);
    fprintf(stderr,
            "usage: bench_scale [--reps N] [--steps N,N,...] [--json]\n"
            "  --reps N        timed trace_run calls per step count (default 5, at most 64)\n"
            "  --steps LIST    decoding steps (default 12,24,48,96,192; at most %d)\n"
            "  --json          also write the JSON (slow: gigabytes past 48 steps)\n",
            MAX_LEN);
    return 2;
}

int main(int argc, char **argv) {
    int reps = 5, steps[16] = {12, 24, 48, 96, 192}, n_steps = 5;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) {
            json = true;
            continue;
        }
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return usage(NULL), 0;
        if (i + 1 >= argc) return usage("an option is missing its value");
        const char *val = argv[++i];
        char *end;
        if (!strcmp(argv[i - 1], "--reps")) {
            long v = strtol(val, &end, 10);
            if (end == val || *end || v < 1 || v > 64) return usage("--reps takes 1 to 64");
            reps = (int)v;
        } else if (!strcmp(argv[i - 1], "--steps")) {
            n_steps = 0;
            for (const char *p = val; *p && n_steps < 16; p = *end == ',' ? end + 1 : end) {
                long v = strtol(p, &end, 10);
                if (end == p || (*end && *end != ',') || v < 1 || v > MAX_LEN) return usage("--steps takes numbers from 1 to 256, by commas");
                steps[n_steps++] = (int)v;
            }
            if (!n_steps) return usage("--steps is empty");
        } else {
            return usage("unknown option");
        }
    }
    double t0 = now_ms();
    Model *m = paper_model(PAPER_VOCAB, MAX_LEN);
    if (!m) return 1;
    int ids[SOURCE_TOKENS];
    for (int i = 0; i < SOURCE_TOKENS; i++) ids[i] = 4 + (i * 7) % (PAPER_VOCAB - 4);  // distinct ordinary words
    printf("paper-size model, %ld parameters (%.0f MB of weights), built in %.0f ms; process peak RSS with the model alone %.1f MB\n",
           m->n_params, (double)m->n_params * 4 / 1e6, now_ms() - t0, (double)peak_rss_kb() / 1e3);
    printf("a %d-token source, greedy, <eos> ignored; trace_run wall time over %d runs; MB = 10^6 bytes\n", SOURCE_TOKENS, reps);
    printf("%5s %10s %10s %10s %10s %10s %10s %10s %9s %10s%s\n", "steps", "median ms", "min ms", "max ms", "estimate", "trace MB",
           "RSS MB", "RSS+npz", "npz MB", "npz ms", json ? "    JSON MB    JSON ms" : "");
    fflush(stdout);
    int rc = 0;
    for (int k = 0; k < n_steps && !rc; k++) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("bench_scale: fork");
            rc = 1;
            break;
        }
        if (pid == 0) _exit(run_case(m, ids, steps[k], reps, json));
        int status;
        if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) rc = 1;
    }
    mdl_free(m);
    return rc;
}
