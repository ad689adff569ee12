#include "font.h"

#include <ft2build.h>
#include FT_FREETYPE_H
#include <hb-ft.h>
#include <hb.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"

// The largest font file read: a collection with Chinese letters is about
// 20 MB (Noto CJK .ttc); a file far larger is no font of ours.
#define FONT_MAX_BYTES ((size_t)256 << 20)
// FreeType reads a glyph in many small pieces: the file is read a block at
// a time into a few blocks kept by their number (a system call per piece
// was 2,400 reads for one export).
#define BLOCK 16384
#define BLOCKS 32
// Glyphs kept, by glyph index and size: their box and, once drawn, their
// coverage. Kept across changes of size: a page draws in a few sizes by turns.
#define GLYPHS 1024
// Normal hinting: what SDL_ttf loads with, and HarfBuzz must measure with
// (its default is no hinting, whose advances differ from the raster's).
#define LOAD_FLAGS (FT_LOAD_DEFAULT | FT_LOAD_TARGET_NORMAL)

// 26.6 fixed point to whole pixels, rounding down and up.
#define FLOOR64(x) ((int)(((x) & -64) / 64))
#define CEIL64(x) FLOOR64((x) + 63)

typedef struct {
    long index;  // which block of the file, or -1
    size_t len;  // bytes held (less at the end of the file)
    unsigned char data[BLOCK];
} Block;

typedef struct {
    unsigned id;             // glyph index + 1; 0: empty
    int px;                  // the size it is of
    int left, top, w, rows;  // its box from the hinted metrics: what a line is measured by
    bool drawn;              // the image below is there
    int img_left, img_top, img_w, img_h;
    unsigned char *img;      // coverage, img_w × img_h
} Glyph;

struct Font {
    int fd;
    unsigned long bytes;
    Block *blocks;
    FT_Library lib;
    FT_StreamRec stream;
    FT_Face face;
    hb_font_t *hb;
    hb_buffer_t *buf;
    int px, ascent, height, line_skip;
    Glyph glyphs[GLYPHS];
};

// The block holding byte `at`, read if it is not held; NULL at the end of
// the file or on a read error (a file cut short since: the glyph is missing).
static const Block *block_at(Font *f, unsigned long at) {
    long index = (long)(at / BLOCK);
    Block *b = &f->blocks[index % BLOCKS];
    if (b->index != index) {
        b->index = -1;
        size_t len = 0;
        while (len < BLOCK) {
            ssize_t r = pread(f->fd, b->data + len, BLOCK - len, (off_t)((size_t)index * BLOCK + len));
            if (r <= 0) break;
            len += (size_t)r;
        }
        b->index = index;
        b->len = len;
    }
    size_t off = at - (unsigned long)index * BLOCK;
    return off < b->len ? b : NULL;
}

// FreeType's stream: count bytes at offset; a count of 0 is a seek (0 = fine).
static unsigned long stream_read(FT_Stream s, unsigned long offset, unsigned char *buffer, unsigned long count) {
    Font *f = s->descriptor.pointer;
    if (count == 0) return offset <= f->bytes ? 0 : 1;
    unsigned long got = 0;
    while (got < count) {
        const Block *b = block_at(f, offset + got);
        if (!b) break;
        size_t off = (offset + got) % BLOCK, take = b->len - off;
        if (take > count - got) take = count - got;
        memcpy(buffer + got, b->data + off, take);
        got += take;
    }
    return got;
}

static void stream_close(FT_Stream s) { (void)s; }  // the file is closed with the Font

static void glyphs_clear(Font *f) {
    for (int i = 0; i < GLYPHS; i++) {
        free(f->glyphs[i].img);
        f->glyphs[i] = (Glyph){0};
    }
}

// A Unicode character map: UCS-4 first, then the 16-bit ones, as SDL_ttf picks.
static void pick_charmap(FT_Face face) {
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < face->num_charmaps; i++) {
            FT_CharMap m = face->charmaps[i];
            bool ucs4 = m->platform_id == 3 && m->encoding_id == 10;
            bool other = (m->platform_id == 3 && m->encoding_id <= 1) || (m->platform_id == 2 && m->encoding_id == 1) ||
                         m->platform_id == 0;
            if (pass == 0 ? ucs4 : other) {
                FT_Set_Charmap(face, m);  // if it fails, the face's default map stays
                return;
            }
        }
}

// FreeType's own words for its errors (FT_Error_String has them only in a
// build that keeps them), from its list of errors, as its manual shows.
#undef FTERRORS_H_
#define FT_ERROR_START_LIST static const struct { int code; const char *why; } ft_errors[] = {
#define FT_ERRORDEF(e, v, s) {v, s},
#define FT_ERROR_END_LIST {0, NULL}};
#include FT_ERRORS_H

static const char *ft_why(FT_Error e, char *buf, size_t size) {
    for (int i = 0; ft_errors[i].why; i++)
        if (ft_errors[i].code == (int)e) return ft_errors[i].why;
    snprintf(buf, size, "FreeType error %d", (int)e);
    return buf;
}

