#include "safetensors.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "json.h"

// The paper's big model (213M parameters as F32, 850 MB) with room to spare.
#if SIZE_MAX > 0xFFFFFFFFu
#define ST_MAX_FILE_BYTES ((size_t)2 << 30)
#else
#define ST_MAX_FILE_BYTES ((size_t)1 << 30)
#endif
#define ST_MAX_HEADER_BYTES ((uint64_t)100 * 1000 * 1000)
// Doubles hold every integer up to 2^53 exactly; larger ones were rounded.
#define ST_MAX_EXACT_INT 9007199254740992.0

struct StFile {
    char *path;
    char *data;              // whole file, read (not mapped: a file cut short
                             // while mapped would fault): length, header, buffer;
                             // opened lazily, the length and header only
    size_t len;              // the file's bytes
    const unsigned char *buffer;  // data + 8 + header length; NULL when lazy
    size_t buffer_len;
    int fd;                  // lazy: the tensors are read from here (-1: not lazy)
    size_t buffer_at;        // lazy: where the buffer starts in the file
    Json *header;
    const Json *meta;        // __metadata__ object, or NULL
    StTensor *tensors;       // (count) in header order
    int count;
};

typedef struct {
    const char *name;
    size_t size;
} DtypeSize;

static const DtypeSize dtype_sizes[] = {
    {"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2},
    {"I64", 8}, {"I32", 4}, {"I16", 2}, {"I8", 1},
    {"U64", 8}, {"U32", 4}, {"U16", 2}, {"U8", 1},
    {"BOOL", 1}, {"F8_E4M3", 1}, {"F8_E5M2", 1},
};

// Bytes per element of a dtype, or 0 when unknown.
static size_t dtype_size(const char *dtype) {
    for (size_t i = 0; i < sizeof dtype_sizes / sizeof dtype_sizes[0]; i++)
        if (strcmp(dtype_sizes[i].name, dtype) == 0) return dtype_sizes[i].size;
    return 0;
}

static const char *type_name(JsonType t) {
    switch (t) {
    case JSON_NULL: return "null";
    case JSON_BOOL: return "a boolean";
    case JSON_NUMBER: return "a number";
    case JSON_STRING: return "a string";
    case JSON_ARRAY: return "an array";
    case JSON_OBJECT: return "an object";
    }
    return "?";
}

// Formats a shape as "[2, 3]" (truncated if it does not fit).
static void format_shape(char *buf, size_t size, const int64_t *shape, int ndim) {
    size_t used = 0;
    used += (size_t)snprintf(buf, size, "[");
    for (int i = 0; i < ndim && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%" PRId64, i ? ", " : "", shape[i]);
    if (used < size) snprintf(buf + used, size - used, "]");
}

static bool is_whole(double v) {
    return v >= 0 && v <= ST_MAX_EXACT_INT && floor(v) == v;
}

static int check_metadata(const char *path, const Json *meta, Error *err) {
    if (meta->type != JSON_OBJECT)
        return err_set(err, "%s: __metadata__ is %s, expected an object of strings",
                       path, type_name(meta->type));
    long dup = json_duplicate_key(meta);
    if (dup >= 0)
        return err_set(err, "%s: __metadata__ key '%s' appears twice", path, ERR_QUOTE(meta->keys[dup], 64));
    for (size_t i = 0; i < meta->count; i++) {
        const Json *v = &meta->items[i];
        if (v->type != JSON_STRING)
            return err_set(err, "%s: __metadata__ value of '%s' is %s, expected a string",
                           path, ERR_QUOTE(meta->keys[i], 64), type_name(v->type));
        if (strlen(v->string) != v->len)
            return err_set(err, "%s: __metadata__ value of '%s' contains a NUL character",
                           path, ERR_QUOTE(meta->keys[i], 64));
    }
    return 0;
}

// Fills t from one header entry; checks its own fields and size, not its neighbours.
static int parse_tensor(const char *path, const char *name, const Json *entry, size_t buffer_len,
                        StTensor *t, Error *err) {
    memset(t, 0, sizeof *t);
    t->name = name;
    const char *shown = ERR_QUOTE(name, 64);  // the name as a message may show it
    if (entry->type != JSON_OBJECT)
        return err_set(err, "%s: tensor '%s': entry is %s, expected an object",
                       path, shown, type_name(entry->type));
    long dup = json_duplicate_key(entry);
    if (dup >= 0)
        return err_set(err, "%s: tensor '%s': field '%s' appears twice", path, shown,
                       ERR_QUOTE(entry->keys[dup], 40));

    const Json *dtype = json_get(entry, "dtype");
    const Json *shape = json_get(entry, "shape");
    const Json *offsets = json_get(entry, "data_offsets");
    if (!dtype) return err_set(err, "%s: tensor '%s': missing \"dtype\"", path, shown);
    if (!shape) return err_set(err, "%s: tensor '%s': missing \"shape\"", path, shown);
    if (!offsets) return err_set(err, "%s: tensor '%s': missing \"data_offsets\"", path, shown);

    if (dtype->type != JSON_STRING)
        return err_set(err, "%s: tensor '%s': dtype is %s, expected a string",
                       path, shown, type_name(dtype->type));
    size_t elem = strlen(dtype->string) == dtype->len ? dtype_size(dtype->string) : 0;
    if (elem == 0)
        return err_set(err, "%s: tensor '%s': unknown dtype '%s'", path, shown,
                       ERR_QUOTE(dtype->string, 40));
    assert(dtype->len < sizeof t->dtype);
    memcpy(t->dtype, dtype->string, dtype->len + 1);

    if (shape->type != JSON_ARRAY)
        return err_set(err, "%s: tensor '%s': shape is %s, expected an array",
                       path, shown, type_name(shape->type));
    if (shape->count > ST_MAX_DIMS)
        return err_set(err, "%s: tensor '%s': shape has %zu dimensions, at most %d are supported",
                       path, shown, shape->count, ST_MAX_DIMS);
    t->ndim = (int)shape->count;
    bool has_zero = false;
    for (size_t i = 0; i < shape->count; i++) {
        const Json *d = &shape->items[i];
        if (d->type != JSON_NUMBER || !is_whole(d->number)) {
            if (d->type == JSON_NUMBER)
                return err_set(err, "%s: tensor '%s': shape[%zu] is %g, expected a non-negative integer",
                               path, shown, i, d->number);
            return err_set(err, "%s: tensor '%s': shape[%zu] is %s, expected a non-negative integer",
                           path, shown, i, type_name(d->type));
        }
        t->shape[i] = (int64_t)d->number;
        if (t->shape[i] == 0) has_zero = true;
    }

    if (offsets->type != JSON_ARRAY || offsets->count != 2)
        return err_set(err, "%s: tensor '%s': data_offsets must be an array [begin, end]", path, shown);
    const Json *b = &offsets->items[0], *e = &offsets->items[1];
    if (b->type != JSON_NUMBER || e->type != JSON_NUMBER || !is_whole(b->number) || !is_whole(e->number))
        return err_set(err, "%s: tensor '%s': data_offsets must be two non-negative integers",
                       path, shown);
    uint64_t begin = (uint64_t)b->number, end = (uint64_t)e->number;
    if (begin > end)
        return err_set(err, "%s: tensor '%s': data_offsets [%" PRIu64 ", %" PRIu64 "] end before they begin",
                       path, shown, begin, end);
    if (end > buffer_len)
        return err_set(err, "%s: tensor '%s': data_offsets [%" PRIu64 ", %" PRIu64
                       "] run past the end of the data buffer (%zu bytes)",
                       path, shown, begin, end, buffer_len);
    t->begin = (size_t)begin;
    t->end = (size_t)end;

    // Bytes the shape needs; the product can overflow even when the file is small.
    char shape_text[160];
    format_shape(shape_text, sizeof shape_text, t->shape, t->ndim);
    uint64_t need = has_zero ? 0 : elem;
    for (int i = 0; i < t->ndim && need != 0; i++) {
        uint64_t d = (uint64_t)t->shape[i];
        if (need > UINT64_MAX / d)
            return err_set(err, "%s: tensor '%s': %s %s is too large", path, shown, t->dtype, shape_text);
        need *= d;
    }
    if (need != end - begin)
        return err_set(err, "%s: tensor '%s': data_offsets [%" PRIu64 ", %" PRIu64 "] hold %" PRIu64
                       " bytes, but %s %s needs %" PRIu64,
                       path, shown, begin, end, end - begin, t->dtype, shape_text, need);
    return 0;
}

static int compare_by_offset(const void *a, const void *b) {
    const StTensor *x = *(const StTensor *const *)a, *y = *(const StTensor *const *)b;
    if (x->begin != y->begin) return x->begin < y->begin ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return 0;
}

// The tensors must tile the buffer: no overlaps and no unused bytes.
static int check_layout(const StFile *f, Error *err) {
    if (f->count == 0) {
        if (f->buffer_len != 0)
            return err_set(err, "%s: data buffer holds %zu bytes but the header lists no tensors",
                           f->path, f->buffer_len);
        return 0;
    }
    const StTensor **order = malloc((size_t)f->count * sizeof *order);
    if (!order) return err_set(err, "%s: out of memory", f->path);
    for (int i = 0; i < f->count; i++) order[i] = &f->tensors[i];
    qsort(order, (size_t)f->count, sizeof *order, compare_by_offset);

    int rc = 0;
    size_t covered = 0;
    const StTensor *prev = NULL;
    for (int i = 0; i < f->count && rc == 0; i++) {
        const StTensor *t = order[i];
        if (t->begin < covered)
            rc = err_set(err, "%s: tensor '%s': data_offsets [%zu, %zu] overlap tensor '%s' [%zu, %zu]", f->path,
                         ERR_QUOTE(t->name, 64), t->begin, t->end,
                         ERR_QUOTE(prev->name, 64), prev->begin, prev->end);
        else if (t->begin > covered)
            rc = err_set(err, "%s: bytes [%zu, %zu) of the data buffer belong to no tensor "
                         "(hole before tensor '%s')", f->path, covered, t->begin,
                         ERR_QUOTE(t->name, 64));
        covered = t->end;
        prev = t;
    }
    if (rc == 0 && covered < f->buffer_len)
        rc = err_set(err, "%s: bytes [%zu, %zu) at the end of the data buffer belong to no tensor",
                     f->path, covered, f->buffer_len);
    free(order);
    return rc;
}

static int check_header(StFile *f, Error *err) {
    const char *path = f->path;
    const Json *h = f->header;
    if (h->type != JSON_OBJECT)
        return err_set(err, "%s: header is %s, expected an object", path, type_name(h->type));
    long dup = json_duplicate_key(h);
    if (dup >= 0) {
        if (strcmp(h->keys[dup], "__metadata__") == 0)
            return err_set(err, "%s: __metadata__ appears twice in the header", path);
        return err_set(err, "%s: tensor '%s' appears twice in the header", path,
                       ERR_QUOTE(h->keys[dup], 64));
    }
    if (h->count > INT_MAX) return err_set(err, "%s: header lists too many tensors", path);
    f->tensors = malloc((h->count ? h->count : 1) * sizeof *f->tensors);
    if (!f->tensors) return err_set(err, "%s: out of memory", path);
    for (size_t i = 0; i < h->count; i++) {
        if (strcmp(h->keys[i], "__metadata__") == 0) {
            if (check_metadata(path, &h->items[i], err) != 0) return -1;
            f->meta = &h->items[i];
            continue;
        }
        if (parse_tensor(path, h->keys[i], &h->items[i], f->buffer_len, &f->tensors[f->count], err) != 0)
            return -1;
        f->count++;
    }
    return check_layout(f, err);
}

// Whole bytes at an offset of a file, through short reads; false at its end.
static bool read_at(int fd, void *buf, size_t n, size_t at) {
    errno = 0;  // 0 after a false return: the file ended first
    for (size_t done = 0; done < n;) {
        ssize_t got = pread(fd, (char *)buf + done, n - done, (off_t)(at + done));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        done += (size_t)got;
    }
    return true;
}

static StFile *open_file(const char *path, bool lazy, Error *err) {
    StFile *f = calloc(1, sizeof *f);
    if (!f) {
        err_set(err, "%s: out of memory", path);
        return NULL;
    }
    f->fd = -1;
    f->path = malloc(strlen(path) + 1);
    if (!f->path) {
        err_set(err, "%s: out of memory", path);
        goto fail;
    }
    strcpy(f->path, path);
    unsigned char head[8];
    if (lazy) {
        if ((f->fd = fio_open(path, ST_MAX_FILE_BYTES, &f->len, err)) < 0) goto fail;
        if (f->len >= 8 && !read_at(f->fd, head, 8, 0)) {
            err_set(err, "%s: cannot read: %s", path, errno ? strerror(errno) : "the file is shorter than when opened");
            goto fail;
        }
    } else if (fio_read_all(path, ST_MAX_FILE_BYTES, &f->data, &f->len, err) != 0)
        goto fail;
    if (f->len < 8) {
        err_set(err, "%s: file is %zu bytes, too short for the 8-byte header length", path, f->len);
        goto fail;
    }
    if (!lazy) memcpy(head, f->data, 8);
    // Little-endian u64, byte by byte so the host's byte order does not matter.
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--) n = (n << 8) | head[i];
    if (n > f->len - 8) {
        err_set(err, "%s: header length %" PRIu64 " runs past the end of the file (%zu bytes): truncated, or not a safetensors model file",
                path, n, f->len);
        goto fail;
    }
    if (n > ST_MAX_HEADER_BYTES) {
        err_set(err, "%s: header length %" PRIu64 " is over the %" PRIu64 "-byte limit",
                path, n, ST_MAX_HEADER_BYTES);
        goto fail;
    }
    if (lazy) {  // the length and the header only
        if (!(f->data = malloc((size_t)n + 8))) {
            err_set(err, "%s: out of memory for its %" PRIu64 "-byte header", path, n);
            goto fail;
        }
        memcpy(f->data, head, 8);
        if (!read_at(f->fd, f->data + 8, (size_t)n, 8)) {
            err_set(err, "%s: cannot read its header: %s", path, errno ? strerror(errno) : "the file is shorter than when opened");
            goto fail;
        }
        f->buffer_at = 8 + (size_t)n;
    } else
        f->buffer = (const unsigned char *)f->data + 8 + n;
    f->buffer_len = f->len - 8 - (size_t)n;
    f->header = json_parse(f->data + 8, (size_t)n, false, err);
    if (!f->header) {
        err_prefix(err, "%s: header", path);
        goto fail;
    }
    if (check_header(f, err) != 0) goto fail;
    return f;

fail:
    st_free(f);
    return NULL;
}

StFile *st_open(const char *path, Error *err) { return open_file(path, false, err); }

StFile *st_open_lazy(const char *path, Error *err) { return open_file(path, true, err); }

void st_free(StFile *f) {
    if (!f) return;
    if (f->fd >= 0) close(f->fd);
    free(f->path);
    free(f->data);
    json_free(f->header);
    free(f->tensors);
    free(f);
}

const char *st_path(const StFile *f) {
    return f->path;
}

int st_count(const StFile *f) {
    return f->count;
}

const StTensor *st_tensor_at(const StFile *f, int i) {
    if (i < 0 || i >= f->count) return NULL;
    return &f->tensors[i];
}

const StTensor *st_find(const StFile *f, const char *name) {
    for (int i = 0; i < f->count; i++)
        if (strcmp(f->tensors[i].name, name) == 0) return &f->tensors[i];
    return NULL;
}

const char *st_meta(const StFile *f, const char *key) {
    const Json *v = json_get(f->meta, key);
    return v ? v->string : NULL;
}

int st_read_f32(const StFile *f, const StTensor *t, float *out, Error *err) {
    assert(t >= f->tensors && t < f->tensors + f->count);
    if (strcmp(t->dtype, "F32") != 0)
        return err_set(err, "%s: tensor '%s' has dtype %s, expected F32 (save it with tensor.float())",
                       f->path, t->name, t->dtype);
    size_t numel = (t->end - t->begin) / 4;
    const unsigned char *src = f->buffer ? f->buffer + t->begin : (const unsigned char *)out;
    if (!f->buffer && !read_at(f->fd, out, t->end - t->begin, f->buffer_at + t->begin))  // lazy: into out, put in order there
        return err_set(err, "%s: tensor '%s': cannot read its bytes: %s", f->path, t->name,
                       errno ? strerror(errno) : "the file is shorter than its header says (changed since it was opened?)");
    // Copied (in place, when read lazily) and checked after, in loops without
    // an early exit: the compiler turns them into vector loads (loading the
    // model was a tenth of a command's work, one byte at a time).
    uint32_t not_finite = 0;  // an exponent of all ones: Inf or NaN
    for (size_t i = 0; i < numel; i++) {
        const unsigned char *b = src + 4 * i;
        uint32_t bits = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
        not_finite |= (bits & 0x7f800000u) == 0x7f800000u;
        memcpy(out + i, &bits, sizeof bits);
    }
    for (size_t i = 0; not_finite && i < numel; i++)
        if (!isfinite(out[i]))
            return err_set(err, "%s: tensor '%s' holds %s at flat index %zu",
                           f->path, t->name, isnan(out[i]) ? "NaN" : out[i] > 0 ? "+Inf" : "-Inf", i);
    return 0;
}

uint16_t st_half_from_float(float v) {
    uint32_t x;
    memcpy(&x, &v, sizeof x);
    uint32_t sign = (x >> 16) & 0x8000u, mag = x & 0x7fffffffu;
    if (mag >= 0x7f800000u) return (uint16_t)(sign | 0x7c00u | (mag > 0x7f800000u ? 0x200u : 0));  // Inf, NaN
    if (mag >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);                                         // rounds past 65504: Inf
    if (mag < 0x38800000u) {  // below 2^-14: a subnormal half (or 0), rounded to nearest even
        if (mag < 0x33000000u) return (uint16_t)sign;                                                // below half the smallest
        uint32_t m = (mag & 0x7fffffu) | 0x800000u;
        int shift = 126 - (int)(mag >> 23);  // h = m × 2^(e − 150) / 2^−24: the bits below the half's last go
        uint32_t h = m >> shift, rest = m & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rest > half || (rest == half && (h & 1))) h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = ((mag - 0x38000000u) >> 13), rest = mag & 0x1fffu;  // rebias 127 → 15, keep 10 mantissa bits
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1))) h++;
    return (uint16_t)(sign | h);
}

