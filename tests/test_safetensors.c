#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fileio.h"
#include "safetensors.h"

// Every test works inside one temporary directory, removed at the end.
static char temp_dir[] = "/tmp/tt_test_st_XXXXXX";

static void path_in(char *out, size_t size, const char *name) {
    snprintf(out, size, "%s/%s", temp_dir, name);
}

static void remove_tree(const char *path) {
    struct stat st;
    if (lstat(path, &st) != 0) return;
    if (S_ISDIR(st.st_mode)) {
        DIR *dir = opendir(path);
        if (dir) {
            struct dirent *e;
            while ((e = readdir(dir)) != NULL) {
                if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
                char child[1024];
                snprintf(child, sizeof child, "%s/%s", path, e->d_name);
                remove_tree(child);
            }
            closedir(dir);
        }
        rmdir(path);
    } else {
        unlink(path);
    }
}

static int setup(void **state) {
    (void)state;
    return mkdtemp(temp_dir) ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    remove_tree(temp_dir);
    return 0;
}

static void write_raw(const char *path, const void *data, size_t len) {
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    if (len) assert_int_equal(fwrite(data, 1, len, fp), len);
    assert_int_equal(fclose(fp), 0);
}

// Writes an 8-byte little-endian length, the header, then data_len data bytes
// (from data, or zeros when data is NULL).
static void write_st(const char *path, const char *header, const void *data, size_t data_len) {
    size_t n = strlen(header);
    size_t total = 8 + n + data_len;
    unsigned char *bytes = calloc(1, total);
    assert_non_null(bytes);
    for (int i = 0; i < 8; i++) bytes[i] = (unsigned char)((uint64_t)n >> (8 * i));
    memcpy(bytes + 8, header, n);
    if (data) memcpy(bytes + 8 + n, data, data_len);
    write_raw(path, bytes, total);
    free(bytes);
}

static void expect_message(const Error *err, const char *path, const char *want) {
    if (strncmp(err->msg, path, strlen(path)) != 0)
        fail_msg("expected message starting with: %s, got: %s", path, err->msg);
    if (!strstr(err->msg, want))
        fail_msg("expected message containing: %s, got: %s", want, err->msg);
}

// Number of leftover temporary files (".*.tmp.*") in dir.
static int count_temp_files(const char *dir_path) {
    DIR *dir = opendir(dir_path);
    assert_non_null(dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL)
        if (e->d_name[0] == '.' && strstr(e->d_name, ".tmp.")) n++;
    closedir(dir);
    return n;
}

static char *read_text(const char *path, size_t *len) {
    char *data = NULL;
    Error err = {{0}};
    if (fio_read_all(path, 1 << 20, &data, len, &err) != 0) fail_msg("expected: read ok, got: %s", err.msg);
    return data;
}

