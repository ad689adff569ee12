#include "image.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "fileio.h"

// A PNG writer made for what the program draws: flat areas, cells and
// anti-aliased text (PNG: RFC 2083 and the W3C's PNG specification;
// deflate: RFC 1951; zlib: RFC 1950).
//
// Each row is filtered with Up (the difference from the row above), which
// turns a heatmap's repeated rows into zeros, then deflated as one block of
// the fixed Huffman codes holding only runs: a byte repeating the one before
// it (distance 1) or the pixel before it (distance 3), anything else a
// literal. That is half the work of libpng with zlib at its fastest level,
// for a file about twice as large (170 KB for a 1200 × 800 heatmap), and
// an export's PNG was two thirds of its instructions (docs/PERFORMANCE.md).

// Compressed bytes are written out as IDAT chunks of about this size.
#define CHUNK 65536

typedef struct {
    FILE *fp;
    uint64_t bits;  // pending bits, the oldest lowest
    int nbits;
    unsigned char out[CHUNK + 16];
    size_t n;
    bool failed;
} Writer;

static void put32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

// One chunk: length, type, data, and the CRC of type and data.
static void chunk(Writer *w, const char *type, const unsigned char *data, size_t len) {
    unsigned char head[8];
    put32(head, (uint32_t)len);
    memcpy(head + 4, type, 4);
    uLong crc = crc32(crc32(0L, Z_NULL, 0), head + 4, 4);
    if (len) crc = crc32(crc, data, (uInt)len);
    unsigned char tail[4];
    put32(tail, (uint32_t)crc);
    if (fwrite(head, 1, 8, w->fp) != 8 || (len && fwrite(data, 1, len, w->fp) != len) || fwrite(tail, 1, 4, w->fp) != 4)
        w->failed = true;
}

static void flush_idat(Writer *w) {
    if (w->n) chunk(w, "IDAT", w->out, w->n);
    w->n = 0;
}

// n bits of v (n <= 32), the lowest first, as deflate packs them.
static void put_bits(Writer *w, uint32_t v, int n) {
    w->bits |= (uint64_t)v << w->nbits;
    w->nbits += n;
    while (w->nbits >= 8) {
        w->out[w->n++] = (unsigned char)w->bits;
        w->bits >>= 8;
        w->nbits -= 8;
    }
    if (w->n >= CHUNK) flush_idat(w);
}

// Huffman codes are sent from their highest bit: reversed here once.
static uint32_t reversed(uint32_t code, int n) {
    uint32_t r = 0;
    for (int i = 0; i < n; i++) r |= ((code >> i) & 1u) << (n - 1 - i);
    return r;
}

// The fixed literal/length code (RFC 1951, 3.2.6) of symbol s, reversed.
static void fixed_code(int s, uint32_t *code, int *n) {
    if (s < 144) *code = 0x30u + (uint32_t)s, *n = 8;
    else if (s < 256) *code = 0x190u + (uint32_t)(s - 144), *n = 9;
    else if (s < 280) *code = (uint32_t)(s - 256), *n = 7;
    else *code = 0xC0u + (uint32_t)(s - 280), *n = 8;
    *code = reversed(*code, *n);
}

typedef struct {
    uint32_t lit[256];
    int lit_n[256];
    uint32_t len[259];  // for a match of length 3..258: its symbol's code, then its extra bits
    int len_n[259];
} Codes;

