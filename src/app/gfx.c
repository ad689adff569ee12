#include "gfx.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "font.h"
#include "gfx_private.h"
#include "pages.h"

#define TEXT_CACHE 2048
// The longest text drawn or measured whole, in bytes: the text box's 16 KB.
#define TEXT_BYTES 16384
// A long sentence at a large zoom renders to tens of MB: the cache keeps at
// most this many bytes of rendered text, so memory stays flat while typing.
#define TEXT_CACHE_BYTES ((size_t)64 << 20)

// A line of text drawn at a size, in any colour: its coverage.
typedef struct {
    char *text;
    int px;
    FontImage img;
} TextEntry;

// Text widths asked for while laying out, by text and size: measuring
// shapes the text again every time.
#define WIDTH_CACHE 1024
typedef struct {
    char *text;
    int px;
    int w;
} WidthEntry;

struct Gfx {
    GfxPixels canvas;       // what is drawn on
    void *own;              // the canvas's own pixels (pg_alloc), or NULL when the caller's (gfx_use_pixels)
    size_t own_bytes;
    float scale;
    Font *font;             // one object for every size, resized (font_for)
    TextEntry cache[TEXT_CACHE];
    WidthEntry widths[WIDTH_CACHE];
    size_t cache_bytes;         // bytes held by the cache's images
    SDL_Rect clip;
    GfxTextMark *marks;     // gfx_record_text: where text went, for layout tests
    int marks_max, *marks_n;
    bool mark_cut, mark_sub, mark_turned;  // what the text being drawn is (set by the caller of gfx_text)
    bool whole_text;        // gfx_clip_whole_text
    int mark_h;             // > 0: the text takes only this height of its line (upright Chinese)
};

SDL_Rect gfx_get_clip(const Gfx *g) { return g->clip; }

void gfx_clip_whole_text(Gfx *g, bool whole) { g->whole_text = whole; }

void gfx_record_text(Gfx *g, GfxTextMark *marks, int max, int *n) {
    g->marks = marks;
    g->marks_max = max;
    g->marks_n = n;
    if (n) *n = 0;
}

static void mark_text(Gfx *g, SDL_Rect r, int px, const char *text) {
    if (!g->marks || *g->marks_n >= g->marks_max) return;
    if (g->mark_h > 0 && g->mark_h < r.h) {
        r.y += (r.h - g->mark_h) / 2;
        r.h = g->mark_h;
    }
    SDL_Rect canvas = {0, 0, g->canvas.w, g->canvas.h}, in_clip, in_canvas;
    bool clipped = !gfx_intersect(&r, &g->clip, &in_clip) || !SDL_RectEquals(&in_clip, &r) ||
                   !gfx_intersect(&r, &canvas, &in_canvas) || !SDL_RectEquals(&in_canvas, &r);
    GfxTextMark *m = &g->marks[(*g->marks_n)++];
    *m = (GfxTextMark){r, px, g->mark_cut, clipped, g->mark_sub, g->mark_turned, ""};
    size_t len = strlen(text), n = len < sizeof m->text ? len : sizeof m->text - 1;
    while (n > 0 && n < len && ((unsigned char)text[n] & 0xC0) == 0x80) n--;  // whole characters
    memcpy(m->text, text, n);
    m->text[n] = 0;
}

// Noto Sans CJK TC: Latin and both Chinese scripts in one face (index 3 of the collection).
static const struct {
    const char *path;
} font_paths[] = {
    {"/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"},
    {"/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc"},
    {"/usr/share/fonts/google-noto-cjk/NotoSansCJK-Regular.ttc"},
    {"/usr/share/fonts/opentype/noto/NotoSansCJKtc-Regular.otf"},
};

const char *gfx_find_font(Error *err) {
    const char *env = getenv("TRANSFORMER_TRACER_FONT");
    if (env) {
        if (access(env, R_OK) == 0) return env;
        err_set(err, "TRANSFORMER_TRACER_FONT names %s, which cannot be read", env);
        return NULL;
    }
    for (size_t i = 0; i < sizeof font_paths / sizeof *font_paths; i++)
        if (access(font_paths[i].path, R_OK) == 0) return font_paths[i].path;
    err_set(err, "no font with Latin and Chinese letters found; install the package fonts-noto-cjk "
                 "(sudo apt-get install fonts-noto-cjk) or set TRANSFORMER_TRACER_FONT to a .ttf/.ttc/.otf file");
    return NULL;
}