static void test_round_trip(void **state) {
    (void)state;
    char path[512];
    path_in(path, sizeof path, "round_trip.safetensors");

    const float weights[6] = {0.1f, -0.0f, FLT_MAX, -FLT_MIN, 1e-45f, 3.25f};
    const float scalar[1] = {42.0f};
    float big[2 * 3 * 4 * 5];
    for (int i = 0; i < 120; i++) big[i] = (float)i * 0.37f - 20.0f;
    const char *note = "quote \" backslash \\ newline \n tab \t caf\xC3\xA9 \x01";

    StWriter *w = st_writer_new();
    assert_non_null(w);
    assert_int_equal(st_writer_meta(w, "format", "tt-1"), 0);
    assert_int_equal(st_writer_meta(w, "note", note), 0);
    assert_int_equal(st_writer_add_f32(w, "encoder.layers.0.w", weights, 2, (int64_t[]){2, 3}), 0);
    assert_int_equal(st_writer_add_f32(w, "scalar", scalar, 0, NULL), 0);
    assert_int_equal(st_writer_add_f32(w, "empty", NULL, 2, (int64_t[]){0, 5}), 0);
    assert_int_equal(st_writer_add_f32(w, "name \"quoted\"", big, 4, (int64_t[]){2, 3, 4, 5}), 0);
    Error err = {{0}};
    if (st_writer_save(w, path, &err) != 0) fail_msg("expected: save ok, got: %s", err.msg);
    st_writer_free(w);
    assert_int_equal(count_temp_files(temp_dir), 0);

    // the header is padded so the data starts on an 8-byte boundary
    size_t len;
    char *raw = read_text(path, &len);
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--) n = (n << 8) | (unsigned char)raw[i];
    if ((8 + n) % 8 != 0) fail_msg("expected: 8 + N a multiple of 8, got: N = %llu", (unsigned long long)n);
    if (strncmp(raw + 8, "{\"__metadata__\":", 16) != 0) fail_msg("expected: __metadata__ first, got: %.40s", raw + 8);
    if (len != 8 + n + (6 + 1 + 0 + 120) * 4) fail_msg("expected: %llu bytes, got: %zu",
                                                      (unsigned long long)(8 + n + 127 * 4), len);
    free(raw);

    StFile *f = st_open(path, &err);
    if (!f) fail_msg("expected: open ok, got: %s", err.msg);
    assert_string_equal(st_path(f), path);
    assert_string_equal(st_meta(f, "format"), "tt-1");
    assert_string_equal(st_meta(f, "note"), note);
    assert_null(st_meta(f, "absent"));
    assert_int_equal(st_count(f), 4);

    // tensors come back in insertion order with contiguous offsets
    const char *names[] = {"encoder.layers.0.w", "scalar", "empty", "name \"quoted\""};
    size_t offset = 0;
    for (int i = 0; i < 4; i++) {
        const StTensor *t = st_tensor_at(f, i);
        assert_non_null(t);
        assert_string_equal(t->name, names[i]);
        assert_string_equal(t->dtype, "F32");
        if (t->begin != offset) fail_msg("%s: expected begin: %zu, got: %zu", t->name, offset, t->begin);
        offset = t->end;
    }
    assert_null(st_tensor_at(f, 4));
    assert_null(st_tensor_at(f, -1));
    assert_null(st_find(f, "missing"));

    const StTensor *t = st_find(f, "encoder.layers.0.w");
    assert_int_equal(t->ndim, 2);
    assert_int_equal(t->shape[0], 2);
    assert_int_equal(t->shape[1], 3);
    float got[120];
    assert_int_equal(st_read_f32(f, t, got, &err), 0);
    if (memcmp(got, weights, sizeof weights) != 0) fail_msg("expected: bit-exact weights");

    t = st_find(f, "scalar");
    assert_int_equal(t->ndim, 0);
    assert_int_equal(st_read_f32(f, t, got, &err), 0);
    assert_true(got[0] == 42.0f);

    t = st_find(f, "empty");
    assert_int_equal(t->ndim, 2);
    assert_int_equal(t->shape[0], 0);
    assert_int_equal(t->begin, t->end);
    assert_int_equal(st_read_f32(f, t, got, &err), 0);

    t = st_find(f, "name \"quoted\"");
    assert_int_equal(t->ndim, 4);
    assert_int_equal(t->shape[3], 5);
    assert_int_equal(st_read_f32(f, t, got, &err), 0);
    for (int i = 0; i < 120; i++)
        if (memcmp(&got[i], &big[i], sizeof(float)) != 0)
            fail_msg("index %d: expected: %.9g, got: %.9g", i, (double)big[i], (double)got[i]);
    st_free(f);
    st_free(NULL);
}

static void test_writer_without_metadata(void **state) {
    (void)state;
    char path[512];
    path_in(path, sizeof path, "no_meta.safetensors");
    StWriter *w = st_writer_new();
    float v[3] = {1, 2, 3};
    assert_int_equal(st_writer_add_f32(w, "v", v, 1, (int64_t[]){3}), 0);
    Error err = {{0}};
    assert_int_equal(st_writer_save(w, path, &err), 0);
    st_writer_free(w);
    StFile *f = st_open(path, &err);
    if (!f) fail_msg("expected: open ok, got: %s", err.msg);
    assert_null(st_meta(f, "format"));
    assert_int_equal(st_count(f), 1);
    st_free(f);

    // an empty file is legal: no tensors, empty buffer
    w = st_writer_new();
    assert_int_equal(st_writer_save(w, path, &err), 0);
    st_writer_free(w);
    f = st_open(path, &err);
    if (!f) fail_msg("expected: open ok, got: %s", err.msg);
    assert_int_equal(st_count(f), 0);
    st_free(f);
}

