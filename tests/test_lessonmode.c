// Lesson mode without a window: an App with a lesson, driven by the keys and
// typed text a teacher would use, drawn onto a headless canvas.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "archmap.h"
#include "fileio.h"
#include "lessonmode.h"
#include "vocab.h"

#define ASSETS TT_TEST_DATA "/../../assets"
#define MODEL_PATH ASSETS "/models/en-zh.safetensors"
#define LESSON TT_TEST_DATA "/lesson-mode.lesson"
#define LESSONS_DIR TT_TEST_DATA "/../../lessons"

static const char *font;

typedef struct {
    Gfx *g;
    App *a;
    LessonMode *lm;
} Fixture;

static Fixture *open_app(const char *lesson, bool picker) {
    Fixture *f = calloc(1, sizeof *f);
    Error err;
    f->g = gfx_new(1280, 800, font, &err);
    if (!f->g) fail_msg("gfx_new: %s", err.msg);
    AppOptions o = {.model_path = MODEL_PATH, .lesson = lesson, .lessons_dir = LESSONS_DIR, .picker = picker};
    f->a = app_new(&o, f->g, &err);
    if (!f->a) fail_msg("app_new: %s", err.msg);
    f->lm = app_lessons(f->a);
    assert_non_null(f->lm);
    return f;
}

static int setup(void **state) {
    *state = open_app(LESSON, false);
    return 0;
}

static int teardown(void **state) {
    Fixture *f = *state;
    app_free(f->a);
    gfx_free(f->g);
    free(f);
    return 0;
}

static void key(App *a, SDL_Keycode sym, Uint16 mod) {
    SDL_Event e = {.type = SDL_KEYDOWN};
    e.key.state = SDL_PRESSED;
    e.key.keysym.sym = sym;
    e.key.keysym.mod = mod;
    app_event(a, &e);
    e.type = SDL_KEYUP;
    e.key.state = SDL_RELEASED;
    app_event(a, &e);
}

static void type(App *a, const char *text) {
    SDL_Event e = {.type = SDL_TEXTINPUT};
    snprintf(e.text.text, sizeof e.text.text, "%s", text);
    app_event(a, &e);
}

static const char *stage(const App *a) {
    static char id[128];
    return trace_stage_id(trace_step(app_trace(a), app_step(a)), id, sizeof id);
}

#define assert_stage(a, want)                                                                  \
    do {                                                                                       \
        if (strcmp(stage(a), want)) fail_msg("expected stage: %s, got: %s", want, stage(a)); \
    } while (0)

static void test_steps_show_their_stage_and_view(void **state) {
    Fixture *f = *state;
    assert_true(lm_running(f->lm));
    assert_int_equal(lm_step_count(f->lm), 5);
    assert_stage(f->a, "src.tokens");
    char said[256];
    assert_string_equal(lm_status(f->lm, LANG_EN, said, sizeof said), "Lesson mode test \xC2\xB7 Lesson step 1 of 5");
    assert_string_equal(lm_status(f->lm, LANG_ZH_TW, said, sizeof said), "課程模式測試 \xC2\xB7 單元第 1 步，共 5 步");
    key(f->a, SDLK_RIGHT, KMOD_NONE);
    assert_int_equal(lm_step(f->lm), 1);
    assert_stage(f->a, "enc.L1.self_attn.weights");
    assert_int_equal(trace_step(app_trace(f->a), app_step(f->a))->head, 2);
    assert_true(app_view(f->a)->heads_grid);
    assert_int_equal(app_view(f->a)->n_highlight, 1);
    assert_int_equal(app_view(f->a)->highlight[0].row, 1);
    assert_int_equal(app_view(f->a)->highlight[0].col, 0);
    // the fifth decoding step of the greedy run
    key(f->a, SDLK_SPACE, KMOD_NONE);
    assert_stage(f->a, "dec.L2.cross_attn.weights");
    assert_int_equal(trace_step(app_trace(f->a), app_step(f->a))->dstep, 5);
    assert_false(app_view(f->a)->heads_grid);  // a step's view is its own
    // beam search for this step only
    key(f->a, SDLK_PAGEDOWN, KMOD_NONE);
    assert_stage(f->a, "dec.beam");
    assert_int_equal(app_decode(f->a)->mode, DECODE_BEAM);
    assert_int_equal(app_decode(f->a)->beam_width, 3);
    // teacher forcing: one pass, a loss at every position
    key(f->a, SDLK_RIGHT, KMOD_NONE);
    assert_stage(f->a, "dec.loss");
    assert_int_equal(trace_step(app_trace(f->a), app_step(f->a))->rows, 6);
    // past the end: stays, and says so
    key(f->a, SDLK_RIGHT, KMOD_NONE);
    assert_int_equal(lm_step(f->lm), 4);
    assert_non_null(strstr(app_status(f->a), "last step"));
    // back, and back to greedy
    key(f->a, SDLK_LEFT, KMOD_NONE);
    key(f->a, SDLK_PAGEUP, KMOD_NONE);
    assert_int_equal(lm_step(f->lm), 2);
    assert_int_equal(app_decode(f->a)->mode, DECODE_GREEDY);
    key(f->a, SDLK_END, KMOD_NONE);
    assert_int_equal(lm_step(f->lm), 4);
    key(f->a, SDLK_HOME, KMOD_NONE);
    assert_int_equal(lm_step(f->lm), 0);
    assert_stage(f->a, "src.tokens");
}

