// The trace: running the model on one source sentence records every
// intermediate value, in computation order, as a list of steps. Stepping
// forward or back is an index into that list, never a recomputation.
#ifndef TT_TRACE_H
#define TT_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ablation.h"
#include "error.h"
#include "model.h"
#include "stage.h"

typedef enum { DECODE_GREEDY, DECODE_BEAM, DECODE_SAMPLE, DECODE_TEACHER } DecodeMode;

typedef struct {
    DecodeMode mode;
    int max_steps;      // most decoding steps (output tokens); 0 = the model's max_len
    int show_top;       // candidates recorded per step in dec.top_k; 0 = 5
    int beam_width;     // beam search; 0 = 4
    float temperature;  // sampling; 0 = 1
    int top_k;          // sampling: keep the k most likely tokens; 0 = all
    float top_p;        // sampling: keep the smallest set with this much mass; 0 = 1
    uint64_t seed;      // sampling: the same seed repeats a run exactly
    bool ignore_eos;    // keep decoding past <eos> (for comparisons with a fixed step count)
    bool allow_special; // greedy, beam and sampling may choose <pad>, <bos> and <unk>; by default they never do, as real decoders
    const int *target;  // teacher forcing: reference target ids, without <bos>/<eos>
    int target_len;
    int pad_to;         // source padded with <pad> up to this length, as in a training batch, and the pads masked; 0 = off
    bool no_look_ahead_mask;  // an experiment: the decoder's self-attention sees every position, later ones too
    const char *stages; // record only the stages whose id matches this pattern (fnmatch), e.g. "dec.L*.cross_attn.weights"; NULL = all
    size_t memory_limit;  // bytes a trace may need, or trace_run refuses it saying how many; 0 = a quarter of the physical memory
    Ablation ablate;    // an experiment: heads and sub-layers silenced (ablation.h); n 0 = none
    bool each_head;     // teacher forcing: also the mean loss with each head silenced alone (trace_each_head)
} DecodeOptions;

// One recorded value. Layer, head and dstep count from 1; 0 means "not
// applicable" (e.g. head 0 for a value that covers all heads, dstep 0 for the
// encoder).
typedef struct {
    const char *name;       // stage name without the layer, e.g. "dec.cross_attn.weights"
    const StageInfo *stage; // its row in the stage table (stage.h)
    const char *kind;       // how to show it: tokens, matrix, attention, scores, mask, probs, top_k, beam, choice, loss
    int layer, head, dstep;
    int rows, cols;
    const char *sym_rows;   // symbolic shape, e.g. "m" and "n"
    const char *sym_cols;
    const char *formula;    // one line, e.g. "softmax(QKᵀ/√d_k)"
    float *data;            // rows × cols, row-major: row r starts at data + r × stride (trace_row)
    int stride;             // floats from one row's start to the next's; 0 means cols
    const char *const *row_labels;  // rows strings, or NULL
    const char *const *col_labels;  // cols strings, or NULL
} Step;

// A token and its probability, as the sampler ranks them.
typedef struct {
    int id;
    float p;
} TraceRanked;

// The n tokens of p ranked as the sampler lays them end to end before a
// draw: most likely first, ties by the lower id (dec.sample, docs/TRACE.md).
void trace_rank(TraceRanked *out, const float *p, int n);

typedef struct Trace Trace;

// Runs the model on source ids (n of them) and records the trace. The model
// must outlive the trace (labels point into its vocabularies).
Trace *trace_run(const Model *m, const int *src_ids, int n, const DecodeOptions *opt, Error *err);
void trace_free(Trace *t);
// The bytes trace_run would need for these options (the trace and its
// working buffers; the model not counted), said before it is made: an upper
// bound, as decoding may stop early. 0, or -1 with err for bad options.
int trace_estimate(const Model *m, int n, const DecodeOptions *opt, size_t *bytes, Error *err);
// "1.4 GB", "35 MB", "900 kB". Returns buf.
char *trace_format_bytes(size_t bytes, char *buf, size_t size);

