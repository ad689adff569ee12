#include "cli.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "settings.h"
#include "snapshots.h"
#include "tt_config.h"

#define DEFAULT_MODEL "models/en-zh.safetensors"

int cli_usage_error(const char *fmt, const char *what) {
    fprintf(stderr, "transformer-tracer: ");
    fprintf(stderr, fmt, ERR_QUOTE(what, 60));
    fprintf(stderr, " (see --help)\n");
    return CLI_USAGE;
}

int cli_fail(const char *msg) {
    fprintf(stderr, "transformer-tracer: %s\n", msg);
    return 1;
}

// ---- the options ------------------------------------------------------------

// Parses val as option o into dest (NULL: only checks). Prints why and
// returns -1 if val is out of o's bounds.
typedef int (*ParseFn)(const CliSpec *o, const char *val, void *dest);

// What a number is stored as.
typedef enum { AS_INT, AS_FLOAT, AS_U64 } StoreAs;

struct CliSpec {
    const char *name;
    ParseFn parse;      // NULL: a flag, without a value
    long lo, hi;        // a whole number's bounds
    Setting setting;    // a setting's (settings.h)
    StoreAs as;
};

static int parse_text(const CliSpec *o, const char *val, void *dest) {
    (void)o;
    if (dest) *(const char **)dest = val;
    return 0;
}

static int parse_whole(const CliSpec *o, const char *s, void *dest) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < o->lo || v > o->hi) {
        fprintf(stderr, "transformer-tracer: %s takes a whole number from %ld to %ld, got \"%s\" (see --help)\n", o->name, o->lo, o->hi,
                ERR_QUOTE(s, 40));
        return -1;
    }
    if (dest && o->as == AS_U64) *(uint64_t *)dest = (uint64_t)v;
    else if (dest) *(int *)dest = (int)v;
    return 0;
}

static int parse_float(const CliSpec *o, const char *s, void *dest) {
    char *end;
    errno = 0;
    float v = strtof(s, &end);
    if (errno || end == s || *end || !isfinite(v)) {
        fprintf(stderr, "transformer-tracer: %s takes a number, got \"%s\" (see --help)\n", o->name, ERR_QUOTE(s, 40));
        return -1;
    }
    if (dest) *(float *)dest = v;
    return 0;
}

// A decoding or step setting, within the bounds lessons have too (settings.h).
static int parse_setting(const CliSpec *o, const char *s, void *dest) {
    char why[160];
    double x;
    if (setting_parse(o->setting, s, &x, why, sizeof why)) {
        fprintf(stderr, "transformer-tracer: %s %s (see --help)\n", o->name, why);
        return -1;
    }
    if (dest && o->as == AS_FLOAT) *(float *)dest = (float)x;
    else if (dest) *(int *)dest = (int)x;
    return 0;
}

static int parse_scale(const CliSpec *o, const char *val, void *dest) {
    float v;
    if (parse_float(o, val, &v)) return -1;
    if (!(v >= 0.25f && v <= 8.0f)) return cli_usage_error("--scale takes 0.25 to 8, got \"%s\"", val), -1;
    if (dest) *(float *)dest = v;
    return 0;
}

static int parse_cmap(const CliSpec *o, const char *val, void *dest) {
    (void)o;
    static const char *const names[] = APP_CMAP_NAMES;
    int k = 0;
    while (k < APP_CMAP_COUNT && strcmp(val, names[k])) k++;
    if (k == APP_CMAP_COUNT) return cli_usage_error("--cmap takes viridis, cividis, magma or greys, got \"%s\"", val), -1;
    if (dest) *(int *)dest = k;
    return 0;
}

static int parse_decode(const CliSpec *o, const char *val, void *dest) {
    (void)o;
    DecodeMode mode;
    if (!strcmp(val, "greedy")) mode = DECODE_GREEDY;
    else if (!strcmp(val, "beam")) mode = DECODE_BEAM;
    else if (!strcmp(val, "sample")) mode = DECODE_SAMPLE;
    else return cli_usage_error("--decode takes greedy, beam or sample, got \"%s\"", val), -1;
    if (dest) *(DecodeMode *)dest = mode;
    return 0;
}

