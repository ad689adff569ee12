// What the trace's source files share (trace.c: the plan, recording and the
// forward pass; decode.c: the decoding strategies; trace_json.c: the JSON
// writer). Private to the core: callers use trace.h.
#ifndef TT_TRACE_PRIVATE_H
#define TT_TRACE_PRIVATE_H

#include "trace.h"

enum { TRACE_STAGE_CACHE = 128 };  // a power of two, over twice the stage table's rows

struct Trace {
    const Model *model;
    DecodeOptions opt;
    Step *steps;            // n_steps of cap_steps
    int *shares;            // per step: the earlier step whose rows it extends in place (same data), or -1
    int n_steps, cap_steps;
    float *floats;          // data of every step
    size_t n_floats, cap_floats;
    const char **labels;    // label arrays of every step
    size_t n_labels, cap_labels;
    char *chars;            // label strings made for the trace (beam hypotheses)
    size_t n_chars, cap_chars;
    int *src_ids;           // the source's src_n tokens, then <pad> up to opt.pad_to
    int src_n;
    int *out_ids;           // out_n generated tokens (cap: max_steps)
    int out_n;
    int decoding_steps;     // greedy, sampling, beam search: the steps run (the last may choose <eos>); teacher forcing: 0
    float mean_loss;
    float *each_head;       // opt.each_head: the losses of trace_each_head, its own allocation; else NULL
    size_t bytes;
};

// Run state: what the forward pass needs besides the trace.
typedef struct {
    Trace *tr;
    const Model *m;
    bool record;            // false: values go to scratch and are not kept
    float *scratch;         // for passes that are not recorded
    size_t n_scratch, cap_scratch;
    float *qkv;             // full Q, K and V projections: 3 × rows × E
    float *pe;              // positional encoding for the longest sequence
    float *cross_kv;        // the memory's cross-attention K then V per decoder layer: (L, 2, n, E)
    const float *key_padding_mask;  // src.padding_mask's values: 0 for a token, −inf for <pad> (n); NULL: padding is off
    float *key_padding;     // where they are kept (n)
    const char *const *vocab_labels;  // the target vocabulary by id: columns of logits and probabilities
    int layer, head, dstep;
    int first_row;          // incremental pass: rows below it are the previous pass's; 0: none
    int prev_step;          // incremental pass: the previous pass's step that matches the next emit
    int chain_cap;          // greedy and sampling: decoder passes extend each other up to this length; 0: passes stand alone
    int grow_cap;           // in the first pass of a chain: its m-long axes get room for chain_cap positions
    float *chain_qkv;       // a chain's self-attention Q, K and V of every position: (n_dec, 3, chain_cap, E)
    int last_stride;        // the row stride of the value trace_emit returned last (0: its one row stands for the new row)
    bool last_shared;       // that value is kept from the previous pass: its old rows hold their values
    signed char *wanted;    // DecodeOptions.stages: per stage row and layer, 1 recorded, -1 not, 0 not yet asked
    int wanted_layers;
    struct {
        const char *name;
        const StageInfo *stage;
    } stage_cache[TRACE_STAGE_CACHE];  // stage rows by the address of a step's name (trace_emit)
} Ctx;

// A sequence's values with its labels and symbolic length, e.g. "n".
typedef struct {
    const float *x;
    int len;
    const char *const *labels;
    const char *sym;
} Seq;

// ---- trace.c: recording and the forward pass ------------------------------

// Allocates a step's data: in the trace when recording and the stage is
// wanted (DecodeOptions.stages), else in scratch.
// tpl gives everything but the layer, head and step, taken from the context.
// In an incremental pass the step shares the previous pass's step's storage,
// grown by the new positions: its old rows and columns already hold their
// values. The row stride is left in c->last_stride.
float *trace_emit(Ctx *c, Step tpl);
// count label pointers in the trace; NULL when not recording.
const char **trace_new_labels(Ctx *c, size_t count);
// The tokens of ids as labels; NULL when not recording.
const char **trace_token_labels(Ctx *c, const Vocab *v, const int *ids, int n);
// One pass of the decoder over ids (length t); returns the final-normed
// output (t × E). prev_pass ≥ 0 makes it incremental (see trace.c).
float *trace_decoder_pass(Ctx *c, const int *ids, int t, const char *sym, Seq mem, int prev_pass);
// Logits and probabilities for the rows of h (rows × E); returns the logits.
float *trace_predict(Ctx *c, const float *h, int rows, const char *sym, const char *const *labels, float **probs_out);

// ---- decode.c: the decoding strategies ------------------------------------

// Checks the options against the model and a source of n tokens, and fills
// in the defaults. 0, or -1 with err.
int decode_check_options(const Model *m, int n, DecodeOptions *o, Error *err);
// Decodes from the memory with the trace's strategy (greedy, sampling, beam
// or teacher forcing), recording every step. 0, or -1 when memory runs out.
int decode_run(Ctx *c, Seq mem);
// Records out.tokens, the output sentence.
void decode_record_output(Ctx *c);

// ---- trace_json.c: what the JSON and the npz file share --------------------

// "model", "decode", "source" and "output" as members of a JSON object (no braces).
void trace_json_about(const Trace *t, FILE *fp, const char *src_text);
// A step's stage, kind, layer, head, step, shape, symbolic shape, formula and
// labels as members of a JSON object (no braces).
void trace_json_step_about(FILE *fp, const Step *s);

#endif
