// The translate subcommand: a sentence's output tokens on one line.
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "kvcache.h"
#include "twin.h"

typedef struct {
    const char *src, *target, *model, *compare;
    bool kv_cache;
    DecodeOptions dec;
} TranslateArgs;

// "1,672,384": digits in groups of three, for counts a reader compares.
static const char *grouped(uint64_t n, char *buf, size_t size) {
    char digits[24];
    int len = snprintf(digits, sizeof digits, "%llu", (unsigned long long)n), o = 0;
    for (int i = 0; i < len && (size_t)o + 2 < size; i++) {
        if (i && (len - i) % 3 == 0) buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

// What a KV cache saves on this translation and on the paper's base model of the same lengths.
static void print_kv_cost(const Trace *t, const Config *c) {
    Config paper = kv_paper_config();
    const Config *models[2] = {c, &paper};
    int src = trace_source_length(t), steps = trace_decoding_steps(t);
    printf("multiply-adds of %d decoding step%s from a %d-token source%s:\n", steps, steps == 1 ? "" : "s", src,
           trace_options(t)->mode == DECODE_BEAM ? ", for one hypothesis of the beam" : "");
    for (int i = 0; i < 2; i++) {
        KvCost k = kv_cost(models[i], src, steps);
        char with[32], without[32];
        printf("  %-24s %13s with a KV cache, %13s without (%.1fx)\n", i ? "the paper's base model:" : "this model:",
               grouped(k.with_cache, with, sizeof with), grouped(k.without_cache, without, sizeof without),
               (double)k.without_cache / (double)(k.with_cache ? k.with_cache : 1));
    }
}

// Two models on the sentence: each one's loss on the first's output, and the second's own output.
static void print_compare(const Trace *t, const Twin *tw) {
    const Model *models[2] = {trace_model(t), tw->other};
    const Trace *own[2] = {t, tw->own};
    printf("beside %s, %s:\n", tw->other->name, tw->same_target ? "both teacher-forced on that output" : "each teacher-forced on its own output");
    int width = (int)strlen(models[0]->name) > (int)strlen(models[1]->name) ? (int)strlen(models[0]->name) : (int)strlen(models[1]->name);
    for (int i = 0; i < 2; i++) {
        int n;
        const int *ids = trace_output(own[i], &n);
        printf("  %-*s  mean loss %.3f   its own output:", width, models[i]->name, (double)trace_mean_loss(tw->forced[i]));
        for (int k = 0; k < n; k++) printf(" %s", voc_token(models[i]->tgt, ids[k]));
        putchar('\n');
    }
}

int cmd_translate(const CliArgs *cl) {
    TranslateArgs a = {.dec = cli_decode_options(cl)};
    cli_take(cl, "--src", &a.src);
    cli_take(cl, "--target", &a.target);
    cli_take(cl, "--model", &a.model);
    cli_take(cl, "--kv-cache", &a.kv_cache);
    cli_take(cl, "--compare", &a.compare);
    if (!a.src) return cli_usage_error("%s needs --src TEXT", cl->cmd);
    if (a.target) return cli_usage_error("--target is for %s", "trace");
    CliRun r;
    Twin tw = {0};
    char other[4096];
    Error err;
    int rc = cli_run(&r, a.model, cli_snapshot(cl), a.src, NULL, &a.dec);
    // the comparison is worked out before anything is printed: a model it cannot use prints nothing but why
    if (!rc && a.compare && twin_run(&tw, r.trace, cli_model_file(a.compare, other, sizeof other), NULL, 0, &err)) rc = cli_fail(err.msg);
    if (!rc) {
        int n;
        const int *ids = trace_output(r.trace, &n);
        for (int i = 0; i < n; i++) printf("%s%s", i ? " " : "", voc_token(r.model->tgt, ids[i]));
        putchar('\n');
        if (a.kv_cache) print_kv_cost(r.trace, &r.model->cfg);
        if (a.compare) print_compare(r.trace, &tw);
        rc = fflush(stdout) || ferror(stdout) ? cli_fail("writing the output to standard output failed") : 0;
    }
    twin_deinit(&tw);
    cli_run_deinit(&r);
    return rc;
}