static int parse_format(const CliSpec *o, const char *val, void *dest) {
    (void)o;
    if (strcmp(val, "json") && strcmp(val, "json-shared") && strcmp(val, "npz"))
        return cli_usage_error("--format takes json, json-shared or npz, got \"%s\"", ERR_QUOTE(val, 40)), -1;
    if (dest) *(const char **)dest = val;
    return 0;
}

// A stage pattern: a stage id with fnmatch's * ? [ ] (the core checks it against the model).
static int parse_stages(const CliSpec *o, const char *val, void *dest) {
    (void)o;
    bool plain = *val != '\0' && strlen(val) <= 200;
    for (const char *p = val; plain && *p; p++) plain = *p > ' ' && *p < 127;
    if (!plain)
        return cli_usage_error("--stages takes a stage id or a pattern of them such as dec.L*.cross_attn.weights, got \"%s\"", ERR_QUOTE(val, 40)), -1;
    if (dest) *(const char **)dest = val;
    return 0;
}

// Bytes: a whole number with an optional K, M, G or T (powers of 1024), e.g. 512M.
static int parse_bytes(const CliSpec *o, const char *val, void *dest) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(val, &end, 10);
    int shift = 0;
    if (end != val && *end && !end[1]) shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : *end == 'T' ? 40 : -1;
    else if (*end) shift = -1;
    if (errno || end == val || *val == '-' || shift < 0 || v == 0 || v > (1ull << 50) >> shift)
        return cli_usage_error("--memory-limit takes a size such as 512M or 4G (K, M, G, T: powers of 1024), from 1 byte to 1024T, got \"%s\"",
                               ERR_QUOTE(val, 40)), -1;
    if (dest) *(size_t *)dest = (size_t)(v << shift);
    (void)o;
    return 0;
}

// The heads and sub-layers to silence (ablation.h); whether the model has them is checked when it runs.
static int parse_ablate(const CliSpec *o, const char *val, void *dest) {
    char why[256];
    Ablation a;
    if (abl_parse(val, &a, why, sizeof why)) {
        fprintf(stderr, "transformer-tracer: %s %s (see --help)\n", o->name, why);
        return -1;
    }
    if (dest) *(Ablation *)dest = a;
    return 0;
}

static int parse_layer_head(const CliSpec *o, const char *val, void *dest) {
    (void)o;
    int l, h;
    char end;
    if (sscanf(val, "%d,%d%c", &l, &h, &end) != 2 || l < 1 || h < 1)
        return cli_usage_error("--supervise-head takes LAYER,HEAD (e.g. 2,1), got \"%s\"", val), -1;
    if (dest) ((int *)dest)[0] = l, ((int *)dest)[1] = h;
    return 0;
}

#define FLAG(name) {name, NULL, 0, 0, 0, 0}
#define OWN(name, fn) {name, fn, 0, 0, 0, 0}
#define TEXT(name) {name, parse_text, 0, 0, 0, 0}
#define WHOLE(name, lo, hi) {name, parse_whole, lo, hi, 0, AS_INT}
#define REAL(name) {name, parse_float, 0, 0, 0, AS_FLOAT}
#define SETTING(name, s) {name, parse_setting, 0, 0, s, AS_INT}
#define SETTING_REAL(name, s) {name, parse_setting, 0, 0, s, AS_FLOAT}

