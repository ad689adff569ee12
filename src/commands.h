// Subcommands that run longer jobs: training and evaluation. Each prints its
// progress and its one-line errors itself and returns the exit status.
#ifndef TT_COMMANDS_H
#define TT_COMMANDS_H

#include <stdbool.h>
#include <stdint.h>

#include "model.h"
#include "train.h"

typedef struct {
    const char *train, *valid;  // corpus files (valid may be NULL)
    const char *out;            // the trained model
    const char *resume;         // a checkpoint to go on from, or NULL
    const char *name;           // model name for its metadata
    Config cfg;                 // architecture (vocabulary sizes come from the corpus)
    TrainConfig tc;
    int steps, batch;
    int checkpoint_every;       // 0: only the final model
    int eval_every;             // greedy exact match on the validation split every N steps
    uint64_t seed;
    bool skip_bad;              // skip malformed corpus lines instead of refusing the corpus
} TrainArgs;

int cmd_train(const TrainArgs *a);

typedef struct {
    const char *model;
    const char *corpus;
    bool skip_bad;
    int limit;                  // evaluate at most this many pairs; 0 = all
} EvalArgs;

int cmd_eval(const EvalArgs *a);

#endif
