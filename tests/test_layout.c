// The window's layout at the sizes a class meets (a small projector full
// screen and windowed, a laptop, 1080p, 4K), in explore mode and in lesson
// mode, worked out from where the text went (gfx_record_text) and the
// heatmap's cells: no text below the smallest size, none cut off by its area
// or the window, none cut short with "…", no label over another, and a small
// heatmap's cells large enough to read from the back of the room (a heatmap
// alone or beside its masking steps; the grid of every head is held to the
// rest only).
//
// TT_LAYOUT_DUMP=DIR also saves every frame checked as DIR/NAME.png, to look
// at; TT_LAYOUT_ALL=1 prints every problem, not only the first few.

#include "app_fixture.h"

#include <dirent.h>

#include "lessonmode.h"

#define LESSONS TT_TEST_DATA "/../../lessons"

// The smallest text, in design pixels (× the UI scale): the view labels' size.
enum { MIN_TEXT = 14, MIN_SUB = 9, MAX_MARKS = 20000, MAX_PROBLEMS = 12 };

static const int sizes[][2] = {{1024, 768}, {921, 691}, {1280, 720}, {1920, 1080}, {3840, 2160}};
enum { N_SIZES = sizeof sizes / sizeof *sizes };

typedef struct {
    const char *stage;
    int head, dstep;
    char keys[4];  // g the heads grid, v lines, m the masking steps alone, k the KV cache
} Place;

static const Place places[] = {
    {"src.tokens", 0, 0, ""},
    {"src.embed", 0, 0, ""},
    {"src.pos_enc", 0, 0, ""},
    {"enc.L2.norm2", 0, 0, ""},
    {"enc.L1.self_attn.scores", 1, 0, ""},
    {"enc.L1.self_attn.weights", 1, 0, ""},
    {"enc.L1.self_attn.weights", 1, 0, "g"},
    {"dec.look_ahead_mask", 0, 5, ""},
    {"dec.L1.self_attn.masked_scores", 1, 5, ""},
    {"dec.L1.self_attn.weights", 1, 5, ""},
    {"dec.L1.self_attn.weights", 1, 5, "g"},
    {"dec.L2.cross_attn.weights", 2, 5, ""},
    {"dec.L2.cross_attn.weights", 1, 5, "v"},
    {"dec.L2.cross_attn.weights", 1, 3, "k"},
    {"dec.L1.self_attn.k", 1, 4, "k"},
    {"dec.probs", 0, 3, ""},
    {"dec.top_k", 0, 3, ""},
    {"dec.choice", 0, 3, ""},
};

typedef struct {
    char text[MAX_PROBLEMS][200];
    int n, total;
} Problems;

