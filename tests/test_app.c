// The App without a window: navigation, the page's buttons and zoom,
// missing files, the sentence list, the settings, Shift+→ across a trace,
// driven by the SDL events a person would cause and drawn onto a Gfx canvas,
// as the window draws it. Shared helpers: app_fixture.h.

#include "app_fixture.h"
#include "lessonmode.h"
#include "settings_panel.h"

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
// changes, so the test does not depend on the layout. The encoder has at
// least a quarter of it, the decoding steps share the rest.
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
    // the source and the encoder take the first quarter (at least): the middle is a decoding step, an eighth the encoder
    const Step *mid = trace_step(app_trace(a), app_step(a));
    if (mid->dstep < 1) fail_msg("click at the timeline's middle: expected: a decoding step, got: step %d (decoding step 0)", app_step(a));
    mouse(a, SDL_MOUSEBUTTONUP, W / 2, y);
    SDL_Rect play = app_button(a, SDLK_SPACE);
    int left = play.x + play.w;
    mouse(a, SDL_MOUSEBUTTONDOWN, left + (W - left) / 8, y);
    const Step *eighth = trace_step(app_trace(a), app_step(a));
    if (eighth->dstep != 0 || eighth->stage->part != STAGE_ENCODER)
        fail_msg("click an eighth along the timeline: expected: an encoder step, got: step %d (decoding step %d)", app_step(a), eighth->dstep);
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

// ---- the page: formula, buttons, zoom, the top row, a window too small -----------

// Formulas: "_" lowers the letters after it, smaller, and leaves no
// underscore; "ᵀ" and "^(…)" raise theirs; a formula too wide is cut.
// The lines gfx_text_wrap draws for text in width w, into lines (at most 8), their count returned.
static int wrapped_lines(Gfx *g, const char *text, int w, char lines[8][48]) {
    GfxTextMark marks[8];
    int n = 0;
    gfx_record_text(g, marks, 8, &n);
    gfx_text_wrap(g, 0, 0, w, text, 18, 0xFF000000u, true);
    gfx_record_text(g, NULL, 0, NULL);
    for (int i = 0; i < n; i++) snprintf(lines[i], sizeof lines[i], "%s", marks[i].text);
    return n;
}

// Where a line may break: between Chinese characters but not inside a short
// word set off by spaces (自然), not around a sign between a formula's terms
// (6 × 64), but around one between words; and the narrowest width that wraps
// without cutting is the widest of those units.
static void test_wrap_keeps_words(void **state) {
    Gfx *g = ((Fixture *)*state)->g;
    char lines[8][48];
    int w = gfx_text_width(g, "\xE6\x88\x91 \xE6\x84\x9B \xE8\x87\xAA", 18);  // 我 愛 自: the word 自然 does not fit after them
    int n = wrapped_lines(g, "\xE6\x88\x91 \xE6\x84\x9B \xE8\x87\xAA\xE7\x84\xB6 \xE8\xAA\x9E\xE8\xA8\x80", w, lines);  // 我 愛 自然 語言
    for (int i = 0; i < n; i++)
        if (strstr(lines[i], "\xE8\x87\xAA") && !strstr(lines[i], "\xE8\x87\xAA\xE7\x84\xB6")) fail_msg("line %d, \"%s\": 自然 broken", i + 1, lines[i]);
    n = wrapped_lines(g, "rows 6 \xC3\x97 64 here", gfx_text_width(g, "rows 6 \xC3\x97", 18), lines);  // rows 6 × 64 here
    for (int i = 0; i < n; i++)
        if (strstr(lines[i], "6 \xC3\x97") && !strstr(lines[i], "6 \xC3\x97 64")) fail_msg("line %d, \"%s\": 6 × 64 broken", i + 1, lines[i]);
    n = wrapped_lines(g, "Look-ahead + padding mask", gfx_text_width(g, "Look-ahead + pad", 18), lines);
    if (n < 2) fail_msg("\"Look-ahead + padding mask\" narrower than it: expected: two lines or more, got: %d", n);
    for (int i = 0; i < n; i++)
        if (strstr(lines[i], "\xE2\x80\xA6")) fail_msg("line %d, \"%s\": cut short", i + 1, lines[i]);  // no "…"
    expect_int("widest unit", gfx_text_widest_unit(g, "2 \xC2\xB7 d \xC2\xB7 d_ff + d_ff + d", 18), gfx_text_width(g, "d_ff + d_ff + d", 18));
}

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
    const GfxPixels *s = gfx_pixels(g);
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

