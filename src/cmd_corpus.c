// The corpus subcommand: writes a toy parallel corpus (toygen.h).
#include <stdio.h>

#include "cli.h"
#include "commands.h"
#include "toygen.h"

typedef struct {
    const char *pair, *out;
    uint64_t seed;
} CorpusArgs;

int cmd_corpus(const CliArgs *cl) {
    CorpusArgs a = {.seed = cli_seed(cl)};
    cli_take(cl, "--pair", &a.pair);
    cli_take(cl, "--out", &a.out);
    if (!a.pair || !a.out) return cli_usage_error("%s needs --pair en-zh|en-fr and --out DIR", "corpus");
    if (!tg_pair_known(a.pair)) return cli_usage_error("--pair takes en-zh or en-fr, got \"%s\"", a.pair);
    Error err;
    if (tg_generate(a.pair, a.seed, a.out, &err)) return cli_fail(err.msg);
    printf("wrote the %s corpus to %s\n", a.pair, a.out);
    return 0;
}