// Every option of every command (--help lists them).
static const CliSpec specs[] = {
    FLAG("--skip-bad"), FLAG("--dark"), FLAG("--allow-special"), FLAG("--no-look-ahead-mask"), FLAG("--each-head"),
    FLAG("--kv-cache"),
    TEXT("--src"), TEXT("--target"), TEXT("--out"), TEXT("--model"), TEXT("--src-vocab"), TEXT("--tgt-vocab"), TEXT("--name"),
    TEXT("--corpus"), TEXT("--stage"), TEXT("--script"), TEXT("--sentences"), TEXT("--lesson"), TEXT("--pair"), TEXT("--train"),
    TEXT("--valid"), TEXT("--resume"), TEXT("--compare"),
    SETTING("--head", SETTING_HEAD), SETTING("--step", SETTING_STEP),
    WHOLE("--width", 100, 8192), WHOLE("--height", 100, 8192), OWN("--scale", parse_scale), OWN("--cmap", parse_cmap),
    WHOLE("--steps", 0, 100000000), WHOLE("--batch", 1, 4096), WHOLE("--warmup", 0, 100000000), WHOLE("--threads", 1, 64),
    WHOLE("--checkpoint-every", 0, 100000000), WHOLE("--snapshots", 2, 64), WHOLE("--snapshot", 0, 100000000), WHOLE("--eval-every", 0, 100000000), WHOLE("--limit", 0, INT_MAX),
    REAL("--lr"), REAL("--label-smoothing"), REAL("--clip"), REAL("--align-weight"), OWN("--supervise-head", parse_layer_head),
    OWN("--decode", parse_decode), OWN("--ablate", parse_ablate), OWN("--format", parse_format), OWN("--stages", parse_stages),
    OWN("--memory-limit", parse_bytes), SETTING("--beam", SETTING_BEAM),
    SETTING("--top-k", SETTING_TOP_K), WHOLE("--top", 1, 64),
    SETTING("--max-steps", SETTING_MAX_STEPS), WHOLE("--pad-to", 0, 4096), {"--seed", parse_whole, 0, LONG_MAX, 0, AS_U64},
    SETTING_REAL("--temperature", SETTING_TEMPERATURE), SETTING_REAL("--top-p", SETTING_TOP_P),
    WHOLE("--d-model", 1, 65536), WHOLE("--nhead", 1, 256), SETTING("--layers", SETTING_LAYER),
    WHOLE("--d-ff", 1, 1 << 20), WHOLE("--max-len", 1, 4096), REAL("--eps"),
};

static const CliSpec *find_spec(const char *name, bool flag) {
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++)
        if (!strcmp(specs[i].name, name) && (specs[i].parse == NULL) == flag) return &specs[i];
    return NULL;
}

int cli_parse(int argc, char **argv, const char *const *usage_text, CliArgs *a) {
    *a = (CliArgs){0};
    a->given = malloc((size_t)(argc > 0 ? argc : 1) * sizeof *a->given);
    if (!a->given) return cli_fail("out of memory");
    for (int i = 1; i < argc; i++) {
        char *arg = argv[i];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            for (const char *const *part = usage_text; *part; part++) fputs(*part, stdout);
            return CLI_DONE;
        }
        if (!strcmp(arg, "--version")) {
            printf("transformer-tracer %s\n", TT_VERSION);
            return CLI_DONE;
        }
        if (strncmp(arg, "--", 2)) {
            if (a->cmd && !strcmp(a->cmd, "lint")) {
                if (!a->files) a->files = argv + i;
                if (a->files + a->n_files != argv + i) return cli_usage_error("lint takes its files together, got \"%s\" after an option", arg);
                a->n_files++;
                continue;
            }
            if (a->cmd) return cli_usage_error("unexpected argument \"%s\"", arg);
            a->cmd = arg;
            continue;
        }
        const CliSpec *o = find_spec(arg, true);
        if (o) {
            a->given[a->n_given++] = (struct CliGiven){o, NULL};
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
            if (i + 1 >= argc) return cli_usage_error("%s needs a value", name);
            val = argv[++i];
        }
        if (!(o = find_spec(name, false))) return cli_usage_error("unknown option \"%s\"", name);
        if (o->parse(o, val, NULL)) return CLI_USAGE;
        a->given[a->n_given++] = (struct CliGiven){o, val};
    }
    if (!a->cmd) a->cmd = "window";
    return 0;
}

void cli_args_deinit(CliArgs *a) {
    free(a->given);
    a->given = NULL;
}

bool cli_take(const CliArgs *a, const char *name, void *dest) {
    bool given = false;
    for (int i = 0; i < a->n_given; i++) {
        const CliSpec *o = a->given[i].spec;
        if (strcmp(o->name, name)) continue;
        if (o->parse) o->parse(o, a->given[i].value, dest);  // checked when read: cannot fail
        else *(bool *)dest = true;
        given = true;
    }
    return given;
}

uint64_t cli_seed(const CliArgs *a) {
    uint64_t seed = 1;
    cli_take(a, "--seed", &seed);
    return seed;
}

void cli_take_all(const CliArgs *a, const CliTake *t, size_t n) {
    for (size_t i = 0; i < n; i++) cli_take(a, t[i].name, t[i].dest);
}

