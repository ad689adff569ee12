// The stage table: everything the program knows about each kind of recorded
// value, in one place. A stage is a name without its layer
// ("dec.cross_attn.weights"); its stage id puts the layer in
// ("dec.L2.cross_attn.weights"). The trace, navigation, the views, lessons
// and lint ask this table; the strings themselves are for JSON and lesson
// files. Adding a stage: one row in stage.c (and the trace that emits it).
#ifndef TT_STAGE_H
#define TT_STAGE_H

#include <stdbool.h>
#include <stddef.h>

// Where in the model a stage is computed: the parts of the architecture map.
typedef enum {
    STAGE_SOURCE,   // the source sentence into vectors (src.*)
    STAGE_ENCODER,  // the encoder stack and its final norm (enc.*)
    STAGE_TARGET,   // the decoder's input into vectors, and its mask (dec.tokens … dec.look_ahead_mask)
    STAGE_DECODER,  // the decoder stack and its final norm
    STAGE_OUTPUT,   // logits and probabilities
    STAGE_DECODING, // choosing the next token: top-k, sampling, beam, loss, the output
} StagePart;

// The block of the architecture a stage belongs to.
typedef enum {
    STAGE_BLOCK_EMBEDDING,   // tokens, embeddings, positional encoding, input
    STAGE_BLOCK_MASK,        // the look-ahead mask, the padding mask
    STAGE_BLOCK_SELF_ATTN,   // (masked) multi-head self-attention
    STAGE_BLOCK_CROSS_ATTN,  // encoder-decoder attention
    STAGE_BLOCK_ADD_NORM,    // residual, then LayerNorm
    STAGE_BLOCK_FFN,         // position-wise feed-forward
    STAGE_BLOCK_FINAL_NORM,  // the stack's final LayerNorm
    STAGE_BLOCK_PROJECTION,  // logits and softmax
    STAGE_BLOCK_CHOICE,      // the decoding strategy's work and its result
} StageBlock;

// Stages shown together by one view switch.
typedef enum {
    STAGE_GROUP_NONE,
    STAGE_GROUP_MASKING,  // mask + raw scores = masked scores → weights (the decoder's self-attention)
} StageGroup;

typedef enum { STAGE_EN, STAGE_ZH_TW } StageLang;

// How a stage's values are recorded: Step.kind as an enum, what the views are chosen by.
typedef enum {
    STAGE_KIND_TOKENS,     // one row of token ids
    STAGE_KIND_MATRIX,     // vectors, one row a token
    STAGE_KIND_ATTENTION,  // softmax weights, rows over keys
    STAGE_KIND_SCORES,     // attention scores before the softmax
    STAGE_KIND_MASK,       // 0 or −∞
    STAGE_KIND_PROBS,      // probabilities over the target vocabulary
    STAGE_KIND_TOP_K,      // the most likely tokens
    STAGE_KIND_BEAM,       // a beam search step's candidates
    STAGE_KIND_CHOICE,     // the token chosen, its P and the draw
    STAGE_KIND_LOSS,       // cross-entropy at each position
} StageKind;

typedef struct {
    const char *name;        // "dec.cross_attn.weights"
    const char *kind;        // how the trace records it (Step.kind): tokens, matrix, attention, scores, mask, probs, …
    StageKind kind_id;       // the same as an enum
    StagePart part;
    StageBlock block;
    int sublayer;            // in a layer: 1, 2 (and 3 in the decoder), counting sub-layers with their Add & Norm; 0 outside
    bool layered;            // has a layer: the stage id reads "enc.L1.…"
    bool per_head;           // one value per attention head
    bool stop;               // Shift+→ stops here: a sub-layer's scores, weights and output, each part's input and result
    bool ends_sublayer;      // the last value of its sub-layer (or of its part outside the layers)
    bool attention_weights;  // rows are softmax weights over keys
    bool causal;             // only j ≤ i is visible: above the diagonal is masked
    StageGroup group;
    int group_index;         // its place in the group (0 first)
    const char *what[2];     // the value itself, by StageLang: "weights" / 「權重」
} StageInfo;

// Every stage, in the order a trace records them.
int stage_count(void);
const StageInfo *stage_at(int i);
// By name without the layer ("dec.cross_attn.weights"), or NULL.
const StageInfo *stage_find(const char *name);
// By stage id ("dec.L2.cross_attn.weights" or "dec.probs"), or NULL; *layer
// gets the layer (0 for an unlayered stage). NULL too for a layered stage
// without its layer, or an unlayered one with a layer.
const StageInfo *stage_parse_id(const char *stage_id, int *layer);
// The stage id users see: the name with the layer put in. Returns buf.
char *stage_id(const StageInfo *s, int layer, char *buf, size_t size);
// The human name, e.g. "Encoder layer 1 · self-attention · weights" /
// 「編碼器第 1 層・自注意力・權重」. Returns buf.
char *stage_human_name(const StageInfo *s, int layer, StageLang lang, char *buf, size_t size);
// The name of the box the stage is computed in on the architecture map
// ("Masked self-attention", "Add & Norm", "Linear + softmax" …).
const char *stage_box_name(const StageInfo *s, StageLang lang);
// What a KV cache keeps: the decoder self-attention's K (which 0) and V
// (which 1), the rows a decoder need not compute again at the next step.
const StageInfo *stage_kv_cache(int which);
// The stages of a group, in order: n of them, at most max.
int stage_group(StageGroup g, const StageInfo **out, int max);

#endif