static void test_question_then_reveal(void **state) {
    Fixture *f = *state;
    key(f->a, SDLK_RETURN, KMOD_NONE);  // no question on step 1: nothing to reveal
    assert_false(lm_revealed(f->lm));
    key(f->a, SDLK_RIGHT, KMOD_NONE);
    key(f->a, SDLK_2, KMOD_NONE);  // a choice, not head 2
    assert_int_equal(trace_step(app_trace(f->a), app_step(f->a))->head, 2);
    assert_false(lm_revealed(f->lm));
    assert_true(app_view(f->a)->hide_shape);  // the page's shape line would answer it
    app_draw(f->a);
    key(f->a, SDLK_RETURN, KMOD_NONE);
    assert_true(lm_revealed(f->lm));
    assert_false(app_view(f->a)->hide_shape);
    app_draw(f->a);
    key(f->a, SDLK_RETURN, KMOD_NONE);
    assert_false(lm_revealed(f->lm));
    key(f->a, SDLK_RETURN, KMOD_NONE);
    key(f->a, SDLK_RIGHT, KMOD_NONE);  // a new step starts hidden
    key(f->a, SDLK_LEFT, KMOD_NONE);
    assert_false(lm_revealed(f->lm));
}

static void test_escape_explores_and_comes_back(void **state) {
    Fixture *f = *state;
    key(f->a, SDLK_RIGHT, KMOD_NONE);
    key(f->a, SDLK_RIGHT, KMOD_NONE);
    int at = app_step(f->a);
    key(f->a, SDLK_ESCAPE, KMOD_NONE);
    assert_false(lm_running(f->lm));
    assert_false(lm_panel_shown(f->lm));
    // every key is the explorer's now
    key(f->a, SDLK_RIGHT, KMOD_NONE);
    key(f->a, SDLK_RIGHT, KMOD_NONE);
    assert_int_equal(app_step(f->a), at + 2);
    assert_int_equal(lm_step(f->lm), 2);
    key(f->a, SDLK_g, KMOD_NONE);
    app_draw(f->a);
    key(f->a, SDLK_ESCAPE, KMOD_NONE);
    assert_true(lm_running(f->lm));
    assert_int_equal(lm_step(f->lm), 2);
    assert_int_equal(app_step(f->a), at);
    assert_false(app_view(f->a)->heads_grid);
}