float st_float_from_half(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, x;
    if (e == 0x1f) x = sign | 0x7f800000u | (m << 13);
    else if (e) x = sign | ((e + 112) << 23) | (m << 13);
    else if (!m) x = sign;
    else {  // subnormal: normalise
        int shift = 0;
        while (!(m & 0x400u)) m <<= 1, shift++;
        x = sign | ((uint32_t)(113 - shift) << 23) | ((m & 0x3ffu) << 13);
    }
    float v;
    memcpy(&v, &x, sizeof v);
    return v;
}

int st_read_f16(const StFile *f, const StTensor *t, float *out, Error *err) {
    assert(t >= f->tensors && t < f->tensors + f->count);
    if (strcmp(t->dtype, "F16") != 0) return err_set(err, "%s: tensor '%s' has dtype %s, expected F16", f->path, t->name, t->dtype);
    if (!f->buffer) return err_set(err, "%s: tensor '%s': F16 is read from a file opened whole (st_open)", f->path, t->name);
    const unsigned char *src = f->buffer + t->begin;
    size_t numel = (t->end - t->begin) / 2;
    for (size_t i = 0; i < numel; i++) {
        float v = st_float_from_half((uint16_t)(src[2 * i] | src[2 * i + 1] << 8));
        if (!isfinite(v))
            return err_set(err, "%s: tensor '%s' holds %s at flat index %zu", f->path, t->name, isnan(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf", i);
        out[i] = v;
    }
    return 0;
}

typedef struct {
    char *name;
    const float *data;
    bool f16;               // stored as F16
    int ndim;
    int64_t shape[ST_MAX_DIMS];
    size_t numel;
} WriterTensor;

typedef struct {
    char *key;
    char *value;
} WriterMeta;

struct StWriter {
    WriterTensor *tensors;   // (tensor_count) in insertion order
    size_t tensor_count, tensor_cap;
    WriterMeta *meta;        // (meta_count) in insertion order
    size_t meta_count, meta_cap;
};

static char *copy_string(const char *s) {
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c) memcpy(c, s, n);
    return c;
}

StWriter *st_writer_new(void) {
    return calloc(1, sizeof(StWriter));
}

void st_writer_free(StWriter *w) {
    if (!w) return;
    for (size_t i = 0; i < w->tensor_count; i++) free(w->tensors[i].name);
    for (size_t i = 0; i < w->meta_count; i++) {
        free(w->meta[i].key);
        free(w->meta[i].value);
    }
    free(w->tensors);
    free(w->meta);
    free(w);
}

// Grows an array of elem-sized items geometrically.
static int grow(void **items, size_t *cap, size_t count, size_t elem) {
    if (count < *cap) return 0;
    size_t grown = *cap ? *cap * 2 : 8;
    if (grown > SIZE_MAX / elem) return -1;
    void *bigger = realloc(*items, grown * elem);
    if (!bigger) return -1;
    *items = bigger;
    *cap = grown;
    return 0;
}

int st_writer_meta(StWriter *w, const char *key, const char *value) {
    for (size_t i = 0; i < w->meta_count; i++)
        if (strcmp(w->meta[i].key, key) == 0) return -1;
    if (grow((void **)&w->meta, &w->meta_cap, w->meta_count, sizeof *w->meta) != 0) return -1;
    WriterMeta m = {copy_string(key), copy_string(value)};
    if (!m.key || !m.value) {
        free(m.key);
        free(m.value);
        return -1;
    }
    w->meta[w->meta_count++] = m;
    return 0;
}

static int add_tensor(StWriter *w, const char *name, const float *data, int ndim, const int64_t *shape, bool f16);

int st_writer_add_f32(StWriter *w, const char *name, const float *data, int ndim, const int64_t *shape) {
    return add_tensor(w, name, data, ndim, shape, false);
}

int st_writer_add_f16(StWriter *w, const char *name, const float *data, int ndim, const int64_t *shape) {
    return add_tensor(w, name, data, ndim, shape, true);
}

static int add_tensor(StWriter *w, const char *name, const float *data, int ndim, const int64_t *shape, bool f16) {
    if (ndim < 0 || ndim > ST_MAX_DIMS || strcmp(name, "__metadata__") == 0) return -1;
    for (size_t i = 0; i < w->tensor_count; i++)
        if (strcmp(w->tensors[i].name, name) == 0) return -1;
    WriterTensor t = {0};
    t.data = data;
    t.f16 = f16;
    t.ndim = ndim;
    t.numel = 1;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 0) return -1;
        t.shape[i] = shape[i];
    }
    for (int i = 0; i < ndim; i++) {
        size_t d = (size_t)shape[i];
        if (d != 0 && t.numel > SIZE_MAX / 4 / d) return -1;
        t.numel *= d;
    }
    if (t.numel > 0 && !data) return -1;
    if (grow((void **)&w->tensors, &w->tensor_cap, w->tensor_count, sizeof *w->tensors) != 0) return -1;
    t.name = copy_string(name);
    if (!t.name) return -1;
    w->tensors[w->tensor_count++] = t;
    return 0;
}

