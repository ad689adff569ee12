// The train subcommand: corpus in, safetensors model out, with a progress
// line, kept checkpoints, and Ctrl-C that stops cleanly after a whole step.
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "snapshots.h"
#include "commands.h"
#include "corpus.h"
#include "fileio.h"
#include "rng.h"
#include "train.h"
#include "trace.h"

typedef struct {
    const char *train, *valid;  // corpus files (valid may be NULL)
    const char *out;            // the trained model
    const char *resume;         // a checkpoint to go on from, or NULL
    const char *name;           // model name for its metadata
    Config cfg;                 // architecture (vocabulary sizes come from the corpus)
    TrainConfig tc;
    int steps, batch;
    int checkpoint_every;       // 0: only the final model
    int snapshots;              // 0, or how many snapshots of the weights to keep beside the model (snapshots.h)
    int eval_every;             // greedy exact match on the validation split every N steps
    uint64_t seed;
    bool skip_bad;              // skip malformed corpus lines instead of refusing the corpus
} TrainArgs;

static volatile sig_atomic_t interrupted;
static struct sigaction sigint_before;  // the handler that removes temporary files (fileio.h)

static void on_sigint(int sig) {
    (void)sig;
    interrupted = 1;
    sigaction(SIGINT, &sigint_before, NULL);  // a second Ctrl-C stops at once, removing a checkpoint's temporary file
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

// A sentence pair as ids, with its gold alignment.
typedef struct {
    int *src, *tgt;     // n_src, n_tgt ids (no <bos>/<eos>)
    int n_src, n_tgt;
    const CorpusPair *pair;
} Example;

typedef struct {
    Example *ex;
    int n;
    int *store;
} Dataset;

static void dataset_free(Dataset *d) {
    free(d->ex);
    free(d->store);
    memset(d, 0, sizeof *d);
}

// Converts a corpus with the model's vocabularies. Pairs longer than the
// model takes are left out and counted in *too_long.
static int dataset_make(Dataset *d, const Corpus *c, const Model *m, int *too_long, Error *err) {
    memset(d, 0, sizeof *d);
    long total = 0;
    for (int i = 0; i < corpus_size(c); i++) total += corpus_pair(c, i)->n_src + corpus_pair(c, i)->n_tgt;
    d->ex = calloc((size_t)corpus_size(c), sizeof *d->ex);
    d->store = malloc((size_t)(total + 1) * sizeof *d->store);
    if (!d->ex || !d->store) return err_set(err, "out of memory for the corpus");
    int *p = d->store;
    *too_long = 0;
    for (int i = 0; i < corpus_size(c); i++) {
        const CorpusPair *cp = corpus_pair(c, i);
        // the target needs one place more, for <bos> or <eos>
        if (cp->n_src > m->cfg.max_len || cp->n_tgt + 1 > m->cfg.max_len) {
            ++*too_long;
            continue;
        }
        Example *e = &d->ex[d->n++];
        e->pair = cp;
        e->n_src = cp->n_src;
        e->n_tgt = cp->n_tgt;
        e->src = p;
        voc_lookup(m->src, cp->src, cp->n_src, e->src);
        p += cp->n_src;
        e->tgt = p;
        voc_lookup(m->tgt, cp->tgt, cp->n_tgt, e->tgt);
        p += cp->n_tgt;
    }
    return 0;
}

static int by_string(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

// Builds a vocabulary from one side of a corpus: the special tokens, then
// every token of the corpus in byte order.
static Vocab *vocab_from_corpus(const Corpus *c, bool source, Error *err) {
    long cap = 4;
    for (int i = 0; i < corpus_size(c); i++) cap += source ? corpus_pair(c, i)->n_src : corpus_pair(c, i)->n_tgt;
    const char **toks = malloc((size_t)cap * sizeof *toks);
    if (!toks) {
        err_set(err, "out of memory");
        return NULL;
    }
    long n = 0;
    for (int i = 0; i < corpus_size(c); i++) {
        const CorpusPair *p = corpus_pair(c, i);
        int len = source ? p->n_src : p->n_tgt;
        for (int k = 0; k < len; k++) toks[n++] = source ? p->src[k] : p->tgt[k];
    }
    qsort(toks, (size_t)n, sizeof *toks, by_string);
    const char *specials[] = {VOC_PAD, VOC_BOS, VOC_EOS, VOC_UNK};
    long u = 0;
    for (long i = 0; i < n; i++) {
        bool special = false;
        for (int s = 0; s < 4; s++) special |= !strcmp(toks[i], specials[s]);
        if (!special && (u == 0 || strcmp(toks[u - 1], toks[i]))) toks[u++] = toks[i];
    }
    // specials first: move the unique tokens up by four
    memmove(toks + 4, toks, (size_t)u * sizeof *toks);
    for (int s = 0; s < 4; s++) toks[s] = specials[s];
    Vocab *v = voc_new(toks, (int)(u + 4), err);
    free(toks);
    return v;
}

// The batch being assembled: padded ids and the gold alignment rows.
typedef struct {
    int *src, *tgt_in, *tgt_out;
    float *align;
    int max_batch, max_len;
} BatchBuf;

static void fill_batch(BatchBuf *bb, Batch *b, const Dataset *d, const int *order, int count, const Model *m, bool want_align) {
    int S = 1, T = 1;
    for (int i = 0; i < count; i++) {
        const Example *e = &d->ex[order[i]];
        if (e->n_src > S) S = e->n_src;
        if (e->n_tgt + 1 > T) T = e->n_tgt + 1;
    }
    int spad = voc_pad(m->src), tpad = voc_pad(m->tgt);
    for (int i = 0; i < count; i++) {
        const Example *e = &d->ex[order[i]];
        for (int k = 0; k < S; k++) bb->src[i * S + k] = k < e->n_src ? e->src[k] : spad;
        for (int k = 0; k < T; k++) {
            // decoder input: <bos> + target; expected output: target + <eos>
            bb->tgt_in[i * T + k] = k == 0 ? voc_bos(m->tgt) : k <= e->n_tgt ? e->tgt[k - 1] : tpad;
            bb->tgt_out[i * T + k] = k < e->n_tgt ? e->tgt[k] : k == e->n_tgt ? voc_eos(m->tgt) : tpad;
        }
        if (!want_align) continue;
        // row k (the step that produces target token k): its gold source words, uniformly
        float *a = bb->align + (size_t)i * T * S;
        memset(a, 0, (size_t)T * S * sizeof *a);
        const CorpusPair *p = e->pair;
        for (int l = 0; p->has_align && l < p->n_links; l++) a[p->links[l].tgt * S + p->links[l].src] = 1.0f;
        for (int k = 0; k < T; k++) {
            float sum = 0.0f;
            for (int j = 0; j < S; j++) sum += a[k * S + j];
            for (int j = 0; sum > 0.0f && j < S; j++) a[k * S + j] /= sum;
        }
    }
    *b = (Batch){.size = count, .src_len = S, .tgt_len = T, .src = bb->src, .tgt_in = bb->tgt_in, .tgt_out = bb->tgt_out,
                 .align = want_align ? bb->align : NULL};
}

static void shuffle(int *a, int n, Rng *r) {
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(rng_u32(r) % (uint32_t)(i + 1)), t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

// Greedy exact match on up to limit validation pairs.
static double valid_exact(const Model *m, const Dataset *d, int limit) {
    int n = d->n < limit ? d->n : limit, right = 0;
    for (int i = 0; i < n; i++) {
        const Example *e = &d->ex[i];
        Error err;
        DecodeOptions o = {.mode = DECODE_GREEDY};
        Trace *t = trace_run(m, e->src, e->n_src, &o, &err);
        if (!t) continue;
        int len;
        const int *out = trace_output(t, &len);
        right += len == e->n_tgt && !memcmp(out, e->tgt, (size_t)len * sizeof *out);
        trace_free(t);
    }
    return n ? (double)right / n : 0.0;
}

// "model.safetensors" → "model.step1200.safetensors"
static void checkpoint_path(char *buf, size_t size, const char *out, int step) {
    const char *dot = strrchr(out, '.'), *slash = strrchr(out, '/');
    if (!dot || (slash && dot < slash)) dot = out + strlen(out);
    snprintf(buf, size, "%.*s.step%d%s", (int)(dot - out), out, step, dot);
}

static void format_time(char *buf, size_t size, double s) {
    int t = (int)(s + 0.5);
    snprintf(buf, size, "%d:%02d", t / 60, t % 60);
}

// Says what differs between a checkpoint and what this run would train.
static int check_resume(const Model *ck, const Config *want, const Vocab *src, const Vocab *tgt, Error *err) {
    const Config *c = &ck->cfg;
    struct { const char *name; int have, want; } f[] = {
        {"d_model", c->d_model, want->d_model}, {"nhead", c->nhead, want->nhead}, {"num_encoder_layers", c->n_enc, want->n_enc},
        {"num_decoder_layers", c->n_dec, want->n_dec}, {"dim_feedforward", c->d_ff, want->d_ff}, {"max_len", c->max_len, want->max_len},
    };
    for (size_t i = 0; i < sizeof f / sizeof *f; i++)
        if (f[i].have != f[i].want) return err_set(err, "checkpoint has %s %d, this run %d", f[i].name, f[i].have, f[i].want);
    const Vocab *mine[2] = {src, tgt}, *theirs[2] = {ck->src, ck->tgt};
    for (int s = 0; s < 2; s++) {
        if (voc_size(mine[s]) != voc_size(theirs[s]))
            return err_set(err, "checkpoint's %s vocabulary has %d tokens, the corpus's %d", s ? "target" : "source", voc_size(theirs[s]),
                           voc_size(mine[s]));
        for (int i = 0; i < voc_size(mine[s]); i++)
            if (strcmp(voc_token(mine[s], i), voc_token(theirs[s], i)))
                return err_set(err, "checkpoint's %s vocabulary differs at entry %d: \"%s\", the corpus's \"%s\"", s ? "target" : "source", i,
                               voc_token(theirs[s], i), voc_token(mine[s], i));
    }
    return 0;
}

// The corpora read so far, for the lines --skip-bad left out of them.
typedef struct {
    const TrainArgs *a;
    const Corpus *train, *valid;
} Read;

// A refusal before training starts: one line, with the count of skipped
// lines folded in, as their own warning waits until training starts.
static void refuse(const Read *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void refuse(const Read *r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("transformer-tracer: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    const Corpus *c[2] = {r->train, r->valid};
    const char *path[2] = {r->a->train, r->a->valid};
    for (int i = 0; i < 2; i++) {
        int n = c[i] ? corpus_skipped(c[i]) : 0;
        if (n) fprintf(stderr, "; %d malformed line%s of %s %s skipped", n, n > 1 ? "s" : "", path[i], n > 1 ? "were" : "was");
    }
    fputc('\n', stderr);
}

static void warn_skipped(const char *path, const Corpus *c) {
    if (c && corpus_skipped(c))
        fprintf(stderr, "transformer-tracer: %s: skipped %d malformed line%s (first: %s)\n", path, corpus_skipped(c),
                corpus_skipped(c) > 1 ? "s" : "", corpus_first_skip(c));
}

static int train_run(const TrainArgs *a) {
    SnapWriter *snaps = NULL;  // the training history, with --snapshots
    Corpus *train = NULL, *valid = NULL;
    Model *m = NULL;
    Trainer *tr = NULL;
    Dataset dtrain = {0}, dvalid = {0};
    BatchBuf bb = {0};
    int *order = NULL, rc = 1;
    Error err;
    // refuse an output path that cannot be written now, not after training
    AtomicFile probe;
    if (fio_atomic_open(&probe, a->out, &err)) {
        fprintf(stderr, "transformer-tracer: cannot write the model: %s\n", err.msg);
        return 1;
    }
    fio_atomic_abort(&probe);
    Read got = {a, NULL, NULL};
    if (!(train = corpus_read(a->train, a->skip_bad, &err)) || (a->valid && !(valid = corpus_read(a->valid, a->skip_bad, &err)))) {
        got.train = train;
        refuse(&got, "%s", err.msg);
        goto done;
    }
    got = (Read){a, train, valid};

    Vocab *src = vocab_from_corpus(train, true, &err), *tgt = src ? vocab_from_corpus(train, false, &err) : NULL;
    if (!src || !tgt) {
        voc_free(src);
        refuse(&got, "%s: %s", a->train, err.msg);
        goto done;
    }
    if (a->resume) {
        m = mdl_load(a->resume, &err);
        if (m && check_resume(m, &a->cfg, src, tgt, &err)) {
            err_prefix(&err, "%s", a->resume);
            mdl_free(m);
            m = NULL;
        }
        voc_free(src);
        voc_free(tgt);
        if (!m) {
            refuse(&got, "refusing the checkpoint: %s", err.msg);
            goto done;
        }
    } else {
        m = mdl_new(&a->cfg, src, tgt, &err);
        if (!m) {
            refuse(&got, "%s", err.msg);
            goto done;
        }
        mdl_init_random(m, a->seed);
    }
    if (a->name || !a->resume) {  // a resumed checkpoint keeps its name and head unless given again
        free(m->name);
        m->name = strdup(a->name ? a->name : "trained");
    }
    if (a->tc.align_layer || !a->resume) {
        m->align_layer = a->tc.align_layer;
        m->align_head = a->tc.align_layer ? a->tc.align_head : 0;
    }

    int too_long = 0, too_long_valid = 0;
    if (dataset_make(&dtrain, train, m, &too_long, &err) || (valid && dataset_make(&dvalid, valid, m, &too_long_valid, &err))) {
        refuse(&got, "%s", err.msg);
        goto done;
    }
    if (dtrain.n == 0) {  // one line: the refusal says how many were left out
        refuse(&got, "%s: no sentence pair fits the model (all %d longer than max_len %d)", a->train, too_long, m->cfg.max_len);
        goto done;
    }
    int B = a->batch < dtrain.n ? a->batch : dtrain.n, L = m->cfg.max_len;
    tr = trn_new(m, &a->tc, B, L, &err);
    bb.src = malloc((size_t)B * L * sizeof *bb.src);
    bb.tgt_in = malloc((size_t)B * L * sizeof *bb.tgt_in);
    bb.tgt_out = malloc((size_t)B * L * sizeof *bb.tgt_out);
    bb.align = malloc((size_t)B * L * L * sizeof *bb.align);
    order = malloc((size_t)dtrain.n * sizeof *order);
    if (!tr) {
        refuse(&got, "%s", err.msg);
        goto done;
    }
    if (!bb.src || !bb.tgt_in || !bb.tgt_out || !bb.align || !order) {
        refuse(&got, "out of memory");
        goto done;
    }
    // the command goes on: the warnings, each on its own line
    warn_skipped(a->train, train);
    warn_skipped(a->valid, valid);
    if (too_long + too_long_valid)
        fprintf(stderr, "transformer-tracer: left out %d pair%s longer than max_len %d\n", too_long + too_long_valid,
                too_long + too_long_valid > 1 ? "s" : "", m->cfg.max_len);
    // catch Ctrl-C from the moment the run says it is training
    interrupted = 0;
    struct sigaction sa = {.sa_handler = on_sigint};
    sigaction(SIGINT, &sa, &sigint_before);
    fprintf(stderr, "training %s: %d pairs, vocabularies %d + %d, %ld parameters, %d steps of %d pairs, %d thread%s\n", a->out, dtrain.n,
            voc_size(m->src), voc_size(m->tgt), m->n_params, a->steps, B, a->tc.threads, a->tc.threads > 1 ? "s" : "");

    Rng rng;
    rng_init(&rng, a->seed ^ 0x5eedULL);
    for (int i = 0; i < dtrain.n; i++) order[i] = i;
    shuffle(order, dtrain.n, &rng);
    bool tty = isatty(STDERR_FILENO);
    double start = now(), last_print = 0.0, valid_acc = -1.0, ema_loss = NAN;
    long tokens_seen = 0;
    int pos = 0, step = 0, right = 0, counted = 0;
    // the training history: the weights at a few steps, the first before any (snapshots.h)
    int schedule[SNAP_MAX], n_schedule = a->snapshots ? snap_schedule(a->snapshots, a->steps, schedule) : 0, next_snap = 0;
    snaps = n_schedule ? snap_writer_new(m) : NULL;
    if (n_schedule && (!snaps || snap_writer_add(snaps, m, 0))) {
        fprintf(stderr, "transformer-tracer: out of memory for the snapshots\n");
        goto done;
    }
    next_snap = 1;
    for (step = 1; step <= a->steps && !interrupted; step++) {
        if (pos + B > dtrain.n) {  // next epoch
            shuffle(order, dtrain.n, &rng);
            pos = 0;
        }
        Batch b;
        fill_batch(&bb, &b, &dtrain, order + pos, B, m, a->tc.align_layer > 0);
        pos += B;
        StepStats st;
        trn_step(tr, &b, &st);
        tokens_seen += (long)b.size * (b.src_len + b.tgt_len);
        ema_loss = isnan(ema_loss) ? st.loss : 0.95 * ema_loss + 0.05 * st.loss;
        right += st.correct;
        counted += st.tokens;
        if (valid && a->eval_every > 0 && (step % a->eval_every == 0 || step == a->steps)) valid_acc = valid_exact(m, &dvalid, 200);
        if (snaps && (step % 5 == 0 || step == 1 || step == a->steps) && snap_writer_loss(snaps, step, (float)ema_loss)) {
            fprintf(stderr, "%stransformer-tracer: out of memory for the loss curve\n", tty ? "\n" : "");
            goto done;
        }
        if (snaps && next_snap < n_schedule && step == schedule[next_snap] && snap_writer_add(snaps, m, schedule[next_snap++])) {
            fprintf(stderr, "%stransformer-tracer: out of memory for the snapshots\n", tty ? "\n" : "");
            goto done;
        }
        if (a->checkpoint_every > 0 && step % a->checkpoint_every == 0 && step < a->steps) {
            char path[4096];
            checkpoint_path(path, sizeof path, a->out, step);
            if (mdl_save(m, path, &err)) {
                fprintf(stderr, "%stransformer-tracer: %s\n", tty ? "\n" : "", err.msg);
                goto done;
            }
        }
        double t = now() - start;
        if (step == a->steps || (tty ? t - last_print > 0.2 : t - last_print > 10.0)) {
            last_print = t;
            char eta[16], el[16], vbuf[32] = "";
            format_time(eta, sizeof eta, t / step * (a->steps - step));
            format_time(el, sizeof el, t);
            if (valid_acc >= 0) snprintf(vbuf, sizeof vbuf, "  valid exact %5.1f%%", 100 * valid_acc);
            int width = 24, done_w = (int)((double)step / a->steps * width);
            char bar[32];
            for (int i = 0; i < width; i++) bar[i] = i < done_w ? '#' : '.';
            bar[width] = '\0';
            fprintf(stderr, "%s[%s] %d/%d  loss %.3f  acc %5.1f%%%s  %.0f tok/s  %s elapsed, %s left%s", tty ? "\r" : "", bar, step, a->steps,
                    ema_loss, counted ? 100.0 * right / counted : 0.0, vbuf, tokens_seen / t, el, eta, tty ? "  " : "\n");
            right = counted = 0;
        }
    }
    sigaction(SIGINT, &sigint_before, NULL);
    if (tty) fputc('\n', stderr);
    if (interrupted) {
        char path[4096];
        checkpoint_path(path, sizeof path, a->out, step - 1);
        if (mdl_save(m, path, &err)) fprintf(stderr, "transformer-tracer: %s\n", err.msg);
        else fprintf(stderr, "interrupted after step %d; the weights so far are in %s\n", step - 1, path);
        rc = 130;
        goto done;
    }
    if (mdl_save(m, a->out, &err)) {
        fprintf(stderr, "transformer-tracer: %s\n", err.msg);
        goto done;
    }
    if (snaps) {
        char path[4096];
        snap_path_for(a->out, path, sizeof path);
        if (snap_writer_save(snaps, m, path, &err)) {
            fprintf(stderr, "transformer-tracer: %s\n", err.msg);
            goto done;
        }
        fprintf(stderr, "wrote %d snapshots of the training to %s\n", n_schedule, path);
    }
    char el[16];
    format_time(el, sizeof el, now() - start);
    fprintf(stderr, "wrote %s after %d steps in %s\n", a->out, a->steps, el);
    rc = 0;
done:
    snap_writer_free(snaps);
    free(order);
    free(bb.src);
    free(bb.tgt_in);
    free(bb.tgt_out);
    free(bb.align);
    dataset_free(&dtrain);
    dataset_free(&dvalid);
    trn_free(tr);
    mdl_free(m);
    corpus_free(train);
    corpus_free(valid);
    return rc;
}

int cmd_train(const CliArgs *cl) {
    TrainArgs a = {.cfg = cli_config(cl), .seed = cli_seed(cl), .steps = 3000, .batch = 32, .eval_every = 500,
                   .tc = {.lr = 2e-3f, .warmup = 200, .beta1 = 0.9f, .beta2 = 0.98f, .adam_eps = 1e-9f, .label_smoothing = 0.1f,
                          .clip_norm = 1.0f, .align_weight = 1.0f, .threads = 2}};
    int layer_head[2];
    const CliTake takes[] = {
        // the files
        {"--train", &a.train}, {"--valid", &a.valid}, {"--out", &a.out}, {"--resume", &a.resume}, {"--name", &a.name},
        // the schedule
        {"--steps", &a.steps}, {"--batch", &a.batch}, {"--checkpoint-every", &a.checkpoint_every}, {"--snapshots", &a.snapshots},
        {"--eval-every", &a.eval_every}, {"--skip-bad", &a.skip_bad},
        // the optimiser and the loss
        {"--warmup", &a.tc.warmup}, {"--threads", &a.tc.threads}, {"--lr", &a.tc.lr}, {"--label-smoothing", &a.tc.label_smoothing},
        {"--clip", &a.tc.clip_norm}, {"--align-weight", &a.tc.align_weight},
    };
    cli_take_all(cl, takes, sizeof takes / sizeof *takes);
    if (cli_take(cl, "--supervise-head", layer_head)) a.tc.align_layer = layer_head[0], a.tc.align_head = layer_head[1];
    if (!a.train || !a.out) return cli_usage_error("%s needs --train FILE and --out FILE", "train");
    if (a.resume && a.snapshots)  // its first snapshot would be the checkpoint, not the untrained start
        return cli_usage_error("%s: --snapshots keeps a whole training's history; it cannot start from --resume", "train");
    if (a.tc.lr <= 0.0f || a.tc.label_smoothing < 0.0f || a.tc.label_smoothing >= 1.0f || a.tc.clip_norm < 0.0f || a.tc.align_weight < 0.0f)
        return cli_usage_error("%s: --lr must be above 0, --label-smoothing in [0, 1), --clip and --align-weight 0 or more", "train");
    return train_run(&a);
}
