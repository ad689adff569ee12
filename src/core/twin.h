// Two models on one sentence, the experiment "trained beside untrained": the
// same source through both, each teacher-forced on the same target (the
// first model's output, or the reference), so that every matrix has the same
// rows in both and the losses compare; and the second model's own output.
// Models with another target vocabulary are each forced on their own output.
#ifndef TT_TWIN_H
#define TT_TWIN_H

#include <stdbool.h>

#include "error.h"
#include "model.h"
#include "trace.h"

typedef struct {
    Model *other;        // the second model, loaded from its file
    Trace *forced[2];    // [0] the first model, [1] the second, teacher-forced
    Trace *own;          // the second model decoding with the first trace's options (greedy for teacher forcing)
    bool same_target;    // both forced on one target; false: each on its own output (other target vocabularies)
    int *target;         // the first model's target (ids without <eos>), copied: the forced traces point at it
    int target_len;      // cut to what both models take when they share it
} Twin;

// Works the comparison out for trace t (of its model) against the model in
// other_path, forced on target (ids without <eos>; NULL: t's target under
// teacher forcing, else t's output). Silenced parts are left out: both models
// run whole. Refuses in one line a model whose source vocabulary differs.
// 0, or -1 with err; twin_deinit frees what was made either way.
int twin_run(Twin *tw, const Trace *t, const char *other_path, const int *target, int target_len, Error *err);
void twin_deinit(Twin *tw);
// The comparison as the trace JSON's member "compare" (docs/TRACE.md); tw is a Twin.
#include <stdio.h>
void twin_write_json(FILE *fp, const void *tw);

#endif