static void problem(Problems *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(Problems *p, const char *fmt, ...) {
    char line[sizeof p->text[0]];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (p->n < MAX_PROBLEMS) snprintf(p->text[p->n++], sizeof p->text[0], "%s", line);
    if (getenv("TT_LAYOUT_ALL")) fprintf(stderr, "%s\n", line);  // every one, not only the first
    p->total++;
}

// A text box without the space above and below its letters, where lines may touch.
static SDL_Rect ink(const GfxTextMark *k) {
    SDL_Rect r = k->r;
    if (k->turned) {
        int m = r.w / 6;
        return (SDL_Rect){r.x + m, r.y + 1, r.w - 2 * m, r.h - 2};
    }
    int m = r.h / 6;
    return (SDL_Rect){r.x + 1, r.y + m, r.w - 2, r.h - 2 * m};
}

static GfxTextMark marks[MAX_MARKS];

// Draws the App's frame and checks its text; cell_min > 0: the step shown is
// a heatmap of at most 12 × 12 whose cells must be at least that large.
static void check_frame(App *a, Gfx *g, const char *name, int cell_min, Problems *p) {
    int n = 0;
    gfx_record_text(g, marks, MAX_MARKS, &n);
    app_draw(a);
    gfx_record_text(g, NULL, 0, NULL);
    const char *dump = getenv("TT_LAYOUT_DUMP");
    if (dump) {
        char path[512];
        Error err;
        snprintf(path, sizeof path, "%s/%s.png", dump, name);
        if (img_save_png(path, gfx_pixels(g), &err)) fprintf(stderr, "%s\n", err.msg);
    }
    int least = gfx_px(g, MIN_TEXT), least_sub = gfx_px(g, MIN_SUB);
    for (int i = 0; i < n; i++) {
        const GfxTextMark *m = &marks[i];
        if (m->px < (m->sub ? least_sub : least))
            problem(p, "%s: text at (%d, %d) is %d px, below the smallest size (%d px)", name, m->r.x, m->r.y, m->px,
                    m->sub ? least_sub : least);
        if (m->clipped)
            problem(p, "%s: text \"%s\" at (%d, %d) %d×%d is cut off by its area or the window", name, m->text, m->r.x, m->r.y, m->r.w,
                    m->r.h);
        if (m->cut) problem(p, "%s: text cut short to \"%s\" at (%d, %d)", name, m->text, m->r.x, m->r.y);
        SDL_Rect a_ink = ink(m), both;
        for (int j = i + 1; j < n; j++) {
            SDL_Rect b_ink = ink(&marks[j]);
            if (SDL_IntersectRect(&a_ink, &b_ink, &both))
                problem(p, "%s: text at (%d, %d) %d×%d overlaps text at (%d, %d) %d×%d", name, m->r.x, m->r.y, m->r.w, m->r.h,
                        marks[j].r.x, marks[j].r.y, marks[j].r.w, marks[j].r.h);
        }
    }
    int cw, ch;
    if (cell_min > 0 && app_cell_size(a, &cw, &ch) && SDL_min(cw, ch) < cell_min)
        problem(p, "%s: heatmap cells of %d×%d px: expected: at least %d px", name, cw, ch, cell_min);
}

static void report(const Problems *p) {
    if (!p->total) return;
    char all[MAX_PROBLEMS * 204 + 64] = "";
    for (int i = 0; i < p->n; i++) {
        strcat(all, "\n  ");
        strcat(all, p->text[i]);
    }
    fail_msg("%d problems, the first %d:%s", p->total, p->n, all);
}

// An App on a w × h canvas at the type size a screen that tall gets, with a
// lesson open or NULL, decoding as d says (DECODE_TEACHER: teacher forcing on TARGET).
static App *open_app_decoding(Gfx **g, int w, int h, const char *lesson, DecodeOptions d) {
    Error err;
    *g = gfx_new(w, h, font, &err);
    if (!*g) fail_msg("gfx_new: %s", err.msg);
    bool teacher = d.mode == DECODE_TEACHER;  // a target given is what makes it teacher forcing
    if (teacher) d.mode = DECODE_GREEDY;
    AppOptions o = {.model_path = MODEL_PATH, .src = SENTENCE, .scale = window_display_fit(h), .lesson = lesson,
                    .models_dir = TT_TEST_DATA "/../../assets/models", .decode = d, .target = teacher ? TARGET : NULL};
    App *a = app_new(&o, *g, &err);
    if (!a) fail_msg("app_new: %s", err.msg);
    return a;
}

static App *open_app(Gfx **g, int w, int h, const char *lesson) { return open_app_decoding(g, w, h, lesson, (DecodeOptions){0}); }

static bool small_heatmap(const App *a) {
    const Step *s = trace_step(app_trace(a), app_step(a));
    StageKind k = s->stage->kind_id;
    bool heat = k == STAGE_KIND_ATTENTION || k == STAGE_KIND_SCORES || k == STAGE_KIND_MASK;
    return heat && s->rows <= 12 && s->cols <= 12;
}

static void test_explore(void **state) {
    (void)state;
    Problems p = {.n = 0};
    for (int z = 0; z < N_SIZES; z++) {
        int w = sizes[z][0], h = sizes[z][1];
        Gfx *g;
        App *a = open_app(&g, w, h, NULL);
        for (size_t i = 0; i < sizeof places / sizeof *places; i++) {
            const Place *pl = &places[i];
            go_to(a, pl->stage, pl->head, pl->dstep);
            ViewOptions none = {.no_gold = false};
            app_set_view(a, &none);
            for (const char *k = pl->keys; *k; k++) key(a, *k == 'g' ? SDLK_g : *k == 'v' ? SDLK_v : *k == 'k' ? SDLK_k : SDLK_m, KMOD_NONE);
            char name[160];
            snprintf(name, sizeof name, "explore-%dx%d-%s%s%s", w, h, pl->stage, *pl->keys ? "-" : "", pl->keys);
            int cell_min = w == 1920 && h == 1080 && small_heatmap(a) && !*pl->keys ? 48 : 0;
            check_frame(a, g, name, cell_min, &p);
        }
        app_free(a);
        gfx_free(g);
        // the views of the other decodings, and the two pages
        static const struct {
            DecodeMode mode;
            const char *stage;
            int head, dstep;
            SDL_Keycode key;
        } others[] = {
            {DECODE_BEAM, "dec.beam", 0, 5, 0},          {DECODE_SAMPLE, "dec.sample", 0, 2, 0},
            {DECODE_TEACHER, "dec.loss", 0, 1, 0},       {DECODE_TEACHER, "dec.probs", 0, 1, 0},
            {DECODE_GREEDY, "dec.logits", 0, 3, 0},      {DECODE_GREEDY, "dec.L2.cross_attn.weights", 1, 5, SDLK_b},
            {DECODE_GREEDY, "dec.L2.cross_attn.weights", 1, 5, SDLK_h},
        };
        for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
            a = open_app_decoding(&g, w, h, NULL, (DecodeOptions){.mode = others[i].mode, .temperature = 2.0f, .seed = 1});  // sampling at T 2
            go_to(a, others[i].stage, others[i].head, others[i].dstep);
            if (others[i].key) key(a, others[i].key, KMOD_NONE);
            char name[160];
            char key_name[3] = {others[i].key ? '-' : '\0', (char)others[i].key, '\0'};
            snprintf(name, sizeof name, "explore-%dx%d-%s-mode%d%s", w, h, others[i].stage, (int)others[i].mode, key_name);
            check_frame(a, g, name, 0, &p);
            app_free(a);
            gfx_free(g);
        }
    }
    report(&p);
}