Gfx *gfx_new(int w, int h, const char *font_path, Error *err) {
    Gfx *g = calloc(1, sizeof *g);
    if (!g) {
        err_set(err, "out of memory for a %d×%d canvas", w, h);
        return NULL;
    }
    g->scale = 1.0f;
    // one size opened now, so that a broken font file is reported at start;
    // Noto Sans CJK TC is face 3 of the collection
    Error ferr;
    g->font = font_new(font_path, strstr(font_path, ".ttc") ? 3 : 0, 16, &ferr);
    if (!g->font) {
        const char *env = getenv("TRANSFORMER_TRACER_FONT");
        if (env && strcmp(env, font_path) == 0) err_set(err, "TRANSFORMER_TRACER_FONT names %s", ferr.msg);
        else err_set(err, "%s", ferr.msg);
        gfx_free(g);
        return NULL;
    }
    if (gfx_resize(g, w, h)) {
        err_set(err, "out of memory for a %d×%d canvas", w, h);
        gfx_free(g);
        return NULL;
    }
    return g;
}

static void cache_clear(Gfx *g) {
    for (int i = 0; i < TEXT_CACHE; i++) {
        free(g->cache[i].text);
        free(g->cache[i].img.alpha);
        memset(&g->cache[i], 0, sizeof g->cache[i]);
    }
    g->cache_bytes = 0;
}

static void widths_clear(Gfx *g) {
    for (int i = 0; i < WIDTH_CACHE; i++) free(g->widths[i].text);
    memset(g->widths, 0, sizeof g->widths);
}

static size_t image_bytes(const FontImage *im) { return (size_t)im->w * (size_t)im->h; }

// Lets go of the pixels drawn on: freed when they are the canvas's own.
static void drop_pixels(Gfx *g) {
    pg_free(g->own, g->own_bytes);
    g->own = NULL;
    g->own_bytes = 0;
    g->canvas = (GfxPixels){0};
}

void gfx_free(Gfx *g) {
    if (!g) return;
    cache_clear(g);
    widths_clear(g);
    font_free(g->font);
    drop_pixels(g);
    free(g);
}

int gfx_resize(Gfx *g, int w, int h) {
    if (w < 1) w = 1;
    if (h < 1) h = 1;
    // pg_alloc: a canvas is cleared whole at once, and page by page a
    // 1080p canvas's first-touch faults alone took ~20 ms (docs/PERFORMANCE.md)
    size_t bytes = (size_t)w * (size_t)h * 4;
    void *pixels = pg_alloc(bytes);
    if (!pixels) return -1;
    drop_pixels(g);
    g->own = pixels;
    g->own_bytes = bytes;
    g->canvas = (GfxPixels){pixels, w, h, w * 4};
    gfx_clip(g, NULL);
    return 0;
}

int gfx_use_pixels(Gfx *g, void *pixels, int w, int h, int pitch) {
    if (!pixels || w < 1 || h < 1 || pitch < w * 4) return -1;
    drop_pixels(g);
    g->canvas = (GfxPixels){pixels, w, h, pitch};
    gfx_clip(g, NULL);
    return 0;
}

const GfxPixels *gfx_pixels(const Gfx *g) { return &g->canvas; }
int gfx_width(const Gfx *g) { return g->canvas.w; }
int gfx_height(const Gfx *g) { return g->canvas.h; }
float gfx_scale(const Gfx *g) { return g->scale; }
int gfx_px(const Gfx *g, float design_px) { return (int)lroundf(design_px * g->scale); }

void gfx_set_scale(Gfx *g, float scale) {
    if (scale < 0.5f) scale = 0.5f;
    if (scale > 4.0f) scale = 4.0f;
    g->scale = scale;
}

void gfx_clip(Gfx *g, const SDL_Rect *r) {
    SDL_Rect all = {0, 0, g->canvas.w, g->canvas.h};
    if (!r || !gfx_intersect(r, &all, &g->clip)) g->clip = r ? (SDL_Rect){0, 0, 0, 0} : all;
}