static void test_own_sentence_rebinds(void **state) {
    Fixture *f = *state;
    key(f->a, SDLK_RIGHT, KMOD_NONE);
    key(f->a, SDLK_RIGHT, KMOD_NONE);  // decoding step 5
    key(f->a, SDLK_l, KMOD_CTRL);
    for (int i = 0; i < 20; i++) key(f->a, SDLK_BACKSPACE, KMOD_NONE);
    type(f->a, "i sleep");
    key(f->a, SDLK_RETURN, KMOD_NONE);
    assert_string_equal(app_sentence(f->a), "i sleep");
    // the model says 我 睡覺 <eos>: three decoding steps, so step 5 does not apply, and says so
    assert_int_equal(lm_step(f->lm), 2);
    assert_non_null(strstr(lm_problem(f->lm), "not step 5"));
    app_draw(f->a);
    // the others re-bind to the new sentence
    key(f->a, SDLK_LEFT, KMOD_NONE);
    assert_stage(f->a, "enc.L1.self_attn.weights");
    assert_int_equal(trace_step(app_trace(f->a), app_step(f->a))->cols, 2);
    assert_string_equal(lm_problem(f->lm), "");
    key(f->a, SDLK_END, KMOD_NONE);  // teacher forcing on the model's own translation
    assert_stage(f->a, "dec.loss");
    assert_int_equal(trace_step(app_trace(f->a), app_step(f->a))->rows, 3);
    // R: back to the lesson's sentence
    key(f->a, SDLK_r, KMOD_NONE);
    assert_string_equal(app_sentence(f->a), "i love nlp");
    assert_int_equal(trace_step(app_trace(f->a), app_step(f->a))->rows, 6);
}

static void test_bad_sentence_keeps_the_lesson(void **state) {
    Fixture *f = *state;
    key(f->a, SDLK_RIGHT, KMOD_NONE);
    int at = app_step(f->a);
    key(f->a, SDLK_l, KMOD_CTRL);
    type(f->a, " zebra\xff");
    key(f->a, SDLK_RETURN, KMOD_NONE);
    assert_true(lm_running(f->lm));
    assert_int_equal(app_step(f->a), at);
    assert_string_equal(app_sentence(f->a), "i love nlp");
}

static void test_broken_lesson_stays_usable(void **state) {
    (void)state;
    Fixture *f = open_app(TT_TEST_DATA "/lessons/unknown-stage.lesson", false);
    // well-formed, but its stages are not in the trace: it runs, and each step says why
    assert_true(lm_running(f->lm));
    assert_non_null(strstr(lm_problem(f->lm), "this trace has no stage \"enc.L9.self_attn.weights\""));
    app_draw(f->a);
    teardown((void **)&f);
    f = open_app(TT_TEST_DATA "/lessons/syntax.lesson", false);
    assert_false(lm_running(f->lm));
    assert_true(lm_panel_shown(f->lm));
    assert_non_null(strstr(lm_problem(f->lm), "syntax.lesson:"));
    app_draw(f->a);
    // its sentence is open to explore
    assert_string_equal(app_sentence(f->a), "I love NLP");
    int at = app_step(f->a);
    key(f->a, SDLK_RIGHT, KMOD_NONE);
    assert_int_equal(app_step(f->a), at + 1);
    key(f->a, SDLK_ESCAPE, KMOD_NONE);
    assert_false(lm_panel_shown(f->lm));
    teardown((void **)&f);
    f = open_app(TT_TEST_DATA "/lessons/no-such-file.lesson", false);
    assert_true(lm_panel_shown(f->lm));
    assert_non_null(strstr(lm_problem(f->lm), "no-such-file.lesson"));
    key(f->a, SDLK_RIGHT, KMOD_NONE);
    assert_int_equal(app_step(f->a), 1);
    teardown((void **)&f);
}

static void test_picker(void **state) {
    (void)state;
    Fixture *f = open_app(NULL, true);
    assert_true(lm_picker_open(f->lm));
    app_draw(f->a);
    key(f->a, SDLK_RIGHT, KMOD_NONE);  // the picker has the keys
    assert_int_equal(app_step(f->a), 0);
    key(f->a, SDLK_DOWN, KMOD_NONE);
    key(f->a, SDLK_RETURN, KMOD_NONE);
    assert_false(lm_picker_open(f->lm));
    assert_true(lm_running(f->lm));
    assert_int_equal(lm_step(f->lm), 0);
    key(f->a, SDLK_o, KMOD_NONE);
    assert_true(lm_picker_open(f->lm));
    key(f->a, SDLK_ESCAPE, KMOD_NONE);
    assert_false(lm_picker_open(f->lm));
    assert_true(lm_running(f->lm));
    teardown((void **)&f);
}

