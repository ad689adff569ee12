// Gold alignments for a translation, from the toy corpora the shipped en-zh
// and en-fr models were trained on (docs/CORPUS.md): the views draw them over
// cross-attention so that the model's alignment can be checked against them.
#ifndef TT_GOLD_H
#define TT_GOLD_H

#include "corpus.h"
#include "error.h"
#include "vocab.h"

typedef struct GoldAlignment GoldAlignment;

// The corpus pair whose source is the tokens src (n_src of them) and whose
// target is tgt, when it has a gold alignment. The corpus of a model is
// <model's folder>/../corpus/<pair>/{train,valid,test}.tsv, and only
// en-zh.safetensors and en-fr.safetensors have one; the files are searched,
// not parsed whole, and not kept. Returns 0 with *out the alignment (free it
// with gold_free) or NULL when there is none; -1 with err when memory runs out.
int gold_find(const char *model_path, const char *const *src, int n_src, const char *const *tgt, int n_tgt, GoldAlignment **out,
              Error *err);
void gold_free(GoldAlignment *g);

// The pair, its tokens and links.
const CorpusPair *gold_pair(const GoldAlignment *g);
// The corpus file it is in: "train.tsv", "valid.tsv" or "test.tsv".
const char *gold_file(const GoldAlignment *g);

// How often each word of the source vocabulary v occurs on the source side of
// the model's training corpus (train.tsv, found as for gold_find): counts[id],
// voc_size(v) of them, for ranking what the text box offers; and, when next is
// not NULL, how often each follows each other (*next)[prev * V + id], V =
// voc_size(v), with prev = V for the start of a sentence: (V + 1) × V counts,
// free() them too. A line without a tab counts nothing, a word not in v is
// skipped (and the next word is counted as after nothing). Returns NULL when
// the model has no corpus at hand, it cannot be read, or memory runs out
// (*next alone is NULL when only the pairs' memory does).
int *gold_word_counts(const char *model_path, const Vocab *v, int **next);

#endif
