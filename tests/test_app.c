// The window's behaviour without a window: App driven by the SDL events a
// person would cause (keys, typed and composed text, the mouse), drawn onto a
// Gfx canvas, as the window and the export draw it.
//
// Golden images: tests/golden/NAME.png, one per kind of view, drawn at
// 1280 × 800. A pixel differs when its squared RGB distance to the golden is
// above ALLOWABLE_ERROR (as SDLTest_CompareSurfaces counts); a view fails when
// more than MAX_DIFFERING of its pixels differ, and NAME.actual.png,
// NAME.expected.png and NAME.diff.png (differing pixels in red) are written to
// the build folder (build/tests). After a deliberate change to the drawing,
// rewrite the goldens and look at every one before committing them:
//
//     TT_UPDATE_GOLDEN=1 meson test -C build app
//
// Tests of known, not yet fixed bugs are skipped with a note; TT_KNOWN_BUGS=1
// runs them.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <SDL_ttf.h>

#include "app.h"
#include "fileio.h"
#include "image.h"
#include "theme.h"
#include "vocab.h"
#include "window.h"

#define MODEL_PATH TT_TEST_DATA "/../../assets/models/en-zh.safetensors"
#define SCRIPTS TT_TEST_DATA "/scripts/"
#define SENTENCE "the cat sits on the mat ."
#define TARGET "貓 坐 在 墊子 上 。"
#define W 1280
#define H 800

enum { ALLOWABLE_ERROR = 3 * 6 * 6 };  // about 6 levels in each of R, G and B
static const double MAX_DIFFERING = 0.005;

static const char *font;  // found once, in main
static Model *model;      // for tokenizing targets and the headless export

typedef struct Golden Golden;

typedef struct {
    Gfx *g;
    App *a;
    char tmp[64];          // a scratch folder, removed in teardown
    const Golden *golden;  // the golden image tests: which one
} Fixture;

// ---- fixtures ----------------------------------------------------------------

static Fixture *fixture_new(const AppOptions *o) {
    Fixture *f = calloc(1, sizeof *f);
    Error err;
    f->g = gfx_new(W, H, font, &err);
    if (!f->g) fail_msg("gfx_new: %s", err.msg);
    f->a = app_new(o, f->g, &err);
    if (!f->a) fail_msg("app_new: %s", err.msg);
    snprintf(f->tmp, sizeof f->tmp, "/tmp/tt-test-app-XXXXXX");
    if (!mkdtemp(f->tmp)) fail_msg("mkdtemp: cannot make %s", f->tmp);
    return f;
}

static int setup(void **state) {
    AppOptions o = {.model_path = MODEL_PATH, .src = SENTENCE};
    *state = fixture_new(&o);
    return 0;
}

static void remove_tree(const char *dir) {
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

static int teardown(void **state) {
    Fixture *f = *state;
    app_free(f->a);
    gfx_free(f->g);
    remove_tree(f->tmp);
    free(f);
    return 0;
}

// ---- events ------------------------------------------------------------------

// A key press and release; returns what app_event said of the press.
static bool key(App *a, SDL_Keycode sym, Uint16 mod) {
    SDL_Event e = {.type = SDL_KEYDOWN};
    e.key.state = SDL_PRESSED;
    e.key.keysym.sym = sym;
    e.key.keysym.scancode = SDL_GetScancodeFromKey(sym);
    e.key.keysym.mod = mod;
    bool redraw = app_event(a, &e);
    e.type = SDL_KEYUP;
    e.key.state = SDL_RELEASED;
    app_event(a, &e);
    return redraw;
}

static void keys(App *a, SDL_Keycode sym, int times) {
    for (int i = 0; i < times; i++) key(a, sym, KMOD_NONE);
}

// Typed text, in events of at most 31 bytes as SDL delivers it (a paste
// arrives the same way). Returns what app_event said of the last one.
static bool type(App *a, const char *text) {
    SDL_Event e = {.type = SDL_TEXTINPUT};
    size_t len = strlen(text), most = sizeof e.text.text - 1;
    bool redraw = false;
    for (size_t at = 0; at < len;) {
        size_t n = len - at < most ? len - at : most;
        while (n > 1 && at + n < len && ((unsigned char)text[at + n] & 0xC0) == 0x80) n--;
        memcpy(e.text.text, text + at, n);
        e.text.text[n] = '\0';
        redraw = app_event(a, &e);
        at += n;
    }
    return redraw;
}

// An input method's text being composed (not yet typed).
static void compose(App *a, const char *text) {
    SDL_Event e = {.type = SDL_TEXTEDITING};
    snprintf(e.edit.text, sizeof e.edit.text, "%s", text);
    e.edit.start = (Sint32)strlen(text);
    app_event(a, &e);
}

static bool mouse(App *a, Uint32 type, int x, int y) {
    SDL_Event e = {.type = type};
    if (type == SDL_MOUSEMOTION) {
        e.motion.x = x;
        e.motion.y = y;
    } else {
        e.button.button = SDL_BUTTON_LEFT;
        e.button.state = type == SDL_MOUSEBUTTONDOWN ? SDL_PRESSED : SDL_RELEASED;
        e.button.clicks = 1;
        e.button.x = x;
        e.button.y = y;
    }
    return app_event(a, &e);
}

// Ctrl+L, and the text box emptied of up to chars characters (it starts with the current sentence).
static void edit_afresh_of(App *a, int chars) {
    key(a, SDLK_l, KMOD_LCTRL);
    key(a, SDLK_END, KMOD_NONE);
    keys(a, SDLK_BACKSPACE, chars);
}
static void edit_afresh(App *a) { edit_afresh_of(a, 200); }

// ---- the state ---------------------------------------------------------------

static const char *stage(const App *a, char *buf, size_t size) {
    return trace_stage_id(trace_step(app_trace(a), app_step(a)), buf, size);
}

static int head(const App *a) { return trace_step(app_trace(a), app_step(a))->head; }

#define expect_int(what, got, want)                                                                         \
    do {                                                                                                    \
        long got_ = (long)(got), want_ = (long)(want);                                                      \
        if (got_ != want_) fail_msg("%s: expected: %ld, got: %ld", what, want_, got_);                    \
    } while (0)

#define expect_str(what, got, want)                                                                         \
    do {                                                                                                    \
        const char *got_ = (got), *want_ = (want);                                                          \
        if (strcmp(got_, want_)) fail_msg("%s: expected: \"%s\", got: \"%s\"", what, want_, got_);         \
    } while (0)

#define expect_contains(what, got, part)                                                                    \
    do {                                                                                                    \
        const char *got_ = (got), *part_ = (part);                                                          \
        if (!strstr(got_, part_)) fail_msg("%s: expected to contain \"%s\", got: \"%s\"", what, part_, got_); \
    } while (0)

static void expect_stage(const App *a, const char *id, int want_head) {
    char buf[128];
    expect_str("stage", stage(a, buf, sizeof buf), id);
    if (want_head >= 0) expect_int("head", head(a), want_head);
}

static void go_to(App *a, const char *id, int h, int dstep) {
    int i = trace_find(app_trace(a), id, h, dstep);
    if (i < 0) fail_msg("no step %s head %d decoding step %d", id, h, dstep);
    app_set_step(a, i);
}

// ---- images --------------------------------------------------------------------

typedef struct {
    int w, h;
    uint8_t *rgb;  // w × h × 3
} Image;

static bool png_read(const char *path, Image *im, char *why, size_t size) {
    png_image p = {.version = PNG_IMAGE_VERSION};
    im->rgb = NULL;
    if (!png_image_begin_read_from_file(&p, path)) {
        snprintf(why, size, "%s", p.message);
        return false;
    }
    p.format = PNG_FORMAT_RGB;
    im->w = (int)p.width;
    im->h = (int)p.height;
    im->rgb = malloc(PNG_IMAGE_SIZE(p));
    if (!im->rgb || !png_image_finish_read(&p, NULL, im->rgb, 0, NULL)) {
        snprintf(why, size, "%s", im->rgb ? p.message : "out of memory");
        png_image_free(&p);
        free(im->rgb);
        im->rgb = NULL;
        return false;
    }
    return true;
}

static Uint32 surface_pixel(SDL_Surface *s, int x, int y) {
    return ((const Uint32 *)((const Uint8 *)s->pixels + (size_t)y * s->pitch))[x];
}

static void image_pixel(const Image *im, int x, int y, int rgb[3]) {
    const uint8_t *p = im->rgb + ((size_t)y * im->w + x) * 3;
    rgb[0] = p[0];
    rgb[1] = p[1];
    rgb[2] = p[2];
}

// An ARGB8888 surface of the image, as the canvas is.
static SDL_Surface *surface_of(const Image *im) {
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, im->w, im->h, 32, SDL_PIXELFORMAT_ARGB8888);
    if (!s) fail_msg("SDL_CreateRGBSurfaceWithFormat: %s", SDL_GetError());
    for (int y = 0; y < im->h; y++)
        for (int x = 0; x < im->w; x++) {
            int c[3];
            image_pixel(im, x, y, c);
            ((Uint32 *)((Uint8 *)s->pixels + (size_t)y * s->pitch))[x] = 0xFF000000u | (Uint32)c[0] << 16 | (Uint32)c[1] << 8 | (Uint32)c[2];
        }
    return s;
}

static void save_rgb(const char *path, const Image *im) {
    SDL_Surface *s = surface_of(im);
    Error err;
    if (img_save_png(path, s, &err)) fprintf(stderr, "%s\n", err.msg);
    SDL_FreeSurface(s);
}

// Compares the canvas with tests/golden/NAME.png, or writes it there when
// TT_UPDATE_GOLDEN=1. On a difference returns false with the reason in message.
static bool golden_matches(SDL_Surface *s, const char *name, char *message, size_t message_size) {
    char golden[512], why[256];
    Error err;
    snprintf(golden, sizeof golden, "%s/%s.png", TT_GOLDEN, name);
    const char *update = getenv("TT_UPDATE_GOLDEN");
    if (update && !strcmp(update, "1")) {
        if (img_save_png(golden, s, &err)) {
            snprintf(message, message_size, "%s", err.msg);
            return false;
        }
        printf("wrote %s\n", golden);
        return true;
    }
    Image ref;
    if (!png_read(golden, &ref, why, sizeof why)) {
        snprintf(message, message_size, "%s: %s (to make it: TT_UPDATE_GOLDEN=1 meson test -C build app)", golden, why);
        return false;
    }
    long differing = 0, total = (long)s->w * s->h;
    Image diff = {s->w, s->h, calloc((size_t)total, 3)};
    bool same_size = ref.w == s->w && ref.h == s->h;
    for (int y = 0; same_size && y < s->h; y++)
        for (int x = 0; x < s->w; x++) {
            Uint32 p = surface_pixel(s, x, y);
            int c[3], dr, dg, db;
            image_pixel(&ref, x, y, c);
            dr = (int)((p >> 16) & 255) - c[0];
            dg = (int)((p >> 8) & 255) - c[1];
            db = (int)(p & 255) - c[2];
            bool off = dr * dr + dg * dg + db * db > ALLOWABLE_ERROR;
            differing += off;
            uint8_t *d = diff.rgb + ((size_t)y * s->w + x) * 3;
            int grey = (c[0] + c[1] + c[2]) / 12 + 160;  // the golden, faint, under the differences
            d[0] = off ? 255 : (uint8_t)grey;
            d[1] = d[2] = off ? 0 : (uint8_t)grey;
        }
    if (!same_size || (double)differing > MAX_DIFFERING * (double)total) {
        char cwd[512], actual[600], expected[600], diffp[600];
        if (!getcwd(cwd, sizeof cwd)) snprintf(cwd, sizeof cwd, ".");
        snprintf(actual, sizeof actual, "%s/%s.actual.png", cwd, name);
        snprintf(expected, sizeof expected, "%s/%s.expected.png", cwd, name);
        snprintf(diffp, sizeof diffp, "%s/%s.diff.png", cwd, name);
        if (img_save_png(actual, s, &err)) fprintf(stderr, "%s\n", err.msg);
        save_rgb(expected, &ref);
        if (same_size) save_rgb(diffp, &diff);
        if (!same_size)
            snprintf(message, message_size, "%s: expected: %d×%d, got: %d×%d; see %s and %s", name, ref.w, ref.h, s->w, s->h, actual,
                     expected);
        else
            snprintf(message, message_size, "%s: %ld of %ld pixels differ by more than %d (squared RGB distance), over %.1f%%; see %s, %s and %s",
                     name, differing, total, ALLOWABLE_ERROR, 100.0 * MAX_DIFFERING, actual, expected, diffp);
    }
    free(ref.rgb);
    free(diff.rgb);
    return same_size && (double)differing <= MAX_DIFFERING * (double)total;
}

// ---- navigation ------------------------------------------------------------------