Font *font_new(const char *path, long index, int px, Error *err) {
    Font *f = calloc(1, sizeof *f);
    if (!f || !(f->blocks = malloc(BLOCKS * sizeof *f->blocks))) {
        free(f);
        err_set(err, "out of memory opening the font %s", path);
        return NULL;
    }
    for (int i = 0; i < BLOCKS; i++) f->blocks[i].index = -1;
    // fio_open refuses a FIFO, a device or a folder before opening it. Read,
    // not mapped: a file cut short meanwhile gives missing glyphs, not a fault.
    size_t bytes = 0;
    f->fd = fio_open(path, FONT_MAX_BYTES, &bytes, err);
    f->bytes = (unsigned long)bytes;
    if (f->fd < 0) goto fail;
    if (bytes == 0) {
        err_set(err, "%s: is empty, not a font", path);
        goto fail;
    }
    char why[64];
    FT_Error e = FT_Init_FreeType(&f->lib);
    if (e) {
        err_set(err, "cannot start the font renderer: %s", ft_why(e, why, sizeof why));
        goto fail;
    }
    f->stream.size = f->bytes;
    f->stream.descriptor.pointer = f;
    f->stream.read = stream_read;
    f->stream.close = stream_close;
    FT_Open_Args args = {.flags = FT_OPEN_STREAM, .stream = &f->stream};
    if ((e = FT_Open_Face(f->lib, &args, index, &f->face))) {
        err_set(err, "%s: cannot open the font: %s", path, ft_why(e, why, sizeof why));
        goto fail;
    }
    pick_charmap(f->face);
    f->hb = hb_ft_font_create(f->face, NULL);
    f->buf = hb_buffer_create();
    if (!hb_buffer_allocation_successful(f->buf)) {
        err_set(err, "out of memory opening the font %s", path);
        goto fail;
    }
    hb_ft_font_set_load_flags(f->hb, LOAD_FLAGS);
    if (font_set_px(f, px)) {
        if (!FT_IS_SCALABLE(f->face))
            err_set(err, "%s: cannot open the font: it is a bitmap font of fixed sizes; an outline font (TrueType or OpenType) is needed", path);
        else err_set(err, "%s: cannot open the font: it cannot be set to %d pixels", path, px);
        goto fail;
    }
    return f;
fail:
    font_free(f);
    return NULL;
}

void font_free(Font *f) {
    if (!f) return;
    glyphs_clear(f);
    hb_buffer_destroy(f->buf);
    if (f->hb) hb_font_destroy(f->hb);
    if (f->face) FT_Done_Face(f->face);
    if (f->lib) FT_Done_FreeType(f->lib);
    if (f->fd >= 0) close(f->fd);
    free(f->blocks);
    free(f);
}

int font_set_px(Font *f, int px) {
    if (px == f->px) return 0;
    FT_Face face = f->face;
    if (!FT_IS_SCALABLE(face) || FT_Set_Char_Size(face, 0, (FT_F26Dot6)px * 64, 0, 0)) return -1;
    FT_Fixed scale = face->size->metrics.y_scale;
    f->ascent = CEIL64(FT_MulFix(face->ascender, scale));
    f->height = CEIL64(FT_MulFix(face->ascender - face->descender, scale));
    f->line_skip = CEIL64(FT_MulFix(face->height, scale));
    f->px = px;
    hb_ft_font_changed(f->hb);
    return 0;
}

int font_px(const Font *f) { return f->px; }
int font_ascent(const Font *f) { return f->ascent; }
int font_line_skip(const Font *f) { return f->line_skip; }
bool font_has_char(Font *f, unsigned cp) { return FT_Get_Char_Index(f->face, cp) != 0; }

// Glyph id at the current size, with its image when `image`; NULL when it
// cannot be loaded or drawn (or no memory).
static Glyph *glyph(Font *f, unsigned id, bool image) {
    Glyph *g = &f->glyphs[(id * 31u + (unsigned)f->px * 2654435761u) % GLYPHS];
    bool held = g->id == id + 1 && g->px == f->px;
    if (held && (g->drawn || !image)) return g;
    if (FT_Load_Glyph(f->face, id, LOAD_FLAGS)) return NULL;
    FT_GlyphSlot s = f->face->glyph;
    if (!held) {
        free(g->img);
        if (s->format == FT_GLYPH_FORMAT_BITMAP) {
            *g = (Glyph){.id = id + 1, .px = f->px, .left = s->bitmap_left, .top = s->bitmap_top, .w = (int)s->bitmap.width,
                         .rows = (int)s->bitmap.rows};
        } else {  // an outline has no bitmap yet: its box from the metrics, whole pixels outward
            const FT_Glyph_Metrics *m = &s->metrics;
            int minx = FLOOR64(m->horiBearingX), maxx = CEIL64(m->horiBearingX + m->width), maxy = FLOOR64(m->horiBearingY);
            *g = (Glyph){.id = id + 1, .px = f->px, .left = minx, .top = maxy, .w = maxx - minx, .rows = CEIL64(m->height)};
        }
    }
    if (!image) return g;
    if (s->format != FT_GLYPH_FORMAT_BITMAP && FT_Render_Glyph(s, FT_RENDER_MODE_NORMAL)) return NULL;
    const FT_Bitmap *b = &s->bitmap;
    int w = (int)b->width, h = w ? (int)b->rows : 0;
    unsigned char *img = w && h ? malloc((size_t)w * (size_t)h) : NULL;
    if (w && h && !img) return NULL;
    for (int y = 0; y < h; y++) {
        const unsigned char *src = b->buffer + (ptrdiff_t)y * b->pitch;
        unsigned char *dst = img + (size_t)y * (size_t)w;
        if (b->pixel_mode == FT_PIXEL_MODE_MONO)
            for (int x = 0; x < w; x++) dst[x] = (src[x / 8] >> (7 - x % 8)) & 1 ? 255 : 0;
        else if (b->pixel_mode == FT_PIXEL_MODE_GRAY)
            memcpy(dst, src, (size_t)w);
        else
            memset(dst, 0, (size_t)w);  // a colour or LCD glyph: not in the fonts this program uses
    }
    g->img = img;
    g->img_left = s->bitmap_left;
    g->img_top = s->bitmap_top;
    g->img_w = w;
    g->img_h = h;
    g->drawn = true;
    return g;
}