static void move_mouse(App *a, int x, int y) {
    SDL_Event e = {.type = SDL_MOUSEMOTION};
    e.motion.x = x;
    e.motion.y = y;
    app_event(a, &e);
}

// A picker too short for every lesson scrolls: the last lesson, chosen with
// End, is drawn where the mouse finds it; the wheel moves the choice.
static void test_picker_scrolls(void **state) {
    (void)state;
    Fixture *f = open_app(NULL, true);
    key(f->a, SDLK_END, KMOD_NONE);
    int last = lm_picked(f->lm);  // however many lessons ship
    assert_true(last >= 5);
    key(f->a, SDLK_HOME, KMOD_NONE);
    if (gfx_resize(f->g, 900, 520)) fail_msg("gfx_resize: cannot make a 900 × 520 canvas");  // room for two or three lessons
    key(f->a, SDLK_END, KMOD_NONE);
    app_draw(f->a);                  // scrolled to the last lesson
    key(f->a, SDLK_HOME, KMOD_NONE);  // no redraw: the mouse meets what that frame drew
    bool seen_last = false;
    for (int y = 0; y < 520 && !seen_last; y += 4) {
        move_mouse(f->a, 450, y);
        seen_last = lm_picked(f->lm) == last;  // the last lesson, under the mouse
    }
    if (!seen_last) fail_msg("expected: the last lesson drawn (and so under the mouse somewhere) after End");
    key(f->a, SDLK_HOME, KMOD_NONE);
    for (int i = 0; i < 3; i++) {
        SDL_Event wheel = {.type = SDL_MOUSEWHEEL};
        wheel.wheel.y = -1;  // down
        app_event(f->a, &wheel);
    }
    assert_int_equal(lm_picked(f->lm), 3);
    teardown((void **)&f);
}

// The picker's choice follows the pointer only when it really moves: a
// motion event with the pointer at rest over a lesson leaves the choice made
// with the keys, and Enter opens that one.
static void test_picker_resting_pointer(void **state) {
    (void)state;
    Fixture *f = open_app(NULL, true);
    app_draw(f->a);
    key(f->a, SDLK_END, KMOD_NONE);
    int y = 0;
    for (; y < 800 && lm_picked(f->lm) != 0; y += 4) move_mouse(f->a, 450, y);  // real motion onto the first lesson
    assert_int_equal(lm_picked(f->lm), 0);
    key(f->a, SDLK_DOWN, KMOD_NONE);
    key(f->a, SDLK_DOWN, KMOD_NONE);
    assert_int_equal(lm_picked(f->lm), 2);
    move_mouse(f->a, 450, y - 4);  // the pointer at rest where it was, over the first lesson
    assert_int_equal(lm_picked(f->lm), 2);
    move_mouse(f->a, 451, y - 4);  // it moves: the choice follows it again
    assert_int_equal(lm_picked(f->lm), 0);
    key(f->a, SDLK_DOWN, KMOD_NONE);
    move_mouse(f->a, 451, y - 4);
    key(f->a, SDLK_RETURN, KMOD_NONE);  // opens the second lesson, not the one under the pointer
    assert_false(lm_picker_open(f->lm));
    assert_true(lm_running(f->lm));
    assert_int_equal(lm_picked(f->lm), 1);
    teardown((void **)&f);
}