static void make_codes(Codes *c) {
    for (int s = 0; s < 256; s++) fixed_code(s, &c->lit[s], &c->lit_n[s]);
    static const int base[29] = {3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
    static const int extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
    for (int k = 0; k < 29; k++) {
        int last = k == 28 ? 258 : base[k + 1] - 1;
        if (k == 27) last = 257;  // 258 has a symbol of its own (285)
        for (int len = base[k]; len <= last; len++) {
            uint32_t code;
            int n;
            fixed_code(257 + k, &code, &n);
            c->len[len] = code | (uint32_t)(len - base[k]) << n;
            c->len_n[len] = n + extra[k];
        }
    }
}

// How many bytes from p on repeat the byte `back` before them, at most max:
// eight at a time while they match, where the byte order allows.
static int run(const unsigned char *p, int back, int max) {
    int k = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (; k + 8 <= max; k += 8) {
        uint64_t a, b;
        memcpy(&a, p + k, 8);
        memcpy(&b, p + k - back, 8);
        if (a != b) return k + __builtin_ctzll(a ^ b) / 8;  // the first byte that differs
    }
#endif
    while (k < max && p[k] == p[k - back]) k++;
    return k;
}

// Row y's red, green and blue bytes minus those of the row above (0 above
// the first), modulo 256: the Up filter, the three channels of a pixel at
// once (bytewise subtraction in one word, with no borrow between bytes).
// Returns whether the row is the same as the one above (all zeros).
static bool filter_up(const GfxPixels *s, int y, unsigned char *f) {
    const uint32_t *p = (const uint32_t *)((const unsigned char *)s->pixels + (size_t)y * (size_t)s->pitch);
    const uint32_t *q = y ? (const uint32_t *)((const unsigned char *)p - s->pitch) : NULL;
    if (q && memcmp(p, q, (size_t)s->w * 4) == 0) {  // most rows of a picture of flat areas
        memset(f, 0, (size_t)s->w * 3);
        return true;
    }
    for (int x = 0; x < s->w; x++) {
        uint32_t a = p[x], b = q ? q[x] : 0;
        uint32_t d = ((a | 0x80808080u) - (b & 0x7F7F7F7Fu)) ^ ((a ^ ~b) & 0x80808080u);
        f[3 * x] = (unsigned char)(d >> 16);
        f[3 * x + 1] = (unsigned char)(d >> 8);
        f[3 * x + 2] = (unsigned char)d;
    }
    return false;
}

// Deflates n bytes at p, after `before` bytes of the stream (0 or 3) that
// sit just before p: a match never reaches back past the stream's start.
static void deflate_runs(Writer *w, const Codes *c, const unsigned char *p, int n, int before) {
    static const uint32_t dist1 = 0, dist3 = 0x08;  // distance codes 0 and 2 (5 bits, reversed)
    for (int i = 0; i < n;) {
        int max = n - i < 258 ? n - i : 258;
        int r1 = i + before >= 1 ? run(p + i, 1, max) : 0;
        int r3 = r1 == max || i + before < 3 ? 0 : run(p + i, 3, max);
        int len = r1 >= r3 ? r1 : r3;
        if (len >= 3) {
            put_bits(w, c->len[len], c->len_n[len]);
            put_bits(w, r1 >= r3 ? dist1 : dist3, 5);
            i += len;
        } else {
            put_bits(w, c->lit[p[i]], c->lit_n[p[i]]);
            i++;
        }
    }
}

int img_save_png(const char *path, const GfxPixels *s, Error *err) {
    AtomicFile af;
    if (fio_atomic_open(&af, path, err)) return -1;
    size_t stride = (size_t)s->w * 3;
    // row: 3 bytes of what came before, the filter type, then the filtered pixels
    unsigned char *row = malloc(stride + 4);
    Writer *w = malloc(sizeof *w);
    Codes *c = malloc(sizeof *c);
    if (!row || !w || !c) {
        free(row), free(w), free(c);
        fio_atomic_abort(&af);
        return err_set(err, "%s: out of memory writing the PNG", path);
    }
    make_codes(c);
    *w = (Writer){.fp = af.fp};
    static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    if (fwrite(signature, 1, 8, af.fp) != 8) w->failed = true;
    unsigned char ihdr[13];
    put32(ihdr, (uint32_t)s->w);
    put32(ihdr + 4, (uint32_t)s->h);
    ihdr[8] = 8;   // bits per channel
    ihdr[9] = 2;   // RGB
    ihdr[10] = 0;  // deflate
    ihdr[11] = 0;  // adaptive filtering
    ihdr[12] = 0;  // not interlaced
    chunk(w, "IHDR", ihdr, sizeof ihdr);
    w->out[w->n++] = 0x78;  // zlib: deflate, 32 KB window
    w->out[w->n++] = 0x01;  // the fastest level; 0x7801 is a multiple of 31
    put_bits(w, 1, 1);      // the last block,
    put_bits(w, 1, 2);      // of fixed Huffman codes
    uLong adler = adler32(0L, Z_NULL, 0), same_adler = 0;
    memset(row, 0, 3);
    for (int y = 0; y < s->h; y++) {
        unsigned char *f = row + 3;
        f[0] = 2;  // Up
        if (!filter_up(s, y, f + 1)) {
            adler = adler32(adler, f, (uInt)(stride + 1));
        } else {  // a row like the one above: the checksum of its bytes is worked out once
            if (!same_adler) same_adler = adler32(adler32(0L, Z_NULL, 0), f, (uInt)(stride + 1));
            adler = adler32_combine(adler, same_adler, (z_off_t)(stride + 1));
        }
        deflate_runs(w, c, f, (int)(stride + 1), y ? 3 : 0);
        memcpy(row, f + stride - 2, 3);  // the next row's matches may reach back into this one
    }
    put_bits(w, 0, 7);  // end of block (symbol 256)
    if (w->nbits) put_bits(w, 0, 8 - w->nbits);
    unsigned char tail[4];
    put32(tail, (uint32_t)adler);
    for (int i = 0; i < 4; i++) put_bits(w, tail[i], 8);
    flush_idat(w);
    chunk(w, "IEND", NULL, 0);
    bool failed = w->failed;
    free(row), free(w), free(c);
    if (failed && !ferror(af.fp)) {
        fio_atomic_abort(&af);
        return err_set(err, "%s: writing the PNG failed", path);
    }
    // a write that failed (a full disk): the commit says why and removes the temporary file
    return fio_atomic_commit(&af, err);
}