// A line laid out: HarfBuzz's glyphs and positions (26.6), and the box
// that holds every glyph (the image's size) with where the pen starts in it.
typedef struct {
    unsigned n;
    hb_glyph_info_t *info;
    hb_glyph_position_t *pos;
    int w, h, x0, y0;
} Line;

// images: the glyphs are drawn too, as they are loaded for their boxes (a
// line about to be rendered loads each new glyph once, not twice).
static int lay_out(Font *f, const char *utf8, bool images, Line *l) {
    hb_buffer_clear_contents(f->buf);
    hb_buffer_set_direction(f->buf, HB_DIRECTION_LTR);
    hb_buffer_set_script(f->buf, HB_SCRIPT_UNKNOWN);
    hb_buffer_add_utf8(f->buf, utf8, -1, 0, -1);
    hb_shape(f->hb, f->buf, NULL, 0);
    if (!hb_buffer_allocation_successful(f->buf)) return -1;
    l->info = hb_buffer_get_glyph_infos(f->buf, &l->n);
    l->pos = hb_buffer_get_glyph_positions(f->buf, &l->n);
    int minx = 0, maxx = 0, miny = 0, maxy = f->height, x = 0, y = 0;
    for (unsigned i = 0; i < l->n; i++) {
        const Glyph *g = glyph(f, l->info[i].codepoint, images);
        if (!g) return -1;
        int gx = FLOOR64(x + l->pos[i].x_offset) + g->left, gy = FLOOR64(y + f->ascent * 64 - l->pos[i].y_offset) - g->top;
        x += l->pos[i].x_advance;
        y += l->pos[i].y_advance;
        if (gx < minx) minx = gx;
        if (gx + g->w > maxx) maxx = gx + g->w;
        if (gy < miny) miny = gy;
        if (gy + g->rows > maxy) maxy = gy + g->rows;
    }
    if (FLOOR64(x) > maxx) maxx = FLOOR64(x);  // a line of spaces has its width
    l->w = maxx - minx;
    l->h = maxy - miny;
    l->x0 = -minx;
    l->y0 = -miny;
    return 0;
}

int font_measure(Font *f, const char *utf8, int *w, int *h) {
    Line l;
    if (lay_out(f, utf8, false, &l)) return -1;
    *w = l.w;
    *h = l.h;
    return 0;
}

int font_render(Font *f, const char *utf8, FontImage *out) {
    *out = (FontImage){0};
    Line l;
    if (lay_out(f, utf8, true, &l) || l.w <= 0 || l.h <= 0) return -1;
    unsigned char *a = calloc((size_t)l.w * (size_t)l.h, 1);
    if (!a) return -1;
    int x = 0, y = 0;
    for (unsigned i = 0; i < l.n; i++) {
        const Glyph *g = glyph(f, l.info[i].codepoint, true);
        if (!g) {
            free(a);
            return -1;
        }
        int gx = l.x0 + FLOOR64(x + l.pos[i].x_offset) + g->img_left;
        int gy = l.y0 + FLOOR64(y + f->ascent * 64 - l.pos[i].y_offset) - g->img_top;
        x += l.pos[i].x_advance;
        y += l.pos[i].y_advance;
        // glyphs that touch share pixels: their coverage is or-ed, as SDL_ttf
        // does (which scales by the colour's alpha first: only overlapping
        // glyphs in a translucent colour differ)
        for (int r = 0; r < g->img_h; r++) {
            int ty = gy + r;
            if (ty < 0 || ty >= l.h) continue;
            for (int c = 0; c < g->img_w; c++) {
                int tx = gx + c;
                if (tx >= 0 && tx < l.w) a[(size_t)ty * (size_t)l.w + (size_t)tx] |= g->img[(size_t)r * (size_t)g->img_w + (size_t)c];
            }
        }
    }
    *out = (FontImage){l.w, l.h, a};
    return 0;
}
