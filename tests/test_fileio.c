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

// A file mapped whole: the same bytes as read; what cannot be mapped (an
// empty file, a pipe) is read instead; too large and missing files fail,
// naming the path, as fio_read_all does.
static void test_map(void **state) {
    (void)state;
    char dir[256], target[300], path[400];
    make_folder(dir, sizeof dir, "map", target, sizeof target);
    FioMap m;
    Error err = {{0}};
    assert_int_equal(fio_map(target, 1 << 20, &m, &err), 0);
    assert_true(m.mapped);
    assert_int_equal(m.len, sizeof precious - 1);
    assert_memory_equal(m.data, precious, m.len);
    fio_unmap(&m);
    assert_null(m.data);

    assert_int_equal(fio_map(target, sizeof precious - 2, &m, &err), -1);
    if (!strstr(err.msg, "limit") || !strstr(err.msg, target)) fail_msg("expected: the limit and %s in the message, got: %s", target, err.msg);

    snprintf(path, sizeof path, "%s/empty", dir);
    assert_int_equal(fio_write_atomic(path, "", 0, &err), 0);
    assert_int_equal(fio_map(path, 100, &m, &err), 0);
    assert_false(m.mapped);
    assert_int_equal(m.len, 0);
    fio_unmap(&m);

    snprintf(path, sizeof path, "%s/fifo", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {  // a writer at the other end
        FILE *fp = fopen(path, "w");
        if (!fp || fputs("from a pipe", fp) < 0) _exit(1);
        fclose(fp);
        _exit(0);
    }
    assert_int_equal(fio_map(path, 100, &m, &err), 0);
    assert_false(m.mapped);
    assert_int_equal(m.len, 11);
    assert_memory_equal(m.data, "from a pipe", 11);
    fio_unmap(&m);
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);

    snprintf(path, sizeof path, "%s/missing", dir);
    assert_int_equal(fio_map(path, 100, &m, &err), -1);
    if (!strstr(err.msg, path)) fail_msg("expected: %s in the message, got: %s", path, err.msg);
    fio_unmap(&m);  // a failed map leaves nothing to free
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_killed_mid_write),
        cmocka_unit_test(test_write_fails_part_way),
        cmocka_unit_test(test_abort),
        cmocka_unit_test(test_missing_folder),
        cmocka_unit_test(test_map),
        cmocka_unit_test(test_read_all_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
