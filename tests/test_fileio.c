// Whole-file reads and atomic writes: a write that is killed or fails part-way
// leaves the previous file as it was, and nothing that could pass for it.
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "fileio.h"
#include "safetensors.h"

static const char precious[] = "the previous file, which must survive\n";

// A fresh folder under the build folder, holding one file "target" with precious in it.
static void make_folder(char *dir, size_t size, const char *name, char *target, size_t tsize) {
    snprintf(dir, size, "fileio-%s-%ld", name, (long)getpid());
    mkdir(dir, 0755);
    snprintf(target, tsize, "%s/target.bin", dir);
    Error err;
    if (fio_write_atomic(target, precious, sizeof precious - 1, &err)) fail_msg("%s", err.msg);
}

// The file's whole content must still be precious.
static void assert_intact(const char *target) {
    char *data;
    size_t len;
    Error err;
    if (fio_read_all(target, 1 << 20, &data, &len, &err)) fail_msg("expected: %s readable, got: %s", target, err.msg);
    if (len != sizeof precious - 1 || memcmp(data, precious, len) != 0)
        fail_msg("expected: %s unchanged (%zu bytes), got: %zu bytes", target, sizeof precious - 1, len);
    free(data);
}

// Counts the folder's entries other than target.bin; each must be a hidden
// ".target.bin.tmp.XXXXXX", never a name a program or person would take for the file.
static int others(const char *dir) {
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, "target.bin")) continue;
        if (strncmp(e->d_name, ".target.bin.tmp.", 16) != 0 || strlen(e->d_name) != 16 + 6)
            fail_msg("expected: only hidden .target.bin.tmp.XXXXXX files beside the target, got: %s", e->d_name);
        n++;
    }
    closedir(d);
    return n;
}

