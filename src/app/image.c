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
// the fixed Huffman codes holding only runs, found a pixel at a time: zeros
// (copies at distance 1), a pixel's bytes repeating the pixel before
// (distance 3), anything else literals; the checksum is worked out along
// the way, a run at once. For a 1200 × 800 heatmap that is 13 million
// instructions where libpng with zlib at its fastest level took 100 million,
// for a file about twice as large (170 KB against 88 KB); the PNG was two
// thirds of an export's instructions (docs/PERFORMANCE.md).

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

// Adler-32 (RFC 1950) of the bytes deflated, its two sums reduced once a
// row: a row of up to 2^16 pixels keeps them far below 2^64.
#define ADLER_MOD 65521u

typedef struct {
    uint64_t a, b;
} Adler;

static void adler_byte(Adler *s, unsigned v) {
    s->a += v;
    s->b += s->a;
}

// A pixel's red, green and blue minus those of the pixel above (0 above the
// first row), modulo 256, as the word 0x00RRGGBB: the Up filter, the three
// channels at once (bytewise subtraction with no borrow between bytes).
static uint32_t up(uint32_t p, uint32_t above) {
    return (((p | 0x80808080u) - (above & 0x7F7F7F7Fu)) ^ ((p ^ ~above) & 0x80808080u)) & 0xFFFFFFu;
}

// n bytes (3 or more) that repeat those dist bytes before them (1 or 3),
// as copies of at most 258 bytes that never leave fewer than 3 over.
static void copies(Writer *w, const Codes *c, long n, int dist) {
    uint32_t code = dist == 1 ? 0 : 0x08;  // distance codes 0 and 2 (5 bits, reversed)
    while (n > 0) {
        int len = n <= 258 ? (int)n : n - 258 >= 3 ? 258 : 255;
        put_bits(w, c->len[len] | code << c->len_n[len], c->len_n[len] + 5);
        n -= len;
    }
}

// How many pixels from x on have the colours of those above them: two at a
// time, then one.
static int same_run(const uint32_t *p, const uint32_t *above, int x, int width) {
    int k = 0;
    for (uint64_t a, b; x + k + 2 <= width; k += 2) {
        memcpy(&a, p + x + k, 8);
        memcpy(&b, above + x + k, 8);
        if ((a ^ b) & 0x00FFFFFF00FFFFFFull) break;  // each pixel's colours are its low 24 bits
    }
    while (x + k < width && ((p[x + k] ^ above[x + k]) & 0xFFFFFFu) == 0) k++;
    return k;
}

// One row, filtered and deflated a pixel at a time, and added to the
// checksum: a run of pixels like those above is a run of zero bytes (copies
// at distance 1), a run of pixels that differ from those above as the pixel
// before does is copies at distance 3, anything else three literals. Above
// the first row is a row of zeros.
static void deflate_row(Writer *w, const Codes *c, const uint32_t *p, const uint32_t *above, int width, Adler *ad) {
    put_bits(w, c->lit[2], c->lit_n[2]);  // the filter type, Up; the row's first copy can reach no further back
    adler_byte(ad, 2);
    bool zero_before = false, pixel_before = false;
    uint32_t d_before = 0;
    for (int x = 0; x < width;) {
        uint32_t d = ((p[x] ^ above[x]) & 0xFFFFFFu) ? up(p[x], above[x]) : 0;
        int k = 1;
        if (pixel_before && d == d_before && d) {  // as the pixel before: a copy at distance 3
            while (x + k < width && up(p[x + k], above[x + k]) == d) k++;
            copies(w, c, 3L * k, 3);
            uint64_t r = d >> 16, g = (d >> 8) & 255, b = d & 255, sum = r + g + b;
            ad->b += 3 * ((uint64_t)k * ad->a + sum * (uint64_t)k * (uint64_t)(k - 1) / 2) + (uint64_t)k * (3 * r + 2 * g + b);
            ad->a += (uint64_t)k * sum;
        } else if (d == 0) {  // like the pixels above: zeros
            k = same_run(p, above, x, width);
            long n = 3L * k;
            if (!zero_before) {  // the first zero itself, then copies of it
                put_bits(w, c->lit[0], c->lit_n[0]);
                n--;
            }
            if (n >= 3) copies(w, c, n, 1);
            else
                while (n-- > 0) put_bits(w, c->lit[0], c->lit_n[0]);
            ad->b += ad->a * 3u * (uint64_t)k;
        } else {
            unsigned v[3] = {d >> 16, (d >> 8) & 255, d & 255};
            put_bits(w, c->lit[v[0]] | c->lit[v[1]] << c->lit_n[v[0]], c->lit_n[v[0]] + c->lit_n[v[1]]);
            put_bits(w, c->lit[v[2]], c->lit_n[v[2]]);
            for (int i = 0; i < 3; i++) adler_byte(ad, v[i]);
        }
        zero_before = (d & 255) == 0;
        pixel_before = true;
        d_before = d;
        x += k;
    }
    ad->a %= ADLER_MOD;
    ad->b %= ADLER_MOD;
}

int img_save_png(const char *path, const GfxPixels *s, Error *err) {
    AtomicFile af;
    if (fio_atomic_open(&af, path, err)) return -1;
    Writer *w = malloc(sizeof *w);
    Codes *c = malloc(sizeof *c);
    uint32_t *zeros = calloc((size_t)s->w, sizeof *zeros);  // above the first row
    if (!w || !c || !zeros) {
        free(w), free(c), free(zeros);
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
    Adler ad = {1, 0};
    for (int y = 0; y < s->h; y++) {
        const uint32_t *p = (const uint32_t *)((const unsigned char *)s->pixels + (size_t)y * (size_t)s->pitch);
        deflate_row(w, c, p, y ? (const uint32_t *)((const unsigned char *)p - s->pitch) : zeros, s->w, &ad);
    }
    put_bits(w, 0, 7);  // end of block (symbol 256)
    if (w->nbits) put_bits(w, 0, 8 - w->nbits);
    unsigned char tail[4];
    put32(tail, (uint32_t)(ad.b << 16 | ad.a));
    for (int i = 0; i < 4; i++) put_bits(w, tail[i], 8);
    flush_idat(w);
    chunk(w, "IEND", NULL, 0);
    bool failed = w->failed;
    free(w), free(c), free(zeros);
    if (failed && !ferror(af.fp)) {
        fio_atomic_abort(&af);
        return err_set(err, "%s: writing the PNG failed", path);
    }
    // a write that failed (a full disk): the commit says why and removes the temporary file
    return fio_atomic_commit(&af, err);
}