// As SDL_IntersectRect: false, and an empty result, when they do not meet.
bool gfx_intersect(const SDL_Rect *a, const SDL_Rect *b, SDL_Rect *out) {
    if (a->w <= 0 || a->h <= 0 || b->w <= 0 || b->h <= 0) {
        out->w = out->h = 0;
        return false;
    }
    int x0 = SDL_max(a->x, b->x), y0 = SDL_max(a->y, b->y);
    int x1 = SDL_min(a->x + a->w, b->x + b->w), y1 = SDL_min(a->y + a->h, b->y + b->h);
    *out = (SDL_Rect){x0, y0, x1 - x0, y1 - y0};
    return out->w > 0 && out->h > 0;
}

// As SDL_UnionRect: the smallest rectangle holding both (an empty one adds nothing).
SDL_Rect gfx_union(SDL_Rect a, SDL_Rect b) {
    bool a_empty = a.w <= 0 || a.h <= 0, b_empty = b.w <= 0 || b.h <= 0;
    if (a_empty) return b_empty ? (SDL_Rect){0, 0, 0, 0} : b;
    if (b_empty) return a;
    int x0 = SDL_min(a.x, b.x), y0 = SDL_min(a.y, b.y);
    int x1 = SDL_max(a.x + a.w, b.x + b.w), y1 = SDL_max(a.y + a.h, b.y + b.h);
    return (SDL_Rect){x0, y0, x1 - x0, y1 - y0};
}

// The whole drawing area (the clip rectangle), opaque.
void gfx_clear(Gfx *g, Color c) { gfx_fill(g, g->clip, c | 0xFF000000u); }

// Blends colour c with coverage a (0..1) into one pixel.
static inline void blend(Uint32 *p, Color c, float a) {
    float ca = (float)(c >> 24) / 255.0f * a;
    if (ca <= 0.0f) return;
    Uint32 d = *p;
    int r = (int)((float)((c >> 16) & 255) * ca + (float)((d >> 16) & 255) * (1.0f - ca) + 0.5f);
    int gr = (int)((float)((c >> 8) & 255) * ca + (float)((d >> 8) & 255) * (1.0f - ca) + 0.5f);
    int b = (int)((float)(c & 255) * ca + (float)(d & 255) * (1.0f - ca) + 0.5f);
    *p = 0xFF000000u | (Uint32)r << 16 | (Uint32)gr << 8 | (Uint32)b;
}

static Uint32 *pixel(Gfx *g, int x, int y) { return (Uint32 *)((Uint8 *)g->canvas.pixels + (size_t)y * (size_t)g->canvas.pitch) + x; }

void gfx_fill(Gfx *g, SDL_Rect r, Color c) {
    SDL_Rect v;
    if (!gfx_intersect(&r, &g->clip, &v)) return;
    if ((c >> 24) == 0xFF) {
        // Plain stores, not SDL_FillRect: its streaming (non-temporal) stores
        // followed by ordinary ones for each row's tail made a heatmap of
        // narrow cells take 13 ms instead of 2 (bench_app, src.embed).
        // The first row by stores, the others copied from it: memcpy's wide
        // moves halve the time of a 4K frame's large cells (bench_app).
        Uint32 *first = pixel(g, v.x, v.y);
        for (int x = 0; x < v.w; x++) first[x] = c;
        if (v.w < 48) {  // narrow (a cell, a frame's side): stores, no call per row
            for (int y = v.y + 1; y < v.y + v.h; y++) {
                Uint32 *row = pixel(g, v.x, y);
                for (int x = 0; x < v.w; x++) row[x] = c;
            }
            return;
        }
        for (int y = v.y + 1; y < v.y + v.h; y++) memcpy(pixel(g, v.x, y), first, (size_t)v.w * sizeof *first);
        return;
    }
    // translucent (a KV cache's washed rows, the help's veil): in integers,
    // red and blue at once, the colour's share A of 256; a 4K frame of the
    // KV cache view blends about 2 million pixels
    Uint32 A = (Uint32)lroundf((float)(c >> 24) * 256.0f / 255.0f), B = 256 - A;
    Uint32 crb = (c & 0xFF00FFu) * A + 0x800080u, cg = (c & 0x00FF00u) * A + 0x008000u;
    for (int y = v.y; y < v.y + v.h; y++) {
        Uint32 *row = pixel(g, v.x, y);
        for (int x = 0; x < v.w; x++) {
            Uint32 d = row[x];
            row[x] = 0xFF000000u | ((((d & 0xFF00FFu) * B + crb) >> 8) & 0xFF00FFu) | ((((d & 0x00FF00u) * B + cg) >> 8) & 0x00FF00u);
        }
    }
}

