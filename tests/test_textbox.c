// The text box: typing, input methods, pasting, invalid UTF-8, huge text,
// clicking and scrolling, suggestions and unknown words, driven by the SDL
// events a person would cause. Shared helpers: app_fixture.h.

#include "app_fixture.h"

#include <stdlib.h>
#include <unistd.h>

#include "fileio.h"

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

// Ctrl+L selects the whole sentence, so what is typed replaces it; Shift+arrows
// select; Ctrl+A selects all; an arrow alone ends the selection.
static void test_select_replaces(void **state) {
    App *a = ((Fixture *)*state)->a;
    key(a, SDLK_l, KMOD_LCTRL);
    type(a, "the mat .");
    key(a, SDLK_RETURN, KMOD_NONE);
    expect_str("typed over the selected sentence", app_sentence(a), "the mat .");
    key(a, SDLK_l, KMOD_LCTRL);
    key(a, SDLK_RIGHT, KMOD_NONE);  // the selection ends at its end: typing adds
    type(a, " .");
    key(a, SDLK_LEFT, KMOD_LSHIFT);
    key(a, SDLK_LEFT, KMOD_LSHIFT);
    key(a, SDLK_BACKSPACE, KMOD_NONE);  // the two characters selected, gone at once
    key(a, SDLK_RETURN, KMOD_NONE);
    expect_str("after Shift+← twice and Backspace", app_sentence(a), "the mat .");
    key(a, SDLK_l, KMOD_LCTRL);
    key(a, SDLK_END, KMOD_NONE);
    key(a, SDLK_a, KMOD_LCTRL);
    type(a, "the cat");
    key(a, SDLK_RETURN, KMOD_NONE);
    expect_str("after Ctrl+A", app_sentence(a), "the cat");
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

// ---- suggestions and unknown words in the text box -----------------------------------------

static bool has_word(const char *const *words, int n, const char *w) {
    for (int i = 0; i < n; i++)
        if (!strcmp(words[i], w)) return true;
    return false;
}

// Typing text afresh offers exactly want (n words), in that order.
static void expect_suggestions(App *a, const char *text, const char *const *want, int n, const char *what) {
    const char *words[8];
    edit_afresh(a);
    type(a, text);
    int got = app_suggestions(a, words, 8);
    if (got != n) fail_msg("suggestions for \"%s\" %s: expected %d, got %d", text, what, n, got);
    for (int i = 0; i < n; i++)
        if (strcmp(words[i], want[i])) fail_msg("suggestion %d for \"%s\" %s: expected \"%s\", got \"%s\"", i, text, what, want[i], words[i]);
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
    // ranked by how often the word follows the word before it in the source side of the model's
    // corpus, then by how often it occurs at all, then alphabetically: after "the", car 1064,
    // chair 1063, cat 417, cake 306, ...
    expect_str("first suggestion for \"c\" (most frequent after \"the\")", words[0], "car");
    expect_str("second suggestion for \"c\"", words[1], "chair");
    // after "the": car 1064, cat 417, cake 306, cats 215, cakes 181, cars 66
    const char *ranked[] = {"car", "cat", "cake", "cats", "cakes", "cars"};
    expect_suggestions(a, "the ca", ranked, 6, "in corpus order");
    // after "small": cat 60, cake 56, cats 47, cakes 45; never car or cars, which then come by frequency
    const char *after_small[] = {"cat", "cake", "cats", "cakes", "car", "cars"};
    expect_suggestions(a, "the small ca", after_small, 6, "after \"small\"");
    // a model without a corpus at hand: alphabetical order
    key(a, SDLK_ESCAPE, KMOD_NONE);
    key(a, SDLK_ESCAPE, KMOD_NONE);
    // (the same model under another name in a folder of its own: no corpus beside it)
    char dir[] = "/tmp/tt_textbox_XXXXXX", copy[64], *bytes;
    size_t len;
    Error err = {{0}};
    if (!mkdtemp(dir)) fail_msg("mkdtemp failed");
    snprintf(copy, sizeof copy, "%s/mine.safetensors", dir);
    if (fio_read_all(MODEL_PATH, 1 << 26, &bytes, &len, &err) || fio_write_atomic(copy, bytes, len, &err)) fail_msg("%s", err.msg);
    free(bytes);
    int rc = app_set_model(a, copy);
    unlink(copy);
    rmdir(dir);
    if (rc) fail_msg("%s", app_status(a));
    const char *alphabetical[] = {"cake", "cakes", "car", "cars", "cat", "cats"};
    expect_suggestions(a, "the ca", alphabetical, 6, "without a corpus");
    key(a, SDLK_ESCAPE, KMOD_NONE);
    key(a, SDLK_ESCAPE, KMOD_NONE);
    if (app_set_model(a, MODEL_PATH)) fail_msg("%s", app_status(a));
    edit_afresh(a);
    type(a, "the c");
    n = app_suggestions(a, words, 8);
    expect_str("first suggestion for \"c\" with the corpus again", words[0], "car");
    app_draw(a);
    // Tab takes the first, with a space after it
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

static bool reddish(const GfxPixels *s, int x, int y0, int y1) {
    for (int y = y0; y < y1; y++) {
        Uint32 p = canvas_pixel(s, x, y);
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
    const GfxPixels *s = gfx_pixels(f->g);
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_text_needs_ctrl_l, setup, teardown),
        cmocka_unit_test_setup_teardown(test_select_replaces, setup, teardown),
        cmocka_unit_test_setup_teardown(test_typing_multibyte, setup, teardown),
        cmocka_unit_test_setup_teardown(test_input_method, setup, teardown),
        cmocka_unit_test_setup_teardown(test_only_unknown_words_keep_text, setup, teardown),
        cmocka_unit_test_setup_teardown(test_too_long_sentence_keeps_text, setup, teardown),
        cmocka_unit_test_setup_teardown(test_invalid_utf8_keeps_text, setup, teardown),
        cmocka_unit_test_setup_teardown(test_huge_text, setup, teardown),
        cmocka_unit_test_setup_teardown(test_text_box_click_and_scroll, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fit_keeps_the_end, setup, teardown),
        cmocka_unit_test_setup_teardown(test_paste, setup, teardown),
        cmocka_unit_test_setup_teardown(test_suggestions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_words_underlined, setup, teardown),
    };
    return fixture_main(tests, sizeof tests / sizeof *tests);
}
