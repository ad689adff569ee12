// The trace as NumPy's .npz (docs/TRACE.md): a zip, stored without
// compression, of .npy arrays and one JSON member with the labels and the
// settings. np.load reads it with nothing else installed.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "trace_private.h"

// What the central directory needs of each member.
typedef struct {
    char *name;
    uint32_t crc;
    uint64_t size, offset;
} Member;

typedef struct {
    FILE *fp;
    uint64_t at;  // bytes written so far
    Member *members;
    size_t n, cap;
    uint32_t crc_table[256];
    bool out_of_memory, too_big;
} Zip;

// A member's bytes: a header (n_head bytes), then either n bytes or a step's rows.
typedef struct {
    const void *head;
    size_t n_head;
    const void *bytes;
    size_t n;
    const Step *step;
} Body;

#define ZIP_MAX32 0xFFFFFFFFu  // a 32-bit field that says: see the Zip64 record
#define ZIP_MAX16 0xFFFFu

static void crc_init(Zip *z) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        z->crc_table[i] = c;
    }
}

static uint32_t crc_add(const Zip *z, uint32_t crc, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) crc = z->crc_table[(crc ^ b[i]) & 0xFF] ^ (crc >> 8);
    return crc;
}

static size_t body_size(Body b) {
    return b.n_head + (b.step ? (size_t)b.step->rows * (size_t)b.step->cols * sizeof(float) : b.n);
}

static uint32_t body_crc(const Zip *z, Body b) {
    uint32_t crc = crc_add(z, 0xFFFFFFFFu, b.head, b.n_head);
    if (b.step)
        for (int r = 0; r < b.step->rows; r++) crc = crc_add(z, crc, trace_row(b.step, r), (size_t)b.step->cols * sizeof(float));
    else crc = crc_add(z, crc, b.bytes, b.n);
    return crc ^ 0xFFFFFFFFu;
}

static void put(Zip *z, const void *p, size_t n) {
    if (n) fwrite(p, 1, n, z->fp);
    z->at += n;
}

// Little-endian fields, as zip wants them.
static unsigned char *le(unsigned char *p, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; i++) p[i] = (unsigned char)(v >> (8 * i));
    return p + bytes;
}

static void member(Zip *z, const char *name, Body b) {
    if (z->out_of_memory) return;
    if (z->n == z->cap) {
        size_t cap = z->cap ? 2 * z->cap : 256;
        Member *m = realloc(z->members, cap * sizeof *m);
        if (!m) {
            z->out_of_memory = true;
            return;
        }
        z->members = m;
        z->cap = cap;
    }
    Member *m = &z->members[z->n];
    m->name = strdup(name);
    if (!m->name) {
        z->out_of_memory = true;
        return;
    }
    z->n++;
    m->crc = body_crc(z, b);
    m->size = body_size(b);
    if (m->size >= ZIP_MAX32) z->too_big = true;  // not one array is near 4 GiB: rows × cols are at most max_len²
    m->offset = z->at;
    size_t len = strlen(name);
    unsigned char h[30], *p = h;
    p = le(p, 0x04034b50, 4);
    p = le(p, 20, 2);      // version needed
    p = le(p, 0, 2);       // flags
    p = le(p, 0, 2);       // stored
    p = le(p, 0, 2);       // time 00:00
    p = le(p, 0x21, 2);    // date 1980-01-01: the file repeats byte for byte
    p = le(p, m->crc, 4);
    p = le(p, m->size, 4);
    p = le(p, m->size, 4);
    p = le(p, len, 2);
    le(p, 0, 2);
    put(z, h, sizeof h);
    put(z, name, len);
    put(z, b.head, b.n_head);
    if (b.step)
        for (int r = 0; r < b.step->rows; r++) put(z, trace_row(b.step, r), (size_t)b.step->cols * sizeof(float));
    else put(z, b.bytes, b.n);
}

// The central directory, and Zip64's records when there are more members or
// bytes than the plain end record counts.
static void finish(Zip *z) {
    uint64_t cd_at = z->at;
    for (size_t i = 0; i < z->n; i++) {
        const Member *m = &z->members[i];
        bool far = m->offset >= ZIP_MAX32;
        size_t len = strlen(m->name);
        unsigned char h[46 + 12], *p = h;
        p = le(p, 0x02014b50, 4);
        p = le(p, 45, 2);  // made by: version 4.5 (Zip64)
        p = le(p, far ? 45 : 20, 2);
        p = le(p, 0, 2);
        p = le(p, 0, 2);
        p = le(p, 0, 2);
        p = le(p, 0x21, 2);
        p = le(p, m->crc, 4);
        p = le(p, m->size, 4);
        p = le(p, m->size, 4);
        p = le(p, len, 2);
        p = le(p, far ? 12 : 0, 2);  // extra: the Zip64 offset
        p = le(p, 0, 2);
        p = le(p, 0, 2);
        p = le(p, 0, 2);
        p = le(p, 0, 4);
        p = le(p, far ? ZIP_MAX32 : m->offset, 4);
        put(z, h, 46);
        put(z, m->name, len);
        if (far) {
            p = le(h, 0x0001, 2);
            p = le(p, 8, 2);
            le(p, m->offset, 8);
            put(z, h, 12);
        }
    }
    uint64_t cd_size = z->at - cd_at, end64_at = z->at;
    bool zip64 = z->n >= ZIP_MAX16 || cd_at >= ZIP_MAX32 || cd_size >= ZIP_MAX32;
    unsigned char h[56], *p;
    if (zip64) {
        p = le(h, 0x06064b50, 4);
        p = le(p, 44, 8);
        p = le(p, 45, 2);
        p = le(p, 45, 2);
        p = le(p, 0, 4);
        p = le(p, 0, 4);
        p = le(p, z->n, 8);
        p = le(p, z->n, 8);
        p = le(p, cd_size, 8);
        le(p, cd_at, 8);
        put(z, h, 56);
        p = le(h, 0x07064b50, 4);
        p = le(p, 0, 4);
        p = le(p, end64_at, 8);
        le(p, 1, 4);
        put(z, h, 20);
    }
    p = le(h, 0x06054b50, 4);
    p = le(p, 0, 2);
    p = le(p, 0, 2);
    p = le(p, zip64 ? ZIP_MAX16 : z->n, 2);
    p = le(p, zip64 ? ZIP_MAX16 : z->n, 2);
    p = le(p, zip64 ? ZIP_MAX32 : cd_size, 4);
    p = le(p, zip64 ? ZIP_MAX32 : cd_at, 4);
    le(p, 0, 2);
    put(z, h, 22);
}

