// A model's training history (train --snapshots N): its weights at a few
// steps of training, from the untrained start to the end, with the training
// loss curve, in one file beside the model (NAME.snapshots.safetensors). The
// weights are stored as F16, half the bytes; the vocabularies and the
// configuration are the model's own, kept in the file to refuse the
// snapshots of another model.
#ifndef TT_SNAPSHOTS_H
#define TT_SNAPSHOTS_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "model.h"

enum { SNAP_MAX = 64 };

// The steps at which n snapshots (2 to SNAP_MAX) of a run of `steps` are
// taken: 0 and `steps`, the rest closer together early, where attention
// changes fastest (for 10 of 2,000: 0, 25, 99, 222, 395, 617, 889, 1210, 1580,
// 2000). Returns how many distinct steps were written to out.
int snap_schedule(int n, int steps, int *out);

// The file of a model's snapshots: NAME.snapshots.safetensors beside NAME.safetensors. Returns buf.
char *snap_path_for(const char *model_path, char *buf, size_t size);
// Whether a file's name is a training history's (NAME.snapshots.safetensors), not a model's.
bool snap_is_history_name(const char *name);

// Writing while training: each add copies the weights as they are then.
typedef struct SnapWriter SnapWriter;
SnapWriter *snap_writer_new(const Model *m);
int snap_writer_add(SnapWriter *w, const Model *m, int step);
// A point of the loss curve (the trainer's smoothed loss).
int snap_writer_loss(SnapWriter *w, int step, float loss);
int snap_writer_save(const SnapWriter *w, const Model *m, const char *path, Error *err);
void snap_writer_free(SnapWriter *w);

// Reading: the snapshots of model m (the file beside it, or path). Refuses,
// in one line, a file that is not a snapshots file or holds another model's.
typedef struct Snapshots Snapshots;
Snapshots *snap_load(const char *path, const Model *m, Error *err);
void snap_free(Snapshots *s);
int snap_count(const Snapshots *s);
// The training step of snapshot k (0: untrained).
int snap_step(const Snapshots *s, int k);
// The snapshot of training step `step`, or -1.
int snap_find(const Snapshots *s, int step);
// The model at snapshot k: m's configuration and vocabularies, the
// snapshot's weights widened to F32, named "NAME · training step S".
Model *snap_model(const Snapshots *s, int k, Error *err);
// The loss curve: n points of (step, loss); returns n.
int snap_curve(const Snapshots *s, const int **steps, const float **loss);
// "0, 25, 99, …, 2000", for messages. Returns buf.
char *snap_steps_text(const Snapshots *s, char *buf, size_t size);

#endif