// Every formula line with words in it has its 繁體中文 form: each entry of
// the table is met in some trace (none is misspelt), and none is left over.
// given:, table: and code: reach the view as copies, are drawn in both languages,
// and go with their step.
static void test_given_matrix_and_code(void **state) {
    (void)state;
    Fixture *f = open_app(TT_TEST_DATA "/lesson-given.lesson", false);
    assert_true(lm_running(f->lm));
    const ViewOptions *v = app_view(f->a);
    assert_int_equal(v->given.rows, 4);
    assert_int_equal(v->given.cols, 4);
    assert_true(v->given.values[1] < -1e30f);
    if (v->given.values[4] != 1.2f) fail_msg("given[1][0] expected: 1.2, got: %g", (double)v->given.values[4]);
    assert_string_equal(v->given.row_labels[3], "d");
    assert_string_equal(v->given.col_labels[0], "");
    assert_string_equal(v->given.title[1], "課程的例子");
    assert_string_equal(v->code, "scores = np.where(mask == 0, -1e9, scores)");
    app_draw(f->a);
    key(f->a, SDLK_F2, KMOD_NONE);
    app_draw(f->a);
    key(f->a, SDLK_RIGHT, KMOD_NONE);
    assert_int_equal(app_view(f->a)->given.rows, 0);
    assert_string_equal(app_view(f->a)->code, "");
    app_draw(f->a);
    key(f->a, SDLK_RIGHT, KMOD_NONE);  // a table, in both languages
    const ViewTable *tb = &app_view(f->a)->table;
    assert_int_equal(tb->rows, 2);
    assert_int_equal(tb->cols, 2);
    assert_string_equal(tb->cells[0][1][0], "memory");
    assert_string_equal(tb->cells[1][1][0], "記憶");
    assert_string_equal(tb->cells[1][1][1], "n × d_model");
    assert_string_equal(tb->title[1], "形狀");
    app_draw(f->a);
    key(f->a, SDLK_F2, KMOD_NONE);
    app_draw(f->a);
    teardown((void **)&f);
}

static void test_formulas_in_chinese(void **state) {
    (void)state;
    Error err;
    Model *m = mdl_load(MODEL_PATH, &err);
    assert_non_null(m);
    int tgt[] = {voc_id(m->tgt, "我")}, src[] = {voc_id(m->src, "i"), voc_id(m->src, "love")};
    DecodeOptions runs[] = {{.mode = DECODE_GREEDY}, {.mode = DECODE_BEAM, .beam_width = 2}, {.mode = DECODE_SAMPLE, .seed = 1},
                            {.mode = DECODE_TEACHER, .target = tgt, .target_len = 1}, {.mode = DECODE_GREEDY, .pad_to = 4}};
    char seen[64][160];
    int n_seen = 0, translated = 0;
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        Trace *t = trace_run(m, src, 2, &runs[r], &err);
        assert_non_null(t);
        for (int i = 0; i < trace_count(t); i++) {
            const char *f = trace_step(t, i)->formula;
            bool known = false;
            for (int k = 0; k < n_seen && !known; k++) known = !strcmp(seen[k], f);
            if (known || n_seen == 64) continue;
            snprintf(seen[n_seen++], sizeof seen[0], "%s", f);
            translated += strcmp(i18n_formula(LANG_ZH_TW, f), f) != 0;
            assert_string_equal(i18n_formula(LANG_EN, f), f);
        }
        trace_free(t);
    }
    // the sixteen formulas with words (i18n.c); the rest are mathematics only
    if (translated != 16) fail_msg("expected: 16 formulas in 繁體中文, got: %d", translated);
    mdl_free(m);
}