// The .npy header of a rows × cols array of descr ("<f4", "<i4"): padded so
// that the data starts at a multiple of 64 bytes. Returns its length.
static size_t npy_header(char *out, size_t size, const char *descr, int rows, int cols) {
    char dict[160];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%d, %d), }", descr, rows, cols);
    size_t total = (10 + (size_t)n + 1 + 63) / 64 * 64;
    if (total > size) return 0;
    memcpy(out, "\x93NUMPY\x01\x00", 8);
    le((unsigned char *)out + 8, total - 10, 2);
    memcpy(out + 10, dict, (size_t)n);
    memset(out + 10 + n, ' ', total - 10 - (size_t)n - 1);
    out[total - 1] = '\n';
    return total;
}

static bool little_endian(void) {
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}

// The array's name: the stage id, the head, and the decoding step unless the
// array holds the rows of every step.
static void array_name(const Step *s, bool every_step, char *out, size_t size) {
    char id[128];
    int n = snprintf(out, size, "%s", trace_stage_id(s, id, sizeof id));
    if (s->head) n += snprintf(out + n, size - (size_t)n, ".h%d", s->head);
    if (s->dstep && !every_step) snprintf(out + n, size - (size_t)n, ".step%d", s->dstep);
}

int trace_write_npz(const Trace *t, FILE *fp, const char *src_text, Error *err) {
    Zip z = {.fp = fp};
    crc_init(&z);
    const char *f4 = little_endian() ? "<f4" : ">f4", *i4 = little_endian() ? "<i4" : ">i4";
    int n = t->n_steps;
    int *later = malloc(((size_t)n + 1) * sizeof *later);  // per step: the step that extends it, or -1
    int *shapes = malloc(2 * ((size_t)t->opt.max_steps + 1) * sizeof *shapes);
    char *json = NULL;
    size_t json_len = 0;
    FILE *js = open_memstream(&json, &json_len);
    int rc = -1;
    const char *why = "out of memory while writing the npz file";
    if (!later || !shapes || !js) goto done;
    for (int i = 0; i < n; i++) later[i] = -1;
    for (int i = 0; i < n; i++)
        if (t->shares[i] >= 0) later[t->shares[i]] = i;
    fputs("{\"format\":\"transformer-tracer-npz/1\",", js);
    trace_json_about(t, js, src_text);
    fputs(",\"arrays\":[\n", js);
    char name[192], shape_name[200], head[128];
    bool first = true;
    for (int i = 0; i < n; i++) {
        if (t->shares[i] >= 0) continue;  // written with the first step it extends
        const Step *s = &t->steps[i];
        // a chain of steps sharing rows: the last holds every row; each step's shape beside it
        int last = i, count = 0;
        for (int k = i; k >= 0; k = later[k]) {
            const Step *st = &t->steps[k];
            shapes[2 * count] = st->rows;
            shapes[2 * count + 1] = st->cols;
            count++;
            last = k;
        }
        const Step *whole = &t->steps[last];
        bool every_step = last != i;
        array_name(s, every_step, name, sizeof name);
        size_t hn = npy_header(head, sizeof head, f4, whole->rows, whole->cols);
        member(&z, strcat(name, ".npy"), (Body){.head = head, .n_head = hn, .step = whole});
        name[strlen(name) - 4] = '\0';
        fprintf(js, "%s{\"array\":", first ? "" : ",\n");
        json_write_string(js, name);
        fputc(',', js);
        trace_json_step_about(js, whole);
        if (every_step) {
            snprintf(shape_name, sizeof shape_name, "%s.shape.npy", name);
            hn = npy_header(head, sizeof head, i4, count, 2);
            member(&z, shape_name, (Body){.head = head, .n_head = hn, .bytes = shapes, .n = (size_t)count * 2 * sizeof *shapes});
            fprintf(js, ",\"steps\":[%d,%d],\"shapes\":", s->dstep, whole->dstep);
            shape_name[strlen(shape_name) - 4] = '\0';
            json_write_string(js, shape_name);
        }
        fputc('}', js);
        first = false;
    }
    fputs("\n]}\n", js);
    int closed = fclose(js);
    js = NULL;
    if (closed) goto done;
    member(&z, "trace.json", (Body){.bytes = json, .n = json_len});
    finish(&z);
    if (z.too_big) why = "an array of the npz file is 4 GiB or more, more than a zip member holds";
    if (z.out_of_memory || z.too_big) goto done;
    rc = 0;
done:
    if (js) fclose(js);
    if (rc) err_set(err, "%s", why);
    for (size_t i = 0; i < z.n; i++) free(z.members[i].name);
    free(z.members);
    free(json);
    free(later);
    free(shapes);
    return rc;
}