DecodeOptions cli_decode_options(const CliArgs *a) {
    DecodeOptions d = {.seed = cli_seed(a)};
    const CliTake takes[] = {
        // the strategy
        {"--decode", &d.mode}, {"--beam", &d.beam_width}, {"--temperature", &d.temperature}, {"--top-k", &d.top_k},
        {"--top-p", &d.top_p}, {"--max-steps", &d.max_steps}, {"--allow-special", &d.allow_special},
        // what is recorded, and in how much memory
        {"--top", &d.show_top}, {"--stages", &d.stages}, {"--memory-limit", &d.memory_limit},
        // the input as a batch would hold it, and the experiments
        {"--pad-to", &d.pad_to}, {"--no-look-ahead-mask", &d.no_look_ahead_mask}, {"--ablate", &d.ablate}, {"--each-head", &d.each_head},
    };
    cli_take_all(a, takes, sizeof takes / sizeof *takes);
    return d;
}

Config cli_config(const CliArgs *a) {
    Config c = {.d_model = 64, .nhead = 4, .n_enc = 2, .n_dec = 2, .d_ff = 256, .eps = 1e-5f, .max_len = 32};
    cli_take(a, "--d-model", &c.d_model);
    cli_take(a, "--nhead", &c.nhead);
    if (cli_take(a, "--layers", &c.n_enc)) c.n_dec = c.n_enc;
    cli_take(a, "--d-ff", &c.d_ff);
    cli_take(a, "--max-len", &c.max_len);
    cli_take(a, "--eps", &c.eps);
    return c;
}

// ---- the shipped model --------------------------------------------------------

static int file_exists(const char *path) { return access(path, R_OK) == 0; }

// The folder this program is in, or false.
static bool exe_dir(char *buf, size_t size) {
    ssize_t n = readlink("/proc/self/exe", buf, size - 1);
    if (n <= 0) return false;
    buf[n] = '\0';
    char *slash = strrchr(buf, '/');
    if (!slash) return false;
    *slash = '\0';
    return true;
}

const char *cli_default_model(char *buf, size_t size) {
    const char *env = getenv("TRANSFORMER_TRACER_DATA");
    if (env) {
        snprintf(buf, size, "%s/" DEFAULT_MODEL, env);
        return buf;
    }
    char exe[PATH_MAX - 128];
    if (exe_dir(exe, sizeof exe)) {
        snprintf(buf, size, "%s/../share/transformer-tracer/assets/" DEFAULT_MODEL, exe);
        if (file_exists(buf)) return buf;
    }
    snprintf(buf, size, "%s/" DEFAULT_MODEL, TT_INSTALL_DATA "/assets");
    if (file_exists(buf)) return buf;
    snprintf(buf, size, "%s/" DEFAULT_MODEL, TT_SOURCE_ASSETS);
    return buf;
}

const char *cli_models_dir(char *buf, size_t size) {
    cli_default_model(buf, size);
    char *slash = strrchr(buf, '/');
    if (slash) *slash = '\0';
    return buf;
}

const char *cli_model_file(const char *name, char *buf, size_t size) {
    // a bare name: a shipped model (en-zh-random); anything else: a file
    if (strchr(name, '/') || strstr(name, ".safetensors") || !*name) {
        snprintf(buf, size, "%s", name);
        return buf;
    }
    char dir[PATH_MAX];
    snprintf(buf, size, "%s/%s.safetensors", cli_models_dir(dir, sizeof dir), name);
    if (!file_exists(buf)) snprintf(buf, size, "%s", name);
    return buf;
}

// ---- a sentence's trace ---------------------------------------------------------

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
            fprintf(stderr, "transformer-tracer: %s: %d word%s not in the vocabulary, read as <unk>:", what, tok->n_unknown,
                    tok->n_unknown > 1 ? "s" : "");
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

int cli_snapshot(const CliArgs *a) {
    int step = -1;
    cli_take(a, "--snapshot", &step);
    return step;
}

// The model as it was at training step `step`, from its snapshots; frees m.
static Model *at_snapshot(Model *m, int step, Error *err) {
    char path[2 * PATH_MAX], steps[512];
    if (!file_exists(snap_path_for(m->path, path, sizeof path))) {
        err_set(err, "%s has no training history beside it (%s; train --snapshots N writes one)", m->path, path);
        mdl_free(m);
        return NULL;
    }
    Snapshots *s = snap_load(path, m, err);
    Model *then = NULL;
    int k = s ? snap_find(s, step) : -1;
    if (s && k < 0) err_set(err, "%s has no snapshot at step %d; it has %s", path, step, snap_steps_text(s, steps, sizeof steps));
    else if (s) then = snap_model(s, k, err);
    snap_free(s);
    mdl_free(m);
    return then;
}

