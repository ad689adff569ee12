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

// A whole file mapped read-only, or read into memory where it cannot be
// mapped (an empty file): for large files that are only read, with no copy
// and no fresh buffer to fault in page by page. Not NUL-terminated. Files
// here are replaced by rename (fio_atomic_*), which leaves a mapping intact;
// a file truncated in place while mapped would fault on access (SIGBUS), so
// what may be cut short while in use (a model being copied) is read instead.
typedef struct {
    const char *data;
    size_t len;
    bool mapped;
} FioMap;

// Maps path (at most max_bytes). Returns 0 or -1 with err set, as fio_read_all.
int fio_map(const char *path, size_t max_bytes, FioMap *m, Error *err);
// Unmaps or frees; m is zeroed. Safe on a zeroed FioMap.
void fio_unmap(FioMap *m);

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