static void test_writer_refuses_bad_input(void **state) {
    (void)state;
    float v[4] = {0};
    StWriter *w = st_writer_new();
    assert_int_equal(st_writer_add_f32(w, "a", v, 1, (int64_t[]){4}), 0);
    assert_int_equal(st_writer_add_f32(w, "a", v, 1, (int64_t[]){4}), -1);
    assert_int_equal(st_writer_add_f32(w, "__metadata__", v, 1, (int64_t[]){4}), -1);
    assert_int_equal(st_writer_add_f32(w, "neg", v, 1, (int64_t[]){-1}), -1);
    assert_int_equal(st_writer_add_f32(w, "deep", v, ST_MAX_DIMS + 1, (int64_t[ST_MAX_DIMS + 1]){0}), -1);
    assert_int_equal(st_writer_add_f32(w, "huge", v, 3, (int64_t[]){1 << 30, 1 << 30, 1 << 30}), -1);
    assert_int_equal(st_writer_meta(w, "k", "v"), 0);
    assert_int_equal(st_writer_meta(w, "k", "other"), -1);
    st_writer_free(w);
    st_writer_free(NULL);
}

static void test_atomic_write_missing_directory(void **state) {
    (void)state;
    char path[512];
    path_in(path, sizeof path, "no_such_dir/out.safetensors");
    Error err = {{0}};
    assert_int_equal(fio_write_atomic(path, "x", 1, &err), -1);
    expect_message(&err, path, "No such file or directory");

    StWriter *w = st_writer_new();
    float v[1] = {1};
    assert_int_equal(st_writer_add_f32(w, "v", v, 1, (int64_t[]){1}), 0);
    err.msg[0] = '\0';
    assert_int_equal(st_writer_save(w, path, &err), -1);
    expect_message(&err, path, "No such file or directory");
    st_writer_free(w);
}

static void test_atomic_abort_keeps_old_file(void **state) {
    (void)state;
    char path[512];
    path_in(path, sizeof path, "keep.txt");
    Error err = {{0}};
    assert_int_equal(fio_write_atomic(path, "old contents", 12, &err), 0);

    AtomicFile af;
    assert_int_equal(fio_atomic_open(&af, path, &err), 0);
    assert_int_equal(count_temp_files(temp_dir), 1);
    fputs("new contents that must never appear", af.fp);
    fio_atomic_abort(&af);
    fio_atomic_abort(&af);  // a second abort is harmless

    size_t len;
    char *text = read_text(path, &len);
    assert_string_equal(text, "old contents");
    assert_int_equal(len, 12);
    free(text);
    assert_int_equal(count_temp_files(temp_dir), 0);

    // commit replaces the old file
    assert_int_equal(fio_atomic_open(&af, path, &err), 0);
    fputs("new", af.fp);
    assert_int_equal(fio_atomic_commit(&af, &err), 0);
    text = read_text(path, &len);
    assert_string_equal(text, "new");
    free(text);
    assert_int_equal(count_temp_files(temp_dir), 0);
}

static void test_atomic_commit_failure_cleans_up(void **state) {
    (void)state;
    // a folder at the target is refused before anything is written
    char dir[512], inner[600];
    path_in(dir, sizeof dir, "target_is_dir");
    assert_int_equal(mkdir(dir, 0755), 0);
    snprintf(inner, sizeof inner, "%s/inside.txt", dir);
    write_raw(inner, "kept", 4);

    Error err = {{0}};
    assert_int_equal(fio_write_atomic(dir, "data", 4, &err), -1);
    expect_message(&err, dir, "is a directory");
    assert_int_equal(count_temp_files(temp_dir), 0);
    size_t len;
    char *text = read_text(inner, &len);
    assert_string_equal(text, "kept");
    free(text);
}

