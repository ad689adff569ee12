// The translate subcommand: a sentence's output tokens on one line.
#include <stdio.h>

#include "cli.h"
#include "commands.h"
#include "kvcache.h"

typedef struct {
    const char *src, *target, *model;
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

int cmd_translate(const CliArgs *cl) {
    TranslateArgs a = {.dec = cli_decode_options(cl)};
    cli_take(cl, "--src", &a.src);
    cli_take(cl, "--target", &a.target);
    cli_take(cl, "--model", &a.model);
    cli_take(cl, "--kv-cache", &a.kv_cache);
    if (!a.src) return cli_usage_error("%s needs --src TEXT", cl->cmd);
    if (a.target) return cli_usage_error("--target is for %s", "trace");
    CliRun r;
    int rc = cli_run(&r, a.model, a.src, NULL, &a.dec);
    if (!rc) {
        int n;
        const int *ids = trace_output(r.trace, &n);
        for (int i = 0; i < n; i++) printf("%s%s", i ? " " : "", voc_token(r.model->tgt, ids[i]));
        putchar('\n');
        if (a.kv_cache) print_kv_cost(r.trace, &r.model->cfg);
        rc = fflush(stdout) || ferror(stdout) ? cli_fail("writing the output to standard output failed") : 0;
    }
    cli_run_deinit(&r);
    return rc;
}
