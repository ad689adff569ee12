// Toy parallel corpora from a small grammar, with gold word alignments, so
// that a tiny Transformer can learn to translate and its cross-attention can
// be checked against the alignments. The grammar is in docs/CORPUS.md.
// Everything is deterministic for a given seed.
#ifndef TT_TOYGEN_H
#define TT_TOYGEN_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"

// Unique source sentences in each split.
#define TG_TRAIN_SIZE 20000
#define TG_VALID_SIZE 500
#define TG_TEST_SIZE 500

// Language pairs: "en-zh" (Traditional Chinese, words separated by spaces)
// and "en-fr".
bool tg_pair_known(const char *pair);
// The known pairs for messages and help texts: "en-zh, en-fr".
const char *tg_pair_names(void);

// Writes train.tsv, valid.tsv and test.tsv (source TAB target TAB alignment
// in Pharaoh format, one pair a line) and src.vocab, tgt.vocab (<pad>, <bos>,
// <eos>, <unk>, then the train split's tokens in order of first appearance)
// into out_dir, creating it if needed. Each file is written atomically.
// The same pair and seed give byte-identical files.
int tg_generate(const char *pair, uint64_t seed, const char *out_dir, Error *err);

// One of the course's example sentences, as the grammar translates it. Every
// example is in the train split of every seed.
typedef struct {
    char source[256];
    char target[256];
    char alignment[256];    // Pharaoh: "source-target" index pairs, from 0
    const char *shows;      // what it illustrates, e.g. "one-to-many: nlp → 自然 語言 處理"
} TgExample;

// Number of examples for a pair (0 for an unknown pair).
int tg_example_count(const char *pair);
// Fills out with example i (from 0). Returns 0, or -1 for a bad pair or index.
int tg_example(const char *pair, int i, TgExample *out);

#endif
