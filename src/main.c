// The command line: subcommands dispatch to the core (and, later, the app).
// Exit 0 on success, 2 on a usage error, 1 on a runtime error; every error is
// one line on stderr that says what and where.
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "lesson.h"
#include "model.h"
#include "pages.h"
#include "trace.h"
#include "tt_config.h"
#include "app/app.h"
#include "app/gfx.h"
#include "app/window.h"
#include "commands.h"
#include "sentences.h"
#include "settings.h"
#include "toygen.h"
#include "vocab.h"

#define DEFAULT_MODEL "models/en-zh.safetensors"

enum { EXIT_USAGE = 2 };

static const char *usage_text =
    "Usage: transformer-tracer COMMAND [OPTIONS]\n"
    "\n"
    "With no command, opens the window on the lesson picker and the shipped model.\n"
    "\n"
    "Commands:\n"
    "  window [--src TEXT]       open the window (the same as no command)\n"
    "         [--script FILE]    run a file of key presses, text and checks instead (tests; src/app/window.h)\n"
    "         [--sentences FILE] a class list, one sentence a line: Ctrl+PageDown / Ctrl+PageUp go through it\n"
    "         [--target TEXT]    teacher forcing, as for trace; the decoding options set the window's first strategy\n"
    "         [--lesson FILE]    open a lesson (docs/LESSONS.md); O in the window picks another\n"
    "  export --src TEXT --stage ID --out FILE.png   draw one stage to a PNG, without a window\n"
    "  translate --src TEXT      translate a sentence; prints the output tokens\n"
    "  trace --src TEXT          write every stage of the computation as JSON\n"
    "  init --out FILE           write a randomly initialised model\n"
    "  corpus --pair PAIR --out DIR   write a toy parallel corpus (en-zh or en-fr)\n"
    "  train --train FILE --out FILE  train a model on a corpus\n"
    "  eval --model FILE --corpus FILE  exact match, BLEU and alignment error rate\n"
    "  lint FILE...              check lesson files (docs/LESSONS.md); prints file:line: problem\n"
    "\n"
    "Options for translate and trace:\n"
    "  --model FILE              model file (safetensors); default: the shipped model\n"
    "  --decode MODE             greedy (default), beam or sample\n"
    "  --beam N                  beam width (default 4)\n"
    "  --temperature T           sampling temperature (default 1)\n"
    "  --top-k K                 sample from the K most likely tokens (default: all)\n"
    "  --top-p P                 sample from the smallest set with mass P (default 1)\n"
    "  --seed N                  sampling seed; the same seed repeats a run (default 1)\n"
    "  --max-steps N             most output tokens (default: the model's max_len)\n"
    "  --top N                   candidates recorded at each step (default 5)\n"
    "  --pad-to N                pad the source with <pad> to N tokens, as in a training batch, and mask the pads\n"
    "Options for trace:\n"
    "  --target TEXT             teacher forcing: the reference translation\n"
    "  --out FILE                write the JSON here (atomically) instead of stdout\n"
    "Options for init:\n"
    "  --src-vocab FILE --tgt-vocab FILE   one token per line\n"
    "  --d-model N --nhead N --layers N --d-ff N --max-len N --eps X --seed N --name TEXT\n"
    "Options for train (and the architecture options of init):\n"
    "  --valid FILE              validation split: greedy exact match in the progress line\n"
    "  --steps N --batch N       optimiser steps (default 3000), pairs per step (default 32)\n"
    "  --lr X --warmup N         peak learning rate (default 0.002), warm-up steps (default 200)\n"
    "  --label-smoothing X       default 0.1\n"
    "  --clip X                  clip the gradient norm (default 1; 0 = off)\n"
    "  --supervise-head L,H      train decoder layer L's cross-attention head H on the gold alignments\n"
    "  --align-weight X          weight of that alignment loss (default 1)\n"
    "  --threads N               worker threads (default 2); a run repeats exactly for a seed and thread count\n"
    "  --checkpoint-every N      keep a checkpoint every N steps\n"
    "  --eval-every N            validation exact match every N steps (default 500)\n"
    "  --resume FILE             go on from a checkpoint (same architecture and vocabulary)\n"
    "  --skip-bad                skip malformed corpus lines instead of refusing the corpus\n"
    "Options for export (and the decoding options above):\n"
    "  --stage ID                stage id, e.g. dec.L2.cross_attn.weights (docs/TRACE.md)\n"
    "  --head N --step N         head and decoding step (default: 1, or 0 where none applies)\n"
    "  --width N --height N      image size in design pixels (default 1200 × 800)\n"
    "  --scale X                 pixel density, e.g. 2 for slides (default 1)\n"
    "  --dark                    dark theme\n"
    "  --cmap NAME               viridis (default), cividis, magma or greys\n"
    "Options for eval:\n"
    "  --limit N                 evaluate the first N pairs only\n"
    "Options for corpus:\n"
    "  --pair en-zh|en-fr --seed N --out DIR\n"
    "\n"
    "  --help                    show this help\n"
    "  --version                 show the version\n";