static void test_arrows_home_end(void **state) {
    App *a = ((Fixture *)*state)->a;
    int n = trace_count(app_trace(a));
    expect_int("step at start", app_step(a), 0);
    assert_true(key(a, SDLK_RIGHT, KMOD_NONE));
    expect_int("step after →", app_step(a), 1);
    expect_stage(a, "src.embed", 0);
    key(a, SDLK_LEFT, KMOD_NONE);
    expect_int("step after ←", app_step(a), 0);
    key(a, SDLK_LEFT, KMOD_NONE);
    expect_int("← at the first step", app_step(a), 0);
    key(a, SDLK_END, KMOD_NONE);
    expect_int("step after End", app_step(a), n - 1);
    key(a, SDLK_RIGHT, KMOD_NONE);
    expect_int("→ at the last step", app_step(a), n - 1);
    key(a, SDLK_HOME, KMOD_NONE);
    expect_int("step after Home", app_step(a), 0);
}

// Shift+arrows go from stop to stop of the stage table (a sub-layer's scores,
// weights and output, each part's input and result) on the head shown; the
// whole walk is test_shift_walk_stops.
static void test_shift_arrows_go_by_stage(void **state) {
    App *a = ((Fixture *)*state)->a;
    key(a, SDLK_RIGHT, KMOD_LSHIFT);
    expect_stage(a, "src.input", 0);
    key(a, SDLK_RIGHT, KMOD_LSHIFT);
    expect_stage(a, "enc.L1.self_attn.scores", 1);
    key(a, SDLK_RIGHT, KMOD_LSHIFT);
    expect_stage(a, "enc.L1.self_attn.weights", 1);
    key(a, SDLK_RIGHT, KMOD_LSHIFT);
    expect_stage(a, "enc.L1.self_attn.out_proj", 0);
    key(a, SDLK_LEFT, KMOD_LSHIFT);
    expect_stage(a, "enc.L1.self_attn.weights", 1);
    // from a step that is no stop, Shift+← goes to the stop before it
    key(a, SDLK_RIGHT, KMOD_NONE);
    expect_stage(a, "enc.L1.self_attn.head_out", 1);
    key(a, SDLK_LEFT, KMOD_LSHIFT);
    expect_stage(a, "enc.L1.self_attn.weights", 1);
    key(a, SDLK_LEFT, KMOD_LSHIFT);
    key(a, SDLK_LEFT, KMOD_LSHIFT);
    key(a, SDLK_LEFT, KMOD_LSHIFT);
    expect_int("Shift+← back at the first step", app_step(a), 0);
    key(a, SDLK_LEFT, KMOD_LSHIFT);
    expect_int("Shift+← at the first step", app_step(a), 0);
}

static void test_page_keys_change_layer(void **state) {
    App *a = ((Fixture *)*state)->a;
    go_to(a, "enc.L1.self_attn.weights", 2, 0);
    key(a, SDLK_PAGEDOWN, KMOD_NONE);
    expect_stage(a, "enc.L2.self_attn.weights", 2);
    key(a, SDLK_PAGEDOWN, KMOD_NONE);  // the model has two layers
    expect_stage(a, "enc.L2.self_attn.weights", 2);
    key(a, SDLK_PAGEUP, KMOD_NONE);
    expect_stage(a, "enc.L1.self_attn.weights", 2);
    key(a, SDLK_PAGEUP, KMOD_NONE);
    expect_stage(a, "enc.L1.self_attn.weights", 2);
    // in the decoder, at the same decoding step
    go_to(a, "dec.L1.cross_attn.weights", 3, 4);
    key(a, SDLK_PAGEDOWN, KMOD_NONE);
    expect_stage(a, "dec.L2.cross_attn.weights", 3);
    expect_int("decoding step", trace_step(app_trace(a), app_step(a))->dstep, 4);
    go_to(a, "dec.L1.norm3", 0, 2);
    key(a, SDLK_PAGEDOWN, KMOD_NONE);
    expect_stage(a, "dec.L2.norm3", 0);
    // a step of no layer stays
    go_to(a, "src.embed", 0, 0);
    key(a, SDLK_PAGEDOWN, KMOD_NONE);
    expect_stage(a, "src.embed", 0);
}

static void test_number_keys_pick_head(void **state) {
    App *a = ((Fixture *)*state)->a;
    go_to(a, "enc.L1.self_attn.weights", 1, 0);
    for (int h = 1; h <= 4; h++) {
        key(a, SDLK_0 + h, KMOD_NONE);
        expect_stage(a, "enc.L1.self_attn.weights", h);
    }
    key(a, SDLK_9, KMOD_NONE);  // four heads only
    expect_stage(a, "enc.L1.self_attn.weights", 4);
    go_to(a, "dec.L2.cross_attn.scores", 1, 3);
    key(a, SDLK_2, KMOD_NONE);
    expect_stage(a, "dec.L2.cross_attn.scores", 2);
    expect_int("decoding step", trace_step(app_trace(a), app_step(a))->dstep, 3);
    go_to(a, "src.embed", 0, 0);  // a step of all heads: the keys do nothing
    int before = app_step(a);
    key(a, SDLK_2, KMOD_NONE);
    expect_int("step after 2 on a step without heads", app_step(a), before);
}

// The timeline is found by clicking up from the bottom edge until the step
// changes, so the test does not depend on the layout.
static void test_timeline_click_and_drag(void **state) {
    App *a = ((Fixture *)*state)->a;
    int n = trace_count(app_trace(a)), y = H - 1;
    app_draw(a);
    for (; y > H / 2; y--) {
        mouse(a, SDL_MOUSEBUTTONDOWN, W / 2, y);
        if (app_step(a) != 0) break;
        mouse(a, SDL_MOUSEBUTTONUP, W / 2, y);
    }
    if (app_step(a) == 0) fail_msg("no click in the lower half of the window moved the step");
    if (abs(app_step(a) - n / 2) > n / 20) fail_msg("click at the timeline's middle: expected: about %d, got: %d", n / 2, app_step(a));
    mouse(a, SDL_MOUSEMOTION, W - 1, y);  // still dragging
    if (app_step(a) < n - n / 20) fail_msg("drag to the right edge: expected: about %d, got: %d", n - 1, app_step(a));
    mouse(a, SDL_MOUSEMOTION, -50, y);
    expect_int("drag past the left edge", app_step(a), 0);
    mouse(a, SDL_MOUSEBUTTONUP, -50, y);
    mouse(a, SDL_MOUSEMOTION, W / 2, y);  // released: moving no longer steps
    expect_int("step after release", app_step(a), 0);
}

static void test_hover_names_the_cell(void **state) {
    App *a = ((Fixture *)*state)->a;
    go_to(a, "enc.L1.self_attn.weights", 1, 0);
    app_draw(a);
    bool found = false;
    for (int y = H / 4; y < H * 3 / 4 && !found; y += 10)
        for (int x = 0; x < W && !found; x += 10) {
            mouse(a, SDL_MOUSEMOTION, x, y);
            found = !strncmp(app_status(a), "row ", 4);
        }
    if (!found) fail_msg("no point in the middle of the window shows a cell; status: \"%s\"", app_status(a));
    expect_contains("status over a cell", app_status(a), "row sum");
    app_draw(a);  // with the hovered cell outlined
    // in 繁體中文 too, rows and columns numbered from 1 (the top left cell: row 1, column 1)
    key(a, SDLK_F2, KMOD_NONE);
    app_draw(a);
    found = false;
    for (int y = H / 4; y < H * 3 / 4 && !found; y += 10)
        for (int x = 0; x < W && !found; x += 10) {
            mouse(a, SDL_MOUSEMOTION, x, y);
            found = !strncmp(app_status(a), "\xE7\xAC\xAC 1 \xE5\x88\x97", 8);  // 第 1 列
        }
    if (!found) fail_msg("expected: a cell of row 1 named in Chinese, got: \"%s\"", app_status(a));
    expect_contains("status over a cell, 繁體中文", app_status(a), "\xE6\xAD\xA4\xE5\x88\x97\xE7\xB8\xBD\xE5\x92\x8C");  // 此列總和
}

// ---- the text box ------------------------------------------------------------------

static void test_text_needs_ctrl_l(void **state) {
    App *a = ((Fixture *)*state)->a;
    assert_false(type(a, "dog"));
    key(a, SDLK_RETURN, KMOD_NONE);
    expect_str("sentence", app_sentence(a), SENTENCE);
    key(a, SDLK_l, KMOD_LCTRL);
    assert_true(type(a, "x"));
    key(a, SDLK_ESCAPE, KMOD_NONE);  // stops editing, the sentence unchanged
    expect_str("sentence after Escape", app_sentence(a), SENTENCE);
    assert_false(type(a, "y"));
}

static void test_typing_multibyte(void **state) {
    App *a = ((Fixture *)*state)->a;
    edit_afresh(a);
    type(a, "the cat 我");
    app_draw(a);
    key(a, SDLK_BACKSPACE, KMOD_NONE);  // all three bytes of 我: one byte less would leave invalid UTF-8 and Enter would fail
    key(a, SDLK_BACKSPACE, KMOD_NONE);
    key(a, SDLK_RETURN, KMOD_NONE);
    expect_str("status", app_status(a), "");
    expect_str("sentence", app_sentence(a), "the cat");
    expect_int("step after a new sentence", app_step(a), 0);
    // the cursor keys and Delete also go by whole characters
    edit_afresh(a);
    type(a, "the 我貓cat");
    key(a, SDLK_HOME, KMOD_NONE);
    keys(a, SDLK_RIGHT, 5);  // past "the " and 我
    key(a, SDLK_DELETE, KMOD_NONE);  // 貓
    key(a, SDLK_LEFT, KMOD_NONE);
    key(a, SDLK_DELETE, KMOD_NONE);  // 我
    key(a, SDLK_RETURN, KMOD_NONE);
    expect_str("sentence", app_sentence(a), "the cat");
}

static void test_input_method(void **state) {
    App *a = ((Fixture *)*state)->a;
    edit_afresh(a);
    type(a, "the cat sits on the ");
    compose(a, "ㄇㄠ");
    app_draw(a);
    compose(a, "貓");
    app_draw(a);
    type(a, "貓");  // committed
    app_draw(a);
    key(a, SDLK_RETURN, KMOD_NONE);
    expect_str("sentence", app_sentence(a), "the cat sits on the 貓");
    expect_contains("status names the unknown word", app_status(a), "\"貓\"");
}

static void test_only_unknown_words_keep_text(void **state) {
    App *a = ((Fixture *)*state)->a;
    edit_afresh(a);
    type(a, "xyzzy plugh");
    key(a, SDLK_RETURN, KMOD_NONE);
    expect_contains("status", app_status(a), "vocabulary");
    expect_str("sentence", app_sentence(a), SENTENCE);
    app_draw(a);
    // still editing, with the text kept: more typed text joins it
    type(a, " the cat");
    key(a, SDLK_RETURN, KMOD_NONE);
    expect_str("sentence", app_sentence(a), "xyzzy plugh the cat");
}

static void test_too_long_sentence_keeps_text(void **state) {
    App *a = ((Fixture *)*state)->a;
    edit_afresh(a);
    for (int i = 0; i < 20; i++) type(a, "the cat ");  // 40 words; the model takes 24 tokens
    key(a, SDLK_RETURN, KMOD_NONE);
    expect_contains("status", app_status(a), "40 tokens");
    expect_contains("status", app_status(a), "at most");
    expect_str("sentence", app_sentence(a), SENTENCE);
    app_draw(a);
    // Escape and Ctrl+L again: the same 40 words are there
    key(a, SDLK_ESCAPE, KMOD_NONE);
    key(a, SDLK_l, KMOD_LCTRL);
    key(a, SDLK_RETURN, KMOD_NONE);
    expect_contains("status", app_status(a), "40 tokens");
}

static void test_invalid_utf8_keeps_text(void **state) {
    App *a = ((Fixture *)*state)->a;
    // what follows a bad byte is still drawn and measured (the bad byte as "?")
    Gfx *g = ((Fixture *)*state)->g;
    expect_int("width of text with a bad byte", gfx_text_width(g, "the cat \xFF sits", 18), gfx_text_width(g, "the cat ? sits", 18));
    edit_afresh(a);
    type(a, "the cat \xFF");
    app_draw(a);
    key(a, SDLK_RETURN, KMOD_NONE);
    expect_contains("status", app_status(a), "UTF-8");
    expect_str("sentence", app_sentence(a), SENTENCE);
    key(a, SDLK_BACKSPACE, KMOD_NONE);  // the bad byte
    key(a, SDLK_RETURN, KMOD_NONE);
    expect_str("sentence", app_sentence(a), "the cat ");
    // a character cut short (first two bytes of 我)
    edit_afresh(a);
    type(a, "the cat \xE6\x88");
    app_draw(a);
    key(a, SDLK_RETURN, KMOD_NONE);
    expect_contains("status", app_status(a), "UTF-8");
    expect_str("sentence", app_sentence(a), "the cat ");
}