// Every step of every shipped lesson.
static void test_lessons(void **state) {
    (void)state;
    Problems p = {.n = 0};
    DIR *d = opendir(LESSONS);
    if (!d) fail_msg("cannot open %s", LESSONS);
    static char files[32][4096];  // room for any folder name and a file name of NAME_MAX
    int n_files = 0;
    for (struct dirent *e; (e = readdir(d)) && n_files < 32;) {
        size_t len = strlen(e->d_name);
        if (len > 7 && !strcmp(e->d_name + len - 7, ".lesson")) snprintf(files[n_files++], sizeof files[0], "%s/%s", LESSONS, e->d_name);
    }
    closedir(d);
    if (!n_files) fail_msg("no lessons in %s", LESSONS);
    for (int z = 0; z < N_SIZES; z++) {
        int w = sizes[z][0], h = sizes[z][1];
        for (int f = 0; f < n_files; f++) {
            Gfx *g;
            App *a = open_app(&g, w, h, files[f]);
            LessonMode *lm = app_lessons(a);
            if (!lm_running(lm)) fail_msg("%s does not run: %s", files[f], lm_problem(lm));
            for (int s = 0; s < lm_step_count(lm); s++) {
                lm_go(lm, a, s);
                char name[200];
                snprintf(name, sizeof name, "lesson-%dx%d-%s-%02d", w, h, strrchr(files[f], '/') + 1, s + 1);
                int cell_min = w == 1920 && h == 1080 && small_heatmap(a) && !app_view(a)->heads_grid ? 32 : 0;
                check_frame(a, g, name, cell_min, &p);
                // the narration's column (the map's strip tops it) leaves the view at least 62% of the width
                SDL_Rect strip = app_map_rect(a);
                if (strip.w > 0 && strip.x < w * 62 / 100) problem(&p, "%s: the narration starts at x %d: expected: at %d or right of it", name, strip.x, w * 62 / 100);
                // a question's answer, revealed, is held to the same
                key(a, SDLK_RETURN, KMOD_NONE);
                if (lm_revealed(lm)) {
                    strncat(name, "-revealed", sizeof name - strlen(name) - 1);
                    check_frame(a, g, name, 0, &p);
                }
            }
            app_free(a);
            gfx_free(g);
        }
    }
    report(&p);
}