static void test_read_all_limits(void **state) {
    (void)state;
    char path[512];
    path_in(path, sizeof path, "hundred.bin");
    char bytes[100];
    memset(bytes, 'a', sizeof bytes);
    write_raw(path, bytes, sizeof bytes);

    char *data = NULL;
    size_t len = 0;
    Error err = {{0}};
    assert_int_equal(fio_read_all(path, 99, &data, &len, &err), -1);
    assert_null(data);
    expect_message(&err, path, "larger than the limit of 99 bytes");

    assert_int_equal(fio_read_all(path, 100, &data, &len, &err), 0);
    assert_int_equal(len, 100);
    assert_int_equal(data[100], '\0');
    free(data);

    path_in(path, sizeof path, "absent.bin");
    assert_int_equal(fio_read_all(path, 100, &data, &len, &err), -1);
    expect_message(&err, path, "No such file or directory");

    path_in(path, sizeof path, "");
    assert_int_equal(fio_read_all(path, 100, &data, &len, &err), -1);
    expect_message(&err, path, "is a directory");
}

typedef struct {
    const char *name;
    const char *header;   // NULL: write raw bytes instead
    const char *raw;
    size_t raw_len;
    size_t data_len;      // zero bytes after the header
    const char *want;
} BrokenFile;

#define F32_4 "\"dtype\":\"F32\",\"shape\":[1]"