// A 10,000-character paste arriving as text events (as from an input method
// or a tool that types it); Ctrl+V is test_paste.
static void test_huge_text(void **state) {
    App *a = ((Fixture *)*state)->a;
    char *paste = malloc(40000);
    edit_afresh(a);
    for (int i = 0; i < 2500; i++) memcpy(paste + 4 * i, "cat ", 4);  // 10,000 characters
    paste[10000] = '\0';
    type(a, paste);
    app_draw(a);
    key(a, SDLK_RETURN, KMOD_NONE);
    expect_contains("status", app_status(a), "2500 tokens");
    expect_str("sentence", app_sentence(a), SENTENCE);
    app_draw(a);
    // 10,000 Chinese characters are 30,000 bytes: more than the box holds
    edit_afresh_of(a, 10000);
    for (int i = 0; i < 10000; i++) memcpy(paste + 3 * i, "貓", 3);
    paste[30000] = '\0';
    type(a, paste);
    expect_contains("status", app_status(a), "at most");
    app_draw(a);
    key(a, SDLK_RETURN, KMOD_NONE);
    if (!app_status(a)[0]) fail_msg("no status after Enter on 10,000 unknown characters");
    expect_str("sentence", app_sentence(a), SENTENCE);
    app_draw(a);
    free(paste);
}

// Ctrl+V: the clipboard's text at once (not in 31-byte events), line breaks as spaces.
// A click in the text box puts the cursor there; a text longer than the box
// scrolls so that the cursor stays in view (the first character shown is
// then not the first of the text), and back at Home.
static void test_text_box_click_and_scroll(void **state) {
    Fixture *f = *state;
    App *a = f->a;
    if (gfx_resize(f->g, 800, 600)) fail_msg("gfx_resize: cannot make an 800 × 600 canvas");  // a box of 480 pixels
    int left = 12, mid = 20;  // inside the box, before its first character
    edit_afresh(a);
    type(a, "cat sits");
    app_draw(a);
    mouse(a, SDL_MOUSEBUTTONDOWN, left, mid);
    type(a, "the ");
    key(a, SDLK_RETURN, KMOD_NONE);
    expect_str("sentence", app_sentence(a), "the cat sits");

    const char *longer = "the small dog eats the big red apple on the table in the house of the teacher";
    edit_afresh(a);
    type(a, longer);
    app_draw(a);
    mouse(a, SDL_MOUSEBUTTONDOWN, left, mid);
    type(a, "Q");
    key(a, SDLK_RETURN, KMOD_NONE);
    const char *q = strchr(app_sentence(a), 'Q');
    if (!q || q == app_sentence(a)) fail_msg("expected: Q typed where the scrolled text starts, not at its start; got: %s", app_sentence(a));

    edit_afresh(a);
    type(a, longer);
    app_draw(a);
    key(a, SDLK_HOME, KMOD_NONE);
    app_draw(a);
    mouse(a, SDL_MOUSEBUTTONDOWN, left, mid);
    type(a, "Q");
    key(a, SDLK_RETURN, KMOD_NONE);
    if (app_sentence(a)[0] != 'Q') fail_msg("expected: Q at the start after Home, got: %s", app_sentence(a));
}

// The beam table keeps the end of a long hypothesis, from a word's start.
static void test_fit_keeps_the_end(void **state) {
    Gfx *g = ((Fixture *)*state)->g;
    const char *hypothesis = "le grand garçon lit une lettre rouge + <eos>";
    int px = 18, w = gfx_text_width(g, "\xE2\x80\xA6lettre rouge + <eos>", px);
    expect_int("width drawn", gfx_text_fit_end(g, 0, 0, w, hypothesis, px, 0xFF000000u, GFX_LEFT), w);
    expect_int("width drawn, room for all", gfx_text_fit_end(g, 0, 0, 2000, hypothesis, px, 0xFF000000u, GFX_LEFT),
               gfx_text_width(g, hypothesis, px));
}

// Formulas: "_" lowers the letters after it, smaller, and leaves no
// underscore; "ᵀ" and "^(…)" raise theirs; a formula too wide is cut.
static void test_math_typesets(void **state) {
    Gfx *g = ((Fixture *)*state)->g;
    int px = 18;
    Color black = 0xFF000000u;
    int plain = gfx_text_width(g, "d_model", px), typeset = gfx_math(g, 0, 0, 2000, "d_model", px, black);
    if (!(typeset > gfx_text_width(g, "d", px) && typeset < gfx_text_width(g, "dmodel", px)))
        fail_msg("expected: d with a smaller 'model', narrower than %d, got: %d", plain, typeset);
    int kt = gfx_math(g, 0, 0, 2000, "K_h\xE1\xB5\x80", px, black);  // K_hᵀ
    if (!(kt > gfx_text_width(g, "K", px) && kt < gfx_text_width(g, "KhT", px)))
        fail_msg("expected: K with h below and T above, narrower than KhT, got: %d", kt);
    int pe = gfx_math(g, 0, 0, 2000, "10000^(2i/d_model)", px, black);
    if (pe >= gfx_text_width(g, "10000(2i/dmodel)", px)) fail_msg("expected: the exponent raised and smaller, got: %d", pe);
    // a long line of plain text, over many of the typesetter's runs, loses nothing
    char longer[700] = "";
    for (int i = 0; i < 40; i++) strcat(longer, "\xE8\x87\xAA\xE7\x84\xB6\xE8\xAA\x9E\xE8\xA8\x80 ");  // 自然語言
    expect_int("a long line", gfx_math(g, 0, 0, 100000, longer, px, black), gfx_text_width(g, longer, px));
    // names are not formulas: written as they are
    static const char *const names[] = {"dec.L2.cross_attn", "dec.look_ahead_mask", "a_b_c", "x^()"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        expect_int(names[i], gfx_math(g, 0, 0, 2000, names[i], px, black), gfx_text_width(g, names[i], px));
    // two subscripts after a comma stay two: d_k,d_v is not d with "k,dv" below
    int two = gfx_math(g, 0, 0, 2000, "d_k,d_v", px, black), one = gfx_math(g, 0, 0, 2000, "d_k", px, black);
    if (abs(two - (2 * one + gfx_text_width(g, ",", px))) > 2)  // a pixel or two of rounding between runs
        fail_msg("expected: d_k,d_v as two subscripts, %d pixels wide, got: %d", 2 * one + gfx_text_width(g, ",", px), two);
    int power = gfx_math(g, 0, 0, 2000, "e^\xE2\x88\x92" "2.75", px, black);  // e^−2.75
    if (power >= gfx_text_width(g, "e\xE2\x88\x92" "2.75", px)) fail_msg("expected: the power raised and smaller, got: %d", power);
    int open = gfx_math(g, 0, 0, 2000, "x^(2", px, black);  // unclosed: written as it is
    expect_int("an unclosed ^( drawn as text", open, gfx_text_width(g, "x^(2", px));
    int cut = gfx_math(g, 0, 0, 40, "softmax(Q_h\xC2\xB7K_h\xE1\xB5\x80 / \xE2\x88\x9A" "d_k)", px, black);
    if (cut > 40) fail_msg("expected: at most 40 pixels, got: %d", cut);
}

static void click_on(App *a, SDL_Rect r) {
    mouse(a, SDL_MOUSEBUTTONDOWN, r.x + r.w / 2, r.y + r.h / 2);
    mouse(a, SDL_MOUSEBUTTONUP, r.x + r.w / 2, r.y + r.h / 2);
}

// The composite views have buttons beside the head chips, shown where they
// apply, lit when on, doing what their keys do.
static void test_view_switch_buttons(void **state) {
    App *a = ((Fixture *)*state)->a;
    go_to(a, "src.tokens", 0, 0);
    app_draw(a);
    SDL_Keycode all[] = {SDLK_g, SDLK_v, SDLK_m, SDLK_a};
    for (int i = 0; i < 4; i++) expect_int("no switch on the token strip", app_button(a, all[i]).w, 0);

    go_to(a, "dec.L2.cross_attn.weights", 1, 5);  // "the cat sits on the mat .": the corpus has its gold alignment
    app_draw(a);
    expect_int("no mask steps for cross-attention", app_button(a, SDLK_m).w, 0);
    if (!app_button(a, SDLK_a).w) fail_msg("expected: the gold switch on cross-attention");
    click_on(a, app_button(a, SDLK_v));
    expect_int("lines after a click", app_view(a)->lines, 1);
    app_draw(a);
    click_on(a, app_button(a, SDLK_v));
    expect_int("lines after a second click", app_view(a)->lines, 0);
    app_draw(a);
    click_on(a, app_button(a, SDLK_g));
    expect_int("all heads after a click", app_view(a)->heads_grid, 1);
    app_draw(a);
    click_on(a, app_button(a, SDLK_a));
    expect_int("gold hidden after a click", app_view(a)->no_gold, 1);

    go_to(a, "dec.look_ahead_mask", 0, 5);
    app_draw(a);
    if (!app_button(a, SDLK_m).w) fail_msg("expected: the mask steps switch on the look-ahead mask");
    expect_int("no heads grid on the mask", app_button(a, SDLK_g).w, 0);
    click_on(a, app_button(a, SDLK_m));
    expect_int("mask steps apart after a click", app_view(a)->no_side_by_side, 1);
    // lines (V) change the weights only: the mask's own step keeps its M
    key(a, SDLK_v, KMOD_NONE);
    app_draw(a);
    if (!app_button(a, SDLK_m).w) fail_msg("expected: the mask steps switch on the mask with lines on");
    go_to(a, "dec.L1.self_attn.weights", 1, 5);
    app_draw(a);
    expect_int("no mask steps switch on weights shown as lines", app_button(a, SDLK_m).w, 0);
}

// Ctrl+0 returns to the normal size the window set (display fit, HiDPI),
// not to 1; a zoom is kept when the normal size changes.
static void test_base_scale_and_zoom(void **state) {
    Fixture *f = *state;
    app_set_base_scale(f->a, 1.5f);
    if (fabsf(gfx_scale(f->g) - 1.5f) > 1e-5f) fail_msg("expected: scale 1.5, got: %g", (double)gfx_scale(f->g));
    key(f->a, SDLK_EQUALS, KMOD_LCTRL);  // zoom in: 1.15 times
    app_set_base_scale(f->a, 2.0f);      // moved to a larger display
    if (fabsf(gfx_scale(f->g) - 2.3f) > 1e-4f) fail_msg("expected: the zoom kept, scale 2.3, got: %g", (double)gfx_scale(f->g));
    key(f->a, SDLK_0, KMOD_LCTRL);
    if (fabsf(gfx_scale(f->g) - 2.0f) > 1e-5f) fail_msg("expected: Ctrl+0 back to 2, got: %g", (double)gfx_scale(f->g));
    // at the largest scale (4), more presses pile nothing up: one Ctrl+− comes down at once
    for (int i = 0; i < 20; i++) key(f->a, SDLK_EQUALS, KMOD_LCTRL);
    if (fabsf(gfx_scale(f->g) - 4.0f) > 1e-5f) fail_msg("expected: scale 4 at most, got: %g", (double)gfx_scale(f->g));
    key(f->a, SDLK_MINUS, KMOD_LCTRL);
    if (fabsf(gfx_scale(f->g) - 4.0f / 1.15f) > 1e-4f) fail_msg("expected: %g after one Ctrl+−, got: %g", 4.0 / 1.15, (double)gfx_scale(f->g));
    app_set_base_scale(f->a, 1.0f);  // to a smaller display: the zoom, 2 / 1.15, is kept
    if (fabsf(gfx_scale(f->g) - 2.0f / 1.15f) > 1e-4f) fail_msg("expected: the zoom kept, %g, got: %g", 2.0 / 1.15, (double)gfx_scale(f->g));
}

// The help and play / pause have buttons too, for those who do not know the keys.
static void test_help_and_play_buttons(void **state) {
    App *a = ((Fixture *)*state)->a;
    app_draw(a);
    click_on(a, app_button(a, SDLK_SLASH));
    expect_int("help open after a click", app_busy(a), 1);
    app_draw(a);
    click_on(a, app_button(a, SDLK_SLASH));
    expect_int("help closed after a second click", app_busy(a), 0);
    app_draw(a);
    expect_int("not playing", app_next_tick(a, 0), -1);
    click_on(a, app_button(a, SDLK_SPACE));
    if (app_next_tick(a, 0) < 0) fail_msg("expected: playing after a click on the play button");
    app_draw(a);  // the pause sign
    click_on(a, app_button(a, SDLK_SPACE));
    expect_int("paused after a second click", app_next_tick(a, 0), -1);
}

// A model may carry any name in its file: a very long one is drawn cut in
// the top row. (Before, the strategy's settings were then written at the
// name's full length past the line's buffer, a write far enough beyond it
// that AddressSanitizer does not see it: this test draws the case, the
// clamp in app.c is what prevents it.)
static void test_long_model_name(void **state) {
    Fixture *f = *state;
    Error err;
    Model *m = mdl_load(MODEL_PATH, &err);
    if (!m) fail_msg("mdl_load: %s", err.msg);
    char *name = malloc(2001);
    memset(name, 'n', 2000);
    name[2000] = '\0';
    free(m->name);
    m->name = name;
    char path[128];
    snprintf(path, sizeof path, "%s/long-name.safetensors", f->tmp);
    if (mdl_save(m, path, &err)) fail_msg("mdl_save: %s", err.msg);
    mdl_free(m);
    expect_int("app_set_model", app_set_model(f->a, path), 0);
    DecodeOptions d = *app_decode(f->a);
    d.mode = DECODE_SAMPLE;  // the longest line: the strategy's settings after the name
    app_set_decode(f->a, &d);
    app_draw(f->a);
}

// The share of the canvas in colour c (RGB).
static double share_of(Gfx *g, Color c) {
    SDL_Surface *s = gfx_surface(g);
    long same = 0;
    for (int y = 0; y < s->h; y++)
        for (int x = 0; x < s->w; x++) same += ((((Uint32 *)((Uint8 *)s->pixels + y * s->pitch))[x] ^ c) & 0xFFFFFF) == 0;
    return (double)same / ((double)s->w * s->h);
}

// A window too small for the layout says so over it; at a usable size again
// everything is as it was.
static void test_too_small_says_so(void **state) {
    Fixture *f = *state;
    Color panel = theme_get(false)->panel;
    if (gfx_resize(f->g, 300, 200)) fail_msg("gfx_resize 300×200 failed");
    app_draw(f->a);
    if (share_of(f->g, panel) < 0.6) fail_msg("expected: the message's panel over most of a 300 × 200 window, got: %.0f %%", 100 * share_of(f->g, panel));
    if (gfx_resize(f->g, W, H)) fail_msg("gfx_resize back failed");
    app_draw(f->a);
    if (share_of(f->g, panel) > 0.4) fail_msg("expected: the layout again at %d × %d, got: %.0f %% panel", W, H, 100 * share_of(f->g, panel));
    expect_str("sentence", app_sentence(f->a), SENTENCE);
}

static void test_paste(void **state) {
    App *a = ((Fixture *)*state)->a;
    edit_afresh(a);
    SDL_SetClipboardText("the cat\nsits\ton the mat .");
    key(a, SDLK_v, KMOD_LCTRL);
    key(a, SDLK_RETURN, KMOD_NONE);
    expect_str("sentence", app_sentence(a), "the cat sits on the mat .");
    edit_afresh(a);
    SDL_SetClipboardText("the \xFF cat");
    key(a, SDLK_v, KMOD_LCTRL);
    app_draw(a);
    key(a, SDLK_RETURN, KMOD_NONE);
    expect_contains("status", app_status(a), "UTF-8");
    expect_str("sentence", app_sentence(a), "the cat sits on the mat .");
    char *paste = malloc(40000);
    for (int i = 0; i < 2500; i++) memcpy(paste + 4 * i, "cat ", 4);
    paste[10000] = '\0';
    edit_afresh(a);
    SDL_SetClipboardText(paste);
    key(a, SDLK_v, KMOD_LCTRL);
    app_draw(a);
    key(a, SDLK_RETURN, KMOD_NONE);
    expect_contains("status", app_status(a), "2500 tokens");
    for (int i = 0; i < 10000; i++) memcpy(paste + 3 * i, "貓", 3);
    paste[30000] = '\0';
    edit_afresh_of(a, 10000);
    SDL_SetClipboardText(paste);
    key(a, SDLK_v, KMOD_LCTRL);
    expect_contains("status", app_status(a), "at most");
    app_draw(a);
    key(a, SDLK_RETURN, KMOD_NONE);
    if (!app_status(a)[0]) fail_msg("no status after Enter on 10,000 pasted unknown characters");
    expect_str("sentence", app_sentence(a), "the cat sits on the mat .");
    free(paste);
}

// ---- the window's size ---------------------------------------------------------------

static void test_tiny_and_huge_canvas(void **state) {
    Fixture *f = *state;
    static const int sizes[][2] = {{100, 100}, {7680, 4320}, {1, 1}, {W, H}};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        if (gfx_resize(f->g, sizes[i][0], sizes[i][1])) fail_msg("gfx_resize %d×%d failed", sizes[i][0], sizes[i][1]);
        go_to(f->a, "enc.L1.self_attn.weights", 1, 0);
        app_draw(f->a);
        mouse(f->a, SDL_MOUSEMOTION, sizes[i][0] / 2, sizes[i][1] / 2);
        key(f->a, SDLK_SLASH, KMOD_LSHIFT);  // help
        app_draw(f->a);
        key(f->a, SDLK_SLASH, KMOD_LSHIFT);
        go_to(f->a, "dec.top_k", 0, 2);
        app_draw(f->a);
        key(f->a, SDLK_l, KMOD_LCTRL);
        type(f->a, " 我");
        app_draw(f->a);
        key(f->a, SDLK_ESCAPE, KMOD_NONE);
        for (int k = 0; k < 12; k++) key(f->a, SDLK_EQUALS, KMOD_LCTRL);  // the largest UI scale
        app_draw(f->a);
        key(f->a, SDLK_0, KMOD_LCTRL);
        expect_int("canvas width", gfx_width(f->g), sizes[i][0]);
    }
}