void gfx_frame(Gfx *g, SDL_Rect r, int t, Color c) {
    if (t < 1) t = 1;
    gfx_fill(g, (SDL_Rect){r.x, r.y, r.w, t}, c);
    gfx_fill(g, (SDL_Rect){r.x, r.y + r.h - t, r.w, t}, c);
    gfx_fill(g, (SDL_Rect){r.x, r.y + t, t, r.h - 2 * t}, c);
    gfx_fill(g, (SDL_Rect){r.x + r.w - t, r.y + t, t, r.h - 2 * t}, c);
}

void gfx_hatch(Gfx *g, SDL_Rect r, int spacing, Color c) {
    SDL_Rect v;
    if (spacing < 2 || !gfx_intersect(&r, &g->clip, &v)) return;
    for (int y = v.y; y < v.y + v.h; y++)
        for (int x = v.x; x < v.x + v.w; x++)
            if ((x + y) % spacing == 0) blend(pixel(g, x, y), c, 1.0f);
}

void gfx_line(Gfx *g, float x0, float y0, float x1, float y1, float width, Color c) {
    float half = width / 2.0f;
    int bx0 = (int)floorf(fminf(x0, x1) - half - 1), bx1 = (int)ceilf(fmaxf(x0, x1) + half + 1);
    int by0 = (int)floorf(fminf(y0, y1) - half - 1), by1 = (int)ceilf(fmaxf(y0, y1) + half + 1);
    if (bx0 < g->clip.x) bx0 = g->clip.x;
    if (by0 < g->clip.y) by0 = g->clip.y;
    if (bx1 > g->clip.x + g->clip.w) bx1 = g->clip.x + g->clip.w;
    if (by1 > g->clip.y + g->clip.h) by1 = g->clip.y + g->clip.h;
    float dx = x1 - x0, dy = y1 - y0, len2 = dx * dx + dy * dy;
    for (int y = by0; y < by1; y++)
        for (int x = bx0; x < bx1; x++) {
            // coverage from the distance of the pixel centre to the segment
            float px = (float)x + 0.5f - x0, py = (float)y + 0.5f - y0;
            float t = len2 > 0.0f ? (px * dx + py * dy) / len2 : 0.0f;
            t = t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t;
            float ex = px - t * dx, ey = py - t * dy, d = sqrtf(ex * ex + ey * ey);
            float cover = half + 0.5f - d;
            if (cover > 0.0f) blend(pixel(g, x, y), c, cover > 1.0f ? 1.0f : cover);
        }
}

// One font object for every size, resized as needed: opening the CJK
// collection again costs about 6 ms and 600 page faults a size, where a
// resize costs microseconds. Rendered text and widths are cached by size.
static Font *font_for(Gfx *g, int px) {
    font_set_px(g->font, px < 4 ? 4 : px);  // on failure the size stays
    return g->font;
}

// There is no fallback between fonts: characters the font lacks are spelt
// another way (Kᵀ → K^T, W₁ → W1) or shown as "?", never as empty boxes.
static const char *displayable(Gfx *g, const char *in, char *buf, size_t size) {
    bool plain = true;
    for (const char *p = in; *p && plain; p++) plain = (unsigned char)*p < 0x80;
    if (plain) return in;
    Font *f = g->font;
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)in; *p && o + 8 < size;) {
        int len = *p < 0x80 ? 1 : (*p & 0xE0) == 0xC0 ? 2 : (*p & 0xF0) == 0xE0 ? 3 : 4;
        Uint32 cp = len == 1 ? *p : len == 2 ? *p & 0x1Fu : len == 3 ? *p & 0x0Fu : *p & 0x07u;
        bool broken = (*p & 0xC0) == 0x80 || *p >= 0xF8;
        for (int k = 1; k < len && !broken; k++) {
            broken = (p[k] & 0xC0) != 0x80;
            cp = (cp << 6) | (p[k] & 0x3Fu);
        }
        if (broken) {  // invalid UTF-8: a "?" for the byte, and the rest of the text after it
            buf[o++] = '?';
            p++;
            continue;
        }
        if (len == 1 || font_has_char(f, cp)) {
            memcpy(buf + o, p, (size_t)len);
            o += (size_t)len;
        } else if (cp == 0x1D40) {
            memcpy(buf + o, "^T", 2);
            o += 2;
        } else if (cp >= 0x2080 && cp <= 0x2089) {
            buf[o++] = (char)('0' + (cp - 0x2080));
        } else {
            buf[o++] = '?';
        }
        p += len;
    }
    buf[o] = '\0';
    return buf;
}