int trace_count(const Trace *t);
const Step *trace_step(const Trace *t, int i);
// The stage id users see: the name with the layer put in, e.g.
// "dec.L1.cross_attn.weights". Returns buf.
char *trace_stage_id(const Step *s, char *buf, size_t size);
// Row r of a step's values: cols floats. The decoder steps of greedy
// decoding and sampling share their rows with the steps before them, so a
// step's rows need not be one block (read them through this).
const float *trace_row(const Step *s, int r);
// A step's values as one block of rows × cols floats, row-major, into out.
void trace_copy_values(const Step *s, float *out);
// Index of the step with this stage id, head and decoding step, or -1.
int trace_find(const Trace *t, const char *stage_id, int head, int dstep);
// The generated tokens (without <bos> and <eos>).
const int *trace_output(const Trace *t, int *n);
// The source's token ids (without padding), n of them.
const int *trace_source(const Trace *t, int *n);
// The decoding steps run, one a token (the last may choose <eos>); 0 in
// teacher forcing, which runs the decoder once over the whole target.
int trace_decoding_steps(const Trace *t);
// The tokens the encoder reads (with <eos>; with the padding when padded).
int trace_source_length(const Trace *t);
// Teacher forcing: the mean cross-entropy over the target positions.
float trace_mean_loss(const Trace *t);
// The model the trace was made with.
const Model *trace_model(const Trace *t);
// The decoding options the trace was made with, defaults filled in.
const DecodeOptions *trace_options(const Trace *t);
// The experiment that silences each attention head alone: the attention
// sub-layers in the order of trace_each_head_part, each head's mean
// teacher-forced loss with that head silenced (on top of t's own ablation),
// rows × nhead values into out. rows is n_enc + 2 × n_dec. Runs the model
// once per head; 0, or -1 with err (t not teacher-forced, memory).
int trace_each_head(const Trace *t, float *out, Error *err);
// Row r of that table: the sub-layer and its layer (from 1).
void trace_each_head_part(const Config *c, int r, AblPart *part, int *layer);
// Before and after silencing (the window's comparison of the experiment):
// the source of trace t run without its ablation and with it, decoded with
// its options (greedy in place of teacher forcing) and teacher-forced on
// target (ids without <eos>; NULL: t's own output, or its target when t is
// teacher-forced), the table of each head silenced alone on the unsilenced
// teacher-forced pass, and the AER of the model's supervised head in both
// passes when the corpus beside model_path (gold.h) aligns the sentence.
typedef struct {
    Trace *free[2], *forced[2];  // [0] without the ablation, [1] with it
    float *each_head;            // (n_enc + 2 × n_dec) × nhead mean losses (trace_each_head_part)
    double aer[2];               // -1: no gold alignment or no supervised head
} TraceCompare;
int trace_compare(const Trace *t, const char *model_path, const int *target, int target_len, TraceCompare *out, Error *err);
// Position r of a teacher-forced trace: its loss and the most likely token there. False past the end.
bool trace_forced_position(const Trace *t, int r, float *loss, int *argmax);
void trace_compare_deinit(TraceCompare *c);
// The table when the options asked for it (each_head), else NULL.
const float *trace_each_head_losses(const Trace *t);
// Bytes the trace holds.
size_t trace_bytes(const Trace *t);

// Writes the whole trace as JSON (schema in docs/TRACE.md). -inf and NaN are
// written as -Infinity and NaN, as Python's json module reads them.
int trace_write_json(const Trace *t, FILE *fp, const char *src_text);
// The same, shared true: with each decoder row written once ("shared_rows":
// true): a step whose rows a later step extends has "values": null and
// "values_in": the index of the last such step, whose values' first rows and
// columns are its own (docs/TRACE.md); and with one more member in the
// top-level object after "output", which more->write writes as "name":value
// (the comparison of two models, twin.h); more NULL: none. -1 when memory
// runs out or the stream fails.
typedef struct {
    void (*write)(FILE *fp, const void *ctx);
    const void *ctx;
} TraceJsonMore;
int trace_write_json_more(const Trace *t, FILE *fp, const char *src_text, bool shared, const TraceJsonMore *more);
// Writes the trace as NumPy's .npz (docs/TRACE.md): an uncompressed zip of
// .npy arrays, one per stage, layer, head and step, except that steps sharing
// their rows are one array (the last step's) with each step's shape beside
// it; the labels and settings in the member trace.json. 0, or -1 with err
// (a failed write is left in the stream's error).
int trace_write_npz(const Trace *t, FILE *fp, const char *src_text, Error *err);

#endif