// The window draws straight into its framebuffer (often RGB888, alpha as
// padding): the same pixels as on a canvas of the app's own; a format the
// drawing does not write is refused and leaves the canvas as it was.
static void test_draw_on_window_surface(void **state) {
    Fixture *f = *state;
    go_to(f->a, "dec.L2.cross_attn.weights", 2, 5);
    app_draw(f->a);
    SDL_Surface *own = SDL_ConvertSurfaceFormat(gfx_surface(f->g), SDL_PIXELFORMAT_ARGB8888, 0);
    SDL_Surface *screen = SDL_CreateRGBSurfaceWithFormat(0, W, H, 32, SDL_PIXELFORMAT_RGB888);
    SDL_Surface *odd = SDL_CreateRGBSurfaceWithFormat(0, W, H, 16, SDL_PIXELFORMAT_RGB565);
    assert_non_null(own);
    assert_non_null(screen);
    assert_non_null(odd);
    SDL_FillRect(screen, NULL, 0x00FF00FF);  // whatever was there before
    assert_int_equal(gfx_use_surface(f->g, screen), 0);
    expect_int("surface drawn on", gfx_surface(f->g) == screen, 1);
    app_draw(f->a);
    long differ = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) differ += (surface_pixel(screen, x, y) & 0xFFFFFF) != (surface_pixel(own, x, y) & 0xFFFFFF);
    expect_int("pixels that differ from the app's own canvas", (int)differ, 0);
    expect_int("RGB565 refused", gfx_use_surface(f->g, odd), -1);
    expect_int("still drawing on the framebuffer", gfx_surface(f->g) == screen, 1);
    // back to a canvas of its own: the framebuffer is the caller's, not freed here
    assert_int_equal(gfx_resize(f->g, W, H), 0);
    expect_int("own canvas again", gfx_surface(f->g) != screen, 1);
    SDL_FillRect(screen, NULL, 0x00FF00FF);
    app_draw(f->a);
    expect_int("framebuffer no longer drawn on", (int)(surface_pixel(screen, W / 2, H / 2) & 0xFFFFFF), 0xFF00FF);
    SDL_FreeSurface(own);
    SDL_FreeSurface(screen);
    SDL_FreeSurface(odd);
}

// ---- golden images -----------------------------------------------------------------

struct Golden {
    const char *name;       // tests/golden/NAME.png
    const char *stage;
    int head, dstep;
    DecodeMode mode;
    const char *keys;       // then pressed: ? help, t theme, z F2 (繁體中文), g the heads grid, v the line view, e the text box with an input method composing
    float temperature;      // sampling (seed 1); 0 = 1
    int top_k;
};

static const Golden goldens[] = {
    {"src.tokens", "src.tokens", 0, 0, DECODE_GREEDY, "", 0.0f, 0},
    {"src.embed", "src.embed", 0, 0, DECODE_GREEDY, "", 0.0f, 0},
    {"src.pos_enc", "src.pos_enc", 0, 0, DECODE_GREEDY, "", 0.0f, 0},  // the sin/cos stripes
    {"enc.L2.norm2", "enc.L2.norm2", 0, 0, DECODE_GREEDY, "", 0.0f, 0},   // a layer's output, with each token's norm
    {"enc.L1.self_attn.scores", "enc.L1.self_attn.scores", 1, 0, DECODE_GREEDY, "", 0.0f, 0},
    {"enc.L1.self_attn.weights", "enc.L1.self_attn.weights", 1, 0, DECODE_GREEDY, "", 0.0f, 0},
    // every head and their average; the column labels too wide for the cells read upwards
    {"enc.L1.self_attn.weights.grid", "enc.L1.self_attn.weights", 1, 0, DECODE_GREEDY, "g", 0.0f, 0},
    {"enc.L1.self_attn.weights.dark", "enc.L1.self_attn.weights", 1, 0, DECODE_GREEDY, "t", 0.0f, 0},
    {"dec.look_ahead_mask", "dec.look_ahead_mask", 0, 5, DECODE_GREEDY, "", 0.0f, 0},
    {"dec.L1.self_attn.masked_scores", "dec.L1.self_attn.masked_scores", 1, 5, DECODE_GREEDY, "", 0.0f, 0},
    {"dec.L2.cross_attn.weights", "dec.L2.cross_attn.weights", 2, 5, DECODE_GREEDY, "", 0.0f, 0},
    {"dec.L2.cross_attn.weights.lines", "dec.L2.cross_attn.weights", 1, 5, DECODE_GREEDY, "v", 0.0f, 0},  // with the gold dashed
    {"dec.probs", "dec.probs", 0, 3, DECODE_GREEDY, "", 0.0f, 0},
    {"dec.top_k", "dec.top_k", 0, 3, DECODE_GREEDY, "", 0.0f, 0},
    {"dec.choice", "dec.choice", 0, 3, DECODE_GREEDY, "", 0.0f, 0},
    // T = 2 draws the 31st most likely token at step 1: its bar, its rank and u on the shares
    {"dec.sample", "dec.sample", 0, 1, DECODE_SAMPLE, "", 2.0f, 0},
    {"dec.sample.top_k", "dec.sample", 0, 2, DECODE_SAMPLE, "", 1.0f, 3},  // the removed tokens counted, not drawn
    {"dec.beam", "dec.beam", 0, 3, DECODE_BEAM, "", 0.0f, 0},
    {"dec.beam.end", "dec.beam", 0, 7, DECODE_BEAM, "", 0.0f, 0},  // the last step: earlier steps left out, a finished hypothesis
    {"dec.L1.self_attn.weights.zh-TW", "dec.L1.self_attn.weights", 1, 5, DECODE_GREEDY, "z", 0.0f, 0},
    {"dec.loss", "dec.loss", 0, 1, DECODE_TEACHER, "", 0.0f, 0},
    // m × |V|: each row named by the token it should produce, the columns by the vocabulary
    {"dec.probs.teacher", "dec.probs", 0, 1, DECODE_TEACHER, "", 0.0f, 0},
    {"help", "src.tokens", 0, 0, DECODE_GREEDY, "?", 0.0f, 0},
    {"text_box", "src.tokens", 0, 0, DECODE_GREEDY, "e", 0.0f, 0},
};
enum { N_GOLDEN = sizeof goldens / sizeof *goldens };

static Tokens target;  // TARGET in the model's target vocabulary

// The state cmocka passes in is the Golden; the test gets the Fixture.
static int setup_golden(void **state) {
    const Golden *gd = *state;
    AppOptions o = {.model_path = MODEL_PATH, .src = SENTENCE,
                    .decode = {.mode = gd->mode, .temperature = gd->temperature, .top_k = gd->top_k, .seed = 1}};
    if (gd->mode == DECODE_TEACHER) {
        o.decode.target = target.ids;
        o.decode.target_len = target.n;
    }
    Fixture *f = fixture_new(&o);
    f->golden = gd;
    go_to(f->a, gd->stage, gd->head, gd->dstep);
    for (const char *k = gd->keys; *k; k++) {
        if (*k == '?') key(f->a, SDLK_SLASH, KMOD_LSHIFT);
        else if (*k == 't') key(f->a, SDLK_t, KMOD_NONE);
        else if (*k == 'z') key(f->a, SDLK_F2, KMOD_NONE);
        else if (*k == 'g') key(f->a, SDLK_g, KMOD_NONE);
        else if (*k == 'v') key(f->a, SDLK_v, KMOD_NONE);
        else if (*k == 'e') {
            key(f->a, SDLK_l, KMOD_LCTRL);
            keys(f->a, SDLK_BACKSPACE, 5);  // "mat ."
            type(f->a, "我的");
            compose(f->a, "ㄇㄠ");
        }
    }
    *state = f;
    return 0;
}