// Builds the JSON header in memory, padded with spaces so 8 + N is a multiple of 8.
static int build_header(const StWriter *w, char **out, size_t *out_len) {
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem) return -1;
    fputc('{', mem);
    bool first = true;
    if (w->meta_count > 0) {
        json_write_string(mem, "__metadata__");
        fputs(":{", mem);
        for (size_t i = 0; i < w->meta_count; i++) {
            if (i) fputc(',', mem);
            json_write_string(mem, w->meta[i].key);
            fputc(':', mem);
            json_write_string(mem, w->meta[i].value);
        }
        fputc('}', mem);
        first = false;
    }
    uint64_t offset = 0;
    for (size_t i = 0; i < w->tensor_count; i++) {
        const WriterTensor *t = &w->tensors[i];
        if (!first) fputc(',', mem);
        first = false;
        json_write_string(mem, t->name);
        fprintf(mem, ":{\"dtype\":\"%s\",\"shape\":[", t->f16 ? "F16" : "F32");
        for (int d = 0; d < t->ndim; d++) fprintf(mem, "%s%" PRId64, d ? "," : "", t->shape[d]);
        uint64_t end = offset + (uint64_t)t->numel * (t->f16 ? 2 : 4);
        fprintf(mem, "],\"data_offsets\":[%" PRIu64 ",%" PRIu64 "]}", offset, end);
        offset = end;
    }
    fputc('}', mem);
    fflush(mem);
    while ((8 + len) % 8 != 0) {
        fputc(' ', mem);
        fflush(mem);
    }
    bool bad = ferror(mem) != 0;
    if (fclose(mem) != 0 || bad) {
        free(buf);
        return -1;
    }
    *out = buf;
    *out_len = len;
    return 0;
}