typedef struct {
    const char *cmd;
    const char *src, *target, *out, *model;
    const char *src_vocab, *tgt_vocab, *name;
    const char *corpus, *pair;
    const char *script, *lesson, *sentences;
    char **files;               // lint: the files after the command
    int n_files;
    DecodeOptions dec;
    Config cfg;
    unsigned long long seed;
    TrainArgs train;
    int limit;
    const char *stage;
    int head, step, width, height;
    float scale;
    bool dark, head_set, step_set;
    Colormap cmap;
} Args;

static int usage_error(const char *fmt, const char *what) {
    fprintf(stderr, "transformer-tracer: ");
    fprintf(stderr, fmt, what);
    fprintf(stderr, " (see --help)\n");
    return EXIT_USAGE;
}

static int parse_long(const char *opt, const char *s, long lo, long hi, long *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) {
        fprintf(stderr, "transformer-tracer: %s takes a whole number from %ld to %ld, got \"%s\" (see --help)\n", opt, lo, hi, s);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_float(const char *opt, const char *s, float *out) {
    char *end;
    errno = 0;
    float v = strtof(s, &end);
    if (errno || end == s || *end || !isfinite(v)) {
        fprintf(stderr, "transformer-tracer: %s takes a number, got \"%s\" (see --help)\n", opt, s);
        return -1;
    }
    *out = v;
    return 0;
}

// A decoding or step setting, within the bounds lessons have too (settings.h).
static int parse_setting(const char *opt, const char *s, Setting which, double *out) {
    char why[160];
    if (setting_parse(which, s, out, why, sizeof why)) {
        fprintf(stderr, "transformer-tracer: %s %s (see --help)\n", opt, why);
        return -1;
    }
    return 0;
}

// Parses argv into a; returns 0, or an exit code.
static int parse_args(int argc, char **argv, Args *a) {
    a->cfg = (Config){.d_model = 64, .nhead = 4, .n_enc = 2, .n_dec = 2, .d_ff = 256, .eps = 1e-5f, .max_len = 32};
    a->seed = 1;
    a->train = (TrainArgs){.steps = 3000, .batch = 32, .eval_every = 500,
                           .tc = {.lr = 2e-3f, .warmup = 200, .beta1 = 0.9f, .beta2 = 0.98f, .adam_eps = 1e-9f,
                                  .label_smoothing = 0.1f, .clip_norm = 1.0f, .align_weight = 1.0f, .threads = 2}};
    for (int i = 1; i < argc; i++) {
        char *arg = argv[i];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            fputs(usage_text, stdout);
            exit(0);
        }
        if (!strcmp(arg, "--version")) {
            printf("transformer-tracer %s\n", TT_VERSION);
            exit(0);
        }
        if (strncmp(arg, "--", 2)) {
            if (a->cmd && !strcmp(a->cmd, "lint")) {
                if (!a->files) a->files = argv + i;
                if (a->files + a->n_files != argv + i) return usage_error("lint takes its files together, got \"%s\" after an option", arg);
                a->n_files++;
                continue;
            }
            if (a->cmd) return usage_error("unexpected argument \"%s\"", arg);
            a->cmd = arg;
            continue;
        }
        if (!strcmp(arg, "--skip-bad")) {  // flags without a value
            a->train.skip_bad = true;
            continue;
        }
        if (!strcmp(arg, "--dark")) {
            a->dark = true;
            continue;
        }
        // --name value or --name=value
        char name[64];
        const char *val = strchr(arg, '=');
        if (val) {
            snprintf(name, sizeof name, "%.*s", (int)(val - arg), arg);
            val++;
        } else {
            snprintf(name, sizeof name, "%s", arg);
            if (i + 1 >= argc) return usage_error("%s needs a value", name);
            val = argv[++i];
        }
        long v;
        double x;
        int bad = 0;
        if (!strcmp(name, "--src")) a->src = val;
        else if (!strcmp(name, "--target")) a->target = val;
        else if (!strcmp(name, "--out")) a->out = val;
        else if (!strcmp(name, "--model")) a->model = val;
        else if (!strcmp(name, "--src-vocab")) a->src_vocab = val;
        else if (!strcmp(name, "--tgt-vocab")) a->tgt_vocab = val;
        else if (!strcmp(name, "--name")) a->name = val;
        else if (!strcmp(name, "--corpus")) a->corpus = val;
        else if (!strcmp(name, "--stage")) a->stage = val;
        else if (!strcmp(name, "--script")) a->script = val;
        else if (!strcmp(name, "--sentences")) a->sentences = val;
        else if (!strcmp(name, "--lesson")) a->lesson = val;
        else if (!strcmp(name, "--head")) bad = parse_setting(name, val, SETTING_HEAD, &x) || (a->head = (int)x, a->head_set = true, 0);
        else if (!strcmp(name, "--step")) bad = parse_setting(name, val, SETTING_STEP, &x) || (a->step = (int)x, a->step_set = true, 0);
        else if (!strcmp(name, "--width")) bad = parse_long(name, val, 100, 8192, &v) || (a->width = (int)v, 0);
        else if (!strcmp(name, "--height")) bad = parse_long(name, val, 100, 8192, &v) || (a->height = (int)v, 0);
        else if (!strcmp(name, "--scale")) {
            bad = parse_float(name, val, &a->scale);
            if (!bad && !(a->scale >= 0.25f && a->scale <= 8.0f)) return usage_error("--scale takes 0.25 to 8, got \"%s\"", val);
        } else if (!strcmp(name, "--cmap")) {
            int k = 0;
            while (k < CMAP_COUNT && strcmp(val, cmap_name((Colormap)k))) k++;
            if (k == CMAP_COUNT) return usage_error("--cmap takes viridis, cividis, magma or greys, got \"%s\"", val);
            a->cmap = (Colormap)k;
        }
        else if (!strcmp(name, "--pair")) a->pair = val;
        else if (!strcmp(name, "--train")) a->train.train = val;
        else if (!strcmp(name, "--valid")) a->train.valid = val;
        else if (!strcmp(name, "--resume")) a->train.resume = val;
        else if (!strcmp(name, "--steps")) bad = parse_long(name, val, 1, 100000000, &v) || (a->train.steps = (int)v, 0);
        else if (!strcmp(name, "--batch")) bad = parse_long(name, val, 1, 4096, &v) || (a->train.batch = (int)v, 0);
        else if (!strcmp(name, "--warmup")) bad = parse_long(name, val, 0, 100000000, &v) || (a->train.tc.warmup = (int)v, 0);
        else if (!strcmp(name, "--threads")) bad = parse_long(name, val, 1, 64, &v) || (a->train.tc.threads = (int)v, 0);
        else if (!strcmp(name, "--checkpoint-every")) bad = parse_long(name, val, 0, 100000000, &v) || (a->train.checkpoint_every = (int)v, 0);
        else if (!strcmp(name, "--eval-every")) bad = parse_long(name, val, 0, 100000000, &v) || (a->train.eval_every = (int)v, 0);
        else if (!strcmp(name, "--limit")) bad = parse_long(name, val, 0, INT_MAX, &v) || (a->limit = (int)v, 0);
        else if (!strcmp(name, "--lr")) bad = parse_float(name, val, &a->train.tc.lr);
        else if (!strcmp(name, "--label-smoothing")) bad = parse_float(name, val, &a->train.tc.label_smoothing);
        else if (!strcmp(name, "--clip")) bad = parse_float(name, val, &a->train.tc.clip_norm);
        else if (!strcmp(name, "--align-weight")) bad = parse_float(name, val, &a->train.tc.align_weight);
        else if (!strcmp(name, "--supervise-head")) {
            int l, h;
            char end;
            if (sscanf(val, "%d,%d%c", &l, &h, &end) != 2 || l < 1 || h < 1)
                return usage_error("--supervise-head takes LAYER,HEAD (e.g. 2,1), got \"%s\"", val);
            a->train.tc.align_layer = l;
            a->train.tc.align_head = h;
        }
        else if (!strcmp(name, "--decode")) {
            if (!strcmp(val, "greedy")) a->dec.mode = DECODE_GREEDY;
            else if (!strcmp(val, "beam")) a->dec.mode = DECODE_BEAM;
            else if (!strcmp(val, "sample")) a->dec.mode = DECODE_SAMPLE;
            else return usage_error("--decode takes greedy, beam or sample, got \"%s\"", val);
        } else if (!strcmp(name, "--beam")) bad = parse_setting(name, val, SETTING_BEAM, &x) || (a->dec.beam_width = (int)x, 0);
        else if (!strcmp(name, "--top-k")) bad = parse_setting(name, val, SETTING_TOP_K, &x) || (a->dec.top_k = (int)x, 0);
        else if (!strcmp(name, "--top")) bad = parse_long(name, val, 1, 64, &v) || (a->dec.show_top = (int)v, 0);
        else if (!strcmp(name, "--max-steps")) bad = parse_setting(name, val, SETTING_MAX_STEPS, &x) || (a->dec.max_steps = (int)x, 0);
        else if (!strcmp(name, "--pad-to")) bad = parse_long(name, val, 0, 4096, &v) || (a->dec.pad_to = (int)v, 0);
        else if (!strcmp(name, "--seed")) bad = parse_long(name, val, 0, LONG_MAX, &v) || (a->seed = (unsigned long long)v, 0);
        else if (!strcmp(name, "--temperature")) bad = parse_setting(name, val, SETTING_TEMPERATURE, &x) || (a->dec.temperature = (float)x, 0);
        else if (!strcmp(name, "--top-p")) bad = parse_setting(name, val, SETTING_TOP_P, &x) || (a->dec.top_p = (float)x, 0);
        else if (!strcmp(name, "--d-model")) bad = parse_long(name, val, 1, 65536, &v) || (a->cfg.d_model = (int)v, 0);
        else if (!strcmp(name, "--nhead")) bad = parse_long(name, val, 1, 256, &v) || (a->cfg.nhead = (int)v, 0);
        else if (!strcmp(name, "--layers")) bad = parse_setting(name, val, SETTING_LAYER, &x) || (a->cfg.n_enc = a->cfg.n_dec = (int)x, 0);
        else if (!strcmp(name, "--d-ff")) bad = parse_long(name, val, 1, 1 << 20, &v) || (a->cfg.d_ff = (int)v, 0);
        else if (!strcmp(name, "--max-len")) bad = parse_long(name, val, 1, 4096, &v) || (a->cfg.max_len = (int)v, 0);
        else if (!strcmp(name, "--eps")) bad = parse_float(name, val, &a->cfg.eps);
        else return usage_error("unknown option \"%s\"", name);
        if (bad) return EXIT_USAGE;
    }
    a->dec.seed = a->seed;
    if (!a->cmd) a->cmd = "window";
    return 0;
}

