#include "fuzz_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef TT_FUZZ_ASSETS
#define TT_FUZZ_ASSETS "assets"
#endif

static char scratch[4096];
static int scratch_fd = -1;

static void remove_scratch(void) {
    if (scratch_fd >= 0) {
        close(scratch_fd);
        unlink(scratch);
    }
}

const char *fz_write_file(const uint8_t *data, size_t size) {
    if (scratch_fd < 0) {
        const char *dir = getenv("TMPDIR");
        snprintf(scratch, sizeof scratch, "%s/tt-fuzz-XXXXXX", dir && *dir ? dir : "/tmp");
        scratch_fd = mkstemp(scratch);
        if (scratch_fd < 0) {
            perror("fuzz: mkstemp");
            abort();
        }
        atexit(remove_scratch);
    }
    // rewrite in place: ftruncate, then pwrite from offset 0
    if (ftruncate(scratch_fd, 0) != 0) {
        perror("fuzz: ftruncate");
        abort();
    }
    for (size_t done = 0; done < size;) {
        ssize_t n = pwrite(scratch_fd, data + done, size - done, (off_t)done);
        if (n <= 0) {
            perror("fuzz: pwrite");
            abort();
        }
        done += (size_t)n;
    }
    return scratch;
}

char *fz_strndup(const uint8_t *data, size_t size) {
    char *s = malloc(size + 1);
    if (!s) abort();
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

const char *fz_assets(void) {
    const char *env = getenv("TT_FUZZ_ASSETS");
    return env && *env ? env : TT_FUZZ_ASSETS;
}