// Any size of window, with the panel, in both languages: no crash, nothing drawn outside.
// The experiments a lesson sets: lesson 06 ends on its model beside the
// untrained twin (compare:), which the step before does not show; lesson 09
// turns the KV cache view on (view: kv-cache).
static void test_lesson_experiments(void **state) {
    (void)state;
    Fixture *f = open_app(LESSONS_DIR "/06-cross-attention.lesson", false);
    key(f->a, SDLK_END, KMOD_NONE);
    assert_true(app_twin_page(f->a));
    app_draw(f->a);
    key(f->a, SDLK_LEFT, KMOD_NONE);
    assert_false(app_twin_page(f->a));
    key(f->a, SDLK_RIGHT, KMOD_NONE);
    assert_true(app_twin_page(f->a));
    key(f->a, SDLK_HOME, KMOD_NONE);
    assert_false(app_twin_page(f->a));
    teardown((void **)&f);
    f = open_app(LESSONS_DIR "/09-decoder-numbers.lesson", false);
    bool seen = false;
    for (int i = 0; i < lm_step_count(f->lm); i++, key(f->a, SDLK_RIGHT, KMOD_NONE))
        if (app_view(f->a)->kv_cache) {
            seen = true;
            assert_stage(f->a, i == 5 ? "dec.L1.self_attn.k" : "dec.L1.self_attn.weights");
            app_draw(f->a);
        }
    assert_true(seen);
    teardown((void **)&f);
    // lesson 11: the two models (compare:), then the history (history:), and back
    f = open_app(LESSONS_DIR "/11-how-attention-learns.lesson", false);
    assert_true(app_twin_page(f->a));
    key(f->a, SDLK_RIGHT, KMOD_NONE);
    assert_true(app_history_page(f->a));
    assert_int_equal(app_history_snapshot(f->a), 0);
    key(f->a, SDLK_RIGHT, KMOD_NONE);
    assert_int_equal(app_history_snapshot(f->a), 1);
    key(f->a, SDLK_HOME, KMOD_NONE);  // back to the step with compare: its page, not none
    assert_true(app_twin_page(f->a));
    assert_false(app_history_page(f->a));
    key(f->a, SDLK_END, KMOD_NONE);  // the last step has neither
    assert_false(app_twin_page(f->a));
    assert_false(app_history_page(f->a));
    teardown((void **)&f);
    // lesson 05 shows the training history at step 25 (history:), then closes it
    f = open_app(LESSONS_DIR "/05-training.lesson", false);
    key(f->a, SDLK_END, KMOD_NONE);
    key(f->a, SDLK_LEFT, KMOD_NONE);
    assert_true(app_history_page(f->a));
    assert_int_equal(app_history_snapshot(f->a), 1);  // 0, then 25
    app_draw(f->a);
    key(f->a, SDLK_RIGHT, KMOD_NONE);
    assert_false(app_history_page(f->a));
    teardown((void **)&f);
}

// In a web page a model's training history is downloaded when first shown
// (AppOptions.fetch): lesson 11's history step waits for it, shows the
// lesson's snapshot when it arrives, and says so when it cannot come.
static char fetched[4096];
static int fetches;
static bool fake_fetch(const char *path) {
    snprintf(fetched, sizeof fetched, "%s", path);
    fetches++;
    return true;
}

static void copy_file(const char *from, const char *to) {
    char *data;
    size_t len;
    Error err;
    if (fio_read_all(from, (size_t)64 << 20, &data, &len, &err) || fio_write_atomic(to, data, len, &err)) fail_msg("%s", err.msg);
    free(data);
}

static void test_history_fetched(void **state) {
    (void)state;
    char dir[] = "/tmp/tt-test-fetch-XXXXXX", model[256], twin[256], snaps[256];
    assert_non_null(mkdtemp(dir));
    snprintf(model, sizeof model, "%s/en-zh.safetensors", dir);
    snprintf(twin, sizeof twin, "%s/en-zh-random.safetensors", dir);
    snprintf(snaps, sizeof snaps, "%s/en-zh.snapshots.safetensors", dir);
    copy_file(MODEL_PATH, model);
    copy_file(ASSETS "/models/en-zh-random.safetensors", twin);
    Error err;
    Gfx *g = gfx_new(1280, 800, font, &err);
    assert_non_null(g);
    AppOptions o = {.model_path = model, .lesson = LESSONS_DIR "/11-how-attention-learns.lesson", .lessons_dir = LESSONS_DIR,
                    .fetch = fake_fetch};
    App *a = app_new(&o, g, &err);
    assert_non_null(a);
    fetches = 0;
    key(a, SDLK_RIGHT, KMOD_NONE);  // the step with history: 0
    assert_true(app_history_page(a));
    assert_int_equal(fetches, 1);
    assert_string_equal(fetched, snaps);
    assert_int_equal(app_history_snapshot(a), -1);  // waiting for it
    assert_int_equal(app_history_fetching(a), 0);
    app_file_progress(a, snaps, 40);
    assert_int_equal(app_history_fetching(a), 40);
    app_file_progress(a, "/elsewhere/other.snapshots.safetensors", 90);  // another file's progress: not this one's
    assert_int_equal(app_history_fetching(a), 40);
    app_draw(a);
    app_file_arrived(a, snaps, false, 404);  // could not come: said, no longer waiting
    assert_int_equal(app_history_snapshot(a), -1);
    assert_int_equal(app_history_fetching(a), -1);
    app_draw(a);
    key(a, SDLK_RIGHT, KMOD_NONE);  // the next step (history: 25) asks for it again, from nothing
    assert_int_equal(fetches, 2);
    assert_int_equal(app_history_fetching(a), 0);
    // a server's error page in the file's place: not shown, and removed to be asked for again
    FILE *fp = fopen(snaps, "w");
    assert_non_null(fp);
    fputs("<!doctype html><title>Not found</title>\n", fp);
    fclose(fp);
    app_file_arrived(a, snaps, true, 200);
    assert_int_equal(app_history_snapshot(a), -1);
    assert_int_equal(access(snaps, F_OK), -1);
    key(a, SDLK_LEFT, KMOD_NONE);
    key(a, SDLK_RIGHT, KMOD_NONE);
    assert_int_equal(fetches, 3);
    copy_file(ASSETS "/models/en-zh.snapshots.safetensors", snaps);
    app_file_arrived(a, "/elsewhere/other.snapshots.safetensors", true, 200);  // another file: nothing changes
    assert_int_equal(app_history_snapshot(a), -1);
    app_file_arrived(a, snaps, true, 200);
    assert_int_equal(app_history_snapshot(a), 1);  // the lesson step's snapshot, step 25
    assert_int_equal(app_history_fetching(a), -1);
    app_draw(a);
    key(a, SDLK_LEFT, KMOD_NONE);  // now on disk: no more asking
    assert_int_equal(app_history_snapshot(a), 0);
    assert_int_equal(fetches, 3);
    app_free(a);
    gfx_free(g);
    unlink(model), unlink(twin), unlink(snaps), rmdir(dir);
}

