// MAP_POPULATE is not in POSIX 2008.
#define _DEFAULT_SOURCE

#include "fileio.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

// Reads all of an open stream (named path in messages) and closes it.
static int read_stream(FILE *fp, const char *path, size_t max_bytes, char **data, size_t *len, Error *err) {
    struct stat st;
    if (fstat(fileno(fp), &st) != 0) {
        err_set(err, "%s: cannot stat: %s", path, strerror(errno));
        fclose(fp);
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        fclose(fp);
        return err_set(err, "%s: is a directory, expected a file", path);
    }
    // The size is only a hint (pipes report 0, files may grow); the read loop decides.
    if (S_ISREG(st.st_mode) && st.st_size > 0 && (uintmax_t)st.st_size > max_bytes) {
        fclose(fp);
        return err_set(err, "%s: file is %jd bytes, larger than the limit of %zu bytes",
                       path, (intmax_t)st.st_size, max_bytes);
    }
    size_t cap = S_ISREG(st.st_mode) && st.st_size > 0 ? (size_t)st.st_size + 1 : 65536;
    if (cap > max_bytes && max_bytes < SIZE_MAX) cap = max_bytes + 1;
    char *buf = malloc(cap);
    if (!buf) {
        fclose(fp);
        return err_set(err, "%s: out of memory reading %zu bytes", path, cap);
    }

    size_t used = 0;
    for (;;) {
        if (used == cap - 1) {
            // Full: at the end of a file read at its stat size, one probe tells
            // "all of it" without doubling (and copying) the buffer.
            int c = fgetc(fp);
            if (c == EOF && ferror(fp)) {
                err_set(err, "%s: cannot read: %s", path, strerror(errno));
                goto fail;
            }
            if (c == EOF) break;
            ungetc(c, fp);
            if (used >= max_bytes) {
                err_set(err, "%s: file is larger than the limit of %zu bytes", path, max_bytes);
                goto fail;
            }
            size_t grown = cap <= SIZE_MAX / 2 ? cap * 2 : SIZE_MAX;
            if (max_bytes < SIZE_MAX && grown > max_bytes + 1) grown = max_bytes + 1;
            char *bigger = realloc(buf, grown);
            if (!bigger) {
                err_set(err, "%s: out of memory reading %zu bytes", path, grown);
                goto fail;
            }
            buf = bigger;
            cap = grown;
        }
        size_t got = fread(buf + used, 1, cap - 1 - used, fp);
        used += got;
        if (got == 0) {
            if (ferror(fp)) {
                err_set(err, "%s: cannot read: %s", path, strerror(errno));
                goto fail;
            }
            break;
        }
    }
    fclose(fp);
    buf[used] = '\0';
    *data = buf;
    *len = used;
    return 0;

fail:
    free(buf);
    fclose(fp);
    return -1;
}

int fio_read_all(const char *path, size_t max_bytes, char **data, size_t *len, Error *err) {
    *data = NULL;
    *len = 0;
    FILE *fp = fopen(path, "rb");
    if (!fp) return err_set(err, "%s: cannot open: %s", path, strerror(errno));
    return read_stream(fp, path, max_bytes, data, len, err);
}

