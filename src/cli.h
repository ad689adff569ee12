// What every subcommand shares: the options (one table, each with its
// bounds), the decoding and architecture options, the shipped model, one
// load-and-trace helper, and the module that draws (the window and export).
// Every error is one line on stderr; usage errors return CLI_USAGE.
#ifndef TT_CLI_H
#define TT_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "app/appmodule.h"
#include "model.h"
#include "trace.h"
#include "vocab.h"

enum { CLI_USAGE = 2, CLI_DONE = -1 };

typedef struct CliSpec CliSpec;

// The command line read once: the command, each option as given (checked
// already, in order), and lint's files.
typedef struct {
    const char *cmd;
    struct CliGiven {
        const CliSpec *spec;
        const char *value;
    } *given;
    int n_given;
    char **files;
    int n_files;
} CliArgs;

// Reads argv; every option is checked against its bounds as it comes, for
// any command, as the help lists them. Returns 0, CLI_DONE after --help or
// --version (printed; the exit status is 0), or CLI_USAGE (said why).
int cli_parse(int argc, char **argv, const char *const *usage_text, CliArgs *a);
void cli_args_deinit(CliArgs *a);

// Copies option name's value into dest, whose type is the option's (const
// char *, int, float, bool for a flag, uint64_t for --seed, DecodeMode for
// --decode, int[2] for --supervise-head, size_t for --memory-limit, Ablation for --ablate); the last given wins. Returns
// whether it was given; dest is left as it was if not.
bool cli_take(const CliArgs *a, const char *name, void *dest);
// cli_take for each of n options, a table of names and where each goes.
typedef struct {
    const char *name;
    void *dest;
} CliTake;
void cli_take_all(const CliArgs *a, const CliTake *t, size_t n);
// The decoding options (--decode, --beam, --temperature, --top-k, --top-p,
// --seed, --max-steps, --top, --pad-to, --no-look-ahead-mask, --ablate, --each-head)
// and what a trace records (--stages, --memory-limit) over the defaults.
DecodeOptions cli_decode_options(const CliArgs *a);
// The architecture options of init and train over their defaults.
Config cli_config(const CliArgs *a);
// --seed, 1 when not given.
uint64_t cli_seed(const CliArgs *a);

// "transformer-tracer: " fmt " (see --help)"; returns CLI_USAGE.
int cli_usage_error(const char *fmt, const char *what);
// "transformer-tracer: " msg; returns 1.
int cli_fail(const char *msg);

// The shipped model's path: beside an installed binary, else in the source tree.
const char *cli_default_model(char *buf, size_t size);
// The folder of the shipped models.
const char *cli_models_dir(char *buf, size_t size);
// A model named on the command line: a shipped model's name (en-zh-random)
// as its file, or a path as it is. Returns buf.
const char *cli_model_file(const char *name, char *buf, size_t size);

// A sentence's trace, with what made it.
typedef struct {
    Model *model;
    Tokens src, tgt;
    Trace *trace;
} CliRun;

// Loads the model (NULL: the shipped one; snapshot ≥ 0: as it was at that
// training step), tokenizes the sentence (and the
// target, for teacher forcing) and traces it; says what went wrong. Returns
// 0 or 1; cli_run_deinit frees what was made in either case.
int cli_run(CliRun *r, const char *model_path, int snapshot, const char *src, const char *target, const DecodeOptions *dec);
// --snapshot STEP: the model as it was at that training step (snapshots.h), or -1.
int cli_snapshot(const CliArgs *a);
void cli_run_deinit(CliRun *r);

// The window's module, and the PNG export's (which loads no SDL), each
// loaded on first use; NULL after saying why.
const AppModule *cli_app_module(void);
const AppModule *cli_draw_module(void);

#endif
