// The window loop's parts that run without a display: drawing on the
// window's own surface, canvases of any size, and the script runner
// (its success is the app-script test). Shared helpers: app_fixture.h.

#include "app_fixture.h"

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
    const GfxPixels *canvas = gfx_pixels(f->g);
    SDL_Surface *own = SDL_CreateRGBSurfaceWithFormat(0, W, H, 32, SDL_PIXELFORMAT_ARGB8888);
    assert_non_null(own);
    SDL_ConvertPixels(W, H, SDL_PIXELFORMAT_ARGB8888, canvas->pixels, canvas->pitch, SDL_PIXELFORMAT_ARGB8888, own->pixels, own->pitch);
    SDL_Surface *screen = SDL_CreateRGBSurfaceWithFormat(0, W, H, 32, SDL_PIXELFORMAT_RGB888);
    SDL_Surface *odd = SDL_CreateRGBSurfaceWithFormat(0, W, H, 16, SDL_PIXELFORMAT_RGB565);
    assert_non_null(own);
    assert_non_null(screen);
    assert_non_null(odd);
    SDL_FillRect(screen, NULL, 0x00FF00FF);  // whatever was there before
    assert_int_equal(window_draw_on(f->g, screen), 0);
    expect_int("surface drawn on", gfx_pixels(f->g)->pixels == screen->pixels, 1);
    app_draw(f->a);
    long differ = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) differ += (surface_pixel(screen, x, y) & 0xFFFFFF) != (surface_pixel(own, x, y) & 0xFFFFFF);
    expect_int("pixels that differ from the app's own canvas", (int)differ, 0);
    expect_int("RGB565 refused", window_draw_on(f->g, odd), -1);
    expect_int("still drawing on the framebuffer", gfx_pixels(f->g)->pixels == screen->pixels, 1);
    // back to a canvas of its own: the framebuffer is the caller's, not freed here
    assert_int_equal(gfx_resize(f->g, W, H), 0);
    expect_int("own canvas again", gfx_pixels(f->g)->pixels != screen->pixels, 1);
    SDL_FillRect(screen, NULL, 0x00FF00FF);
    app_draw(f->a);
    expect_int("framebuffer no longer drawn on", (int)(surface_pixel(screen, W / 2, H / 2) & 0xFFFFFF), 0xFF00FF);
    SDL_FreeSurface(own);
    SDL_FreeSurface(screen);
    SDL_FreeSurface(odd);
}

// The window opens inside any screen: nine tenths of its usable area, with no
// minimum larger than a small projector's (it was 1280 × 800 at least).
static void test_initial_size_fits_the_screen(void **state) {
    (void)state;
    static const int screens[][2] = {{1024, 768}, {1280, 720}, {1366, 740}, {1920, 1050}, {3840, 2160}, {640, 480}};
    for (size_t i = 0; i < sizeof screens / sizeof *screens; i++) {
        int w = 1280, h = 800, sw = screens[i][0], sh = screens[i][1];
        window_initial_size(sw, sh, &w, &h);
        if (w > sw * 9 / 10 || h > sh * 9 / 10 || w < sw * 9 / 10 - 1 || h < sh * 9 / 10 - 1)
            fail_msg("screen %d×%d: expected: %d×%d, got: %d×%d", sw, sh, sw * 9 / 10, sh * 9 / 10, w, h);
    }
    int w = 1280, h = 800;
    window_initial_size(0, 0, &w, &h);  // the screen's area unknown: the size asked for stays
    expect_int("width with no screen area", w, 1280);
    expect_int("height with no screen area", h, 800);
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_tiny_and_huge_canvas, setup, teardown),
        cmocka_unit_test_setup_teardown(test_draw_on_window_surface, setup, teardown),
        cmocka_unit_test(test_initial_size_fits_the_screen),
        cmocka_unit_test(test_script_reports_failures),  // last: window_run ends with SDL_Quit
    };
    return fixture_main(tests, sizeof tests / sizeof *tests);
}
