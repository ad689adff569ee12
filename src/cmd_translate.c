// The translate subcommand: a sentence's output tokens on one line.
#include <stdio.h>

#include "cli.h"
#include "commands.h"

typedef struct {
    const char *src, *target, *model;
    DecodeOptions dec;
} TranslateArgs;

int cmd_translate(const CliArgs *cl) {
    TranslateArgs a = {.dec = cli_decode_options(cl)};
    cli_take(cl, "--src", &a.src);
    cli_take(cl, "--target", &a.target);
    cli_take(cl, "--model", &a.model);
    if (!a.src) return cli_usage_error("%s needs --src TEXT", cl->cmd);
    if (a.target) return cli_usage_error("--target is for %s", "trace");
    CliRun r;
    int rc = cli_run(&r, a.model, a.src, NULL, &a.dec);
    if (!rc) {
        int n;
        const int *ids = trace_output(r.trace, &n);
        for (int i = 0; i < n; i++) printf("%s%s", i ? " " : "", voc_token(r.model->tgt, ids[i]));
        putchar('\n');
        rc = fflush(stdout) || ferror(stdout) ? cli_fail("writing the output to standard output failed") : 0;
    }
    cli_run_deinit(&r);
    return rc;
}
