#include "fileio.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// What a path that is not a regular file is, for messages.
static const char *file_kind(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "a special file";
}

// A limit in bytes and as people say it: "1048576 bytes (1 MiB)".
static void format_limit(char *buf, size_t size, size_t bytes) {
    static const char *const units[] = {"KiB", "MiB", "GiB"};
    int u = -1;
    size_t n = bytes;
    while (u < 2 && n >= 1024 && n % 1024 == 0) {
        n /= 1024;
        u++;
    }
    if (u < 0) snprintf(buf, size, "%zu bytes", bytes);
    else snprintf(buf, size, "%zu bytes (%zu %s)", bytes, n, units[u]);
}

static int too_large(const char *path, uintmax_t size, size_t max_bytes, Error *err) {
    char limit[64];
    format_limit(limit, sizeof limit, max_bytes);
    if (size == UINTMAX_MAX) return err_set(err, "%s: file is larger than the limit of %s", path, limit);
    return err_set(err, "%s: file is %ju bytes, larger than the limit of %s", path, size, limit);
}

// Opens path for reading only if it is a regular file of at most max_bytes:
// a FIFO would block the open for ever, /dev/zero would never end, and a
// folder cannot be read. *size is its size from fstat. Returns 0 or -1.
static int open_regular(const char *path, size_t max_bytes, int *fd_out, size_t *size, Error *err) {
    struct stat st;
    // stat first, so that nothing else is ever opened (opening a device can act)
    if (stat(path, &st) != 0) return err_set(err, "%s: cannot open: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode)) return err_set(err, "%s: is %s, not a regular file", path, file_kind(st.st_mode));
    // O_NONBLOCK: should a FIFO have taken its place since, the open does not wait
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return err_set(err, "%s: cannot open: %s", path, strerror(errno));
    int rc = 0;
    if (fstat(fd, &st) != 0) rc = err_set(err, "%s: cannot stat: %s", path, strerror(errno));
    else if (!S_ISREG(st.st_mode)) rc = err_set(err, "%s: is %s, not a regular file", path, file_kind(st.st_mode));
    else if ((uintmax_t)st.st_size > max_bytes) rc = too_large(path, (uintmax_t)st.st_size, max_bytes, err);
    if (rc) {
        close(fd);
        return rc;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0) (void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    *fd_out = fd;
    *size = (size_t)st.st_size;
    return 0;
}

// Reads a regular file of size bytes (from fstat) into a NUL-terminated
// buffer. A file that shrank meanwhile gives what is left; one that grew is
// read on, up to max_bytes.
static int read_fd(int fd, const char *path, size_t size, size_t max_bytes, char **data, size_t *len, Error *err) {
    size_t cap = size + 1;
    char *buf = malloc(cap);
    if (!buf) return err_set(err, "%s: out of memory reading %zu bytes", path, cap);
    size_t used = 0;
    for (;;) {
        // full: one byte more tells "all of it" from "it grew" without a bigger buffer
        size_t want = used == cap - 1 ? 1 : cap - 1 - used;
        ssize_t got = read(fd, buf + used, want);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            err_set(err, "%s: cannot read: %s", path, strerror(errno));
            goto fail;
        }
        if (got == 0) break;
        used += (size_t)got;
        if (used > max_bytes) {
            too_large(path, UINTMAX_MAX, max_bytes, err);
            goto fail;
        }
        if (used == cap) {
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
    }
    buf[used] = '\0';
    *data = buf;
    *len = used;
    return 0;

fail:
    free(buf);
    return -1;
}

int fio_read_all(const char *path, size_t max_bytes, char **data, size_t *len, Error *err) {
    *data = NULL;
    *len = 0;
    int fd = -1;
    size_t size = 0;
    if (open_regular(path, max_bytes, &fd, &size, err)) return -1;
    int rc = read_fd(fd, path, size, max_bytes, data, len, err);
    close(fd);
    return rc;
}

int fio_open(const char *path, size_t max_bytes, size_t *size, Error *err) {
    int fd = -1;
    return open_regular(path, max_bytes, &fd, size, err) ? -1 : fd;
}

// The temporary files being written, for the signal handler to remove. A
// handler may only read lock-free atomics; a slot holds the AtomicFile's own
// tmp_path, set after the file is made and cleared before it is freed.
#define TEMP_SLOTS 16
static_assert(ATOMIC_POINTER_LOCK_FREE == 2, "the signal handler needs lock-free pointers");
static _Atomic(char *) temp_files[TEMP_SLOTS];

static void temp_register(char *tmp_path) {
    for (int i = 0; i < TEMP_SLOTS; i++) {
        char *empty = NULL;
        if (atomic_compare_exchange_strong(&temp_files[i], &empty, tmp_path)) return;
    }
    // more writes at once than slots: this one is left behind on a signal
}

static void temp_unregister(char *tmp_path) {
    for (int i = 0; i < TEMP_SLOTS; i++) {
        char *mine = tmp_path;
        if (atomic_compare_exchange_strong(&temp_files[i], &mine, NULL)) return;
    }
}

// Async-signal-safe only: unlink, then the signal again with its default
// action (SA_RESETHAND restored it), which ends the process as it would have.
static void remove_temp_files(int sig) {
    for (int i = 0; i < TEMP_SLOTS; i++) {
        char *p = atomic_load(&temp_files[i]);
        if (p) unlink(p);
    }
    raise(sig);
}

void fio_remove_temp_files_on_signal(void) {
    static const int signals[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        struct sigaction old;
        // a signal ignored by whoever started us (nohup, a background job) stays ignored
        if (sigaction(signals[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN) continue;
        struct sigaction sa = {0};
        sa.sa_handler = remove_temp_files;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND;
        (void)sigaction(signals[i], &sa, NULL);
    }
}

static void atomic_clear(AtomicFile *af) {
    if (af->tmp_path) temp_unregister(af->tmp_path);
    free(af->path);
    free(af->tmp_path);
    af->fp = NULL;
    af->path = NULL;
    af->tmp_path = NULL;
}

// The file path names once symbolic links are followed (a copy of path when
// it is no link), so that a write through a link replaces the file it names,
// as editors do, not the link. A link to a missing file gives that file's name.
static char *follow_links(const char *path, Error *err) {
    char *cur = strdup(path);
    for (int hops = 0; cur; hops++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) return cur;
        char link[4096];
        ssize_t n = hops < 40 ? readlink(cur, link, sizeof link) : -1;
        if (n < 0 || (size_t)n == sizeof link) {
            if (hops >= 40) err_set(err, "%s: too many levels of symbolic links", path);
            else if (n < 0) err_set(err, "%s: cannot read the symbolic link %s: %s", path, cur, strerror(errno));
            else err_set(err, "%s: the symbolic link %s is too long", path, cur);
            free(cur);
            return NULL;
        }
        link[n] = '\0';
        // a relative link is relative to the link's own folder
        const char *slash = strrchr(cur, '/');
        size_t dir_len = link[0] == '/' || !slash ? 0 : (size_t)(slash + 1 - cur);
        char *next = malloc(dir_len + (size_t)n + 1);
        if (next) {
            memcpy(next, cur, dir_len);
            memcpy(next + dir_len, link, (size_t)n + 1);
        }
        free(cur);
        cur = next;
    }
    err_set(err, "%s: out of memory", path);
    return NULL;
}

// Refuses to replace what is not a regular file: a device, a FIFO, a folder.
static int check_target(const char *path, const char *target, const struct stat *st, Error *err) {
    if (S_ISREG(st->st_mode)) return 0;
    if (strcmp(path, target) == 0)
        return err_set(err, "%s: is %s, not a regular file; it is left as it is", path, file_kind(st->st_mode));
    return err_set(err, "%s: is a link to %s, which is %s, not a regular file; it is left as it is", path, target,
                   file_kind(st->st_mode));
}

int fio_atomic_open(AtomicFile *af, const char *path, Error *err) {
    af->fp = NULL;
    af->path = NULL;
    af->tmp_path = NULL;

    char *target = follow_links(path, err);
    if (!target) return -1;
    const char *slash = strrchr(target, '/');
    const char *base = slash ? slash + 1 : target;
    size_t dir_len = (size_t)(base - target);  // includes the trailing '/'
    if (*base == '\0' || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
        err_set(err, "%s: not a file name", path);
        free(target);
        return -1;
    }
    // what is there must be a regular file, said now rather than at the final rename
    struct stat st;
    bool target_exists = lstat(target, &st) == 0;
    if (target_exists && check_target(path, target, &st, err)) {
        free(target);
        return -1;
    }

    // Same directory as the target, so rename() never crosses file systems.
    static const char suffix[] = ".tmp.XXXXXX";
    size_t base_len = strlen(base);
    af->path = target;
    af->tmp_path = malloc(dir_len + 1 + base_len + sizeof suffix);
    if (!af->tmp_path) {
        atomic_clear(af);
        return err_set(err, "%s: out of memory", path);
    }
    memcpy(af->tmp_path, target, dir_len);
    af->tmp_path[dir_len] = '.';
    memcpy(af->tmp_path + dir_len + 1, base, base_len);
    memcpy(af->tmp_path + dir_len + 1 + base_len, suffix, sizeof suffix);

    // the file is made and registered with the signals it is removed on held
    // back, so that none lands between the two and leaves it behind
    sigset_t held, before;
    sigemptyset(&held);
    sigaddset(&held, SIGINT);
    sigaddset(&held, SIGTERM);
    sigaddset(&held, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &held, &before);
    int fd = mkstemp(af->tmp_path);
    if (fd >= 0) temp_register(af->tmp_path);
    pthread_sigmask(SIG_SETMASK, &before, NULL);
    if (fd < 0) {
        err_set(err, "%s: cannot create a temporary file beside it: %s", path, strerror(errno));
        free(af->tmp_path);  // not registered: nothing was made
        af->tmp_path = NULL;
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
    // 64 KiB writes instead of 4 KiB: a trace's JSON is megabytes
    setvbuf(af->fp, NULL, _IOFBF, 1 << 16);
    // tests of interrupted writes: wait here, the temporary file made, for a signal
    if (getenv("TRANSFORMER_TRACER_TEST_PAUSE_IN_WRITE")) pause();
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
        // stdio dropped what it could not write and kept no errno; the rest
        // of the buffer, or one byte more, fails again and says why (the
        // temporary file is removed anyway)
        clearerr(af->fp);
        int why = fflush(af->fp) != 0 ? errno : write(fileno(af->fp), "", 1) < 0 ? errno : 0;
        if (why) rc = err_set(err, "%s: cannot write: %s", path, strerror(why));
        else rc = err_set(err, "%s: cannot write: a write failed part-way", path);
    } else if (fflush(af->fp) != 0) {
        rc = err_set(err, "%s: cannot write: %s", path, strerror(errno));
    } else if (fsync(fileno(af->fp)) != 0) {
        rc = err_set(err, "%s: cannot sync to disk: %s", path, strerror(errno));
    }
    // fclose can report a late write error (e.g. on network file systems).
    if (fclose(af->fp) != 0 && rc == 0)
        rc = err_set(err, "%s: cannot write: %s", path, strerror(errno));
    af->fp = NULL;
    struct stat st;
    if (rc == 0 && lstat(path, &st) == 0 && !S_ISREG(st.st_mode))  // put there while we wrote
        rc = err_set(err, "%s: is now %s, not a regular file; it is left as it is", path,
                     S_ISLNK(st.st_mode) ? "a symbolic link" : file_kind(st.st_mode));
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