static void test_golden(void **state) {
    Fixture *f = *state;
    char why[2048];
    app_draw(f->a);
    if (!golden_matches(gfx_surface(f->g), f->golden->name, why, sizeof why)) fail_msg("%s", why);
}

// The same view drawn on a canvas of 100 × 100, of one pixel and of 8K, and
// hovered: nothing may crash or write out of bounds (the sanitizer build).
static void test_golden_sizes(void **state) {
    Fixture *f = *state;
    static const int sizes[][2] = {{100, 100}, {1, 1}, {7680, 4320}};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        if (gfx_resize(f->g, sizes[i][0], sizes[i][1])) fail_msg("gfx_resize %d×%d failed", sizes[i][0], sizes[i][1]);
        app_draw(f->a);
        mouse(f->a, SDL_MOUSEMOTION, sizes[i][0] / 3, sizes[i][1] / 2);
        app_draw(f->a);
    }
}

// ---- export ------------------------------------------------------------------------

static Trace *trace_of(const char *sentence) {
    Tokens tok;
    Error err;
    if (voc_tokenize(model->src, sentence, &tok, &err)) fail_msg("%s", err.msg);
    DecodeOptions opt = {0};
    Trace *t = trace_run(model, tok.ids, tok.n, &opt, &err);
    voc_tokens_deinit(&tok);
    if (!t) fail_msg("trace_run: %s", err.msg);
    return t;
}

static void expect_png(const char *path, int w, int h, Color corner) {
    Image im;
    char why[256];
    if (!png_read(path, &im, why, sizeof why)) fail_msg("%s: %s", path, why);
    int c[3];
    image_pixel(&im, 0, 0, c);
    int want[3] = {(int)(corner >> 16) & 255, (int)(corner >> 8) & 255, (int)corner & 255};
    free(im.rgb);
    if (im.w != w || im.h != h) fail_msg("%s: expected: %d×%d, got: %d×%d", path, w, h, im.w, im.h);
    if (c[0] != want[0] || c[1] != want[1] || c[2] != want[2])
        fail_msg("%s: corner pixel: expected: #%02X%02X%02X (the background), got: #%02X%02X%02X", path, want[0], want[1], want[2], c[0],
                 c[1], c[2]);
}

static void test_render_step_png(void **state) {
    Fixture *f = *state;
    Trace *t = trace_of(SENTENCE);
    int step = trace_find(t, "dec.L2.cross_attn.weights", 2, 5);
    char path[256];
    Error err;
    snprintf(path, sizeof path, "%s/cross.png", f->tmp);
    if (app_render_step_png(model, t, step, 600, 400, 2.0f, false, CMAP_VIRIDIS, font, path, &err)) fail_msg("%s", err.msg);
    expect_png(path, 1200, 800, theme_get(false)->background);
    // its pixels: the golden of the export at twice the density
    Image im;
    char why[256];
    if (!png_read(path, &im, why, sizeof why)) fail_msg("%s: %s", path, why);
    SDL_Surface *s = surface_of(&im);
    free(im.rgb);
    char message[2048];
    bool same = golden_matches(s, "export.dec.L2.cross_attn.weights@2x", message, sizeof message);
    SDL_FreeSurface(s);
    snprintf(path, sizeof path, "%s/dark.png", f->tmp);
    int rc = app_render_step_png(model, t, 0, 300, 200, 1.0f, true, CMAP_MAGMA, font, path, &err);
    trace_free(t);
    if (!same) fail_msg("%s", message);
    if (rc) fail_msg("%s", err.msg);
    expect_png(path, 300, 200, theme_get(true)->background);
}

static void test_render_step_png_unwritable(void **state) {
    Fixture *f = *state;
    Trace *t = trace_of(SENTENCE);
    char file[256], path[512];
    Error err;
    snprintf(file, sizeof file, "%s/a-file", f->tmp);  // a file where a folder should be: fails even for root
    FILE *fp = fopen(file, "w");
    fclose(fp);
    const char *bad[] = {"/nonexistent-folder-tt/x.png", path};
    snprintf(path, sizeof path, "%s/x.png", file);
    for (int i = 0; i < 2; i++) {
        err.msg[0] = '\0';
        expect_int("app_render_step_png into an unwritable folder", app_render_step_png(model, t, 0, 300, 200, 1.0f, false, CMAP_VIRIDIS,
                                                                                       font, bad[i], &err), -1);
        expect_contains("message names the file", err.msg, bad[i]);
    }
    trace_free(t);
}

static void test_export_view(void **state) {
    Fixture *f = *state;
    go_to(f->a, "enc.L1.self_attn.weights", 3, 0);
    char out[512], want[512], csv[512];
    Error err;
    if (app_export_view(f->a, f->tmp, 1.0f, out, sizeof out, &err)) fail_msg("%s", err.msg);
    snprintf(want, sizeof want, "%s/tracer-enc.L1.self_attn.weights-h3.png", f->tmp);
    expect_str("exported file", out, want);
    expect_png(out, 1200, 800, theme_get(false)->background);
    snprintf(csv, sizeof csv, "%s/tracer-enc.L1.self_attn.weights-h3.csv", f->tmp);
    FILE *fp = fopen(csv, "r");
    if (!fp) fail_msg("%s: not written", csv);
    int lines = 0, c;
    while ((c = fgetc(fp)) != EOF) lines += c == '\n';
    fclose(fp);
    expect_int("CSV lines (a header and 7 rows)", lines, 8);
    // saving again keeps the first: the second gets a name of its own, its CSV with it
    if (app_export_view(f->a, f->tmp, 1.0f, out, sizeof out, &err)) fail_msg("%s", err.msg);
    snprintf(want, sizeof want, "%s/tracer-enc.L1.self_attn.weights-h3-2.png", f->tmp);
    expect_str("exported again", out, want);
    snprintf(csv, sizeof csv, "%s/tracer-enc.L1.self_attn.weights-h3-2.csv", f->tmp);
    if (access(csv, F_OK)) fail_msg("%s: not written", csv);
    // a decoder step names its decoding step
    go_to(f->a, "dec.L1.cross_attn.weights", 2, 4);
    if (app_export_view(f->a, f->tmp, 0.5f, out, sizeof out, &err)) fail_msg("%s", err.msg);
    expect_contains("exported file", out, "tracer-dec.L1.cross_attn.weights-h2-step4.png");
    expect_png(out, 600, 400, theme_get(false)->background);
    // a folder that cannot be written
    char bad[512];
    snprintf(bad, sizeof bad, "%s/no/such/folder", f->tmp);
    expect_int("app_export_view into a missing folder", app_export_view(f->a, bad, 1.0f, out, sizeof out, &err), -1);
    expect_contains("message names the folder", err.msg, bad);
}

// Ctrl+S saves into the working folder, and says so (or why not) in the status line.
static void test_ctrl_s(void **state) {
    Fixture *f = *state;
    char cwd[512], gone[512];
    if (!getcwd(cwd, sizeof cwd)) fail_msg("getcwd failed");
    if (chdir(f->tmp)) fail_msg("cannot enter %s", f->tmp);
    go_to(f->a, "dec.top_k", 0, 2);
    app_draw(f->a);
    key(f->a, SDLK_s, KMOD_LCTRL);
    expect_contains("status", app_status(f->a), "Saved");
    expect_contains("status", app_status(f->a), "tracer-dec.top_k-step2.png");
    expect_png("tracer-dec.top_k-step2.png", 2400, 1600, theme_get(false)->background);
    key(f->a, SDLK_s, KMOD_LCTRL | KMOD_LSHIFT);  // the window as it is
    expect_contains("status", app_status(f->a), "tracer-window.png");
    expect_png("tracer-window.png", W, H, theme_get(false)->background);
    key(f->a, SDLK_F2, KMOD_NONE);  // the other language
    key(f->a, SDLK_s, KMOD_LCTRL);
    expect_contains("status", app_status(f->a), "已儲存");
    key(f->a, SDLK_F2, KMOD_NONE);
    // a working folder that has gone: the status says where it could not write
    snprintf(gone, sizeof gone, "%s/gone", f->tmp);
    mkdir(gone, 0700);
    bool entered = chdir(gone) == 0 && rmdir(gone) == 0;
    if (entered) {
        key(f->a, SDLK_s, KMOD_LCTRL);
        expect_contains("status", app_status(f->a), "tracer-dec.top_k-step2.png");
        if (strstr(app_status(f->a), "Saved")) fail_msg("status: expected an error, got: \"%s\"", app_status(f->a));
        app_draw(f->a);
    }
    if (chdir(cwd)) fail_msg("cannot go back to %s", cwd);
    if (!entered) fail_msg("could not set up a removed working folder");
}

// ---- missing files and bad first sentences -----------------------------------------------

static void test_missing_model_and_font(void **state) {
    (void)state;
    Error err;
    Gfx *g = gfx_new(W, H, "/nonexistent/font.ttc", &err);
    assert_null(g);
    expect_contains("message names the font", err.msg, "/nonexistent/font.ttc");
    setenv("TRANSFORMER_TRACER_FONT", "/nonexistent/font.otf", 1);
    const char *found = gfx_find_font(&err);
    unsetenv("TRANSFORMER_TRACER_FONT");
    assert_null(found);
    expect_contains("message names the font", err.msg, "/nonexistent/font.otf");
    g = gfx_new(W, H, font, &err);
    AppOptions o = {.model_path = "/nonexistent/model.safetensors", .src = SENTENCE};
    App *a = app_new(&o, g, &err);
    assert_null(a);
    expect_contains("message names the model", err.msg, "/nonexistent/model.safetensors");
    gfx_free(g);
}

// Typing in the text box sends each key's SDL_KEYDOWN before its text, as
// SDL does: the letters and digits typed must not act as shortcuts.
static void test_typing_is_not_shortcuts(void **state) {
    App *a = ((Fixture *)*state)->a;
    go_to(a, "enc.L1.self_attn.weights", 1, 0);
    int before = app_step(a);
    key(a, SDLK_l, KMOD_LCTRL);
    for (const char *c = " a cat 2"; *c; c++) {
        SDL_Event e = {.type = SDL_KEYDOWN};
        e.key.keysym.sym = (SDL_Keycode)*c;
        app_event(a, &e);
        char t[2] = {*c, '\0'};
        type(a, t);
    }
    app_draw(a);
    expect_int("step after typing \"2\"", app_step(a), before);
    expect_int("playing after typing spaces (app_next_tick)", app_next_tick(a, SDL_GetTicks()) >= 0, 0);
    Uint32 corner = surface_pixel(gfx_surface(((Fixture *)*state)->g), 0, 0) & 0xFFFFFF;
    expect_int("background after typing \"t\" (light theme)", corner, theme_get(false)->background & 0xFFFFFF);
}

// A long export folder: the file name is built in a fixed buffer.
static void test_export_long_folder(void **state) {
    Fixture *f = *state;
    // "DIR/tracer-dec.L1.cross_attn.weights" just over 512 bytes: the head's "-h2" then lands just past
    // the buffer, where the address sanitizer sees it
    char dir[700];
    size_t len = 516 - strlen("/tracer-dec.L1.cross_attn.weights");
    int n = snprintf(dir, sizeof dir, "%s/", f->tmp);
    memset(dir + n, 'x', len - (size_t)n);
    dir[len] = '\0';
    go_to(f->a, "dec.L1.cross_attn.weights", 2, 3);
    char out[1024];
    Error err;
    expect_int("app_export_view into a folder whose name is too long", app_export_view(f->a, dir, 1.0f, out, sizeof out, &err), -1);
}

// A first sentence (--src) that cannot run: the window opens on the default
// sentence and says why the given one was not used.
static void test_bad_first_sentence(void **state) {
    (void)state;
    static const char *const bad[] = {"xyzzy plugh", "the \xFF cat", ""};
    Error err;
    for (int i = 0; i < 3; i++) {
        Gfx *g = gfx_new(W, H, font, &err);
        AppOptions o = {.model_path = MODEL_PATH, .src = bad[i]};
        App *a = app_new(&o, g, &err);
        if (!a) fail_msg("app_new with --src \"%s\": %s", bad[i], err.msg);
        if (!app_status(a)[0]) fail_msg("--src \"%s\": expected a status saying why it was not used, got none (sentence: \"%s\")", bad[i],
                                        app_sentence(a));
        app_draw(a);
        app_free(a);
        gfx_free(g);
    }
}

