#include "image.h"

#include <libdeflate.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"

// The PNG is written here, not through libpng: an export's canvas is about
// 3 MB of pixels, and libpng with zlib's fastest level spent 100 of the 160
// million instructions of a whole `export` on it. libdeflate compresses the
// same rows in about a third of that, and a PNG of one image is three chunks.

static void put32(uint8_t *p, uint32_t v) {  // PNG numbers are big-endian
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

// A chunk: its length, type, data and the CRC-32 of type and data.
static void write_chunk(FILE *fp, const char type[4], const uint8_t *data, size_t n) {
    uint8_t head[8], crc[4];
    put32(head, (uint32_t)n);
    memcpy(head + 4, type, 4);
    uint32_t c = libdeflate_crc32(0, head + 4, 4);
    put32(crc, n ? libdeflate_crc32(c, data, n) : c);  // (a NULL buffer would ask for the initial value)
    fwrite(head, 1, sizeof head, fp);
    if (n) fwrite(data, 1, n, fp);
    fwrite(crc, 1, sizeof crc, fp);
}

// The rows as PNG filter type 2 (Up): each byte minus the one above it. A
// heatmap's cells repeat their rows, which become runs of zeros that deflate
// to almost nothing. A pixel's three differences are taken at once, byte by
// byte without borrows, and stored as four bytes whose last the next pixel
// overwrites (out has one byte to spare at its end).
static void filter_rows(uint8_t *out, const SDL_Surface *s) {
    const uint32_t high = 0x80808080u;
    size_t stride = (size_t)s->w * 3 + 1;
    for (int y = 0; y < s->h; y++) {
        const Uint32 *p = (const Uint32 *)((const Uint8 *)s->pixels + (size_t)y * s->pitch);
        const Uint32 *up = y ? (const Uint32 *)((const Uint8 *)p - s->pitch) : NULL;
        uint8_t *o = out + (size_t)y * stride;
        *o++ = 2;
        for (int x = 0; x < s->w; x++) {
            uint32_t a = p[x], b = up ? up[x] : 0;
            uint32_t d = ((a | high) - (b & ~high)) ^ ((a ^ ~b) & high);  // 0xAARRGGBB, each byte a - b
            uint32_t rgb = __builtin_bswap32(d << 8);                    // R, G, B, 0 in memory order (little-endian)
            memcpy(o + 3 * x, &rgb, 4);
        }
    }
}

int img_save_png(const char *path, SDL_Surface *s, Error *err) {
    size_t raw_len = ((size_t)s->w * 3 + 1) * (size_t)s->h;
    struct libdeflate_compressor *z = libdeflate_alloc_compressor(1);  // the fastest level
    size_t cap = z ? libdeflate_zlib_compress_bound(z, raw_len) : 0;
    uint8_t *raw = malloc(raw_len + 1), *packed = z ? malloc(cap) : NULL;
    if (!z || !raw || !packed) {
        free(raw);
        free(packed);
        if (z) libdeflate_free_compressor(z);
        return err_set(err, "%s: out of memory writing the PNG", path);
    }
    SDL_LockSurface(s);
    filter_rows(raw, s);
    SDL_UnlockSurface(s);
    size_t packed_len = libdeflate_zlib_compress(z, raw, raw_len, packed, cap);
    libdeflate_free_compressor(z);
    free(raw);
    if (!packed_len) {  // cannot happen with the bound's room; said rather than written broken
        free(packed);
        return err_set(err, "%s: compressing the PNG failed", path);
    }
    AtomicFile af;
    if (fio_atomic_open(&af, path, err)) {
        free(packed);
        return -1;
    }
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    uint8_t ihdr[13] = {0};
    put32(ihdr, (uint32_t)s->w);
    put32(ihdr + 4, (uint32_t)s->h);
    ihdr[8] = 8;  // bits per channel
    ihdr[9] = 2;  // RGB; compression, filter method and interlace stay 0
    fwrite(signature, 1, sizeof signature, af.fp);
    write_chunk(af.fp, "IHDR", ihdr, sizeof ihdr);
    for (size_t at = 0; at < packed_len; at += 1u << 24)  // chunks of 16 MiB, well under PNG's limit
        write_chunk(af.fp, "IDAT", packed + at, packed_len - at < (1u << 24) ? packed_len - at : 1u << 24);
    write_chunk(af.fp, "IEND", NULL, 0);
    free(packed);
    return fio_atomic_commit(&af, err);  // a failed write (a full disk) is reported here
}