// A font file cut short in place while the program runs (the font was mapped
// and this ended it with SIGBUS): text whose glyphs are not yet read is
// drawn with what is left, or not at all, and nothing fails.
static void test_font_cut_short(void **state) {
    (void)state;
    char dir[] = "font-cut-XXXXXX", copy[64];
    assert_non_null(mkdtemp(dir));
    snprintf(copy, sizeof copy, "%s/font.ttc", dir);
    char *data;
    size_t len;
    Error err;
    assert_int_equal(fio_read_all(font, (size_t)256 << 20, &data, &len, &err), 0);
    assert_int_equal(fio_write_atomic(copy, data, len, &err), 0);
    free(data);
    Gfx *g = gfx_new(W, H, copy, &err);
    if (!g) fail_msg("gfx_new: %s", err.msg);
    assert_true(gfx_text(g, 10, 10, "the cat", 20, 0xff000000u, GFX_LEFT) > 0);
    assert_int_equal(truncate(copy, 4096), 0);
    gfx_text(g, 10, 40, "貓坐在墊子上 xyzQWZ", 40, 0xff000000u, GFX_LEFT);  // glyphs not read before
    gfx_free(g);
    assert_int_equal(unlink(copy), 0);
    assert_int_equal(rmdir(dir), 0);
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
    Uint32 corner = canvas_pixel(gfx_pixels(((Fixture *)*state)->g), 0, 0) & 0xFFFFFF;
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
    keys(a, SDLK_DOWN, 2);          // <pad> <bos> <unk>: never chosen → may be chosen, and back
    assert_false(app_decode(a)->allow_special);
    key(a, SDLK_RIGHT, KMOD_NONE);
    assert_true(app_decode(a)->allow_special);
    assert_true(trace_options(app_trace(a))->allow_special);
    app_draw(a);
    key(a, SDLK_LEFT, KMOD_NONE);
    assert_false(trace_options(app_trace(a))->allow_special);
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

// The model line goes through the models beside the model, not their
// training histories (NAME.snapshots.safetensors, which are not models):
// every one of them loads, and the third → comes back to the first.
static void test_settings_models(void **state) {
    Fixture *f = *state;
    App *a = f->a;
    key(a, SDLK_d, KMOD_NONE);  // the model is the panel's first line
    for (int i = 0; i < 3; i++) {
        key(a, SDLK_RIGHT, KMOD_NONE);
        if (strstr(app_status(a), "snapshots") || strstr(app_status(a), "Could not")) fail_msg("model %d: %s", i + 1, app_status(a));
        if (i < 2 && !strcmp(app_model_path(a), MODEL_PATH)) fail_msg("model %d: still the first one", i + 1);
    }
    expect_str("the model after three →", app_model_path(a), MODEL_PATH);
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

// Saves a random model of one layer and two heads with these vocabularies under f->tmp.
static void save_small_model(const Fixture *f, const char *const *src, int n_src, const char *const *tgt, int n_tgt, const char *name, char *path, size_t size) {
    Error err;
    Vocab *vs = voc_new(src, n_src, &err), *vt = voc_new(tgt, n_tgt, &err);
    if (!vs || !vt) fail_msg("voc_new: %s", err.msg);
    Config cfg = {.d_model = 8, .nhead = 2, .n_enc = 1, .n_dec = 1, .d_ff = 16, .eps = 1e-5f, .max_len = 8};
    Model *m = mdl_new(&cfg, vs, vt, &err);
    if (!m) fail_msg("mdl_new: %s", err.msg);
    mdl_init_random(m, 3);
    snprintf(path, size, "%s/%s", f->tmp, name);
    if (mdl_save(m, path, &err)) fail_msg("%s", err.msg);
    mdl_free(m);
}

// Switching to a model without some silenced parts lets those go, with a note in
// the status line; the parts it has stay silenced.
static void test_model_switch_keeps_what_it_has(void **state) {
    Fixture *f = *state;
    static const char *const src[] = {"<pad>", "<bos>", "<eos>", "<unk>", "the", "cat"};
    static const char *const tgt[] = {"<pad>", "<bos>", "<eos>", "<unk>", "貓"};
    char path[256], names[256];
    save_small_model(f, src, 6, tgt, 5, "small.safetensors", path, sizeof path);
    DecodeOptions d = *app_decode(f->a);
    if (abl_parse("dec.L2.cross_attn.H3,enc.L1.ffn,dec.L1.self_attn.H2,enc.L2.self_attn", &d.ablate, names, sizeof names)) fail_msg("%s", names);
    expect_int("silence four parts", app_set_decode(f->a, &d), 0);
    expect_int("a model of one layer and two heads", app_set_model(f->a, path), 0);
    expect_str("kept", abl_format(&app_decode(f->a)->ablate, names, sizeof names), "enc.L1.ffn,dec.L1.self_attn.H2");
    expect_str("the trace's", abl_format(&trace_options(app_trace(f->a))->ablate, names, sizeof names), "enc.L1.ffn,dec.L1.self_attn.H2");
    expect_contains("status: the model", app_status(f->a), "small.safetensors");
    expect_contains("status: what was let go", app_status(f->a), "this model has no dec.L2.cross_attn.H3,enc.L2.self_attn: no longer silenced");
    app_draw(f->a);
    expect_int("back to the shipped model", app_set_model(f->a, MODEL_PATH), 0);
    expect_str("still silenced", abl_format(&trace_options(app_trace(f->a))->ablate, names, sizeof names), "enc.L1.ffn,dec.L1.self_attn.H2");
    if (strstr(app_status(f->a), "no longer silenced")) fail_msg("expected: no note when nothing is let go, got: %s", app_status(f->a));
    app_draw(f->a);
}

// In lesson mode, in 繁體中文, the settings panel's sliders are dragged as in
// explore mode: the trace runs again at each value, the lesson stays on its
// step, and the next step brings the lesson's own settings back.
static void test_sliders_in_lesson_mode(void **state) {
    (void)state;
    AppOptions o = {.model_path = MODEL_PATH, .lesson = TT_TEST_DATA "/lesson-mode.lesson", .lessons_dir = TT_TEST_DATA "/../../lessons"};
    Fixture *f = fixture_new(&o);
    App *a = f->a;
    key(a, SDLK_F2, KMOD_NONE);
    keys(a, SDLK_RIGHT, 3);
    expect_stage(a, "dec.beam", 0);
    expect_int("the lesson's beam width", trace_options(app_trace(a))->beam_width, 3);
    key(a, SDLK_d, KMOD_NONE);
    app_draw(a);
    SDL_Rect b = app_slider(a, ROW_BEAM);
    if (b.w <= 0 || b.x + b.w > W) fail_msg("expected: the beam width's slider inside the canvas, got: x %d, width %d", b.x, b.w);
    mouse(a, SDL_MOUSEBUTTONDOWN, b.x, b.y + b.h / 2);
    expect_int("beam width at the left end", trace_options(app_trace(a))->beam_width, 1);
    mouse(a, SDL_MOUSEMOTION, b.x + b.w + 40, b.y);  // dragged past the right end
    expect_int("beam width dragged to the right end", trace_options(app_trace(a))->beam_width, 16);
    mouse(a, SDL_MOUSEBUTTONUP, b.x + b.w + 40, b.y);
    expect_int("the lesson's step", lm_step(app_lessons(a)), 3);
    expect_stage(a, "dec.beam", 0);
    app_draw(a);
    DecodeOptions d = *app_decode(a);
    d.mode = DECODE_SAMPLE;
    expect_int("sampling", app_set_decode(a, &d), 0);
    app_draw(a);
    SDL_Rect t = app_slider(a, ROW_TEMPERATURE);
    if (t.w <= 0 || t.x + t.w > W) fail_msg("expected: the temperature's slider inside the canvas, got: x %d, width %d", t.x, t.w);
    mouse(a, SDL_MOUSEBUTTONDOWN, t.x + t.w - 1, t.y + t.h / 2);
    mouse(a, SDL_MOUSEBUTTONUP, t.x + t.w - 1, t.y + t.h / 2);
    if (!(trace_options(app_trace(a))->temperature == 5.0f)) fail_msg("temperature at the right end: got: %g", (double)trace_options(app_trace(a))->temperature);
    expect_int("still the lesson's step", lm_step(app_lessons(a)), 3);
    // type zoomed far: the panel shrinks to stay on the canvas, its sliders still there
    for (int i = 0; i < 6; i++) key(a, SDLK_EQUALS, KMOD_CTRL);
    app_draw(a);
    SDL_Rect box = app_settings_box(a);
    if (box.w <= 0 || box.y + box.h > H || box.x < 0 || box.x + box.w > W)
        fail_msg("expected: the settings panel inside the %dx%d canvas, got: %d,%d %dx%d", W, H, box.x, box.y, box.w, box.h);
    t = app_slider(a, ROW_TEMPERATURE);
    if (t.w <= 0 || t.y < box.y || t.y + t.h > box.y + box.h) fail_msg("expected: the temperature's slider in the panel, got: y %d, height %d", t.y, t.h);
    key(a, SDLK_d, KMOD_NONE);  // closed: the arrows step the lesson again
    key(a, SDLK_RIGHT, KMOD_NONE);
    expect_stage(a, "dec.loss", 0);
    key(a, SDLK_LEFT, KMOD_NONE);
    expect_stage(a, "dec.beam", 0);
    expect_int("the lesson's beam width again", trace_options(app_trace(a))->beam_width, 3);
    app_draw(a);
    teardown((void **)&f);
}

// CSV labels with quotes and commas (RFC 4180): a model whose target vocabulary has them
static void test_csv_quotes(void **state) {
    Fixture *f = *state;
    static const char *const src[] = {"<pad>", "<bos>", "<eos>", "<unk>", "the", "cat"};
    static const char *const tgt[] = {"<pad>", "<bos>", "<eos>", "<unk>", "\"", ",", "say\"hi\"", "a,b"};
    Error err;
    char path[256], csv[512], out[512];
    save_small_model(f, src, 6, tgt, 8, "quotes.safetensors", path, sizeof path);
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_arrows_home_end, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shift_arrows_go_by_stage, setup, teardown),
        cmocka_unit_test_setup_teardown(test_page_keys_change_layer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_number_keys_pick_head, setup, teardown),
        cmocka_unit_test_setup_teardown(test_timeline_click_and_drag, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hover_names_the_cell, setup, teardown),
        cmocka_unit_test_setup_teardown(test_math_typesets, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wrap_keeps_words, setup, teardown),
        cmocka_unit_test_setup_teardown(test_view_switch_buttons, setup, teardown),
        cmocka_unit_test_setup_teardown(test_base_scale_and_zoom, setup, teardown),
        cmocka_unit_test_setup_teardown(test_help_and_play_buttons, setup, teardown),
        cmocka_unit_test_setup_teardown(test_long_model_name, setup, teardown),
        cmocka_unit_test_setup_teardown(test_too_small_says_so, setup, teardown),
        cmocka_unit_test(test_missing_model_and_font),
        cmocka_unit_test(test_bad_first_sentence),
        cmocka_unit_test_setup_teardown(test_typing_is_not_shortcuts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_export_long_folder, setup, teardown),
        cmocka_unit_test(test_sentence_list),
        cmocka_unit_test_setup_teardown(test_no_sentence_list, setup, teardown),
        cmocka_unit_test_setup_teardown(test_settings_keys, setup, teardown),
        cmocka_unit_test_setup_teardown(test_settings_models, setup, teardown),
        cmocka_unit_test_setup_teardown(test_settings_mouse, setup, teardown),
        cmocka_unit_test_setup_teardown(test_set_model_and_decode, setup, teardown),
        cmocka_unit_test(test_teacher_forcing_window),
        cmocka_unit_test(test_font_cut_short),
        cmocka_unit_test_setup_teardown(test_csv_quotes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_model_switch_keeps_what_it_has, setup, teardown),
        cmocka_unit_test(test_sliders_in_lesson_mode),
        cmocka_unit_test_setup_teardown(test_shift_walk_stops, setup, teardown),
    };
    return fixture_main(tests, sizeof tests / sizeof *tests);
}
