// Vocabularies and the tokenizer. Text is UTF-8 throughout.
#ifndef TT_VOCAB_H
#define TT_VOCAB_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"

typedef struct Vocab Vocab;

// Special tokens every vocabulary holds (at any index).
#define VOC_PAD "<pad>"
#define VOC_BOS "<bos>"
#define VOC_EOS "<eos>"
#define VOC_UNK "<unk>"

// Builds a vocabulary from n token strings (copied). Refuses empty or
// duplicated tokens, invalid UTF-8, white space inside a token, and a missing
// special token.
Vocab *voc_new(const char *const *tokens, int n, Error *err);
// Builds one from a JSON array of strings, as stored in a model file.
Vocab *voc_from_json(const char *json_text, Error *err);
void voc_free(Vocab *v);

int voc_size(const Vocab *v);
// Id of a token, or -1.
int voc_id(const Vocab *v, const char *token);
const char *voc_token(const Vocab *v, int id);
int voc_pad(const Vocab *v);
int voc_bos(const Vocab *v);
int voc_eos(const Vocab *v);
int voc_unk(const Vocab *v);
// Longest token in bytes.
int voc_max_token_bytes(const Vocab *v);
// The vocabulary as a JSON array of strings (heap string).
char *voc_to_json(const Vocab *v);
// Whether two vocabularies are the same tokens with the same ids.
bool voc_same(const Vocab *a, const Vocab *b);

// A tokenized sentence: ids[i] is the token of piece[i], the text it came from
// (lower-cased). A piece that is not in the vocabulary has id <unk>.
typedef struct {
    int n;
    int *ids;
    char **pieces;
    int n_unknown;
} Tokens;

// Splits text into tokens: white space separates words, punctuation is split
// off, ASCII and Latin-1 letters are lower-cased; a word missing from the
// vocabulary that contains non-ASCII letters (e.g. unsegmented Chinese) is
// split by longest match against the vocabulary. Anything still unknown
// becomes <unk> and is counted in n_unknown. Fails on invalid UTF-8, control
// characters and empty text, naming the byte offset.
int voc_tokenize(const Vocab *v, const char *text, Tokens *out, Error *err);
void voc_tokens_deinit(Tokens *t);

// Looks up already-split tokens (e.g. a corpus line's): ids[i] is the id of
// tokens[i], or <unk>. Returns how many were unknown.
int voc_lookup(const Vocab *v, const char *const *tokens, int n, int *ids);

// Checks that text is valid UTF-8; on failure returns the byte offset of the
// first bad byte, else -1.
long voc_utf8_invalid_at(const char *text, long len);

// White space below U+0020 that a kind of text may hold (voc_forbidden_at).
enum { VOC_ALLOW_TAB = 1, VOC_ALLOW_LINE_ENDS = 2 };

// The one rule for characters no text may hold, in typed sentences, sentence
// lists, corpora and lessons: C0 controls (but tab, LF and CR where allow
// says), DEL, C1 controls U+0080–U+009F, the line and paragraph separators
// U+2028/U+2029, and the bidirectional embeddings, overrides and isolates
// U+202A–U+202E, U+2066–U+2069 (they make text read otherwise than it is
// stored). Returns the byte offset of the first and sets *cp, or -1. Stops
// at invalid UTF-8 (check that first with voc_utf8_invalid_at).
long voc_forbidden_at(const char *text, long len, int allow, uint32_t *cp);

#endif