static int file_exists(const char *path) { return access(path, R_OK) == 0; }

// The shipped model: beside an installed binary, else in the source tree.
static const char *default_model(char *buf, size_t size) {
    const char *env = getenv("TRANSFORMER_TRACER_DATA");
    if (env) {
        snprintf(buf, size, "%s/" DEFAULT_MODEL, env);
        return buf;
    }
    char exe[PATH_MAX - 128];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            snprintf(buf, size, "%s/../share/transformer-tracer/assets/" DEFAULT_MODEL, exe);
            if (file_exists(buf)) return buf;
        }
    }
    snprintf(buf, size, "%s/" DEFAULT_MODEL, TT_INSTALL_DATA "/assets");
    if (file_exists(buf)) return buf;
    snprintf(buf, size, "%s/" DEFAULT_MODEL, TT_SOURCE_ASSETS);
    return buf;
}

static Model *load_model(const Args *a) {
    char buf[2 * PATH_MAX];
    const char *path = a->model ? a->model : default_model(buf, sizeof buf);
    Error err;
    Model *m = mdl_load(path, &err);
    if (!m) fprintf(stderr, "transformer-tracer: %s\n", err.msg);
    return m;
}

// Tokenizes text for one side; reports unknown words by name. Returns 0 or 1.
static int tokenize(const Vocab *v, const char *what, const char *text, int max_len, Tokens *tok) {
    Error err;
    if (voc_tokenize(v, text, tok, &err)) {
        fprintf(stderr, "transformer-tracer: %s: %s\n", what, err.msg);
        return 1;
    }
    // each refusal is one line, so check the length before warning about words
    if (tok->n > max_len) {
        fprintf(stderr, "transformer-tracer: %s has %d tokens; this model takes at most %d\n", what, tok->n, max_len);
        voc_tokens_deinit(tok);
        return 1;
    }
    bool all_unknown = tok->n_unknown == tok->n;
    if (tok->n_unknown || all_unknown) {
        if (all_unknown)
            fprintf(stderr, "transformer-tracer: %s: no word is in the model's vocabulary, nothing to translate:", what);
        else
            fprintf(stderr, "transformer-tracer: %s: %d word%s not in the vocabulary, read as <unk>:", what,
                    tok->n_unknown, tok->n_unknown > 1 ? "s" : "");
        for (int i = 0; i < tok->n; i++)
            if (tok->ids[i] == voc_unk(v)) {
                // a pasted paragraph can be one "word": quote its first 40 bytes, cut between characters
                const char *p = tok->pieces[i];
                int n = (int)strlen(p);
                if (n > 40)
                    for (n = 40; n > 0 && ((unsigned char)p[n] & 0xC0) == 0x80; n--) {}
                fprintf(stderr, " \"%.*s%s\"", n, p, p[n] ? "…" : "");
            }
        fputc('\n', stderr);
    }
    if (all_unknown) {
        voc_tokens_deinit(tok);
        return 1;
    }
    return 0;
}