// FNV-1a of text, size and colour: the slot of a cache entry.
static Uint32 text_hash(const char *text, int px, Color c) {
    Uint32 h = 2166136261u;
    for (const char *s = text; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    h = (h ^ (Uint32)px) * 16777619u;
    return (h ^ c) * 16777619u;
}

// text drawn at px: its coverage, from the cache or rendered; NULL if none.
static const FontImage *render_text(Gfx *g, const char *text, int px) {
    TextEntry *e = &g->cache[text_hash(text, px, 0) % TEXT_CACHE];
    if (e->text && e->px == px && !strcmp(e->text, text)) return &e->img;
    g->cache_bytes -= image_bytes(&e->img);
    free(e->text);
    free(e->img.alpha);
    *e = (TextEntry){0};
    char buf[TEXT_BYTES];
    FontImage im;
    if (font_render(font_for(g, px), displayable(g, text, buf, sizeof buf), &im)) return NULL;
    if (g->cache_bytes + image_bytes(&im) > TEXT_CACHE_BYTES) cache_clear(g);  // e is empty: nothing the caller holds
    if (!(e->text = strdup(text))) {
        free(im.alpha);
        return NULL;
    }
    e->px = px;
    e->img = im;
    g->cache_bytes += image_bytes(&im);
    return &e->img;
}

// Coverage a of colour c as drawn: c's alpha times a (0 counts as opaque, as in SDL_ttf).
static inline unsigned text_alpha(unsigned a, Color c) {
    unsigned ca = c >> 24;
    if (ca == 0 || ca == 255) return a;
    unsigned t = ca * a;
    return (t + 1 + (t >> 8)) >> 8;  // t / 255, rounded
}

// Blends im in colour c with its top left at (x, y), inside the clip.
static void blit_text(Gfx *g, const FontImage *im, int x, int y, Color c) {
    SDL_Rect v, r = {x, y, im->w, im->h};
    if (!gfx_intersect(&r, &g->clip, &v)) return;
    Uint32 solid = c | 0xFF000000u;
    for (int py = v.y; py < v.y + v.h; py++) {
        const unsigned char *src = im->alpha + (size_t)(py - y) * (size_t)im->w + (v.x - x);
        Uint32 *dst = pixel(g, v.x, py);
        for (int px = 0; px < v.w; px++) {
            unsigned a = text_alpha(src[px], c);
            if (a == 0) continue;
            if (a == 255) {
                dst[px] = solid;
                continue;
            }
            // each channel (s·a + d·(256 − a)) / 256, rounded down, which is
            // d + (s − d)·a/256, within 2 levels of SDL's blit of a text
            // surface; red and blue at once (no lane exceeds 16 bits), then green
            Uint32 d = dst[px], na = 256 - a;
            Uint32 rb = (((c & 0xFF00FFu) * a + (d & 0xFF00FFu) * na) >> 8) & 0xFF00FFu;
            Uint32 gr = (((c & 0x00FF00u) * a + (d & 0x00FF00u) * na) >> 8) & 0x00FF00u;
            dst[px] = 0xFF000000u | rb | gr;
        }
    }
}

int gfx_text_width(Gfx *g, const char *utf8, int px) {
    if (!*utf8) return 0;
    WidthEntry *e = &g->widths[text_hash(utf8, px, 0) % WIDTH_CACHE];
    if (e->text && e->px == px && !strcmp(e->text, utf8)) return e->w;
    int w = 0, h = 0;
    char buf[TEXT_BYTES];
    if (font_measure(font_for(g, px), displayable(g, utf8, buf, sizeof buf), &w, &h)) w = 0;
    free(e->text);
    *e = (WidthEntry){strdup(utf8), px, w};  // a failed strdup only misses the cache
    return w;
}

int gfx_line_height(Gfx *g, int px) { return font_line_skip(font_for(g, px)); }

int gfx_text(Gfx *g, int x, int y, const char *utf8, int px, Color c, int align) {
    if (!utf8 || !*utf8) return 0;
    const FontImage *im = render_text(g, utf8, px);
    if (!im) return 0;
    SDL_Rect dst = {align == GFX_CENTER ? x - im->w / 2 : align == GFX_RIGHT ? x - im->w : x, y, im->w, im->h}, in;
    if (g->whole_text && (!gfx_intersect(&dst, &g->clip, &in) || !SDL_RectEquals(&in, &dst))) return im->w;
    if (g->marks) mark_text(g, dst, px, utf8);
    blit_text(g, im, dst.x, dst.y, c);
    return im->w;
}

// utf8, or as much of it as fits in w with "…" (in buf); NULL if nothing fits.
static const char *fitted(Gfx *g, const char *utf8, int px, int w, char *buf, size_t size) {
    if (gfx_text_width(g, utf8, px) <= w) return utf8;
    // cut at a character boundary until the text and "…" fit
    size_t n = strlen(utf8);
    if (n > size - 4) n = size - 4;
    while (n > 0) {
        do n--;
        while (n > 0 && ((unsigned char)utf8[n] & 0xC0) == 0x80);
        memcpy(buf, utf8, n);
        memcpy(buf + n, "\xE2\x80\xA6", 4);
        if (gfx_text_width(g, buf, px) <= w) return buf;
    }
    return NULL;
}

int gfx_text_fit(Gfx *g, int x, int y, int w, const char *utf8, int px, Color c, int align) {
    char buf[256];
    const char *text = fitted(g, utf8, px, w, buf, sizeof buf);
    g->mark_cut = text != utf8;
    int drawn = text ? gfx_text(g, x, y, text, px, c, align) : 0;
    g->mark_cut = false;
    return drawn;
}

// ---- formulas ----------------------------------------------------------------

typedef struct {
    char text[96];
    int px;
    int rise;  // baseline above the formula's, in pixels
} MathRun;

typedef struct {
    MathRun run[64];
    int n;
    bool overflow;  // more runs than fit: the caller writes the text plainly
} MathRuns;

static void math_put(MathRuns *m, const char *text, size_t len, int px, int rise) {
    MathRun *r = m->n ? &m->run[m->n - 1] : NULL;
    size_t have = r ? strlen(r->text) : 0;
    if (!r || r->px != px || r->rise != rise || have + len >= sizeof r->text) {
        if (m->n == (int)(sizeof m->run / sizeof *m->run)) {
            m->overflow = true;
            return;
        }
        r = &m->run[m->n++];
        *r = (MathRun){.px = px, .rise = rise};
        have = 0;
    }
    memcpy(r->text + have, text, len);
    r->text[have + len] = '\0';
}

static bool sub_char(const char *p) {
    return (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
           (*p == ',' && ((p[1] >= 'a' && p[1] <= 'z') || (p[1] >= 'A' && p[1] <= 'Z')));
}

static bool name_char(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

// Whether the "_" at f[at] belongs to a name rather than a formula: a name
// after a "." (a stage id, dec.look_ahead_mask) or with more than one "_"
// (a_b_c). Such a name is written as it is.
static bool plain_name(const char *f, size_t len, size_t at) {
    size_t a = at, b = at + 1;
    while (a > 0 && name_char(f[a - 1])) a--;
    while (b < len && name_char(f[b])) b++;
    if (a > 0 && f[a - 1] == '.') return true;
    int underscores = 0;
    for (size_t k = a; k < b; k++) underscores += f[k] == '_';
    return underscores > 1;
}

// The length of a number at f (a minus sign, "-" or "−", then digits and
// points), not ending in a point; 0 if there is none.
static size_t power_len(const char *f, size_t len) {
    size_t k = 0;
    if (k < len && f[k] == '-') k++;
    else if (len >= 3 && !strncmp(f, "\xE2\x88\x92", 3)) k += 3;  // −
    size_t digits = k;
    while (k < len && ((f[k] >= '0' && f[k] <= '9') || (f[k] == '.' && k > digits))) k++;
    while (k > digits && f[k - 1] == '.') k--;  // a sentence's full stop
    return k > digits ? k : 0;
}

// The index of the ")" that closes the "(" at f[open], or len if none does.
static size_t closing_paren(const char *f, size_t len, size_t open) {
    int depth = 0;
    for (size_t k = open; k < len; k++) {
        depth += f[k] == '(' ? 1 : f[k] == ')' ? -1 : 0;
        if (depth == 0) return k;
    }
    return len;
}

// Splits f[0, len) into runs at size px on baseline rise.
// least: the smallest size a raised or lowered part takes, so that a script
// inside a script (d_model in an exponent) stays readable.
static void math_parse(MathRuns *m, const char *f, size_t len, int px, int rise, int least) {
    int small = SDL_max(px * 7 / 10, least), down = rise - px / 4, up = rise + px * 2 / 5;
    for (size_t i = 0; i < len;) {
        const char *p = f + i;
        if (*p == '_' && i + 1 < len && sub_char(p + 1) && !plain_name(f, len, i)) {  // x_ab: ab lowered
            size_t k = i + 1;
            while (k < len && sub_char(f + k) && !(f[k] == ',' && k + 2 < len && name_char(f[k + 1]) && f[k + 2] == '_')) k++;
            math_parse(m, f + i + 1, k - i - 1, small, down, least);
            i = k;
        } else if (*p == '^' && i + 2 < len && p[1] == '(' && closing_paren(f, len, i + 1) < len &&
                   closing_paren(f, len, i + 1) > i + 2) {  // x^(…): … raised
            size_t close = closing_paren(f, len, i + 1);
            math_parse(m, f + i + 2, close - i - 2, small, up, least);
            i = close + 1;
        } else if (*p == '^' && i + 1 < len && power_len(f + i + 1, len - i - 1)) {  // e^1.2, e^−2.7: raised
            size_t n = power_len(f + i + 1, len - i - 1);
            math_parse(m, f + i + 1, n, small, up, least);
            i += 1 + n;
        } else if (!strncmp(p, "\xE1\xB5\x80", 3)) {  // ᵀ
            math_put(m, "T", 1, small, up);
            i += 3;
        } else if (!strncmp(p, "\xE2\x82", 2) && (unsigned char)p[2] >= 0x80 && (unsigned char)p[2] <= 0x89) {  // ₀ … ₉
            char digit = (char)('0' + ((unsigned char)p[2] - 0x80));
            math_put(m, &digit, 1, small, down);
            i += 3;
        } else {
            size_t k = i + 1;
            while (k < len && ((unsigned char)f[k] & 0xC0) == 0x80) k++;
            math_put(m, p, k - i, px, rise);
            i = k;
        }
    }
}

static int math_width(Gfx *g, const MathRuns *m) {
    int total = 0;
    for (int i = 0; i < m->n; i++) total += gfx_text_width(g, m->run[i].text, m->run[i].px);
    return total;
}

int gfx_math(Gfx *g, int x, int y, int w, const char *utf8, int px, Color c) {
    if (!utf8 || !*utf8) return 0;
    MathRuns m = {.n = 0};
    math_parse(&m, utf8, strlen(utf8), px, 0, px * 7 / 10);
    if (m.overflow || math_width(g, &m) > w) return gfx_text_fit(g, x, y, w, utf8, px, c, GFX_LEFT);
    int baseline = y + font_ascent(font_for(g, px)), at = x;
    for (int i = 0; i < m.n; i++) {
        const MathRun *r = &m.run[i];
        g->mark_sub = r->px < px;
        at += gfx_text(g, at, baseline - r->rise - font_ascent(font_for(g, r->px)), r->text, r->px, c, GFX_LEFT);
    }
    g->mark_sub = false;
    return at - x;
}

int gfx_px_to_fit(Gfx *g, const char *utf8, int w, int from, int to) {
    int px = gfx_px(g, (float)from);
    for (int size = from - 1; size >= to && gfx_text_width(g, utf8, px) > w; size--) px = gfx_px(g, (float)size);
    return px;
}

int gfx_math_width(Gfx *g, const char *utf8, int px) {
    MathRuns m = {.n = 0};
    math_parse(&m, utf8, strlen(utf8), px, 0, px * 7 / 10);
    return m.overflow ? gfx_text_width(g, utf8, px) : math_width(g, &m);
}

int gfx_text_fit_end(Gfx *g, int x, int y, int w, const char *utf8, int px, Color c, int align) {
    if (gfx_text_width(g, utf8, px) <= w) return gfx_text(g, x, y, utf8, px, c, align);
    // "…" and the longest tail that fits, starting at a word if one does
    char buf[256];
    const char *tail = utf8 + strlen(utf8);
    const char *best = NULL, *best_word = NULL;
    while (tail > utf8) {
        do tail--;
        while (tail > utf8 && ((unsigned char)*tail & 0xC0) == 0x80);
        if (strlen(tail) > sizeof buf - 4) break;
        snprintf(buf, sizeof buf, "\xE2\x80\xA6%s", tail);
        if (gfx_text_width(g, buf, px) > w) break;
        best = tail;
        if (tail > utf8 && tail[-1] == ' ') best_word = tail;
    }
    if (best_word) best = best_word;
    if (!best) return 0;
    snprintf(buf, sizeof buf, "\xE2\x80\xA6%s", best);
    g->mark_cut = true;
    int drawn = gfx_text(g, x, y, buf, px, c, align);
    g->mark_cut = false;
    return drawn;
}

// Bytes of the UTF-8 character at s, and its code point.
int gfx_utf8_char(const char *s, unsigned *cp) {
    unsigned char c = (unsigned char)s[0];
    int n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    unsigned v = n == 1 ? c : c & (0x3F >> (n - 1));
    for (int i = 1; i < n; i++) {
        if (((unsigned char)s[i] & 0xC0) != 0x80) return 1;  // broken: one byte at a time
        v = v << 6 | ((unsigned char)s[i] & 0x3F);
    }
    *cp = v;
    return n;
}

bool gfx_wide_char(unsigned cp) { return cp >= 0x2E80 && !(cp >= 0xFF61 && cp <= 0xFFDC); }

// Chinese (every character wide) is written vertically upright, one
// character under the other; anything else is turned a quarter left.
int gfx_text_up(Gfx *g, int x, int bottom, int len, const char *utf8, int px, Color c) {
    if (!utf8 || !*utf8 || len <= 0 || px <= 0) return 0;
    int chars = 0;
    bool upright = true;
    for (const char *p = utf8; *p && upright; chars++) {
        unsigned cp = 0;
        p += gfx_utf8_char(p, &cp);
        upright = gfx_wide_char(cp);
    }
    if (upright) {
        // cut short, the last place that fits holds a vertical ellipsis
        int step = px, n = chars * step <= len ? chars : len / step, cx = x + gfx_line_height(g, px) / 2, y = bottom - n * step;
        const char *p = utf8;
        g->mark_h = step;
        for (int i = 0; i < n; i++, y += step) {
            char one[5] = {0};
            unsigned cp;
            int k = gfx_utf8_char(p, &cp);
            memcpy(one, p, (size_t)k);
            p += k;
            const char *shown = n < chars && i == n - 1 ? "\xEF\xB8\x99" : one;  // ︙, the font has no ⋮
            gfx_text(g, cx, y - (gfx_line_height(g, px) - step) / 2, shown, px, c, GFX_CENTER);
        }
        g->mark_h = 0;
        return n * step;
    }
    char buf[256];
    const char *text = fitted(g, utf8, px, len, buf, sizeof buf);
    const FontImage *s = text ? render_text(g, text, px) : NULL;
    if (!s) return 0;
    g->mark_cut = text != utf8;
    g->mark_turned = true;
    if (g->marks) mark_text(g, (SDL_Rect){x, bottom - s->w, s->h, s->w}, px, text);
    g->mark_cut = g->mark_turned = false;
    // the rendered line's pixel (sx, sy) goes to (x + sy, bottom - 1 - sx)
    const SDL_Rect *k = &g->clip;
    for (int sy = 0; sy < s->h; sy++) {
        int dx = x + sy;
        if (dx < k->x || dx >= k->x + k->w) continue;
        const unsigned char *row = s->alpha + (size_t)sy * (size_t)s->w;
        for (int sx = 0; sx < s->w; sx++) {
            int dy = bottom - 1 - sx;
            unsigned a = text_alpha(row[sx], c);
            if (a && dy >= k->y && dy < k->y + k->h) blend(pixel(g, dx, dy), c | 0xFF000000u, (float)a / 255.0f);
        }
    }
    return s->w;
}