// N folds the narration to a strip and the view takes the room; N again gives it back.
static void test_fold_narration(void **state) {
    (void)state;
    Gfx *g;
    App *a = open_app(&g, 1024, 768, LESSONS "/01-overview.lesson");
    LessonMode *lm = app_lessons(a);
    int at = -1, w0 = 0, h0 = 0, w1 = 0, h1 = 0;
    for (int s = 0; s < lm_step_count(lm) && at < 0; s++) {  // the first step with a heatmap
        lm_go(lm, a, s);
        app_draw(a);
        if (app_cell_size(a, &w0, &h0)) at = s;
    }
    if (at < 0) fail_msg("no step of 01-overview shows a heatmap");
    expect_int("N taken", key(a, SDLK_n, KMOD_NONE), 1);
    expect_int("folded", lm_panel_collapsed(lm), 1);
    app_draw(a);
    app_cell_size(a, &w1, &h1);
    if (w1 <= w0 && h1 <= h0) fail_msg("cells with the narration folded: expected: larger than %d×%d, got: %d×%d", w0, h0, w1, h1);
    key(a, SDLK_n, KMOD_NONE);
    expect_int("unfolded", lm_panel_collapsed(lm), 0);
    app_draw(a);
    app_cell_size(a, &w1, &h1);
    expect_int("cell width unfolded again", w1, w0);
    app_free(a);
    gfx_free(g);
}

// Ctrl++ makes the view larger, never smaller, though the top row and the
// timeline grow too; the wheel then pans the view.
static void test_zoom_enlarges(void **state) {
    (void)state;
    Gfx *g;
    App *a = open_app(&g, 1280, 800, NULL);
    go_to(a, "dec.L2.cross_attn.weights", 2, 5);
    app_draw(a);
    int w0, h0, w, h, last = 0;
    if (!app_cell_size(a, &w0, &h0)) fail_msg("cross-attention is not shown as a heatmap");
    for (int i = 1; i <= 3; i++) {
        key(a, SDLK_EQUALS, KMOD_LCTRL);
        app_draw(a);
        app_cell_size(a, &w, &h);
        if (w <= last || w < w0) fail_msg("Ctrl++ %d times: cells of %d px, expected: more than %d px (and %d px at the normal size)", i, w, last, w0);
        last = w;
    }
    if (w < w0 * 14 / 10) fail_msg("three Ctrl++ (1.52 times): expected: cells of at least %d px, got: %d px", w0 * 14 / 10, w);
    expect_contains("status", app_status(a), "152%");
    // the view no longer fits: the wheel brings its lower rows under the pointer
    int x = 420, y = 500;  // a cell of the view, right of the map of the model
    mouse(a, SDL_MOUSEMOTION, x, y);
    char was[512];
    snprintf(was, sizeof was, "%s", app_status(a));
    SDL_Event wheel = {.type = SDL_MOUSEWHEEL};
    wheel.wheel.y = -3;
    expect_int("the wheel taken", app_event(a, &wheel), 1);
    app_draw(a);
    mouse(a, SDL_MOUSEMOTION, x, y);
    if (!strcmp(was, app_status(a))) fail_msg("the cell under the pointer did not change after the wheel: \"%s\"", was);
    key(a, SDLK_0, KMOD_LCTRL);
    app_draw(a);
    app_cell_size(a, &w, &h);
    expect_int("Ctrl+0: cell width", w, w0);
    app_free(a);
    gfx_free(g);
}

// The size of the first text drawn that starts with prefix, or 0.
static int text_px(App *a, Gfx *g, const char *prefix) {
    int n = 0;
    gfx_record_text(g, marks, MAX_MARKS, &n);
    app_draw(a);
    gfx_record_text(g, NULL, 0, NULL);
    for (int i = 0; i < n; i++)
        if (!strncmp(marks[i].text, prefix, strlen(prefix))) return marks[i].px;
    return 0;
}

// How many numbers like "-0.80" (a sign, a digit, a point, two digits) were drawn left of x.
static int numbers_left_of(App *a, Gfx *g, int x) {
    int n = 0, count = 0;
    gfx_record_text(g, marks, MAX_MARKS, &n);
    app_draw(a);
    gfx_record_text(g, NULL, 0, NULL);
    for (int i = 0; i < n; i++) {
        const char *t = marks[i].text + (marks[i].text[0] == '-');
        count += marks[i].r.x + marks[i].r.w <= x && strlen(t) == 4 && t[1] == '.' && strspn(t, "0123456789.") == 4;
    }
    return count;
}

