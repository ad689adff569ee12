// Parallel corpora in tab-separated text: one sentence pair a line,
//   source <TAB> target [<TAB> alignment]
// Both sentences are UTF-8 tokens separated by spaces. The alignment, in
// Pharaoh format, lists links "i-j" (source token i, target token j, from 0)
// separated by spaces; an absent or empty third column means the line has no
// gold alignment. CRLF line ends, a UTF-8 byte order mark and empty lines are
// accepted. docs/CORPUS.md describes the files tg_generate writes.
#ifndef TT_CORPUS_H
#define TT_CORPUS_H

#include <stdbool.h>

#include "error.h"

// Longest line and largest file corpus_read accepts.
#define CORPUS_MAX_LINE_BYTES (1L << 20)
#define CORPUS_MAX_FILE_BYTES (256L << 20)

typedef struct {
    int src, tgt;   // token indices, from 0
} AlignLink;

typedef struct {
    const char *src_text, *tgt_text;    // as in the file (without the line end)
    int n_src, n_tgt;
    const char *const *src;             // n_src tokens
    const char *const *tgt;             // n_tgt tokens
    bool has_align;                     // a gold alignment was given
    int n_links;
    const AlignLink *links;             // sorted by source, then target; no duplicates
    int line;                           // line number in the file, from 1
} CorpusPair;

typedef struct Corpus Corpus;

// Reads a corpus file. A bad line — no tab or more than three columns, an
// empty side, invalid UTF-8, a control character, a malformed alignment link
// or one whose index is out of range — is an error "path:line: reason" and
// nothing is returned; with skip_bad it is skipped and counted instead. A file
// with no usable pair is an error either way.
Corpus *corpus_read(const char *path, bool skip_bad, Error *err);
void corpus_free(Corpus *c);

int corpus_size(const Corpus *c);
const CorpusPair *corpus_pair(const Corpus *c, int i);
// Lines skipped with skip_bad, and the message for the first of them ("" if none).
int corpus_skipped(const Corpus *c);
const char *corpus_first_skip(const Corpus *c);

#endif
