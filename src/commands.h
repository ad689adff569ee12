// The subcommands, one file each (src/cmd_*.c), in main.c's table. Each
// reads its options from the parsed command line (cli.h), prints its own
// one-line errors and returns the exit status: 0, 1, or 2 for a usage error.
#ifndef TT_COMMANDS_H
#define TT_COMMANDS_H

#include "cli.h"

int cmd_window(const CliArgs *a);
int cmd_export(const CliArgs *a);
int cmd_translate(const CliArgs *a);
int cmd_trace(const CliArgs *a);
int cmd_init(const CliArgs *a);
int cmd_corpus(const CliArgs *a);
int cmd_train(const CliArgs *a);
int cmd_eval(const CliArgs *a);
int cmd_lint(const CliArgs *a);

#endif