// Tokenizes --src (and --target, for teacher forcing) and traces the
// sentence; prints what went wrong. The tokens stay in src and tgt.
static Trace *trace_sentence(const Args *a, const Model *m, Tokens *src, Tokens *tgt) {
    if (tokenize(m->src, "source sentence", a->src, m->cfg.max_len, src)) return NULL;
    DecodeOptions opt = a->dec;
    if (a->target) {
        if (tokenize(m->tgt, "target sentence", a->target, m->cfg.max_len - 1, tgt)) return NULL;
        opt.mode = DECODE_TEACHER;
        opt.target = tgt->ids;
        opt.target_len = tgt->n;
    }
    Error err;
    Trace *t = trace_run(m, src->ids, src->n, &opt, &err);
    if (!t) fprintf(stderr, "transformer-tracer: %s\n", err.msg);
    return t;
}

static int cmd_run(const Args *a, bool write_trace) {
    if (!a->src) return usage_error("%s needs --src TEXT", a->cmd);
    if (a->target && !write_trace) return usage_error("--target is for %s", "trace");
    Model *m = load_model(a);
    if (!m) return 1;
    int rc = 1;
    Tokens src = {0}, tgt = {0};
    Error err;
    Trace *t = trace_sentence(a, m, &src, &tgt);
    if (!t) goto done;
    if (!write_trace) {
        int n;
        const int *ids = trace_output(t, &n);
        for (int i = 0; i < n; i++) printf("%s%s", i ? " " : "", voc_token(m->tgt, ids[i]));
        putchar('\n');
        rc = fflush(stdout) || ferror(stdout) ? 1 : 0;
        if (rc) fprintf(stderr, "transformer-tracer: writing the output to standard output failed\n");
    } else if (a->out) {
        AtomicFile af;
        if (fio_atomic_open(&af, a->out, &err)) {
            fprintf(stderr, "transformer-tracer: %s\n", err.msg);
            goto done;
        }
        // a failed write leaves the stream's error set: the commit says why and removes the temporary file
        (void)trace_write_json(t, af.fp, a->src);
        if (fio_atomic_commit(&af, &err)) {
            fprintf(stderr, "transformer-tracer: %s\n", err.msg);
            goto done;
        }
        rc = 0;
    } else {
        rc = trace_write_json(t, stdout, a->src) || fflush(stdout) || ferror(stdout) ? 1 : 0;
        if (rc) fprintf(stderr, "transformer-tracer: writing the trace to standard output failed\n");
    }
done:
    trace_free(t);
    voc_tokens_deinit(&src);
    voc_tokens_deinit(&tgt);
    mdl_free(m);
    return rc;
}

