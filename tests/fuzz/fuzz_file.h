// Helpers shared by the fuzz harnesses: the readers under test take a path,
// so each input is written to one scratch file per process first.
#ifndef TT_FUZZ_FILE_H
#define TT_FUZZ_FILE_H

#include <stddef.h>
#include <stdint.h>

// Writes data[0..size) to this process's scratch file and returns its path.
// Aborts if the file cannot be written: that is the harness's fault, not the input's.
const char *fz_write_file(const uint8_t *data, size_t size);

// data[0..size) as a NUL-terminated heap string (cut at the first NUL, as argv would be).
char *fz_strndup(const uint8_t *data, size_t size);

// The shipped assets folder (assets/ of the source tree), set at build time.
const char *fz_assets(void);

#endif
