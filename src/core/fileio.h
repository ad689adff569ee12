// Whole-file reads and atomic writes (temporary file in the same folder,
// flushed, then renamed over the target), so that an interrupted write never
// leaves a half-written file where a good one was.
#ifndef TT_FILEIO_H
#define TT_FILEIO_H

#include <stddef.h>
#include <stdio.h>

#include "error.h"

// Reads a whole file into a NUL-terminated heap buffer (*len excludes the NUL).
// Refuses files larger than max_bytes. Returns 0 or -1 with err set.
int fio_read_all(const char *path, size_t max_bytes, char **data, size_t *len, Error *err);

typedef struct {
    FILE *fp;            // write here
    char *path;          // final name
    char *tmp_path;      // temporary name beside it
} AtomicFile;

// Opens a temporary file beside path. Returns 0 or -1 with err set.
int fio_atomic_open(AtomicFile *af, const char *path, Error *err);
// Flushes, syncs and renames the temporary file over path; frees af's fields.
int fio_atomic_commit(AtomicFile *af, Error *err);
// Removes the temporary file and frees af's fields; the target is untouched.
void fio_atomic_abort(AtomicFile *af);
// Convenience: writes len bytes atomically.
int fio_write_atomic(const char *path, const void *data, size_t len, Error *err);

#endif
