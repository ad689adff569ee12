// Whole-file reads and atomic writes (temporary file in the same folder,
// flushed, then renamed over the target), so that an interrupted write never
// leaves a half-written file where a good one was.
#ifndef TT_FILEIO_H
#define TT_FILEIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "error.h"

// Reads a whole file into a NUL-terminated heap buffer (*len excludes the NUL).
// Refuses, before reading, what is not a regular file (a FIFO, a device, a
// folder) and files larger than max_bytes. Returns 0 or -1 with err set.
int fio_read_all(const char *path, size_t max_bytes, char **data, size_t *len, Error *err);

// Opens a regular file to read it piece by piece (a font, read glyph by
// glyph): refused, before opening, as fio_read_all refuses. Read rather than
// mapped, so that a file cut short while in use gives short reads, not a
// fault. *size is its size when opened. Returns a file descriptor to read
// (pread) and close, or -1 with err set.
int fio_open(const char *path, size_t max_bytes, size_t *size, Error *err);

typedef struct {
    FILE *fp;            // write here
    char *path;          // final name
    char *tmp_path;      // temporary name beside it
} AtomicFile;

// Opens a temporary file beside path. A symbolic link is followed: the file
// it names is replaced, beside it, and the link stays. Refuses a target that
// exists and is not a regular file (a device, a FIFO, a folder). Returns 0 or
// -1 with err set.
int fio_atomic_open(AtomicFile *af, const char *path, Error *err);
// Flushes, syncs and renames the temporary file over path; frees af's fields.
int fio_atomic_commit(AtomicFile *af, Error *err);
// Removes the temporary file and frees af's fields; the target is untouched.
void fio_atomic_abort(AtomicFile *af);
// Installs handlers for SIGINT, SIGTERM and SIGHUP (those not ignored) that
// remove the temporary files of writes in progress, then end the process as
// the signal would have. For command-line runs; the window has its own.
void fio_remove_temp_files_on_signal(void);
// Convenience: writes len bytes atomically.
int fio_write_atomic(const char *path, const void *data, size_t len, Error *err);

#endif
