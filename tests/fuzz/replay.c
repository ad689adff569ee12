// Runs a fuzz harness over files without libFuzzer: every file named, and
// every file in every folder named (one level). The normal test suite uses it
// to replay the regressions in tests/fuzz/regressions/ and the seeds.
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fileio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
    char *data;
    size_t len;
    Error err;
    if (fio_read_all(path, (size_t)64 << 20, &data, &len, &err)) {
        fprintf(stderr, "replay: %s\n", err.msg);
        return -1;
    }
    LLVMFuzzerTestOneInput((const uint8_t *)data, len);
    free(data);
    return 0;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv) {
    int files = 0, failed = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: %s: no such file or folder\n", argv[i]);
            return 1;
        }
        if (!S_ISDIR(st.st_mode)) {
            failed += run_file(argv[i]) != 0;
            files++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        if (!d) {
            fprintf(stderr, "replay: %s: cannot open the folder\n", argv[i]);
            return 1;
        }
        // in name order, so that a run repeats
        char **names = NULL;
        size_t n = 0, cap = 0;
        for (struct dirent *e; (e = readdir(d));) {
            if (e->d_name[0] == '.') continue;
            if (n == cap) {
                cap = cap ? 2 * cap : 64;
                char **bigger = realloc(names, cap * sizeof *names);
                if (!bigger) abort();
                names = bigger;
            }
            size_t len = strlen(argv[i]) + strlen(e->d_name) + 2;
            if (!(names[n] = malloc(len))) abort();
            snprintf(names[n++], len, "%s/%s", argv[i], e->d_name);
        }
        closedir(d);
        qsort(names, n, sizeof *names, by_name);
        for (size_t k = 0; k < n; k++) {
            failed += run_file(names[k]) != 0;
            files++;
            free(names[k]);
        }
        free(names);
    }
    printf("replay: %d inputs run, %d unreadable\n", files, failed);
    return failed ? 1 : 0;
}