int fio_map(const char *path, size_t max_bytes, FioMap *m, Error *err) {
    *m = (FioMap){0};
    int fd = open(path, O_RDONLY);
    if (fd < 0) return err_set(err, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && (uintmax_t)st.st_size <= max_bytes) {
        // MAP_POPULATE: the whole file is about to be read, so map it in one go
        void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
        if (p != MAP_FAILED) {
            close(fd);
            *m = (FioMap){p, (size_t)st.st_size, true};
            return 0;
        }
    }
    // Not a regular file, empty, too large or not mappable: read it through
    // the same descriptor (opening a pipe again would wait for a new writer),
    // and the reader says what is wrong, if anything.
    FILE *fp = fdopen(fd, "rb");
    if (!fp) {
        err_set(err, "%s: cannot read: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    char *data;
    size_t len;
    if (read_stream(fp, path, max_bytes, &data, &len, err)) return -1;
    *m = (FioMap){data, len, false};
    return 0;
}

void fio_unmap(FioMap *m) {
    if (m->mapped) munmap((void *)m->data, m->len);
    else free((void *)m->data);
    *m = (FioMap){0};
}

static void atomic_clear(AtomicFile *af) {
    free(af->path);
    free(af->tmp_path);
    af->fp = NULL;
    af->path = NULL;
    af->tmp_path = NULL;
}

int fio_atomic_open(AtomicFile *af, const char *path, Error *err) {
    af->fp = NULL;
    af->path = NULL;
    af->tmp_path = NULL;

    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t dir_len = (size_t)(base - path);  // includes the trailing '/'
    if (*base == '\0' || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
        return err_set(err, "%s: not a file name", path);
    // a folder at the target would only fail at the final rename: say so now
    struct stat st;
    bool target_exists = stat(path, &st) == 0;
    if (target_exists && S_ISDIR(st.st_mode)) return err_set(err, "%s: is a directory", path);

    // Same directory as the target, so rename() never crosses file systems.
    static const char suffix[] = ".tmp.XXXXXX";
    size_t base_len = strlen(base);
    af->path = malloc(dir_len + base_len + 1);
    af->tmp_path = malloc(dir_len + 1 + base_len + sizeof suffix);
    if (!af->path || !af->tmp_path) {
        atomic_clear(af);
        return err_set(err, "%s: out of memory", path);
    }
    memcpy(af->path, path, dir_len + base_len + 1);
    memcpy(af->tmp_path, path, dir_len);
    af->tmp_path[dir_len] = '.';
    memcpy(af->tmp_path + dir_len + 1, base, base_len);
    memcpy(af->tmp_path + dir_len + 1 + base_len, suffix, sizeof suffix);

    int fd = mkstemp(af->tmp_path);
    if (fd < 0) {
        err_set(err, "%s: cannot create a temporary file beside it: %s", path, strerror(errno));
        atomic_clear(af);
        return -1;
    }
    // mkstemp makes the file 0600; keep the target's mode, or the usual 0644
    // for a new file. Failing here is not fatal: the data is what matters.
    mode_t mode = target_exists ? (st.st_mode & 07777) : 0644;
    (void)fchmod(fd, mode);
    af->fp = fdopen(fd, "wb");
    if (!af->fp) {
        err_set(err, "%s: cannot open the temporary file: %s", path, strerror(errno));
        close(fd);
        unlink(af->tmp_path);
        atomic_clear(af);
        return -1;
    }
    return 0;
}

// Best effort: makes the rename itself durable. Some file systems refuse it.
static void sync_parent_dir(const char *path) {
    const char *slash = strrchr(path, '/');
    char *dir = NULL;
    if (!slash) {
        dir = malloc(2);
        if (dir) strcpy(dir, ".");
    } else {
        size_t n = slash == path ? 1 : (size_t)(slash - path);
        dir = malloc(n + 1);
        if (dir) {
            memcpy(dir, path, n);
            dir[n] = '\0';
        }
    }
    if (!dir) return;
    int fd = open(dir, O_RDONLY);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    free(dir);
}

int fio_atomic_commit(AtomicFile *af, Error *err) {
    if (!af->fp) {
        atomic_clear(af);
        return err_set(err, "atomic write was not open");
    }
    const char *path = af->path;
    int rc = 0;
    if (ferror(af->fp)) {
        rc = err_set(err, "%s: write failed", path);
    } else if (fflush(af->fp) != 0) {
        rc = err_set(err, "%s: cannot write: %s", path, strerror(errno));
    } else if (fsync(fileno(af->fp)) != 0) {
        rc = err_set(err, "%s: cannot sync to disk: %s", path, strerror(errno));
    }
    // fclose can report a late write error (e.g. on network file systems).
    if (fclose(af->fp) != 0 && rc == 0)
        rc = err_set(err, "%s: cannot write: %s", path, strerror(errno));
    af->fp = NULL;
    if (rc == 0 && rename(af->tmp_path, path) != 0)
        rc = err_set(err, "%s: cannot replace the file: %s", path, strerror(errno));
    if (rc != 0)
        unlink(af->tmp_path);
    else
        sync_parent_dir(path);
    atomic_clear(af);
    return rc;
}

void fio_atomic_abort(AtomicFile *af) {
    if (!af) return;
    if (af->fp) fclose(af->fp);
    if (af->tmp_path) unlink(af->tmp_path);
    atomic_clear(af);
}

int fio_write_atomic(const char *path, const void *data, size_t len, Error *err) {
    AtomicFile af;
    if (fio_atomic_open(&af, path, err) != 0) return -1;
    if (len > 0 && fwrite(data, 1, len, af.fp) != len) {
        err_set(err, "%s: cannot write: %s", path, strerror(errno));
        fio_atomic_abort(&af);
        return -1;
    }
    return fio_atomic_commit(&af, err);
}