// ---- suggestions and unknown words in the text box -----------------------------------------

static bool has_word(const char *const *words, int n, const char *w) {
    for (int i = 0; i < n; i++)
        if (!strcmp(words[i], w)) return true;
    return false;
}

static void test_suggestions(void **state) {
    Fixture *f = *state;
    App *a = f->a;
    const char *words[8];
    expect_int("suggestions when not typing", app_suggestions(a, words, 8), 0);
    edit_afresh(a);
    type(a, "the c");
    int n = app_suggestions(a, words, 8);
    if (n < 1 || !has_word(words, n, "cat")) fail_msg("suggestions for \"c\": expected \"cat\" among %d", n);
    for (int i = 0; i < n; i++)
        if (words[i][0] != 'c') fail_msg("suggestion %d for \"c\": expected a word starting with c, got: \"%s\"", i, words[i]);
    app_draw(a);
    // Tab takes the first (the list is in alphabetical order), with a space after it
    key(a, SDLK_TAB, KMOD_NONE);
    expect_int("suggestions after Tab", app_suggestions(a, words, 8), 0);
    type(a, "sits");
    key(a, SDLK_RETURN, KMOD_NONE);
    char want[64];
    edit_afresh(a);
    type(a, "the c");
    n = app_suggestions(a, words, 8);
    snprintf(want, sizeof want, "the %s sits", words[0]);
    // (the sentence the Tab made)
    key(a, SDLK_ESCAPE, KMOD_NONE);  // Esc closes the list, the text box stays
    expect_int("suggestions after Esc", app_suggestions(a, words, 8), 0);
    key(a, SDLK_ESCAPE, KMOD_NONE);  // and a second Esc leaves the text box
    expect_str("sentence after Tab", app_sentence(a), want);
    // ↓ ↓ Enter takes the second; Enter with none chosen runs the sentence
    edit_afresh(a);
    type(a, "the c");
    n = app_suggestions(a, words, 8);
    if (n >= 2) {
        snprintf(want, sizeof want, "the %s ", words[1]);
        key(a, SDLK_DOWN, KMOD_NONE);
        key(a, SDLK_DOWN, KMOD_NONE);
        app_draw(a);
        key(a, SDLK_RETURN, KMOD_NONE);  // takes the word
        key(a, SDLK_RETURN, KMOD_NONE);  // runs "the WORD "
        expect_str("sentence after ↓ ↓ Enter Enter", app_sentence(a), want);
    }
    // multibyte text before the word, and a capital: still found, the word replaced whole
    edit_afresh(a);
    type(a, "我 the MA");
    n = app_suggestions(a, words, 8);
    if (!has_word(words, n, "mat")) fail_msg("suggestions for \"MA\" after 我: expected \"mat\" among %d", n);
    // a click on a suggestion takes it: the list is under the word, one row each
    app_draw(a);
    int lh = gfx_line_height(f->g, 18), pad = 12, row = lh + 4;
    int x = pad + pad / 2 + gfx_text_width(f->g, "我 the ", 18) + 10, y0 = pad + lh + pad + 4;
    int at = 0;
    while (at < n && strcmp(words[at], "mat")) at++;
    mouse(a, SDL_MOUSEBUTTONDOWN, x, y0 + at * row + row / 2);
    mouse(a, SDL_MOUSEBUTTONUP, x, y0 + at * row + row / 2);
    key(a, SDLK_BACKSPACE, KMOD_NONE);  // the space after it
    key(a, SDLK_RETURN, KMOD_NONE);
    expect_str("sentence after a click on \"mat\"", app_sentence(a), "我 the mat");
    // an input method composing: no list over its text
    edit_afresh(a);
    type(a, "the c");
    compose(a, "ㄇ");
    expect_int("suggestions while composing", app_suggestions(a, words, 8), 0);
}

static bool reddish(SDL_Surface *s, int x, int y0, int y1) {
    for (int y = y0; y < y1; y++) {
        Uint32 p = surface_pixel(s, x, y);
        int r = (p >> 16) & 255, g = (p >> 8) & 255, b = p & 255;
        if (r > 150 && g < 140 && b < 140 && r - g > 60) return true;
    }
    return false;
}

static void test_unknown_words_underlined(void **state) {
    Fixture *f = *state;
    App *a = f->a;
    int start[8], end[8];
    edit_afresh(a);
    type(a, "the xyzzy cat Plugh .");
    expect_int("unknown words", app_unknown_spans(a, start, end, 8), 2);
    expect_int("first starts", start[0], 4);
    expect_int("first ends", end[0], 9);
    expect_int("second starts", start[1], 14);
    expect_int("second ends", end[1], 19);
    app_draw(a);
    expect_contains("status names them", app_status(a), "\"xyzzy\"");
    expect_contains("status names them", app_status(a), "\"plugh\"");
    // the underline: red under the unknown word, none under the known one
    int lh = gfx_line_height(f->g, 18), tx = 12 + 6, ty = 12 + 6;
    int x_unknown = tx + gfx_text_width(f->g, "the xy", 18), x_known = tx + gfx_text_width(f->g, "the xyzzy ca", 18);
    SDL_Surface *s = gfx_surface(f->g);
    if (!reddish(s, x_unknown, ty + lh - 6, ty + lh + 2)) fail_msg("no red underline under \"xyzzy\" at x %d", x_unknown);
    if (reddish(s, x_known, ty + lh - 6, ty + lh + 2)) fail_msg("a red underline under \"cat\" at x %d", x_known);
    // multibyte: byte ranges of whole characters
    edit_afresh(a);
    type(a, "the 貓 cat");
    expect_int("unknown words", app_unknown_spans(a, start, end, 8), 1);
    expect_int("貓 starts", start[0], 4);
    expect_int("貓 ends", end[0], 7);
    // fixed: no underline, and the message goes
    key(a, SDLK_HOME, KMOD_NONE);
    keys(a, SDLK_RIGHT, 5);
    key(a, SDLK_BACKSPACE, KMOD_NONE);
    expect_int("unknown words after deleting 貓", app_unknown_spans(a, start, end, 8), 0);
    app_draw(a);
    expect_str("status", app_status(a), "");
    // invalid UTF-8: nothing underlined, nothing crashes; Enter says why
    type(a, "\xFF");
    expect_int("unknown words in invalid UTF-8", app_unknown_spans(a, start, end, 8), 0);
    app_draw(a);
}

// ---- the sentence list ---------------------------------------------------------------

static const char *const LIST_TEXT = "# class list\nthe cat sits on the mat .\nxyzzy plugh\n\ni love nlp\n";

static void test_sentence_list(void **state) {
    (void)state;
    Error err;
    SentenceList *list = sl_parse("class.txt", LIST_TEXT, strlen(LIST_TEXT), &err);
    if (!list) fail_msg("sl_parse: %s", err.msg);
    AppOptions o = {.model_path = MODEL_PATH, .sentences = list};
    Fixture *f = fixture_new(&o);
    App *a = f->a;
    expect_int("index at start", app_list_index(a), 0);
    expect_str("first sentence", app_sentence(a), "the cat sits on the mat .");
    go_to(a, "enc.L1.self_attn.weights", 2, 0);
    key(a, SDLK_PAGEDOWN, KMOD_NONE);  // no Ctrl: still the next layer
    expect_stage(a, "enc.L2.self_attn.weights", 2);
    key(a, SDLK_PAGEDOWN, KMOD_LCTRL);  // a sentence that cannot run: says why, and the next one is still there
    expect_int("index after Ctrl+PageDown", app_list_index(a), 1);
    expect_contains("status", app_status(a), "line 3");
    expect_contains("status", app_status(a), "vocabulary");
    expect_str("sentence kept", app_sentence(a), "the cat sits on the mat .");
    app_draw(a);
    key(a, SDLK_PAGEDOWN, KMOD_LCTRL);
    expect_int("index", app_list_index(a), 2);
    expect_str("third sentence", app_sentence(a), "i love nlp");
    expect_int("step of a new sentence", app_step(a), 0);
    key(a, SDLK_PAGEDOWN, KMOD_LCTRL);
    expect_int("index at the end", app_list_index(a), 2);
    expect_contains("status at the end", app_status(a), "last");
    key(a, SDLK_LEFT, KMOD_LALT);
    expect_int("index after Alt+←", app_list_index(a), 1);
    key(a, SDLK_PAGEUP, KMOD_LCTRL);
    expect_int("index after Ctrl+PageUp", app_list_index(a), 0);
    key(a, SDLK_PAGEUP, KMOD_LCTRL);
    expect_contains("status at the start", app_status(a), "first");
    // while typing too: the list's keys leave the text box
    key(a, SDLK_l, KMOD_LCTRL);
    key(a, SDLK_RIGHT, KMOD_LALT);
    expect_int("index after Alt+→ while typing", app_list_index(a), 1);
    type(a, "q");
    expect_str("typing after the list moved", app_sentence(a), "the cat sits on the mat .");
    // the ▶ button: somewhere right of the text box on the top row
    key(a, SDLK_PAGEUP, KMOD_LCTRL);
    app_draw(a);
    int y = 12 + gfx_line_height(f->g, 18) / 2 + 6, x = W / 2;
    for (; x < W * 3 / 4 && app_list_index(a) == 0; x += 4) {
        mouse(a, SDL_MOUSEBUTTONDOWN, x, y);
        mouse(a, SDL_MOUSEBUTTONUP, x, y);
        app_draw(a);
    }
    expect_int("index after a click on ▶", app_list_index(a), 1);
    teardown((void **)&f);
    sl_free(list);
}

static void test_no_sentence_list(void **state) {
    App *a = ((Fixture *)*state)->a;
    key(a, SDLK_PAGEDOWN, KMOD_LCTRL);
    expect_contains("status", app_status(a), "--sentences");
    expect_int("index", app_list_index(a), -1);
    expect_str("sentence", app_sentence(a), SENTENCE);
}

// ---- settings: model and decoding ----------------------------------------------------------

static void test_settings_keys(void **state) {
    Fixture *f = *state;
    App *a = f->a;
    go_to(a, "dec.L2.cross_attn.weights", 2, 3);
    key(a, SDLK_d, KMOD_NONE);
    assert_true(app_settings_open(a));
    app_draw(a);
    key(a, SDLK_DOWN, KMOD_NONE);   // the strategy
    key(a, SDLK_RIGHT, KMOD_NONE);  // greedy → beam
    expect_int("mode after →", app_decode(a)->mode, DECODE_BEAM);
    expect_str("sentence kept", app_sentence(a), SENTENCE);
    expect_stage(a, "dec.L2.cross_attn.weights", 2);
    expect_int("decoding step kept", trace_step(app_trace(a), app_step(a))->dstep, 3);
    if (trace_find(app_trace(a), "dec.beam", 0, 1) < 0) fail_msg("no dec.beam step after choosing beam search");
    key(a, SDLK_DOWN, KMOD_NONE);   // beam width
    key(a, SDLK_RIGHT, KMOD_NONE);
    expect_int("beam width", app_decode(a)->beam_width, 5);
    key(a, SDLK_LEFT, KMOD_NONE);
    key(a, SDLK_LEFT, KMOD_NONE);
    expect_int("beam width", app_decode(a)->beam_width, 3);
    app_draw(a);
    key(a, SDLK_UP, KMOD_NONE);     // the strategy again: beam → sampling
    key(a, SDLK_RIGHT, KMOD_NONE);
    expect_int("mode", app_decode(a)->mode, DECODE_SAMPLE);
    key(a, SDLK_DOWN, KMOD_NONE);   // temperature
    key(a, SDLK_LEFT, KMOD_NONE);
    if (app_decode(a)->temperature < 0.85f || app_decode(a)->temperature > 0.95f)
        fail_msg("temperature after ←: expected: 0.9, got: %g", (double)app_decode(a)->temperature);
    keys(a, SDLK_DOWN, 3);          // seed
    uint64_t seed = app_decode(a)->seed;
    key(a, SDLK_RIGHT, KMOD_NONE);
    expect_int("seed after →", app_decode(a)->seed, seed + 1);
    app_draw(a);
    // the arrows are the panel's while it is open; closed, they step again
    int step = app_step(a);
    key(a, SDLK_ESCAPE, KMOD_NONE);
    assert_false(app_settings_open(a));
    key(a, SDLK_RIGHT, KMOD_NONE);
    expect_int("step after → with the panel closed", app_step(a), step + 1);
    key(a, SDLK_COMMA, KMOD_LCTRL);
    assert_true(app_settings_open(a));
    key(a, SDLK_d, KMOD_NONE);
    assert_false(app_settings_open(a));
}