static void remove_folder(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return;
    char path[1024];
    for (struct dirent *e; (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

// A process killed (SIGKILL: no handler runs) in the middle of writing 64 MB.
static void test_killed_mid_write(void **state) {
    (void)state;
    char dir[256], target[300];
    make_folder(dir, sizeof dir, "killed", target, sizeof target);
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        close(ready[0]);
        AtomicFile af;
        Error err;
        if (fio_atomic_open(&af, target, &err)) _exit(2);
        static char chunk[1 << 16];
        memset(chunk, 'x', sizeof chunk);
        for (int i = 0; i < 1024; i++) {  // 64 MB
            if (fwrite(chunk, 1, sizeof chunk, af.fp) != sizeof chunk) _exit(3);
            if (i == 16) {  // 1 MB is on its way to the disk: tell the parent, then keep writing
                fflush(af.fp);
                if (write(ready[1], "w", 1) != 1) _exit(4);
            }
        }
        pause();  // never commits: the parent kills it first
        _exit(5);
    }
    close(ready[1]);
    char c;
    assert_int_equal(read(ready[0], &c, 1), 1);
    close(ready[0]);
    kill(child, SIGKILL);
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

    assert_intact(target);
    // the half-written temporary file stays (nothing ran to remove it), hidden and marked .tmp.
    assert_int_equal(others(dir), 1);
    // and the next write goes through as usual
    Error err;
    assert_int_equal(fio_write_atomic(target, "new", 3, &err), 0);
    char *data;
    size_t len;
    assert_int_equal(fio_read_all(target, 100, &data, &len, &err), 0);
    assert_int_equal(len, 3);
    free(data);
    remove_folder(dir);
}

// Writes that fail part-way (here: the file size limit, EFBIG, as a full disk
// gives ENOSPC) through fio_write_atomic and the model writer. Runs in a child,
// whose limit does not reach the test. Exit status: 0, or which check failed.
static int write_with_limit(const char *target) {
    signal(SIGXFSZ, SIG_IGN);  // a write past the limit then fails with EFBIG instead of killing
    struct rlimit lim = {256 * 1024, 256 * 1024};
    if (setrlimit(RLIMIT_FSIZE, &lim)) return 10;
    size_t big = 4 << 20;
    char *data = malloc(big);
    if (!data) return 11;
    memset(data, 'y', big);
    Error err = {{0}};
    if (fio_write_atomic(target, data, big, &err) == 0) return 12;
    if (strncmp(err.msg, target, strlen(target)) != 0) return 13;
    // the model writer: one 1 MB tensor
    StWriter *w = st_writer_new();
    int64_t shape[1] = {(int64_t)(big / 4)};
    if (!w || st_writer_add_f32(w, "x", (const float *)(const void *)data, 1, shape)) return 14;
    // the bytes are not all valid floats, but the writer copies them as they are
    if (st_writer_save(w, target, &err) == 0) return 15;
    if (strncmp(err.msg, target, strlen(target)) != 0) return 16;
    st_writer_free(w);
    free(data);
    return 0;
}

static void test_write_fails_part_way(void **state) {
    (void)state;
    char dir[256], target[300];
    make_folder(dir, sizeof dir, "efbig", target, sizeof target);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) _exit(write_with_limit(target));
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("expected: both writes to fail cleanly (exit 0), got: %s %d", WIFEXITED(status) ? "exit" : "signal",
                 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    assert_intact(target);
    assert_int_equal(others(dir), 0);  // a failed write removes its temporary file
    remove_folder(dir);
}

// Abort leaves the target as it was and removes the temporary file.
static void test_abort(void **state) {
    (void)state;
    char dir[256], target[300];
    make_folder(dir, sizeof dir, "abort", target, sizeof target);
    AtomicFile af;
    Error err;
    assert_int_equal(fio_atomic_open(&af, target, &err), 0);
    fputs("half", af.fp);
    fio_atomic_abort(&af);
    assert_intact(target);
    assert_int_equal(others(dir), 0);
    remove_folder(dir);
}

// A write into a folder that does not exist fails up front, naming the path.
static void test_missing_folder(void **state) {
    (void)state;
    Error err = {{0}};
    const char *path = "no-such-folder-fileio/x.bin";
    assert_int_equal(fio_write_atomic(path, "x", 1, &err), -1);
    if (!strstr(err.msg, path)) fail_msg("expected: %s in the message, got: %s", path, err.msg);
}

// A file opened to read piece by piece: the same bytes as read; cut short
// while open, it gives short reads, not a fault (a mapping died with SIGBUS
// there); a FIFO, too large and missing files fail, naming the path, as
// fio_read_all does.
static void test_open(void **state) {
    (void)state;
    char dir[256], target[300], path[400];
    make_folder(dir, sizeof dir, "open", target, sizeof target);
    Error err = {{0}};
    size_t size = 0;
    int fd = fio_open(target, 1 << 20, &size, &err);
    assert_true(fd >= 0);
    assert_int_equal(size, sizeof precious - 1);
    char buf[sizeof precious] = {0};
    assert_int_equal(pread(fd, buf, 4, 0), 4);
    assert_memory_equal(buf, precious, 4);
    assert_int_equal(truncate(target, 2), 0);  // cut short in place while open
    assert_int_equal(pread(fd, buf, sizeof buf, 0), 2);
    close(fd);

    assert_int_equal(-1, fio_open(target, 1, &size, &err));
    if (!strstr(err.msg, "limit") || !strstr(err.msg, target)) fail_msg("expected: the limit and %s in the message, got: %s", target, err.msg);

    // a FIFO is refused at once, even with no writer at the other end
    snprintf(path, sizeof path, "%s/fifo", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(-1, fio_open(path, 100, &size, &err));
    if (!strstr(err.msg, "is a FIFO, not a regular file")) fail_msg("expected: is a FIFO, got: %s", err.msg);

    snprintf(path, sizeof path, "%s/missing", dir);
    assert_int_equal(-1, fio_open(path, 100, &size, &err));
    if (!strstr(err.msg, path)) fail_msg("expected: %s in the message, got: %s", path, err.msg);
    remove_folder(dir);
}

// A file read at its exact size, at, under and over the limit.
static void test_read_all_sizes(void **state) {
    (void)state;
    char dir[256], target[300];
    make_folder(dir, sizeof dir, "sizes", target, sizeof target);
    size_t n = sizeof precious - 1;
    char *data;
    size_t len;
    Error err = {{0}};
    assert_int_equal(fio_read_all(target, n, &data, &len, &err), 0);  // exactly the limit
    assert_int_equal(len, n);
    assert_memory_equal(data, precious, n);
    assert_int_equal(data[n], '\0');
    free(data);
    assert_int_equal(fio_read_all(target, SIZE_MAX, &data, &len, &err), 0);  // no limit
    assert_int_equal(len, n);
    free(data);
    assert_int_equal(fio_read_all(target, n - 1, &data, &len, &err), -1);  // one byte over
    if (!strstr(err.msg, "limit")) fail_msg("expected: the limit in the message, got: %s", err.msg);
    remove_folder(dir);
}

// Runs fio_read_all on path in a child with an alarm (a FIFO used to block for
// ever, /dev/zero to fill 4 GB); the message must name path and contain want.
static void assert_refused(const char *path, const char *want) {
    int pipefd[2];
    assert_int_equal(pipe(pipefd), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        close(pipefd[0]);
        alarm(5);
        struct rlimit lim = {1 << 30, 1 << 30};
        setrlimit(RLIMIT_AS, &lim);
        char *data;
        size_t len;
        Error err = {{0}};
        int rc = fio_read_all(path, (size_t)1 << 32, &data, &len, &err);
        if (write(pipefd[1], err.msg, strlen(err.msg)) < 0) _exit(3);
        _exit(rc == -1 ? 0 : 1);
    }
    close(pipefd[1]);
    char msg[600] = {0};
    size_t got = 0;
    for (ssize_t n; (n = read(pipefd[0], msg + got, sizeof msg - 1 - got)) > 0;) got += (size_t)n;
    close(pipefd[0]);
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    if (!WIFEXITED(status))
        fail_msg("%s: expected: a refusal, got: killed by signal %d%s", path, WTERMSIG(status), WTERMSIG(status) == SIGALRM ? " (blocked)" : "");
    if (WEXITSTATUS(status) != 0) fail_msg("%s: expected: a refusal, got: exit %d, %s", path, WEXITSTATUS(status), msg);
    if (strncmp(msg, path, strlen(path)) || !strstr(msg, want))
        fail_msg("%s: expected: \"%s\" in a message naming the file, got: %s", path, want, msg);
    if (strchr(msg, '\n')) fail_msg("expected: one line, got: %s", msg);
}

// Readers refuse what is not a regular file before reading it: a FIFO with no
// writer, endless devices, a folder; with one line naming the file and what it is.
static void test_read_not_regular(void **state) {
    (void)state;
    char dir[256], target[300], path[400];
    make_folder(dir, sizeof dir, "special", target, sizeof target);
    snprintf(path, sizeof path, "%s/fifo", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_refused(path, ": is a FIFO, not a regular file");
    assert_refused(dir, ": is a directory, not a regular file");
    if (access("/dev/zero", R_OK) == 0) assert_refused("/dev/zero", ": is a character device, not a regular file");
    if (access("/dev/urandom", R_OK) == 0) assert_refused("/dev/urandom", ": is a character device, not a regular file");
    // through a symbolic link, the same
    snprintf(path, sizeof path, "%s/zero-link", dir);
    assert_int_equal(symlink("/dev/zero", path), 0);
    assert_refused(path, ": is a character device, not a regular file");
    // the size limit is checked before reading, and named
    char *data = NULL;
    size_t len;
    Error err = {{0}};
    assert_int_equal(fio_read_all(target, 10, &data, &len, &err), -1);
    assert_null(data);
    if (!strstr(err.msg, "larger than the limit of 10 bytes")) fail_msg("expected: the limit, got: %s", err.msg);
    assert_int_equal(fio_read_all(target, 1 << 20, &data, &len, &err), 0);
    free(data);
    remove_folder(dir);
}

// Writes never replace what is not a regular file: a FIFO, a folder, a
// device named through a link. Each is left as it was, with one line, and
// nothing is left beside it.
static void test_write_not_regular(void **state) {
    (void)state;
    char dir[256], target[300], path[400];
    make_folder(dir, sizeof dir, "wspecial", target, sizeof target);
    struct { const char *name; const char *want; } cases[] = {
        {"fifo", "is a FIFO, not a regular file"},
        {"folder", "is a directory, not a regular file"},
        {"null-link", "is a link to /dev/null, which is a character device, not a regular file"},
    };
    snprintf(path, sizeof path, "%s/fifo", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    snprintf(path, sizeof path, "%s/folder", dir);
    assert_int_equal(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/null-link", dir);
    assert_int_equal(symlink("/dev/null", path), 0);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, cases[i].name);
        struct stat before, after;
        assert_int_equal(lstat(path, &before), 0);
        Error err = {{0}};
        if (fio_write_atomic(path, "data", 4, &err) != -1) fail_msg("%s: expected: refused, got: written", path);
        if (strncmp(err.msg, path, strlen(path)) || !strstr(err.msg, cases[i].want))
            fail_msg("expected: %s: %s, got: %s", path, cases[i].want, err.msg);
        assert_int_equal(lstat(path, &after), 0);
        if (after.st_ino != before.st_ino || after.st_mode != before.st_mode) fail_msg("expected: %s left as it was", path);
    }
    // only the three and the target: no temporary file
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    assert_int_equal(n, 4);
    snprintf(path, sizeof path, "%s/folder", dir);
    rmdir(path);
    remove_folder(dir);
}

// A symbolic link is written through, as editors do: the file it names is
// replaced (atomically, beside it, in its own folder) and the link stays a link.
static void test_write_through_link(void **state) {
    (void)state;
    char dir[256], target[300], other[300], link[400], data_path[400];
    make_folder(dir, sizeof dir, "links", target, sizeof target);
    snprintf(other, sizeof other, "%s-other", dir);
    mkdir(other, 0755);
    snprintf(data_path, sizeof data_path, "%s/real.txt", other);
    Error err = {{0}};
    assert_int_equal(fio_write_atomic(data_path, "old", 3, &err), 0);
    chmod(data_path, 0640);
    // a relative link, from dir to ../other/real.txt
    snprintf(link, sizeof link, "%s/link.txt", dir);
    char rel[400];
    snprintf(rel, sizeof rel, "../%s/real.txt", other);
    assert_int_equal(symlink(rel, link), 0);
    if (fio_write_atomic(link, "new", 3, &err)) fail_msg("%s", err.msg);
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    if (!S_ISLNK(st.st_mode)) fail_msg("expected: %s still a symbolic link", link);
    assert_int_equal(stat(data_path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0640);  // the file's mode is kept
    char *data;
    size_t len;
    assert_int_equal(fio_read_all(data_path, 100, &data, &len, &err), 0);
    assert_int_equal(len, 3);
    assert_memory_equal(data, "new", 3);
    free(data);
    // a link to a file not there yet makes that file
    unlink(data_path);
    if (fio_write_atomic(link, "made", 4, &err)) fail_msg("%s", err.msg);
    assert_int_equal(lstat(data_path, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    unlink(link);
    assert_int_equal(others(dir), 0);
    DIR *d = opendir(other);  // only real.txt beside it: the temporary file was renamed over it
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    assert_int_equal(n, 1);
    remove_folder(other);
    remove_folder(dir);
}

// A write that fails says why (strerror), also when the failure happened
// inside stdio's buffer long before the commit.
static int write_stream_with_limit(const char *target) {
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit lim = {16 * 1024, 16 * 1024};
    if (setrlimit(RLIMIT_FSIZE, &lim)) return 10;
    AtomicFile af;
    Error err = {{0}};
    if (fio_atomic_open(&af, target, &err)) return 11;
    for (int i = 0; i < 100000; i++) fprintf(af.fp, "line %d\n", i);
    if (fio_atomic_commit(&af, &err) == 0) return 12;
    if (!strstr(err.msg, strerror(EFBIG))) {
        fprintf(stderr, "expected: \"%s\" in the message, got: %s\n", strerror(EFBIG), err.msg);
        return 13;
    }
    return 0;
}

static void test_write_error_says_why(void **state) {
    (void)state;
    char dir[256], target[300];
    make_folder(dir, sizeof dir, "why", target, sizeof target);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) _exit(write_stream_with_limit(target));
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) fail_msg("expected: exit 0, got: %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    assert_intact(target);
    assert_int_equal(others(dir), 0);
    remove_folder(dir);
}

// SIGINT or SIGTERM in the middle of a write removes the temporary file and
// still ends the process by that signal; the target is untouched.
static void test_signal_removes_temporary(void **state) {
    (void)state;
    const int signals[] = {SIGINT, SIGTERM};
    for (size_t s = 0; s < 2; s++) {
        char dir[256], target[300];
        make_folder(dir, sizeof dir, s ? "sigterm" : "sigint", target, sizeof target);
        int ready[2];
        assert_int_equal(pipe(ready), 0);
        pid_t child = fork();
        assert_true(child >= 0);
        if (child == 0) {
            close(ready[0]);
            signal(SIGINT, SIG_DFL);
            signal(SIGTERM, SIG_DFL);
            fio_remove_temp_files_on_signal();
            AtomicFile af;
            Error err;
            if (fio_atomic_open(&af, target, &err)) _exit(2);
            fputs("half", af.fp);
            fflush(af.fp);
            if (write(ready[1], "w", 1) != 1) _exit(4);
            pause();
            _exit(5);
        }
        close(ready[1]);
        char c;
        assert_int_equal(read(ready[0], &c, 1), 1);
        close(ready[0]);
        assert_int_equal(others(dir), 1);  // the temporary file is there while writing
        kill(child, signals[s]);
        int status;
        assert_int_equal(waitpid(child, &status, 0), child);
        if (!WIFSIGNALED(status) || WTERMSIG(status) != signals[s])
            fail_msg("expected: ended by signal %d, got: status %d", signals[s], status);
        assert_intact(target);
        if (others(dir) != 0) fail_msg("expected: no temporary file left after signal %d", signals[s]);
        remove_folder(dir);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_killed_mid_write),
        cmocka_unit_test(test_write_fails_part_way),
        cmocka_unit_test(test_abort),
        cmocka_unit_test(test_missing_folder),
        cmocka_unit_test(test_open),
        cmocka_unit_test(test_read_all_sizes),
        cmocka_unit_test(test_read_not_regular),
        cmocka_unit_test(test_write_not_regular),
        cmocka_unit_test(test_write_through_link),
        cmocka_unit_test(test_write_error_says_why),
        cmocka_unit_test(test_signal_removes_temporary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