int cli_run(CliRun *r, const char *model_path, int snapshot, const char *src, const char *target, const DecodeOptions *dec) {
    *r = (CliRun){0};
    char buf[2 * PATH_MAX];
    Error err;
    if (!(r->model = mdl_load(model_path ? model_path : cli_default_model(buf, sizeof buf), &err))) return cli_fail(err.msg);
    if (snapshot >= 0 && !(r->model = at_snapshot(r->model, snapshot, &err))) return cli_fail(err.msg);
    const Model *m = r->model;
    if (tokenize(m->src, "source sentence", src, m->cfg.max_len, &r->src)) return 1;
    DecodeOptions opt = *dec;
    if (target) {
        if (tokenize(m->tgt, "target sentence", target, m->cfg.max_len - 1, &r->tgt)) return 1;
        opt.mode = DECODE_TEACHER;
        opt.target = r->tgt.ids;
        opt.target_len = r->tgt.n;
    }
    if (!(r->trace = trace_run(m, r->src.ids, r->src.n, &opt, &err))) return cli_fail(err.msg);
    return 0;
}

void cli_run_deinit(CliRun *r) {
    trace_free(r->trace);
    voc_tokens_deinit(&r->src);
    voc_tokens_deinit(&r->tgt);
    mdl_free(r->model);
    *r = (CliRun){0};
}

// ---- the modules that draw -------------------------------------------------------

#ifdef TT_APP_LINKED
// A build with the app linked in (the web page's): nothing to load.
extern const AppModule tt_app_module, tt_draw_module;
const AppModule *cli_app_module(void) { return &tt_app_module; }
const AppModule *cli_draw_module(void) { return &tt_draw_module; }
#else
// Beside the program in the build folder, then where installed: the same
// place relative to the program (so a copy under another prefix or DESTDIR
// works), then the configured path. Returns whether the file is there.
static bool module_path(const char *name, char *path, size_t size) {
    char dir[PATH_MAX - 256];
    if (exe_dir(dir, sizeof dir)) {
        snprintf(path, size, "%s/%s", dir, name);
        if (file_exists(path)) return true;
        snprintf(path, size, "%s/" TT_APP_MODULE_FROM_BIN "/%s", dir, name);
        if (TT_APP_MODULE_FROM_BIN[0] && file_exists(path)) return true;
    }
    snprintf(path, size, "%s/%s", TT_APP_MODULE_DIR, name);
    return file_exists(path);
}

static const AppModule *load_module(const char *name, const char *symbol, const char *what) {
    char path[PATH_MAX];
    if (!module_path(name, path, sizeof path)) {
        fprintf(stderr, "transformer-tracer: cannot find %s, which %s, beside the program or in " TT_APP_MODULE_DIR
                        " (install the program again)\n", name, what);
        return NULL;
    }
    // RTLD_NOW: a module whose libraries lack a symbol is refused here, in one
    // line, not half-way through a command (lazy binding saved 2 % of an export)
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    const AppModule *m = h ? dlsym(h, symbol) : NULL;
    if (!m) {
        const char *why = dlerror();
        if (why) fprintf(stderr, "transformer-tracer: cannot load %s: %s\n", path, why);
        else fprintf(stderr, "transformer-tracer: cannot load %s: no %s in it\n", path, symbol);
        if (h) dlclose(h);
        return NULL;
    }
    if (m->version != APP_MODULE_VERSION) {
        fprintf(stderr, "transformer-tracer: %s is from another version of the program (install the program again)\n", path);
        dlclose(h);
        return NULL;
    }
    return m;
}

const AppModule *cli_app_module(void) {
    static const AppModule *module;
    return module ? module : (module = load_module(TT_APP_MODULE, APP_MODULE_SYMBOL, "draws the window"));
}

const AppModule *cli_draw_module(void) {
    static const AppModule *module;
    return module ? module : (module = load_module(TT_DRAW_MODULE, APP_DRAW_MODULE_SYMBOL, "draws the PNG export"));
}
#endif