static void test_settings_mouse(void **state) {
    Fixture *f = *state;
    App *a = f->a;
    app_draw(a);
    // the button at the top right opens the panel
    int y = 12 + 6;
    for (int x = W - 14; x > W / 2 && !app_settings_open(a); x -= 6) {
        mouse(a, SDL_MOUSEBUTTONDOWN, x, y);
        mouse(a, SDL_MOUSEBUTTONUP, x, y);
    }
    assert_true(app_settings_open(a));
    app_draw(a);
    // a click somewhere on the panel's strategy buttons changes the strategy
    for (int yy = 60; yy < 260 && app_decode(a)->mode == DECODE_GREEDY; yy += 6)
        for (int x = W / 2; x < W && app_decode(a)->mode == DECODE_GREEDY; x += 10) {
            mouse(a, SDL_MOUSEBUTTONDOWN, x, yy);
            mouse(a, SDL_MOUSEBUTTONUP, x, yy);
            app_draw(a);
        }
    if (app_decode(a)->mode == DECODE_GREEDY) fail_msg("no click on the settings panel changed the strategy");
    expect_str("sentence kept", app_sentence(a), SENTENCE);
}

static void test_set_model_and_decode(void **state) {
    Fixture *f = *state;
    App *a = f->a;
    go_to(a, "enc.L1.self_attn.weights", 3, 0);
    const Model *before = app_model(a);
    expect_int("a missing model", app_set_model(a, "/nonexistent/model.safetensors"), -1);
    expect_contains("status names it", app_status(a), "/nonexistent/model.safetensors");
    assert_ptr_equal(app_model(a), before);
    app_draw(a);
    expect_int("the French model", app_set_model(a, TT_TEST_DATA "/../../assets/models/en-fr.safetensors"), 0);
    expect_contains("model name", app_model(a)->name, "fr");
    expect_str("sentence kept", app_sentence(a), SENTENCE);
    expect_stage(a, "enc.L1.self_attn.weights", 3);
    app_draw(a);
    expect_int("back to the Chinese model", app_set_model(a, MODEL_PATH), 0);
    // decoding: bad options refused, the old ones kept
    DecodeOptions d = *app_decode(a);
    d.top_p = 2.0f;
    expect_int("top-p 2", app_set_decode(a, &d), -1);
    expect_contains("status", app_status(a), "top-p");
    d = (DecodeOptions){.mode = DECODE_TEACHER};
    expect_int("teacher forcing without a target", app_set_decode(a, &d), -1);
    expect_int("mode kept", app_decode(a)->mode, DECODE_GREEDY);
    d = (DecodeOptions){.mode = DECODE_SAMPLE, .temperature = 0.7f, .top_k = 3, .seed = 42, .max_steps = 4};
    expect_int("sampling", app_set_decode(a, &d), 0);
    int n;
    trace_output(app_trace(a), &n);
    if (n > 4) fail_msg("output tokens with max_steps 4: expected: at most 4, got: %d", n);
    app_draw(a);
}

// --target: teacher forcing in the window, shown as such, kept across a model change
static void test_teacher_forcing_window(void **state) {
    (void)state;
    AppOptions o = {.model_path = MODEL_PATH, .src = SENTENCE, .target = TARGET};
    Fixture *f = fixture_new(&o);
    App *a = f->a;
    expect_int("mode", app_decode(a)->mode, DECODE_TEACHER);
    if (trace_find(app_trace(a), "dec.loss", 0, 1) < 0) fail_msg("no dec.loss step with --target");
    int n;
    const int *out = trace_output(app_trace(a), &n);
    expect_int("output tokens are the target's", n, target.n);
    for (int i = 0; i < n; i++) expect_int("output token", out[i], target.ids[i]);
    app_draw(a);
    DecodeOptions d = {.mode = DECODE_GREEDY};
    expect_int("to greedy", app_set_decode(a, &d), 0);
    d.mode = DECODE_TEACHER;
    expect_int("back to teacher forcing", app_set_decode(a, &d), 0);
    expect_int("another model, the target tokenized again", app_set_model(a, TT_TEST_DATA "/../../assets/models/en-zh-random.safetensors"), 0);
    if (trace_find(app_trace(a), "dec.loss", 0, 1) < 0) fail_msg("no dec.loss step after the model change");
    teardown((void **)&f);
    // a target that cannot be read is an error at start
    Gfx *g = gfx_new(W, H, font, NULL);
    o.target = "\xFF";
    Error err;
    App *bad = app_new(&o, g, &err);
    assert_null(bad);
    expect_contains("message", err.msg, "target");
    gfx_free(g);
}

// CSV labels with quotes and commas (RFC 4180): a model whose target vocabulary has them
static void test_csv_quotes(void **state) {
    Fixture *f = *state;
    static const char *const src[] = {"<pad>", "<bos>", "<eos>", "<unk>", "the", "cat"};
    static const char *const tgt[] = {"<pad>", "<bos>", "<eos>", "<unk>", "\"", ",", "say\"hi\"", "a,b"};
    Error err;
    Vocab *vs = voc_new(src, 6, &err), *vt = voc_new(tgt, 8, &err);
    if (!vs || !vt) fail_msg("voc_new: %s", err.msg);
    Config cfg = {.d_model = 8, .nhead = 2, .n_enc = 1, .n_dec = 1, .d_ff = 16, .eps = 1e-5f, .max_len = 8};
    Model *m = mdl_new(&cfg, vs, vt, &err);
    if (!m) fail_msg("mdl_new: %s", err.msg);
    mdl_init_random(m, 3);
    char path[256], csv[512], out[512];
    snprintf(path, sizeof path, "%s/quotes.safetensors", f->tmp);
    if (mdl_save(m, path, &err)) fail_msg("%s", err.msg);
    mdl_free(m);
    expect_int("load the model", app_set_model(f->a, path), 0);
    DecodeOptions d = {.show_top = 8};  // every token of the vocabulary as a row of dec.top_k
    expect_int("show_top 8", app_set_decode(f->a, &d), 0);
    go_to(f->a, "dec.top_k", 0, 1);
    if (app_export_view(f->a, f->tmp, 0.5f, out, sizeof out, &err)) fail_msg("%s", err.msg);
    snprintf(csv, sizeof csv, "%s/tracer-dec.top_k-step1.csv", f->tmp);
    char *text;
    size_t len;
    if (fio_read_all(csv, 1 << 20, &text, &len, &err)) fail_msg("%s", err.msg);
    // each label starts a row: quoted, quotes inside doubled
    static const char *const rows[] = {"\n\"\"\"\",", "\n\",\",", "\n\"say\"\"hi\"\"\",", "\n\"a,b\","};
    for (int i = 0; i < 4; i++)
        if (!strstr(text, rows[i])) fail_msg("CSV: expected a row starting %s, got:\n%s", rows[i] + 1, text);
    free(text);
}

// ---- the script runner (its success is the app-script test) -----------------------------

static void test_script_reports_failures(void **state) {
    (void)state;
    AppOptions o = {.model_path = MODEL_PATH, .src = SENTENCE, .script = SCRIPTS "failing.txt"};
    expect_int("window_run with a failing check", window_run(&o), 1);
    o.script = SCRIPTS "malformed.txt";
    expect_int("window_run with a malformed script", window_run(&o), 1);
    o.script = SCRIPTS "no-such-script.txt";
    expect_int("window_run with a missing script", window_run(&o), 1);
}

// ---- Shift+→ across a whole trace ------------------------------------------------

// Walks Shift+→ from the first step to the last on head h, then Shift+← back:
// it lands on every stop of the stage table on that head (and on the head-less
// ones), in order, and only on them; every sub-layer's scores, weights and
// out_proj of every layer and decoding step is among them.
static void walk_stops(App *a, int h) {
    const Trace *t = app_trace(a);
    int n = trace_count(t);
    int *want = calloc((size_t)n, sizeof *want), *got = calloc((size_t)n, sizeof *got), n_want = 0, n_got = 0;
    assert_non_null(want);
    assert_non_null(got);
    for (int i = 1; i < n; i++) {
        const StageInfo *st = trace_step(t, i)->stage;
        if (st->stop && (!st->per_head || trace_step(t, i)->head == h)) want[n_want++] = i;
    }
    go_to(a, "enc.L1.self_attn.q", h, 0);  // the head to stay on
    app_set_step(a, 0);
    while (n_got < n) {
        int from = app_step(a);
        key(a, SDLK_RIGHT, KMOD_LSHIFT);
        if (app_step(a) == from) break;
        got[n_got++] = app_step(a);
    }
    expect_int("Shift+→ stops", n_got, n_want);
    for (int i = 0; i < n_got && i < n_want; i++)
        if (got[i] != want[i]) {
            char id[128];
            fail_msg("Shift+→ stop %d: expected: step %d (%s head %d), got: step %d (%s head %d)", i, want[i],
                     trace_stage_id(trace_step(t, want[i]), id, sizeof id), trace_step(t, want[i])->head, got[i],
                     trace_stage_id(trace_step(t, got[i]), id + 64, 64), trace_step(t, got[i])->head);
        }
    // every sub-layer's scores, weights and output, at every layer and decoding step
    static const char *const enc[] = {"self_attn.scores", "self_attn.weights", "self_attn.out_proj", "norm1", "ffn.out", "norm2"};
    static const char *const dec[] = {"self_attn.scores", "self_attn.masked_scores", "self_attn.weights", "self_attn.out_proj", "norm1",
                                      "cross_attn.scores", "cross_attn.weights", "cross_attn.out_proj", "norm2", "ffn.out", "norm3"};
    const Model *m = app_model(a);
    int last_dstep = 0, checked = 0;
    for (int i = 0; i < n; i++) last_dstep = trace_step(t, i)->dstep > last_dstep ? trace_step(t, i)->dstep : last_dstep;
    for (int d = 0; d <= last_dstep; d++)
        for (int part = 0; part < 2; part++)
            for (int l = 1; l <= (part ? m->cfg.n_dec : d ? 0 : m->cfg.n_enc); l++)
                for (size_t k = 0; k < (part ? sizeof dec / sizeof *dec : sizeof enc / sizeof *enc); k++) {
                    char id[128];
                    snprintf(id, sizeof id, "%s.L%d.%s", part ? "dec" : "enc", l, part ? dec[k] : enc[k]);
                    int layer;
                    const StageInfo *st = stage_parse_id(id, &layer);
                    assert_non_null(st);
                    int i = trace_find(t, id, st->per_head ? h : 0, part ? d : 0);
                    if (i < 0) continue;  // the encoder is there once; a decoding step that does not run the decoder
                    bool found = false;
                    for (int j = 0; j < n_got && !found; j++) found = got[j] == i;
                    if (!found) fail_msg("Shift+→ skipped %s head %d decoding step %d (step %d)", id, h, d, i);
                    checked++;
                }
    if (checked < 6 * m->cfg.n_enc + 11 * m->cfg.n_dec) fail_msg("expected: every sub-layer checked, got: %d stops", checked);
    // and back through the same stops
    int back = n_got - 2;
    app_set_step(a, got[n_got - 1]);
    for (; back >= 0; back--) {
        key(a, SDLK_LEFT, KMOD_LSHIFT);
        if (app_step(a) != got[back]) fail_msg("Shift+← %d: expected: step %d, got: %d", n_got - 1 - back, got[back], app_step(a));
    }
    key(a, SDLK_LEFT, KMOD_LSHIFT);
    expect_int("Shift+← ends at the first step", app_step(a), 0);
    free(want);
    free(got);
}

static void test_shift_walk_stops(void **state) {
    App *a = ((Fixture *)*state)->a;
    walk_stops(a, 1);
    walk_stops(a, 3);
    DecodeOptions d = *app_decode(a);
    d.mode = DECODE_BEAM;
    d.beam_width = 3;
    expect_int("beam search", app_set_decode(a, &d), 0);
    walk_stops(a, 2);
}

// ---- the view data: worked out once per trace, drawing only reads it ----------------

// Pixels of rect r of the canvas that are not the colour bg.
static int pixels_not(Gfx *g, SDL_Rect r, Color bg) {
    SDL_Surface *s = gfx_surface(g);
    int n = 0;
    for (int y = r.y; y < r.y + r.h; y++)
        for (int x = r.x; x < r.x + r.w; x++) n += (surface_pixel(s, x, y) & 0xFFFFFFu) != (bg & 0xFFFFFFu);
    return n;
}

