// Gold alignments for the sentence on screen, from the toy corpora the shipped
// en-zh and en-fr models were trained on (docs/CORPUS.md): drawn over
// cross-attention so the model's alignment can be checked against them.
#ifndef TT_GOLD_H
#define TT_GOLD_H

#include "corpus.h"
#include "model.h"
#include "trace.h"

// The corpus pair whose source is the trace's source sentence and whose target
// is the trace's output, when it has a gold alignment; NULL otherwise, and
// always for models other than en-zh.safetensors and en-fr.safetensors. Their
// corpora are <model's folder>/../corpus/<pair>/{train,valid,test}.tsv,
// searched (not parsed whole) when the sentence or the output changes; the
// last answer is kept for redraws. *file names the split the pair is in.
const CorpusPair *gold_find(const Model *m, const Trace *t, const char **file);

#endif
