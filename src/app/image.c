#include "image.h"

#include <png.h>
#include <stdlib.h>
#include <zlib.h>

#include "fileio.h"

// libpng's errors come back by longjmp without being printed: the caller
// says what failed, in one line.
static void png_quiet_error(png_structp png, png_const_charp msg) {
    (void)msg;
    png_longjmp(png, 1);
}

static void png_quiet_warning(png_structp png, png_const_charp msg) {
    (void)png;
    (void)msg;
}

int img_save_png(const char *path, const GfxPixels *s, Error *err) {
    AtomicFile af;
    if (fio_atomic_open(&af, path, err)) return -1;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, png_quiet_error, png_quiet_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    png_bytep row = malloc((size_t)s->w * 3);
    if (!png || !info || !row) {
        png_destroy_write_struct(&png, &info);
        free(row);
        fio_atomic_abort(&af);
        return err_set(err, "%s: out of memory writing the PNG", path);
    }
    if (setjmp(png_jmpbuf(png))) {  // libpng reports its errors by longjmp
        png_destroy_write_struct(&png, &info);
        free(row);
        // a write that failed (a full disk): the commit says why and removes the temporary file
        if (ferror(af.fp)) return fio_atomic_commit(&af, err) ? -1 : err_set(err, "%s: writing the PNG failed", path);
        fio_atomic_abort(&af);
        return err_set(err, "%s: writing the PNG failed", path);
    }
    png_init_io(png, af.fp);
    png_set_IHDR(png, info, (png_uint_32)s->w, (png_uint_32)s->h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    // The Up filter makes a heatmap's repeated rows zeros, and zlib's fast
    // level then compresses them 4× faster than level 6 with no filter, for
    // a file about 20% larger: deflate was half of an export's time.
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_UP);
    png_set_compression_strategy(png, Z_DEFAULT_STRATEGY);
    png_set_compression_level(png, 1);
    png_write_info(png, info);
    for (int y = 0; y < s->h; y++) {
        const uint32_t *p = (const uint32_t *)((const unsigned char *)s->pixels + (size_t)y * (size_t)s->pitch);
        for (int x = 0; x < s->w; x++) {
            row[3 * x] = (png_byte)(p[x] >> 16);
            row[3 * x + 1] = (png_byte)(p[x] >> 8);
            row[3 * x + 2] = (png_byte)p[x];
        }
        png_write_row(png, row);
    }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(row);
    return fio_atomic_commit(&af, err);
}