static const BrokenFile broken_files[] = {
    {"empty file", NULL, "", 0, 0, "file is 0 bytes, too short for the 8-byte header length"},
    {"5-byte file", NULL, "\x05\0\0\0\0", 5, 0, "file is 5 bytes, too short"},
    {"header length past end", NULL, "\x9f\x86\x01\0\0\0\0\0{}", 10, 0,
     "header length 99999 runs past the end of the file (10 bytes)"},
    {"header length u64 max", NULL, "\xff\xff\xff\xff\xff\xff\xff\xff{}", 10, 0,
     "header length 18446744073709551615 runs past the end of the file"},
    {"invalid JSON", "{\"a\":", NULL, 0, 0, "header: line 1, column 6: expected a value"},
    {"invalid UTF-8 in header", "{\"\xC0\xAF\":{}}", NULL, 0, 0, "header: line 1, column 3: invalid UTF-8"},
    {"NaN in header", "{\"w\":{\"dtype\":\"F32\",\"shape\":[NaN],\"data_offsets\":[0,4]}}", NULL, 0, 4,
     "NaN is not valid JSON"},
    {"header not an object", "[1,2]", NULL, 0, 0, "header is an array, expected an object"},
    {"metadata not an object", "{\"__metadata__\":[]}", NULL, 0, 0, "__metadata__ is an array"},
    {"metadata value not a string", "{\"__metadata__\":{\"epochs\":3}}", NULL, 0, 0,
     "__metadata__ value of 'epochs' is a number, expected a string"},
    {"metadata twice", "{\"__metadata__\":{},\"__metadata__\":{}}", NULL, 0, 0, "__metadata__ appears twice"},
    {"tensor not an object", "{\"w\":7}", NULL, 0, 0, "tensor 'w': entry is a number"},
    {"missing dtype", "{\"w\":{\"shape\":[1],\"data_offsets\":[0,4]}}", NULL, 0, 4, "tensor 'w': missing \"dtype\""},
    {"missing shape", "{\"w\":{\"dtype\":\"F32\",\"data_offsets\":[0,4]}}", NULL, 0, 4, "tensor 'w': missing \"shape\""},
    {"missing data_offsets", "{\"w\":{" F32_4 "}}", NULL, 0, 4, "tensor 'w': missing \"data_offsets\""},
    {"dtype not a string", "{\"w\":{\"dtype\":4,\"shape\":[1],\"data_offsets\":[0,4]}}", NULL, 0, 4,
     "tensor 'w': dtype is a number"},
    {"unknown dtype", "{\"w\":{\"dtype\":\"F33\",\"shape\":[1],\"data_offsets\":[0,4]}}", NULL, 0, 4,
     "tensor 'w': unknown dtype 'F33'"},
    {"shape not an array", "{\"w\":{\"dtype\":\"F32\",\"shape\":4,\"data_offsets\":[0,4]}}", NULL, 0, 4,
     "tensor 'w': shape is a number, expected an array"},
    {"negative shape", "{\"w\":{\"dtype\":\"F32\",\"shape\":[2,-1],\"data_offsets\":[0,4]}}", NULL, 0, 4,
     "tensor 'w': shape[1] is -1, expected a non-negative integer"},
    {"fractional shape", "{\"w\":{\"dtype\":\"F32\",\"shape\":[1.5],\"data_offsets\":[0,4]}}", NULL, 0, 4,
     "tensor 'w': shape[0] is 1.5"},
    {"string in shape", "{\"w\":{\"dtype\":\"F32\",\"shape\":[\"1\"],\"data_offsets\":[0,4]}}", NULL, 0, 4,
     "tensor 'w': shape[0] is a string"},
    {"too many dimensions", "{\"w\":{\"dtype\":\"F32\",\"shape\":[1,1,1,1,1,1,1,1,1],\"data_offsets\":[0,4]}}",
     NULL, 0, 4, "tensor 'w': shape has 9 dimensions, at most 8"},
    {"shape overflows", "{\"w\":{\"dtype\":\"F64\",\"shape\":[4294967296,4294967296,4294967296],"
     "\"data_offsets\":[0,8]}}", NULL, 0, 8, "tensor 'w': F64 [4294967296, 4294967296, 4294967296] is too large"},
    {"data_offsets one number", "{\"w\":{" F32_4 ",\"data_offsets\":[4]}}", NULL, 0, 4,
     "tensor 'w': data_offsets must be an array [begin, end]"},
    {"negative data_offsets", "{\"w\":{" F32_4 ",\"data_offsets\":[-4,0]}}", NULL, 0, 4,
     "tensor 'w': data_offsets must be two non-negative integers"},
    {"data_offsets reversed", "{\"w\":{" F32_4 ",\"data_offsets\":[4,0]}}", NULL, 0, 4,
     "tensor 'w': data_offsets [4, 0] end before they begin"},
    {"offsets out of range", "{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", NULL, 0, 4,
     "tensor 'w': data_offsets [0, 8] run past the end of the data buffer (4 bytes)"},
    {"offsets overlapping", "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
     "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}", NULL, 0, 12,
     "tensor 'b': data_offsets [4, 12] overlap tensor 'a' [0, 8]"},
    {"same offsets twice", "{\"a\":{" F32_4 ",\"data_offsets\":[0,4]},\"b\":{" F32_4 ",\"data_offsets\":[0,4]}}",
     NULL, 0, 4, "overlap tensor"},
    {"hole in buffer", "{\"a\":{" F32_4 ",\"data_offsets\":[0,4]},\"b\":{" F32_4 ",\"data_offsets\":[8,12]}}",
     NULL, 0, 12, "bytes [4, 8) of the data buffer belong to no tensor (hole before tensor 'b')"},
    {"hole at the start", "{\"a\":{" F32_4 ",\"data_offsets\":[4,8]}}", NULL, 0, 8,
     "bytes [0, 4) of the data buffer belong to no tensor"},
    {"unused bytes at the end", "{\"a\":{" F32_4 ",\"data_offsets\":[0,4]}}", NULL, 0, 6,
     "bytes [4, 6) at the end of the data buffer belong to no tensor"},
    {"data without tensors", "{}", NULL, 0, 3, "data buffer holds 3 bytes but the header lists no tensors"},
    {"size mismatch for shape", "{\"encoder.norm.weight\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,12]}}",
     NULL, 0, 12, "tensor 'encoder.norm.weight': data_offsets [0, 12] hold 12 bytes, but F32 [4] needs 16"},
    {"size mismatch for dtype", "{\"h\":{\"dtype\":\"BF16\",\"shape\":[2,3],\"data_offsets\":[0,24]}}",
     NULL, 0, 24, "tensor 'h': data_offsets [0, 24] hold 24 bytes, but BF16 [2, 3] needs 12"},
    {"duplicate tensor name", "{\"w\":{" F32_4 ",\"data_offsets\":[0,4]},\"v\":{" F32_4 ",\"data_offsets\":[4,8]},"
     "\"w\":{" F32_4 ",\"data_offsets\":[8,12]}}", NULL, 0, 12, "tensor 'w' appears twice in the header"},
    {"duplicate field", "{\"w\":{" F32_4 ",\"dtype\":\"F16\",\"data_offsets\":[0,4]}}", NULL, 0, 4,
     "tensor 'w': field 'dtype' appears twice"},
    // names and values from the file are quoted: no control character reaches a message
    {"control characters in a name", "{\"w\\u001b[31m\\nx\\u0085\":7}", NULL, 0, 0, "tensor 'wU+001B[31mU+000AxU+0085': entry is a number"},
    {"control characters in a dtype", "{\"w\":{\"dtype\":\"F\\u001b\",\"shape\":[1],\"data_offsets\":[0,4]}}", NULL, 0, 4,
     "tensor 'w': unknown dtype 'FU+001B'"},
    {"control characters in overlapping names", "{\"a\\r\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
     "\"b\\u007f\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}", NULL, 0, 12,
     "tensor 'bU+007F': data_offsets [4, 12] overlap tensor 'aU+000D' [0, 8]"},
    {"control characters in a metadata key", "{\"__metadata__\":{\"k\\n\":3}}", NULL, 0, 0,
     "__metadata__ value of 'kU+000A' is a number"},
    {"a long name", "{\"" "0123456789012345678901234567890123456789012345678901234567890123456789\":7}", NULL, 0, 0,
     "tensor '0123456789012345678901234567890123456789012345678901234567890123\xE2\x80\xA6': entry is a number"},
};