// In lesson mode Ctrl++ enlarges the lesson's given matrix with the view:
// its title's text grows, and so do its numbers; at 1024×768 the model's own
// matrix beside it keeps its numbers (its cells and their text grow alike).
static void test_zoom_given_matrix(void **state) {
    (void)state;
    Gfx *g;
    App *a = open_app(&g, 1024, 768, LESSONS "/03-decoder.lesson");
    lm_go(app_lessons(a), a, 7);
    key(a, SDLK_EQUALS, KMOD_LCTRL);
    key(a, SDLK_EQUALS, KMOD_LCTRL);
    if (numbers_left_of(a, g, 420) < 10) fail_msg("1024×768, Ctrl++ twice: the masked scores show %d numbers, expected: at least 10", numbers_left_of(a, g, 420));
    app_free(a);
    gfx_free(g);
    a = open_app(&g, 1280, 800, LESSONS "/03-decoder.lesson");
    lm_go(app_lessons(a), a, 7);  // the course's 4 × 4 example, masked
    int title0 = text_px(a, g, "The course's 4"), number0 = text_px(a, g, "2.1");
    if (!title0 || !number0) fail_msg("03-decoder step 8 shows no given matrix titled \"The course's 4 × 4 …\" holding 2.1");
    key(a, SDLK_EQUALS, KMOD_LCTRL);
    key(a, SDLK_EQUALS, KMOD_LCTRL);
    int title1 = text_px(a, g, "The course's 4"), number1 = text_px(a, g, "2.1");
    if (title1 <= title0 || number1 <= number0)
        fail_msg("Ctrl++ twice: the given matrix's title %d → %d px and numbers %d → %d px: expected: both larger", title0, title1, number0,
                 number1);
    app_free(a);
    gfx_free(g);
}

