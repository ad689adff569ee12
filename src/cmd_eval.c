// The eval subcommand: prints what ev_run measures.
#include <stdio.h>

#include "cli.h"
#include "commands.h"
#include "corpus.h"
#include "evaluate.h"

typedef struct {
    const char *model;
    const char *corpus;
    bool skip_bad;
    int limit;                  // evaluate at most this many pairs; 0 = all
} EvalArgs;

static int eval_run(const EvalArgs *a) {
    Error err;
    Model *m = mdl_load(a->model, &err);
    if (!m) {
        fprintf(stderr, "transformer-tracer: %s\n", err.msg);
        return 1;
    }
    Corpus *c = corpus_read(a->corpus, a->skip_bad, &err);
    if (!c) {
        fprintf(stderr, "transformer-tracer: %s\n", err.msg);
        mdl_free(m);
        return 1;
    }
    EvalResult r;
    int rc = 1;
    long tokens, unknown;
    ev_target_coverage(m, c, a->limit, &tokens, &unknown);
    if (tokens && unknown > EV_MAX_UNKNOWN_SHARE * (double)tokens) {
        fprintf(stderr,
                "transformer-tracer: %s: %ld of the %ld target tokens (%.1f%%) are not in the vocabulary of %s (%s); "
                "more than %.0f%% unknown: a model for another language pair?\n",
                a->corpus, unknown, tokens, 100.0 * (double)unknown / (double)tokens, a->model, ERR_QUOTE(m->name, 60),
                100.0 * EV_MAX_UNKNOWN_SHARE);
        goto done;
    }
    if (corpus_skipped(c)) fprintf(stderr, "transformer-tracer: %s: skipped %d malformed line(s)\n", a->corpus, corpus_skipped(c));
    if (ev_run(m, c, a->limit, &r, &err)) {
        fprintf(stderr, "transformer-tracer: %s: %s\n", a->corpus, err.msg);
        goto done;
    }
    printf("model:        %s (%s)\n", a->model, ERR_QUOTE(m->name, 60));
    printf("corpus:       %s, %d pairs evaluated", a->corpus, r.evaluated);
    if (r.too_long) printf(", %d longer than max_len %d left out", r.too_long, m->cfg.max_len);
    printf("\nexact match:  %.2f%% (%d/%d, greedy)\n", r.evaluated ? 100.0 * r.exact / r.evaluated : 0.0, r.exact, r.evaluated);
    printf("unknown:      %ld of %ld target tokens (%.2f%%) not in the model's vocabulary, read as <unk>\n", unknown, tokens,
           tokens ? 100.0 * (double)unknown / (double)tokens : 0.0);
    printf("BLEU:         %.2f\n", 100.0 * r.bleu);
    if (r.aligned) {
        printf("cross-attention AER over %d pairs with gold links (teacher-forced; each target word linked to its most attended source word):\n",
               r.aligned);
        printf("       ");
        for (int h = 1; h <= r.nhead; h++) printf("   head %-2d", h);
        printf("   average\n");
        for (int l = 1; l <= r.n_dec; l++) {
            printf("  L%-3d ", l);
            for (int h = 1; h <= r.nhead; h++)
                printf("  %6.2f%%%s", 100.0 * ev_aer(&r, l, h), m->align_layer == l && m->align_head == h ? "*" : " ");
            printf("  %6.2f%%\n", 100.0 * ev_aer(&r, l, 0));
        }
        if (m->align_layer)
            printf("  * trained on the gold alignments (Garg et al., 2019): the head the app shows by default\n");
    }
    ev_result_deinit(&r);
    rc = 0;
done:
    corpus_free(c);
    mdl_free(m);
    return rc;
}

int cmd_eval(const CliArgs *cl) {
    EvalArgs a = {0};
    cli_take(cl, "--model", &a.model);
    cli_take(cl, "--corpus", &a.corpus);
    cli_take(cl, "--skip-bad", &a.skip_bad);
    cli_take(cl, "--limit", &a.limit);
    if (!a.model || !a.corpus) return cli_usage_error("%s needs --model FILE and --corpus FILE", "eval");
    return eval_run(&a);
}