// Reads a vocabulary file: one token per line, blank lines ignored.
static Vocab *read_vocab(const char *path) {
    Error err;
    char *data;
    size_t len;
    if (fio_read_all(path, 64u << 20, &data, &len, &err)) {
        fprintf(stderr, "transformer-tracer: %s\n", err.msg);
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

static int cmd_init(const Args *a) {
    if (!a->out || !a->src_vocab || !a->tgt_vocab) return usage_error("%s needs --out, --src-vocab and --tgt-vocab", "init");
    Vocab *src = read_vocab(a->src_vocab);
    if (!src) return 1;
    Vocab *tgt = read_vocab(a->tgt_vocab);
    if (!tgt) {
        voc_free(src);
        return 1;
    }
    Error err;
    Model *m = mdl_new(&a->cfg, src, tgt, &err);
    if (!m) {
        fprintf(stderr, "transformer-tracer: init: %s\n", err.msg);
        return 1;
    }
    mdl_init_random(m, a->seed);
    free(m->name);
    m->name = strdup(a->name ? a->name : "random");
    int rc = mdl_save(m, a->out, &err);
    if (rc) fprintf(stderr, "transformer-tracer: %s\n", err.msg);
    mdl_free(m);
    return rc ? 1 : 0;
}

static int cmd_corpus(const Args *a) {
    if (!a->pair || !a->out) return usage_error("%s needs --pair en-zh|en-fr and --out DIR", "corpus");
    if (!tg_pair_known(a->pair)) return usage_error("--pair takes en-zh or en-fr, got \"%s\"", a->pair);
    Error err;
    if (tg_generate(a->pair, a->seed, a->out, &err)) {
        fprintf(stderr, "transformer-tracer: %s\n", err.msg);
        return 1;
    }
    printf("wrote the %s corpus to %s\n", a->pair, a->out);
    return 0;
}

// The folder of the shipped models, for lessons that name a model.
static const char *models_dir(char *buf, size_t size) {
    default_model(buf, size);
    char *slash = strrchr(buf, '/');
    if (slash) *slash = '\0';
    return buf;
}

// Checks lesson files; one "file:line: problem" per line on stderr, exit 1 if any.
static int cmd_lint(const Args *a) {
    if (!a->n_files) return usage_error("%s needs one or more lesson files", "lint");
    char dir[2 * PATH_MAX];
    models_dir(dir, sizeof dir);
    int total = 0;
    for (int i = 0; i < a->n_files; i++) {
        LesProblems pr = {0};
        int n = les_lint(a->files[i], dir, &pr);
        for (int k = 0; k < pr.n; k++) fprintf(stderr, "%s\n", pr.msgs[k]);
        if (!n) printf("%s: ok\n", a->files[i]);
        total += n;
        les_problems_deinit(&pr);
    }
    if (total) fprintf(stderr, "%d problem%s\n", total, total == 1 ? "" : "s");
    return total ? 1 : 0;
}

static int cmd_window(const Args *a) {
    pg_warm_heap(16u << 20);  // the font, the trace, text and lessons: touched at once for the first frame
    char buf[2 * PATH_MAX], dir[2 * PATH_MAX];
    // the settings offer the shipped models' folder, beside the default model
    snprintf(dir, sizeof dir, "%s", default_model(buf, sizeof buf));
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    SentenceList *list = NULL;
    if (a->sentences) {  // read before any window opens, so a bad list is one line on stderr
        Error err;
        if (!(list = sl_load(a->sentences, &err))) {
            fprintf(stderr, "transformer-tracer: %s\n", err.msg);
            return 1;
        }
    }
    // the lessons sit beside the assets: <data>/lessons
    char lessons[2 * PATH_MAX + 16];
    snprintf(lessons, sizeof lessons, "%s", slash ? dir : "./models");
    for (int up = 0; up < 2; up++) {  // <data>/assets/models → <data>
        char *cut = strrchr(lessons, '/');
        if (cut) *cut = '\0';
        else snprintf(lessons, sizeof lessons, ".");
    }
    snprintf(lessons + strlen(lessons), sizeof lessons - strlen(lessons), "/lessons");
    AppOptions o = {.model_path = a->model ? a->model : buf, .src = a->src, .decode = a->dec, .dark = a->dark, .cmap = a->cmap,
                    .scale = a->scale, .script = a->script, .target = a->target, .sentences = list, .models_dir = slash ? dir : NULL,
                    .lesson = a->lesson, .lessons_dir = lessons,
                    // a bare run opens on the lesson picker
                    .picker = !a->src && !a->lesson && !a->sentences && !a->target && !a->script};
    int rc = window_run(&o);
    sl_free(list);
    return rc;
}

// Draws one stage of a sentence's trace to a PNG, with no window or display.
static int cmd_export(const Args *a) {
    if (!a->src || !a->stage || !a->out) return usage_error("%s needs --src TEXT, --stage ID and --out FILE.png", "export");
    pg_warm_heap(8u << 20);  // the font, the trace and the drawing allocate ~5 MB and touch it at once
    Error err;
    const char *font = gfx_find_font(&err);
    if (!font) {
        fprintf(stderr, "transformer-tracer: %s\n", err.msg);
        return 1;
    }
    Model *m = load_model(a);
    if (!m) return 1;
    int rc = 1;
    Tokens src = {0}, tgt = {0};
    Trace *t = trace_sentence(a, m, &src, &tgt);
    if (!t) goto done;
    // the head and step default to the first that the stage has
    int index = -1;
    for (int i = 0; i < trace_count(t) && index < 0; i++) {
        const Step *s = trace_step(t, i);
        char id[128];
        if (strcmp(trace_stage_id(s, id, sizeof id), a->stage)) continue;
        if ((a->head_set && s->head != a->head) || (a->step_set && s->dstep != a->step)) continue;
        index = i;
    }
    if (index < 0) {
        fprintf(stderr, "transformer-tracer: this trace has no stage \"%s\"", a->stage);
        if (a->head_set) fprintf(stderr, " with head %d", a->head);
        if (a->step_set) fprintf(stderr, " at decoding step %d", a->step);
        fprintf(stderr, " (stage ids: docs/TRACE.md; try trace --src to list them)\n");
        goto done;
    }
    if (app_render_step_png(m, t, index, a->width ? a->width : 1200, a->height ? a->height : 800, a->scale > 0 ? a->scale : 1.0f, a->dark,
                            a->cmap, font, a->out, &err)) {
        fprintf(stderr, "transformer-tracer: %s\n", err.msg);
        goto done;
    }
    rc = 0;
done:
    trace_free(t);
    voc_tokens_deinit(&src);
    voc_tokens_deinit(&tgt);
    mdl_free(m);
    return rc;
}

int main(int argc, char **argv) {
    Args a = {0};
    int rc = parse_args(argc, argv, &a);
    if (rc) return rc;
    if (!strcmp(a.cmd, "window")) return cmd_window(&a);
    // Ctrl+C during a write removes its temporary file (the window has SDL's handlers)
    fio_remove_temp_files_on_signal();
    if (!strcmp(a.cmd, "export")) return cmd_export(&a);
    if (!strcmp(a.cmd, "translate")) return cmd_run(&a, false);
    if (!strcmp(a.cmd, "trace")) return cmd_run(&a, true);
    if (!strcmp(a.cmd, "init")) return cmd_init(&a);
    if (!strcmp(a.cmd, "lint")) return cmd_lint(&a);
    if (!strcmp(a.cmd, "corpus")) return cmd_corpus(&a);
    if (!strcmp(a.cmd, "train")) {
        if (!a.train.train || !a.out) return usage_error("%s needs --train FILE and --out FILE", "train");
        if (a.train.tc.lr <= 0.0f || a.train.tc.label_smoothing < 0.0f || a.train.tc.label_smoothing >= 1.0f || a.train.tc.clip_norm < 0.0f ||
            a.train.tc.align_weight < 0.0f)
            return usage_error("%s: --lr must be above 0, --label-smoothing in [0, 1), --clip and --align-weight 0 or more", "train");
        a.train.out = a.out;
        a.train.name = a.name;
        a.train.cfg = a.cfg;
        a.train.seed = a.seed;
        return cmd_train(&a.train);
    }
    if (!strcmp(a.cmd, "eval")) {
        if (!a.model || !a.corpus) return usage_error("%s needs --model FILE and --corpus FILE", "eval");
        EvalArgs e = {.model = a.model, .corpus = a.corpus, .skip_bad = a.train.skip_bad, .limit = a.limit};
        return cmd_eval(&e);
    }
    return usage_error("unknown command \"%s\"", a.cmd);
}