// The gold alignment is read from the corpus once, when the trace is new: the
// window goes on showing it with the corpus gone, until the next trace.
static void test_gold_once_per_trace(void **state) {
    (void)state;
    char dir[64] = "/tmp/tt-test-gold-XXXXXX", cmd[2048], model_path[128];
    if (!mkdtemp(dir)) fail_msg("mkdtemp: cannot make %s", dir);
    snprintf(model_path, sizeof model_path, "%s/models/en-zh.safetensors", dir);
    // the model beside a corpus of one line: the sentence's, with its gold alignment
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/models' '%s/corpus/en-zh' && ln -s '%s' '%s' && grep -h '^%s\t' '%s' > '%s/corpus/en-zh/train.tsv'", dir,
             dir, MODEL_PATH, model_path, SENTENCE, TT_TEST_DATA "/../../assets/corpus/en-zh/train.tsv", dir);
    if (system(cmd) != 0) fail_msg("could not make the corpus: %s", cmd);
    Error err;
    Gfx *g = gfx_new(W, H, font, &err);
    AppOptions o = {.model_path = model_path, .src = SENTENCE};
    App *a = g ? app_new(&o, g, &err) : NULL;
    if (!a) fail_msg("%s", err.msg);
    go_to(a, "dec.L2.cross_attn.weights", 1, 5);
    app_draw(a);
    if (!app_button(a, SDLK_a).w) fail_msg("expected: the gold switch on cross-attention");
    snprintf(cmd, sizeof cmd, "%s/corpus/en-zh/train.tsv", dir);
    if (remove(cmd)) fail_msg("could not remove %s", cmd);
    for (int i = 0; i < 3; i++) {  // other steps and back, the grid and the lines: nothing is read again
        go_to(a, "src.tokens", 0, 0);
        app_draw(a);
        go_to(a, "dec.L2.cross_attn.weights", 1, 5);
        key(a, i == 1 ? SDLK_g : SDLK_v, KMOD_NONE);
        app_draw(a);
        if (!app_button(a, SDLK_a).w) fail_msg("expected: the gold switch after the corpus is gone (drawing %d)", i);
    }
    if (app_set_sentence(a, SENTENCE)) fail_msg("app_set_sentence failed");  // a new trace: the corpus is looked at again
    go_to(a, "dec.L2.cross_attn.weights", 1, 5);
    app_draw(a);
    expect_int("the gold switch of a new trace without the corpus", app_button(a, SDLK_a).w, 0);
    app_free(a);
    gfx_free(g);
    remove_tree(dir);
}

// The heads' average is made with the view data, once for the group of
// heads: every head's step shares it, and its values are the heads' mean.
// One export's data holds only what its step shows.
static void test_view_data_average(void **state) {
    (void)state;
    Trace *t = trace_of(SENTENCE);
    Error err;
    ViewData *d = view_data_new(model, t, -1, &err);
    if (!d) fail_msg("view_data_new: %s", err.msg);
    int nh = model->cfg.nhead, first = trace_find(t, "enc.L1.self_attn.weights", 1, 0);
    const Step *avg = view_data_average(d, first);
    if (!avg) fail_msg("expected: the average of enc.L1.self_attn.weights");
    expect_int("the average's head", avg->head, 0);
    double maxdiff = 0.0;
    for (int h = 1; h <= nh; h++) {
        int i = trace_find(t, "enc.L1.self_attn.weights", h, 0);
        if (view_data_average(d, i) != avg) fail_msg("head %d: expected: the same average as head 1", h);
    }
    for (int k = 0; k < avg->rows * avg->cols; k++) {
        double sum = 0.0;
        for (int h = 1; h <= nh; h++) sum += trace_step(t, trace_find(t, "enc.L1.self_attn.weights", h, 0))->data[k];
        maxdiff = fmax(maxdiff, fabs(sum / nh - avg->data[k]));
    }
    if (maxdiff > 1e-6) fail_msg("average of the heads: maxdiff %g", maxdiff);
    expect_int("no average of a step that is not a head's weights", view_data_average(d, 0) != NULL, 0);
    const char *file = NULL;
    const CorpusPair *gold = view_data_gold(d, &file);
    if (!gold || !file) fail_msg("expected: the gold alignment of \"%s\"", SENTENCE);
    expect_int("the same gold when asked again", view_data_gold(d, NULL) == gold, 1);
    view_data_free(d);
    // the token strip's export: no corpus search, no averages
    d = view_data_new(model, t, 0, &err);
    if (!d) fail_msg("view_data_new: %s", err.msg);
    expect_int("gold for the token strip", view_data_gold(d, NULL) != NULL, 0);
    expect_int("averages for the token strip", view_data_average(d, first) != NULL, 0);
    view_data_free(d);
    // the cross-attention's export: its gold, and no average of other steps
    d = view_data_new(model, t, trace_find(t, "dec.L2.cross_attn.weights", 1, 5), &err);
    if (!d) fail_msg("view_data_new: %s", err.msg);
    expect_int("gold for cross-attention", view_data_gold(d, NULL) != NULL, 1);
    expect_int("an average of another step", view_data_average(d, first) != NULL, 0);
    view_data_free(d);
    trace_free(t);
}

// Without its data (memory ran out) the heads grid says so, in the view's
// language, instead of drawing nothing; no cell is under the mouse.
static void test_view_without_data_says_so(void **state) {
    (void)state;
    Trace *t = trace_of(SENTENCE);
    Error err;
    Gfx *g = gfx_new(W, H, font, &err);
    if (!g) fail_msg("gfx_new: %s", err.msg);
    const Theme *th = theme_get(false);
    SDL_Rect area = {0, 0, W, H};
    ViewState vs = {.model = model, .trace = t, .step = trace_find(t, "enc.L1.self_attn.weights", 1, 0), .theme = th,
                    .hover_row = -1, .hover_col = -1, .font_px = 18, .opt = {.heads_grid = true}, .lang = LANG_EN};
    int drawn[2];
    for (int lang = 0; lang < 2; lang++) {
        vs.lang = lang ? LANG_ZH_TW : LANG_EN;
        gfx_clear(g, th->background);
        view_draw(g, area, &vs);
        drawn[lang] = pixels_not(g, area, th->background);
        int lh = gfx_line_height(g, 18);
        expect_int("pixels drawn below the message's line", pixels_not(g, (SDL_Rect){0, lh, W, H - lh}, th->background), 0);
        int r, c;
        expect_int("a cell under the mouse", view_hit(g, area, &vs, W / 2, H / 2, &r, &c), 0);
    }
    if (drawn[0] < 50 || drawn[1] < 50) fail_msg("expected: a message, got: %d and %d pixels drawn", drawn[0], drawn[1]);
    if (drawn[0] == drawn[1]) fail_msg("expected: the message in each language, got: the same %d pixels", drawn[0]);
    // with its data, the grid
    ViewData *d = view_data_new(model, t, vs.step, &err);
    if (!d) fail_msg("view_data_new: %s", err.msg);
    vs.data = d;
    gfx_clear(g, th->background);
    view_draw(g, area, &vs);
    int lh = gfx_line_height(g, 18);
    if (pixels_not(g, (SDL_Rect){0, lh, W, H - lh}, th->background) < 1000) fail_msg("expected: the heads grid with its data");
    view_data_free(d);
    gfx_free(g);
    trace_free(t);
}

// Each stage's kind as an enum says what its string says: the views choose by it.
static void test_stage_kinds(void **state) {
    (void)state;
    static const char *const kinds[] = {[STAGE_KIND_TOKENS] = "tokens", [STAGE_KIND_MATRIX] = "matrix", [STAGE_KIND_ATTENTION] = "attention",
                                        [STAGE_KIND_SCORES] = "scores", [STAGE_KIND_MASK] = "mask",     [STAGE_KIND_PROBS] = "probs",
                                        [STAGE_KIND_TOP_K] = "top_k",   [STAGE_KIND_BEAM] = "beam",     [STAGE_KIND_CHOICE] = "choice",
                                        [STAGE_KIND_LOSS] = "loss"};
    for (int i = 0; i < stage_count(); i++) {
        const StageInfo *s = stage_at(i);
        if (strcmp(kinds[s->kind_id], s->kind)) fail_msg("%s: expected: kind %s, got: %s", s->name, s->kind, kinds[s->kind_id]);
    }
}

int main(void) {
    Error err;
    // video for the clipboard (Ctrl+V); never a window on the screen
    if (!getenv("SDL_VIDEODRIVER")) setenv("SDL_VIDEODRIVER", "offscreen", 1);
    if (SDL_Init(SDL_INIT_VIDEO) < 0) {
        fprintf(stderr, "SDL_Init: %s\n", SDL_GetError());
        return 1;
    }
    font = gfx_find_font(&err);
    if (!font) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    model = mdl_load(MODEL_PATH, &err);
    if (!model || voc_tokenize(model->tgt, TARGET, &target, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    const struct CMUnitTest behaviour[] = {
        cmocka_unit_test_setup_teardown(test_arrows_home_end, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shift_arrows_go_by_stage, setup, teardown),
        cmocka_unit_test_setup_teardown(test_page_keys_change_layer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_number_keys_pick_head, setup, teardown),
        cmocka_unit_test_setup_teardown(test_timeline_click_and_drag, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hover_names_the_cell, setup, teardown),
        cmocka_unit_test_setup_teardown(test_text_needs_ctrl_l, setup, teardown),
        cmocka_unit_test_setup_teardown(test_typing_multibyte, setup, teardown),
        cmocka_unit_test_setup_teardown(test_input_method, setup, teardown),
        cmocka_unit_test_setup_teardown(test_only_unknown_words_keep_text, setup, teardown),
        cmocka_unit_test_setup_teardown(test_too_long_sentence_keeps_text, setup, teardown),
        cmocka_unit_test_setup_teardown(test_invalid_utf8_keeps_text, setup, teardown),
        cmocka_unit_test_setup_teardown(test_huge_text, setup, teardown),
        cmocka_unit_test_setup_teardown(test_text_box_click_and_scroll, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fit_keeps_the_end, setup, teardown),
        cmocka_unit_test_setup_teardown(test_math_typesets, setup, teardown),
        cmocka_unit_test_setup_teardown(test_view_switch_buttons, setup, teardown),
        cmocka_unit_test_setup_teardown(test_base_scale_and_zoom, setup, teardown),
        cmocka_unit_test_setup_teardown(test_help_and_play_buttons, setup, teardown),
        cmocka_unit_test_setup_teardown(test_long_model_name, setup, teardown),
        cmocka_unit_test_setup_teardown(test_too_small_says_so, setup, teardown),
        cmocka_unit_test_setup_teardown(test_paste, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tiny_and_huge_canvas, setup, teardown),
        cmocka_unit_test_setup_teardown(test_draw_on_window_surface, setup, teardown),
        cmocka_unit_test_setup_teardown(test_render_step_png, setup, teardown),
        cmocka_unit_test_setup_teardown(test_render_step_png_unwritable, setup, teardown),
        cmocka_unit_test_setup_teardown(test_export_view, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ctrl_s, setup, teardown),
        cmocka_unit_test(test_missing_model_and_font),
        cmocka_unit_test(test_bad_first_sentence),
        cmocka_unit_test_setup_teardown(test_typing_is_not_shortcuts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_export_long_folder, setup, teardown),
        cmocka_unit_test_setup_teardown(test_suggestions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_words_underlined, setup, teardown),
        cmocka_unit_test(test_sentence_list),
        cmocka_unit_test_setup_teardown(test_no_sentence_list, setup, teardown),
        cmocka_unit_test_setup_teardown(test_settings_keys, setup, teardown),
        cmocka_unit_test_setup_teardown(test_settings_mouse, setup, teardown),
        cmocka_unit_test_setup_teardown(test_set_model_and_decode, setup, teardown),
        cmocka_unit_test(test_teacher_forcing_window),
        cmocka_unit_test_setup_teardown(test_csv_quotes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shift_walk_stops, setup, teardown),
        cmocka_unit_test(test_gold_once_per_trace),
        cmocka_unit_test(test_view_data_average),
        cmocka_unit_test(test_view_without_data_says_so),
        cmocka_unit_test(test_stage_kinds),
        cmocka_unit_test(test_script_reports_failures),  // last: window_run ends with SDL_Quit
    };
    enum { N_BEHAVIOUR = sizeof behaviour / sizeof *behaviour };
    // the goldens: one test each, named after its file, and each view at extreme sizes
    struct CMUnitTest tests[N_BEHAVIOUR + 2 * N_GOLDEN];
    static char sized[N_GOLDEN][96];
    for (int i = 0; i < N_GOLDEN; i++) {
        tests[i] = (struct CMUnitTest){goldens[i].name, test_golden, setup_golden, teardown, (void *)&goldens[i]};
        snprintf(sized[i], sizeof sized[i], "%s at 100x100, 1x1 and 7680x4320", goldens[i].name);
        tests[N_GOLDEN + i] = (struct CMUnitTest){sized[i], test_golden_sizes, setup_golden, teardown, (void *)&goldens[i]};
    }
    for (int i = 0; i < N_BEHAVIOUR; i++) tests[2 * N_GOLDEN + i] = behaviour[i];
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    voc_tokens_deinit(&target);
    mdl_free(model);
    TTF_Quit();
    SDL_Quit();
    return failed;
}