static void test_draws_at_any_size(void **state) {
    Fixture *f = *state;
    static const int sizes[][2] = {{1280, 800}, {100, 100}, {640, 360}, {3840, 2160}};
    for (int lang = 0; lang < 2; lang++) {
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            assert_int_equal(gfx_resize(f->g, sizes[i][0], sizes[i][1]), 0);
            for (int s = 0; s < lm_step_count(f->lm); s++) {
                lm_go(f->lm, f->a, s);
                app_draw(f->a);
            }
        }
        key(f->a, SDLK_F2, KMOD_NONE);
    }
}

// Shift+P, the presenter view: the narration folded to a strip and the map
// hidden, so the step takes the window; again, both as they were.
static void test_presenter_view(void **state) {
    Fixture *f = *state;
    key(f->a, SDLK_RIGHT, KMOD_NONE);
    app_draw(f->a);
    bool map_before = app_map_hidden(f->a);
    // beside the narration the map is a strip above it, the view keeping its width; a click on it goes there
    SDL_Rect strip = app_map_rect(f->a);
    assert_true(strip.w > 0 && strip.x > 1280 / 2);
    assert_int_equal(strip.h, amap_strip_height(f->g));
    int step = app_step(f->a);
    SDL_Event click = {.type = SDL_MOUSEBUTTONDOWN};
    click.button.button = SDL_BUTTON_LEFT;
    for (int x = strip.x; x < strip.x + strip.w && app_step(f->a) == step; x += 3) {
        click.button.x = x, click.button.y = strip.y + strip.h / 4;  // the encoder's row
        app_event(f->a, &click);
    }
    if (app_step(f->a) == step) fail_msg("no click on the strip moved from step %d", step);
    SDL_Event move = {.type = SDL_MOUSEMOTION};  // the pointer over a box names it: the strip has no words
    move.motion.x = click.button.x, move.motion.y = click.button.y;
    app_event(f->a, &move);
    if (!strstr(app_status(f->a), "Encoder") && !strstr(app_status(f->a), "Source")) fail_msg("hovering the strip: \"%s\"", app_status(f->a));
    if (strncmp(stage(f->a), "src.", 4) && strncmp(stage(f->a), "enc.", 4)) fail_msg("the strip's top row went to %s", stage(f->a));
    app_set_step(f->a, step);
    app_draw(f->a);
    assert_false(lm_panel_collapsed(f->lm));
    key(f->a, SDLK_p, KMOD_LSHIFT);
    app_draw(f->a);
    assert_true(lm_panel_collapsed(f->lm));
    assert_true(app_map_hidden(f->a));
    assert_int_equal(app_map_rect(f->a).w, 0);
    assert_int_equal(app_step(f->a), step);  // the lesson stays where it was
    assert_true(lm_running(f->lm));
    if (!strstr(app_status(f->a), "Presenter")) fail_msg("the status line: %s", app_status(f->a));
    key(f->a, SDLK_p, KMOD_LSHIFT);
    app_draw(f->a);
    assert_false(lm_panel_collapsed(f->lm));
    assert_int_equal(app_map_hidden(f->a), map_before);
}