static void test_broken_files(void **state) {
    (void)state;
    char path[512];
    path_in(path, sizeof path, "broken.safetensors");
    for (size_t i = 0; i < sizeof broken_files / sizeof broken_files[0]; i++) {
        const BrokenFile *c = &broken_files[i];
        if (c->header)
            write_st(path, c->header, NULL, c->data_len);
        else
            write_raw(path, c->raw, c->raw_len);
        for (int lazy = 0; lazy < 2; lazy++) {  // whole, and header first (as a model is loaded)
            Error err = {{0}};
            StFile *f = lazy ? st_open_lazy(path, &err) : st_open(path, &err);
            if (f) {
                st_free(f);
                fail_msg("%s: expected: %s to fail, got: success", c->name, lazy ? "st_open_lazy" : "st_open");
            }
            if (strncmp(err.msg, path, strlen(path)) != 0 || !strstr(err.msg, c->want))
                fail_msg("%s (%s): expected message containing: %s, got: %s", c->name, lazy ? "lazy" : "whole", c->want, err.msg);
            for (const char *p = err.msg; *p; p++)
                if ((unsigned char)*p < 0x20 || *p == 0x7f) fail_msg("%s: expected: one line without control characters, got: %s", c->name, err.msg);
        }
    }
}

static void test_open_missing_file(void **state) {
    (void)state;
    char path[512];
    path_in(path, sizeof path, "does_not_exist.safetensors");
    Error err = {{0}};
    assert_null(st_open(path, &err));
    expect_message(&err, path, "No such file or directory");
}

static void test_valid_layouts(void **state) {
    (void)state;
    // Offsets need not follow header order, and zero-size tensors may sit anywhere free.
    char path[512];
    path_in(path, sizeof path, "layout.safetensors");
    write_st(path,
             "{\"b\":{\"dtype\":\"I64\",\"shape\":[1],\"data_offsets\":[4,12]},"
             "\"z\":{\"dtype\":\"F32\",\"shape\":[0,3],\"data_offsets\":[4,4]},"
             "\"a\":{\"dtype\":\"U8\",\"shape\":[2,2],\"data_offsets\":[0,4]},"
             "\"e\":{\"dtype\":\"BOOL\",\"shape\":[],\"data_offsets\":[12,13]},"
             "\"__metadata__\":{\"k\":\"v\"}}",
             NULL, 13);
    Error err = {{0}};
    StFile *f = st_open(path, &err);
    if (!f) fail_msg("expected: open ok, got: %s", err.msg);
    assert_int_equal(st_count(f), 4);
    assert_string_equal(st_tensor_at(f, 0)->name, "b");
    assert_string_equal(st_tensor_at(f, 2)->dtype, "U8");
    assert_int_equal(st_find(f, "e")->ndim, 0);
    assert_string_equal(st_meta(f, "k"), "v");
    st_free(f);
}

