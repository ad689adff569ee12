// Running a sentence for the window: the checks the window makes before
// tracing (a sentence of unknown words, one too long), the trace, the words
// the model does not know; teacher forcing's target; decoding options' bounds.
#ifndef TT_RUN_H
#define TT_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "i18n.h"
#include "model.h"
#include "status.h"
#include "trace.h"
#include "vocab.h"

// Tokenizes and traces text with model m and decoding d; teacher forcing
// takes target, in m's target vocabulary. Returns the trace, or NULL with the
// reason in status; the unknown source words go into unknown.
Trace *run_text(const Model *m, DecodeOptions d, const Tokens *target, const char *text, Lang lang, StatusLine *status, char *unknown,
                size_t size);
// The target's tokens in m's target vocabulary (none for NULL). Returns 0, or -1 with err set.
int run_tokenize_target(const char *text, const Model *m, Tokens *out, Error *err);
// Teacher forcing given as ids: the tokens, and their text (*text, to free)
// for tokenizing again in another model's vocabulary. Returns 0, or -1 with err set.
int run_target_from_ids(const Vocab *tgt, const int *ids, int n, Tokens *out, char **text, Error *err);
// Why decoding options are out of bounds, or NULL when they are not.
const char *run_check_decode(const DecodeOptions *d, bool has_target);

#endif
