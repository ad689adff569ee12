// The init subcommand: a randomly initialised model from two vocabulary files.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "fileio.h"

typedef struct {
    const char *out, *src_vocab, *tgt_vocab, *name;
    Config cfg;
    uint64_t seed;
} InitArgs;

// Reads a vocabulary file: one token per line, blank lines ignored.
static Vocab *read_vocab(const char *path) {
    Error err;
    char *data;
    size_t len;
    if (fio_read_all(path, 64u << 20, &data, &len, &err)) {
        cli_fail(err.msg);
        return NULL;
    }
    // strtok would stop at a NUL and drop the rest of the file without a word
    const char *nul = memchr(data, '\0', len);
    if (nul) {
        fprintf(stderr, "transformer-tracer: %s: NUL byte at byte %td; a vocabulary file is UTF-8 text, one token a line\n", path,
                nul - data);
        free(data);
        return NULL;
    }
    const char **toks = malloc((len / 2 + 2) * sizeof *toks);
    int n = 0;
    Vocab *v = NULL;
    if (!toks) {
        fprintf(stderr, "transformer-tracer: %s: out of memory\n", path);
        goto done;
    }
    for (char *line = strtok(data, "\r\n"); line; line = strtok(NULL, "\r\n")) toks[n++] = line;
    v = voc_new(toks, n, &err);
    if (!v) fprintf(stderr, "transformer-tracer: %s: %s\n", path, err.msg);
done:
    free(toks);
    free(data);
    return v;
}

int cmd_init(const CliArgs *cl) {
    InitArgs a = {.cfg = cli_config(cl), .seed = cli_seed(cl)};
    cli_take(cl, "--out", &a.out);
    cli_take(cl, "--src-vocab", &a.src_vocab);
    cli_take(cl, "--tgt-vocab", &a.tgt_vocab);
    cli_take(cl, "--name", &a.name);
    if (!a.out || !a.src_vocab || !a.tgt_vocab) return cli_usage_error("%s needs --out, --src-vocab and --tgt-vocab", "init");
    Vocab *src = read_vocab(a.src_vocab);
    if (!src) return 1;
    Vocab *tgt = read_vocab(a.tgt_vocab);
    if (!tgt) {
        voc_free(src);
        return 1;
    }
    Error err;
    Model *m = mdl_new(&a.cfg, src, tgt, &err);
    if (!m) {
        fprintf(stderr, "transformer-tracer: init: %s\n", err.msg);
        return 1;
    }
    mdl_init_random(m, a.seed);
    free(m->name);
    m->name = strdup(a.name ? a.name : "random");
    int rc = mdl_save(m, a.out, &err);
    if (rc) cli_fail(err.msg);
    mdl_free(m);
    return rc ? 1 : 0;
}