typedef struct {
    const char *name;
    const char *header;
    uint32_t bits[3];
    const char *want;
} BadRead;

static void test_read_f32_refuses(void **state) {
    (void)state;
    static const BadRead cases[] = {
        {"F16 tensor", "{\"x\":{\"dtype\":\"F16\",\"shape\":[6],\"data_offsets\":[0,12]}}", {0, 0, 0},
         "tensor 'x' has dtype F16, expected F32 (save it with tensor.float())"},
        {"NaN", "{\"x\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,12]}}",
         {0x3f800000u, 0x7fc00000u, 0}, "tensor 'x' holds NaN at flat index 1"},
        {"+Inf", "{\"x\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,12]}}",
         {0, 0x3f800000u, 0x7f800000u}, "tensor 'x' holds +Inf at flat index 2"},
        {"-Inf", "{\"x\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,12]}}",
         {0xff800000u, 0, 0}, "tensor 'x' holds -Inf at flat index 0"},
    };
    char path[512];
    path_in(path, sizeof path, "bad_values.safetensors");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned char data[12];
        for (int k = 0; k < 12; k++) data[k] = (unsigned char)(cases[i].bits[k / 4] >> (8 * (k % 4)));
        write_st(path, cases[i].header, data, sizeof data);
        Error err = {{0}};
        StFile *f = st_open(path, &err);
        if (!f) fail_msg("%s: expected: open ok, got: %s", cases[i].name, err.msg);
        float out[6];
        if (st_read_f32(f, st_find(f, "x"), out, &err) == 0)
            fail_msg("%s: expected: st_read_f32 to fail, got: success", cases[i].name);
        st_free(f);
        if (strncmp(err.msg, path, strlen(path)) != 0 || !strstr(err.msg, cases[i].want))
            fail_msg("%s: expected message containing: %s, got: %s", cases[i].name, cases[i].want, err.msg);
    }
}

static void test_unaligned_data(void **state) {
    (void)state;
    // Other writers need not pad: data at an odd offset must still read back.
    char path[512];
    path_in(path, sizeof path, "unaligned.safetensors");
    const char *header = "{\"v\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}} ";
    assert_int_equal((8 + strlen(header)) % 2, 1);
    unsigned char data[8] = {0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x20, 0xc1};  // 1.0, -10.0
    write_st(path, header, data, sizeof data);
    Error err = {{0}};
    StFile *f = st_open(path, &err);
    if (!f) fail_msg("expected: open ok, got: %s", err.msg);
    float out[2];
    assert_int_equal(st_read_f32(f, st_find(f, "v"), out, &err), 0);
    if (out[0] != 1.0f || out[1] != -10.0f)
        fail_msg("expected: 1, -10, got: %g, %g", (double)out[0], (double)out[1]);
    st_free(f);
}