// Golden images of every kind of view at the four sizes a class meets, in
// explore mode and in lesson mode (every kind, and a question, beside the
// narration); tests/golden/size.NAME.WxH.png.
static void test_goldens_at_four_sizes(void **state) {
    (void)state;
    static const int four[][2] = {{1024, 768}, {1280, 720}, {1920, 1080}, {3840, 2160}};
    static const struct {
        const char *name, *stage, *lesson;
        int head, dstep, lesson_step;
        DecodeMode mode;
        const char *keys;  // keys pressed: g the heads grid, v lines, k the KV cache, b two models, h the history
    } shots[] = {
        {"tokens", "src.tokens", NULL, 0, 0, 0, DECODE_GREEDY, ""},
        {"matrix", "src.embed", NULL, 0, 0, 0, DECODE_GREEDY, ""},
        {"scores", "enc.L1.self_attn.scores", NULL, 1, 0, 0, DECODE_GREEDY, ""},
        {"cross_attn", "dec.L2.cross_attn.weights", NULL, 2, 5, 0, DECODE_GREEDY, ""},
        {"heads_grid", "enc.L1.self_attn.weights", NULL, 1, 0, 0, DECODE_GREEDY, "g"},
        {"lines", "dec.L2.cross_attn.weights", NULL, 1, 5, 0, DECODE_GREEDY, "v"},
        {"masking", "dec.L1.self_attn.masked_scores", NULL, 1, 5, 0, DECODE_GREEDY, ""},
        {"kv_cache", "dec.L1.self_attn.k", NULL, 1, 4, 0, DECODE_GREEDY, "k"},
        {"probs", "dec.probs", NULL, 0, 3, 0, DECODE_GREEDY, ""},
        {"top_k", "dec.top_k", NULL, 0, 3, 0, DECODE_GREEDY, ""},
        {"choice", "dec.choice", NULL, 0, 3, 0, DECODE_GREEDY, ""},
        {"sample", "dec.sample", NULL, 0, 2, 0, DECODE_SAMPLE, ""},
        {"beam", "dec.beam", NULL, 0, 5, 0, DECODE_BEAM, ""},
        {"lesson", NULL, LESSONS "/03-decoder.lesson", 0, 0, 8, DECODE_GREEDY, ""},
        {"lesson_cross_attn", NULL, LESSONS "/06-cross-attention.lesson", 0, 0, 4, DECODE_GREEDY, ""},
        {"lesson_top_k", NULL, LESSONS "/04-generation.lesson", 0, 0, 1, DECODE_GREEDY, ""},
        {"lesson_question", NULL, LESSONS "/01-overview.lesson", 0, 0, 1, DECODE_GREEDY, ""},
        {"lesson_heads_grid", NULL, LESSONS "/01-overview.lesson", 0, 0, 10, DECODE_GREEDY, ""},
        {"lesson_lines", NULL, LESSONS "/01-overview.lesson", 0, 0, 11, DECODE_GREEDY, ""},
        {"lesson_choice", NULL, LESSONS "/04-generation.lesson", 0, 0, 3, DECODE_GREEDY, ""},
        {"lesson_beam", NULL, LESSONS "/04-generation.lesson", 0, 0, 5, DECODE_GREEDY, ""},
        {"lesson_sample", NULL, LESSONS "/04-generation.lesson", 0, 0, 10, DECODE_GREEDY, ""},
        {"lesson_tokens", NULL, LESSONS "/01-overview.lesson", 0, 0, 0, DECODE_GREEDY, ""},
        {"lesson_matrix", NULL, LESSONS "/01-overview.lesson", 0, 0, 2, DECODE_GREEDY, ""},
        {"lesson_scores", NULL, LESSONS "/02-encoder.lesson", 0, 0, 4, DECODE_GREEDY, ""},
        {"lesson_kv_cache", NULL, LESSONS "/12-kv-cache.lesson", 0, 0, 0, DECODE_GREEDY, ""},
        {"lesson_probs", NULL, LESSONS "/03-decoder.lesson", 0, 0, 18, DECODE_GREEDY, ""},
        {"lesson_probs_teacher", NULL, LESSONS "/05-training.lesson", 0, 0, 4, DECODE_GREEDY, ""},
        {"lesson_loss", NULL, LESSONS "/05-training.lesson", 0, 0, 5, DECODE_GREEDY, ""},
        // teacher forcing: the loss, and the probabilities of every position at once
        {"loss", "dec.loss", NULL, 0, 1, 0, DECODE_TEACHER, ""},
        {"probs_teacher", "dec.probs", NULL, 0, 1, 0, DECODE_TEACHER, ""},
        // the pages: the two models (B) and the training history (H)
        {"twin", "dec.L2.cross_attn.weights", NULL, 1, 5, 0, DECODE_GREEDY, "b"},
        {"history", "dec.L2.cross_attn.weights", NULL, 1, 5, 0, DECODE_GREEDY, "h"},
    };
    char why[2048], name[96];
    int failed = 0;
    for (size_t z = 0; z < sizeof four / sizeof *four; z++)
        for (size_t i = 0; i < sizeof shots / sizeof *shots; i++) {
            Gfx *g;
            App *a = open_app_decoding(&g, four[z][0], four[z][1], shots[i].lesson, (DecodeOptions){.mode = shots[i].mode});
            if (shots[i].lesson) lm_go(app_lessons(a), a, shots[i].lesson_step);
            else go_to(a, shots[i].stage, shots[i].head, shots[i].dstep);
            for (const char *k = shots[i].keys; *k; k++) key(a, (SDL_Keycode)*k, KMOD_NONE);  // SDL's codes for letters are the letters
            app_draw(a);
            snprintf(name, sizeof name, "size.%s.%dx%d", shots[i].name, four[z][0], four[z][1]);
            if (!golden_matches(gfx_pixels(g), name, why, sizeof why)) {
                fprintf(stderr, "%s\n", why);
                failed++;
            }
            app_free(a);
            gfx_free(g);
        }
    if (failed) fail_msg("%d of the golden images at four sizes differ (above)", failed);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_explore),
        cmocka_unit_test(test_lessons),
        cmocka_unit_test(test_fold_narration),
        cmocka_unit_test(test_zoom_enlarges),
        cmocka_unit_test(test_zoom_given_matrix),
        cmocka_unit_test(test_goldens_at_four_sizes),
    };
    return fixture_main(tests, sizeof tests / sizeof *tests);
}
