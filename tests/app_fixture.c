#include "app_fixture.h"

enum { ALLOWABLE_ERROR = 3 * 6 * 6 };  // about 6 levels in each of R, G and B
static const double MAX_DIFFERING = 0.005;

const char *font;
Model *model;

// ---- fixtures ----------------------------------------------------------------

Fixture *fixture_new(const AppOptions *o) {
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

int setup(void **state) {
    AppOptions o = {.model_path = MODEL_PATH, .src = SENTENCE};
    *state = fixture_new(&o);
    return 0;
}

void remove_tree(const char *dir) {
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

int teardown(void **state) {
    Fixture *f = *state;
    app_free(f->a);
    gfx_free(f->g);
    remove_tree(f->tmp);
    free(f);
    return 0;
}

// ---- events ------------------------------------------------------------------

// A key press and release; returns what app_event said of the press.
bool key(App *a, SDL_Keycode sym, Uint16 mod) {
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

void keys(App *a, SDL_Keycode sym, int times) {
    for (int i = 0; i < times; i++) key(a, sym, KMOD_NONE);
}

// Typed text, in events of at most 31 bytes as SDL delivers it (a paste
// arrives the same way). Returns what app_event said of the last one.
bool type(App *a, const char *text) {
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
void compose(App *a, const char *text) {
    SDL_Event e = {.type = SDL_TEXTEDITING};
    snprintf(e.edit.text, sizeof e.edit.text, "%s", text);
    e.edit.start = (Sint32)strlen(text);
    app_event(a, &e);
}

bool mouse(App *a, Uint32 type, int x, int y) {
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
void edit_afresh_of(App *a, int chars) {
    key(a, SDLK_l, KMOD_LCTRL);
    key(a, SDLK_END, KMOD_NONE);
    keys(a, SDLK_BACKSPACE, chars);
}
void edit_afresh(App *a) { edit_afresh_of(a, 200); }

// ---- the state ---------------------------------------------------------------

const char *stage(const App *a, char *buf, size_t size) {
    return trace_stage_id(trace_step(app_trace(a), app_step(a)), buf, size);
}

int head(const App *a) { return trace_step(app_trace(a), app_step(a))->head; }

void expect_stage(const App *a, const char *id, int want_head) {
    char buf[128];
    expect_str("stage", stage(a, buf, sizeof buf), id);
    if (want_head >= 0) expect_int("head", head(a), want_head);
}

void go_to(App *a, const char *id, int h, int dstep) {
    int i = trace_find(app_trace(a), id, h, dstep);
    if (i < 0) fail_msg("no step %s head %d decoding step %d", id, h, dstep);
    app_set_step(a, i);
}

// ---- images --------------------------------------------------------------------

bool png_read(const char *path, Image *im, char *why, size_t size) {
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

Uint32 surface_pixel(SDL_Surface *s, int x, int y) {
    return ((const Uint32 *)((const Uint8 *)s->pixels + (size_t)y * s->pitch))[x];
}

Uint32 canvas_pixel(const GfxPixels *p, int x, int y) {
    return ((const Uint32 *)((const Uint8 *)p->pixels + (size_t)y * (size_t)p->pitch))[x];
}

GfxPixels pixels_of(SDL_Surface *s) { return (GfxPixels){s->pixels, s->w, s->h, s->pitch}; }

void image_pixel(const Image *im, int x, int y, int rgb[3]) {
    const uint8_t *p = im->rgb + ((size_t)y * im->w + x) * 3;
    rgb[0] = p[0];
    rgb[1] = p[1];
    rgb[2] = p[2];
}

// An ARGB8888 surface of the image, as the canvas is.
SDL_Surface *surface_of(const Image *im) {
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

void save_rgb(const char *path, const Image *im) {
    SDL_Surface *s = surface_of(im);
    GfxPixels p = pixels_of(s);
    Error err;
    if (img_save_png(path, &p, &err)) fprintf(stderr, "%s\n", err.msg);
    SDL_FreeSurface(s);
}

// Compares the canvas with tests/golden/NAME.png, or writes it there when
// TT_UPDATE_GOLDEN=1. On a difference returns false with the reason in message.
bool golden_matches(const GfxPixels *s, const char *name, char *message, size_t message_size) {
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
        snprintf(message, message_size, "%s: %s (to make it: TT_UPDATE_GOLDEN=1 meson test -C build views)", golden, why);
        return false;
    }
    long differing = 0, total = (long)s->w * s->h;
    Image diff = {s->w, s->h, calloc((size_t)total, 3)};
    bool same_size = ref.w == s->w && ref.h == s->h;
    for (int y = 0; same_size && y < s->h; y++)
        for (int x = 0; x < s->w; x++) {
            Uint32 p = canvas_pixel(s, x, y);
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

Tokens target;

int fixture_main(const struct CMUnitTest *tests, size_t n) {
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
    int failed = _cmocka_run_group_tests("tests", tests, n, NULL, NULL);
    voc_tokens_deinit(&target);
    mdl_free(model);
    SDL_Quit();
    return failed;
}