static uint32_t next_random(uint32_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static void test_corrupted_bytes(void **state) {
    (void)state;
    // Random byte flips in a good file must be refused cleanly or still be valid.
    char path[512];
    path_in(path, sizeof path, "corrupt.safetensors");
    StWriter *w = st_writer_new();
    float v[6] = {1, 2, 3, 4, 5, 6};
    st_writer_meta(w, "k", "v");
    st_writer_add_f32(w, "a", v, 2, (int64_t[]){2, 2});
    st_writer_add_f32(w, "b", v + 4, 1, (int64_t[]){2});
    Error err = {{0}};
    assert_int_equal(st_writer_save(w, path, &err), 0);
    st_writer_free(w);
    size_t len;
    char *good = read_text(path, &len);
    char *bad = malloc(len);
    assert_non_null(bad);
    uint32_t rng = 99;
    for (int iter = 0; iter < 2000; iter++) {
        memcpy(bad, good, len);
        int flips = 1 + (int)(next_random(&rng) % 3);
        for (int k = 0; k < flips; k++) bad[next_random(&rng) % len] = (char)next_random(&rng);
        size_t cut = iter % 5 == 0 ? next_random(&rng) % len : len;
        write_raw(path, bad, cut);
        StFile *f = st_open(path, &err);
        if (!f) {
            expect_message(&err, path, "");
            continue;
        }
        float out[4];
        for (int i = 0; i < st_count(f); i++) {
            const StTensor *t = st_tensor_at(f, i);
            if ((t->end - t->begin) / 4 <= 4) (void)st_read_f32(f, t, out, &err);
        }
        st_free(f);
    }
    free(bad);
    free(good);
}

// A model file cut short in place while it is open (a copy still in
// progress, a USB stick pulled): what st_open read stays readable. A mapped
// file would raise SIGBUS on the lost pages, so this runs in a child.
static void test_truncated_while_open(void **state) {
    (void)state;
    char path[512];
    path_in(path, sizeof path, "cut_while_open.safetensors");
    enum { N = 256 * 1024 };  // 1 MB of data, many pages
    float *v = malloc(N * sizeof *v);
    assert_non_null(v);
    for (int i = 0; i < N; i++) v[i] = (float)i;
    StWriter *w = st_writer_new();
    st_writer_meta(w, "k", "v");
    st_writer_add_f32(w, "big", v, 1, (int64_t[]){N});
    Error err = {{0}};
    assert_int_equal(st_writer_save(w, path, &err), 0);
    st_writer_free(w);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        StFile *f = st_open(path, &err);
        if (!f) _exit(2);
        if (truncate(path, 0) != 0) _exit(3);
        if (strcmp(st_meta(f, "k"), "v") != 0) _exit(4);
        float *out = malloc(N * sizeof *out);
        if (!out || st_read_f32(f, st_find(f, "big"), out, &err) != 0) _exit(5);
        for (int i = 0; i < N; i++)
            if (out[i] != (float)i) _exit(6);
        st_free(f);
        free(out);
        _exit(0);
    }
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    if (WIFSIGNALED(status)) fail_msg("expected: the tensors read after the cut, got: killed by signal %d", WTERMSIG(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    // and a file cut short before it is opened is refused, naming the file
    assert_null(st_open(path, &err));
    expect_message(&err, path, "too short");
    // opened lazily (a model's load), then cut: the tensor read says so, naming the file and the tensor
    w = st_writer_new();
    st_writer_add_f32(w, "big", v, 1, (int64_t[]){N});
    assert_int_equal(st_writer_save(w, path, &err), 0);
    st_writer_free(w);
    StFile *f = st_open_lazy(path, &err);
    assert_non_null(f);
    float *out = malloc(N * sizeof *out);
    assert_non_null(out);
    assert_int_equal(st_read_f32(f, st_find(f, "big"), out, &err), 0);  // whole: read as it is asked for
    for (int i = 0; i < N; i++)
        if (out[i] != (float)i) fail_msg("lazy read: value %d is %g", i, (double)out[i]);
    assert_int_equal(truncate(path, 4096), 0);
    assert_int_equal(st_read_f32(f, st_find(f, "big"), out, &err), -1);
    expect_message(&err, path, "tensor 'big': cannot read its bytes");
    expect_message(&err, path, "shorter than its header says");
    st_free(f);
    free(out);
    free(v);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_writer_without_metadata),
        cmocka_unit_test(test_writer_refuses_bad_input),
        cmocka_unit_test(test_atomic_write_missing_directory),
        cmocka_unit_test(test_atomic_abort_keeps_old_file),
        cmocka_unit_test(test_atomic_commit_failure_cleans_up),
        cmocka_unit_test(test_read_all_limits),
        cmocka_unit_test(test_broken_files),
        cmocka_unit_test(test_open_missing_file),
        cmocka_unit_test(test_valid_layouts),
        cmocka_unit_test(test_read_f32_refuses),
        cmocka_unit_test(test_unaligned_data),
        cmocka_unit_test(test_corrupted_bytes),
        cmocka_unit_test(test_truncated_while_open),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
