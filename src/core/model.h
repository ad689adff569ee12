// The model: the same computation as torch.nn.Transformer with its defaults
// (post-norm layers, ReLU, biases, final encoder and decoder LayerNorm), plus
// source and target embeddings and the output Linear ("generator").
#ifndef TT_MODEL_H
#define TT_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "vocab.h"

typedef struct {
    int d_model;        // E
    int nhead;          // H; d_k = E / H
    int n_enc, n_dec;   // layers
    int d_ff;           // F
    float eps;          // LayerNorm epsilon
    int max_len;        // longest source and target, in tokens
    int src_vocab;      // Vs
    int tgt_vocab;      // Vt
    bool tied;          // generator.weight is tgt_embed.weight
} Config;

typedef struct {
    float *in_proj_w;   // (3E, E): rows [0,E) make Q, [E,2E) K, [2E,3E) V
    float *in_proj_b;   // (3E)
    float *out_proj_w;  // (E, E)
    float *out_proj_b;  // (E)
} AttnWeights;

typedef struct {
    AttnWeights self_attn;
    float *lin1_w;  // (F, E)
    float *lin1_b;  // (F)
    float *lin2_w;  // (E, F)
    float *lin2_b;  // (E)
    float *norm1_w, *norm1_b;  // (E)
    float *norm2_w, *norm2_b;  // (E)
} EncLayer;

typedef struct {
    AttnWeights self_attn;
    AttnWeights cross_attn;    // "multihead_attn" in PyTorch
    float *lin1_w;  // (F, E)
    float *lin1_b;  // (F)
    float *lin2_w;  // (E, F)
    float *lin2_b;  // (E)
    float *norm1_w, *norm1_b;  // (E)
    float *norm2_w, *norm2_b;  // (E)
    float *norm3_w, *norm3_b;  // (E)
} DecLayer;

typedef struct {
    float *src_embed;       // (Vs, E)
    float *tgt_embed;       // (Vt, E)
    EncLayer *enc;          // n_enc
    DecLayer *dec;          // n_dec
    float *enc_norm_w, *enc_norm_b;  // (E)
    float *dec_norm_w, *dec_norm_b;  // (E)
    float *gen_w;           // (Vt, E); points at tgt_embed when tied
    float *gen_b;           // (Vt)
} Weights;

typedef struct {
    Config cfg;
    Weights w;
    Vocab *src, *tgt;
    char *name;             // from the file's metadata, or ""
    int align_layer, align_head;  // cross-attention head trained on gold alignments (from 1), or 0
    int training_step;      // a snapshot of its training (snapshots.h): the step; -1 for the model as it is
    char *path;             // where it was loaded from, or ""
    float *block;           // every parameter, one allocation
    long n_params;
} Model;

// One parameter tensor: its state_dict name, shape and storage.
typedef struct {
    char name[96];
    int ndim;
    int64_t shape[2];
    float *data;
} Param;

// Checks a config: positive sizes, d_model divisible by nhead, sane limits.
int mdl_check_config(const Config *c, Error *err);
// Number of floats the parameters take.
long mdl_param_count(const Config *c);

// Allocates a model with zeroed weights for cfg; takes ownership of the vocabs.
Model *mdl_new(const Config *cfg, Vocab *src, Vocab *tgt, Error *err);
void mdl_free(Model *m);

// Points w into block (mdl_param_count floats) with the same layout as a
// model's parameters: gradients and optimiser moments use it. Returns 0 or -1.
int mdl_weights_bind(const Config *c, float *block, Weights *w);
void mdl_weights_unbind(Weights *w);

// Fills params with every tensor of the file, in a fixed order (the tied
// generator weight is left out). Returns how many; params may be NULL to count.
int mdl_params(Model *m, Param *params);

// Loads a safetensors model file; nothing is half-loaded on error, and the
// message names the file and the problem.
Model *mdl_load(const char *path, Error *err);
// Saves the model (atomically) with its config and vocabularies as metadata.
int mdl_save(const Model *m, const char *path, Error *err);

// Initialises the weights deterministically from seed, as nn.Transformer
// does: Xavier-uniform for every matrix inside the encoder and decoder, zero
// attention biases, U(±1/√fan_in) Linear biases, LayerNorm 1 and 0; the
// embeddings N(0, 1/d_model) so that × √d_model gives unit scale; the
// generator as nn.Linear (U(±1/√E)).
void mdl_init_random(Model *m, uint64_t seed);

#endif