// Writes floats as little-endian bytes (F32), or halves (F16), in chunks, whatever the host order.
static int write_le(FILE *fp, const float *data, size_t numel, bool f16) {
    unsigned char chunk[4096];
    size_t size = f16 ? 2 : 4, per_chunk = sizeof chunk / size;
    for (size_t done = 0; done < numel;) {
        size_t n = numel - done < per_chunk ? numel - done : per_chunk;
        for (size_t i = 0; i < n; i++) {
            uint32_t bits;
            if (f16) bits = st_half_from_float(data[done + i]);
            else memcpy(&bits, &data[done + i], sizeof bits);
            for (size_t b = 0; b < size; b++) chunk[size * i + b] = (unsigned char)(bits >> (8 * b));
        }
        if (fwrite(chunk, size, n, fp) != n) return -1;
        done += n;
    }
    return 0;
}

int st_writer_save(const StWriter *w, const char *path, Error *err) {
    char *header = NULL;
    size_t header_len = 0;
    if (build_header(w, &header, &header_len) != 0)
        return err_set(err, "%s: out of memory building the header", path);
    AtomicFile af;
    if (fio_atomic_open(&af, path, err) != 0) {
        free(header);
        return -1;
    }
    unsigned char len_bytes[8];
    for (int i = 0; i < 8; i++) len_bytes[i] = (unsigned char)((uint64_t)header_len >> (8 * i));
    bool ok = fwrite(len_bytes, 1, 8, af.fp) == 8 && fwrite(header, 1, header_len, af.fp) == header_len;
    free(header);
    for (size_t i = 0; ok && i < w->tensor_count; i++)
        ok = write_le(af.fp, w->tensors[i].data, w->tensors[i].numel, w->tensors[i].f16) == 0;
    if (!ok) {
        err_set(err, "%s: cannot write: %s", path, strerror(errno));
        fio_atomic_abort(&af);
        return -1;
    }
    return fio_atomic_commit(&af, err);
}
