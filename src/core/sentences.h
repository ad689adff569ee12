// A class list of sentences (--sentences FILE): one UTF-8 sentence a line.
// Blank lines and lines whose first non-blank character is # are skipped; CRLF
// line ends and a byte order mark are accepted. Anything else that could not
// be a sentence is an error "path:line: reason", and nothing is returned.
#ifndef TT_SENTENCES_H
#define TT_SENTENCES_H

#include <stddef.h>

#include "error.h"

// Longest line accepted, in bytes (without the line end), and largest file.
#define SL_MAX_LINE_BYTES 1000
#define SL_MAX_FILE_BYTES (4L << 20)  // thousands of sentences; a class list is a few dozen

typedef struct SentenceList SentenceList;

// Reads a list file. Fails on a missing or unreadable file, invalid UTF-8, a
// control character, a line over SL_MAX_LINE_BYTES, or no sentence at all.
SentenceList *sl_load(const char *path, Error *err);
// The same from text in memory; name stands for the file in messages.
SentenceList *sl_parse(const char *name, const char *text, size_t len, Error *err);
void sl_free(SentenceList *l);

int sl_count(const SentenceList *l);
// Sentence i (from 0), without surrounding blanks.
const char *sl_get(const SentenceList *l, int i);
// The line of the file sentence i is on, from 1.
int sl_line(const SentenceList *l, int i);

#endif