// On one's own sentence a question that quotes the lesson's sentence (its
// words, its translation, a number) does not apply: no choice, no answer; a
// general one still does. On the lesson's sentence every one applies.
static void test_own_sentence_questions(void **state) {
    (void)state;
    Fixture *f = open_app(TT_TEST_DATA "/own-sentence.lesson", false);
    for (int i = 0; i < 3; i++) {
        lm_go(f->lm, f->a, i);
        if (lm_question_not_here(f->lm)) fail_msg("on the lesson's sentence, step %d's question is said not to apply", i + 1);
    }
    lm_go(f->lm, f->a, 0);
    key(f->a, SDLK_l, KMOD_CTRL);
    for (int i = 0; i < 20; i++) key(f->a, SDLK_BACKSPACE, KMOD_NONE);
    type(f->a, "the cat sits");
    key(f->a, SDLK_RETURN, KMOD_NONE);
    assert_string_equal(app_sentence(f->a), "the cat sits");
    assert_false(lm_question_not_here(f->lm));  // how many heads: any sentence
    assert_int_equal(app_view(f->a)->n_highlight, 0);  // the lesson's cells were its sentence's
    key(f->a, SDLK_2, KMOD_NONE);
    key(f->a, SDLK_RETURN, KMOD_NONE);
    assert_true(lm_revealed(f->lm));
    app_draw(f->a);
    for (int i = 1; i < 3; i++) {  // 愛 and love; a shape of numbers
        lm_go(f->lm, f->a, i);
        if (!lm_question_not_here(f->lm)) fail_msg("on another sentence, step %d's question is said to apply", i + 1);
        key(f->a, SDLK_1, KMOD_NONE);
        key(f->a, SDLK_RETURN, KMOD_NONE);
        assert_false(lm_revealed(f->lm));
        app_draw(f->a);
    }
    key(f->a, SDLK_r, KMOD_NONE);  // back to the lesson's sentence: it applies again
    assert_string_equal(app_sentence(f->a), "i love nlp");
    assert_false(lm_question_not_here(f->lm));
    app_free(f->a);
    gfx_free(f->g);
    free(f);
}

int main(void) {
    if (!getenv("SDL_VIDEODRIVER")) setenv("SDL_VIDEODRIVER", "offscreen", 1);
    if (SDL_Init(SDL_INIT_VIDEO) < 0) {
        fprintf(stderr, "SDL_Init: %s\n", SDL_GetError());
        return 1;
    }
    Error err;
    font = gfx_find_font(&err);
    if (!font) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_steps_show_their_stage_and_view, setup, teardown),
        cmocka_unit_test_setup_teardown(test_question_then_reveal, setup, teardown),
        cmocka_unit_test(test_own_sentence_questions),
        cmocka_unit_test_setup_teardown(test_presenter_view, setup, teardown),
        cmocka_unit_test_setup_teardown(test_escape_explores_and_comes_back, setup, teardown),
        cmocka_unit_test_setup_teardown(test_own_sentence_rebinds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_sentence_keeps_the_lesson, setup, teardown),
        cmocka_unit_test(test_broken_lesson_stays_usable),
        cmocka_unit_test(test_picker),
        cmocka_unit_test(test_picker_scrolls),
        cmocka_unit_test(test_picker_resting_pointer),
        cmocka_unit_test_setup_teardown(test_draws_at_any_size, setup, teardown),
        cmocka_unit_test(test_given_matrix_and_code),
        cmocka_unit_test(test_formulas_in_chinese),
        cmocka_unit_test(test_lesson_experiments),
        cmocka_unit_test(test_history_fetched),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    SDL_Quit();
    return rc;
}
