// Silencing parts of the model, an experiment (docs/TRACE.md, "Experiments"):
// attention heads, whose slice of the concatenated head outputs is set to 0
// before the output projection, and whole sub-layers, whose output is set
// to 0 so that the residual passes through alone.
#ifndef TT_ABLATION_H
#define TT_ABLATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// The sub-layers, as their stage ids name them.
typedef enum { ABL_ENC_SELF, ABL_ENC_FFN, ABL_DEC_SELF, ABL_DEC_CROSS, ABL_DEC_FFN, ABL_PART_COUNT } AblPart;

enum { ABL_MAX = 32 };  // parts silenced at once

typedef struct {
    uint8_t part;   // AblPart
    uint8_t layer;  // from 1
    uint16_t head;  // from 1; 0 = the whole sub-layer
} AblItem;

// A set of silenced parts, by value (it travels in DecodeOptions); n 0 = none.
typedef struct {
    int n;
    AblItem items[ABL_MAX];
} Ablation;

// Parses a comma-separated list: "dec.L2.cross_attn.H1", a sub-layer
// "dec.L2.cross_attn" (self_attn, cross_attn, ffn; enc has no cross_attn),
// or "L2H1" for decoder layer 2's cross-attention head 1. Layers 1 to 64,
// heads 1 to 256, at most ABL_MAX parts; "none" or "" is the empty set.
// Returns 0, or -1 with why saying what is wrong ("\"dec.L2.crossattn\" is
// not a head or sub-layer (e.g. dec.L2.cross_attn.H1, L2H1, enc.L1.ffn)").
int abl_parse(const char *text, Ablation *out, char *why, size_t size);
// Whether a model of n_enc and n_dec layers and nhead heads has every part;
// why names the first it lacks. Returns 0 or -1.
int abl_check(const Ablation *a, int n_enc, int n_dec, int nhead, char *why, size_t size);
// Keeps in a the parts a model of n_enc and n_dec layers and nhead heads
// has and moves the others to dropped (which may be NULL); returns how many were dropped.
int abl_keep(Ablation *a, int n_enc, int n_dec, int nhead, Ablation *dropped);
// Whether head (from 1) of a sub-layer is silenced, itself or with its sub-layer.
bool abl_head(const Ablation *a, AblPart part, int layer, int head);
// Whether the whole sub-layer is silenced.
bool abl_sublayer(const Ablation *a, AblPart part, int layer);
// Adds the part, or removes it if it is there. Returns -1 when the set is full.
int abl_toggle(Ablation *a, AblItem item);
// One part's name: "dec.L2.cross_attn.H1", "enc.L1.ffn". Returns buf.
char *abl_item_name(AblItem item, char *buf, size_t size);
// The set as abl_parse reads it, parts joined by ","; "" for none. Returns buf.
char *abl_format(const Ablation *a, char *buf, size_t size);
// The sub-layer's prefix in stage names: "dec.cross_attn" for ABL_DEC_CROSS.
const char *abl_part_name(AblPart part);

#endif
