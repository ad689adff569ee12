// The views and their golden images, the view data worked out once per
// trace, and the PNG and CSV export.
//
// Golden images: tests/golden/NAME.png, one per kind of view, drawn at
// 1280 × 800. A pixel differs when its squared RGB distance to the golden is
// above ALLOWABLE_ERROR (as SDLTest_CompareSurfaces counts); a view fails when
// more than MAX_DIFFERING of its pixels differ, and NAME.actual.png,
// NAME.expected.png and NAME.diff.png (differing pixels in red) are written to
// the build folder (build/tests). After a deliberate change to the drawing,
// rewrite the goldens and look at every one before committing them:
//
//     TT_UPDATE_GOLDEN=1 meson test -C build views
//
// Tests of known, not yet fixed bugs are skipped with a note; TT_KNOWN_BUGS=1
// runs them.

#include "app_fixture.h"

#include <math.h>
#include "archmap.h"
#include "export.h"
#include "view_private.h"
#include "stage.h"
#include "settings_panel.h"

// ---- golden images -----------------------------------------------------------------

struct Golden {
    const char *name;       // tests/golden/NAME.png
    const char *stage;
    int head, dstep;
    DecodeMode mode;
    const char *keys;       // then pressed: x silences the head shown, E the experiment page, ? help, t theme, z F2 (繁體中文), g the heads grid, v the line view, k the KV cache, b the page of two models, h the training history (0 Home, > →), e the text box with an input method composing
    float temperature;      // sampling (seed 1); 0 = 1
    int top_k;
    bool no_mask;           // the experiment without the look-ahead mask
};

static const Golden goldens[] = {
    {"src.tokens", "src.tokens", 0, 0, DECODE_GREEDY, "", 0.0f, 0, false},
    {"src.embed", "src.embed", 0, 0, DECODE_GREEDY, "", 0.0f, 0, false},
    {"src.pos_enc", "src.pos_enc", 0, 0, DECODE_GREEDY, "", 0.0f, 0, false},  // the sin/cos stripes
    {"enc.L2.norm2", "enc.L2.norm2", 0, 0, DECODE_GREEDY, "", 0.0f, 0, false},   // a layer's output, with each token's norm
    {"enc.L1.self_attn.scores", "enc.L1.self_attn.scores", 1, 0, DECODE_GREEDY, "", 0.0f, 0, false},
    {"enc.L1.self_attn.weights", "enc.L1.self_attn.weights", 1, 0, DECODE_GREEDY, "", 0.0f, 0, false},
    // every head and their average; the column labels too wide for the cells read upwards
    {"enc.L1.self_attn.weights.grid", "enc.L1.self_attn.weights", 1, 0, DECODE_GREEDY, "g", 0.0f, 0, false},
    {"enc.L1.self_attn.weights.dark", "enc.L1.self_attn.weights", 1, 0, DECODE_GREEDY, "t", 0.0f, 0, false},
    {"dec.look_ahead_mask", "dec.look_ahead_mask", 0, 5, DECODE_GREEDY, "", 0.0f, 0, false},
    {"dec.L1.self_attn.masked_scores", "dec.L1.self_attn.masked_scores", 1, 5, DECODE_GREEDY, "", 0.0f, 0, false},
    {"dec.L2.cross_attn.weights", "dec.L2.cross_attn.weights", 2, 5, DECODE_GREEDY, "", 0.0f, 0, false},
    {"dec.L2.cross_attn.weights.lines", "dec.L2.cross_attn.weights", 1, 5, DECODE_GREEDY, "v", 0.0f, 0, false},  // with the gold dashed
    {"dec.probs", "dec.probs", 0, 3, DECODE_GREEDY, "", 0.0f, 0, false},
    {"dec.top_k", "dec.top_k", 0, 3, DECODE_GREEDY, "", 0.0f, 0, false},
    {"dec.choice", "dec.choice", 0, 3, DECODE_GREEDY, "", 0.0f, 0, false},
    // T = 2 draws the 31st most likely token at step 1: its bar, its rank and u on the shares
    {"dec.sample", "dec.sample", 0, 1, DECODE_SAMPLE, "", 2.0f, 0, false},
    {"dec.sample.top_k", "dec.sample", 0, 2, DECODE_SAMPLE, "", 1.0f, 3, false},  // the removed tokens counted, not drawn
    {"dec.beam", "dec.beam", 0, 3, DECODE_BEAM, "", 0.0f, 0, false},
    {"dec.beam.end", "dec.beam", 0, 7, DECODE_BEAM, "", 0.0f, 0, false},  // the last step: earlier steps left out, a finished hypothesis
    {"dec.L1.self_attn.weights.zh-TW", "dec.L1.self_attn.weights", 1, 5, DECODE_GREEDY, "z", 0.0f, 0, false},
    {"dec.loss", "dec.loss", 0, 1, DECODE_TEACHER, "", 0.0f, 0, false},
    // m × |V|: each row named by the token it should produce, the columns by the vocabulary
    {"dec.probs.teacher", "dec.probs", 0, 1, DECODE_TEACHER, "", 0.0f, 0, false},
    // the experiment without the mask: the weights above the diagonal drawn, the page's title marked
    {"dec.L1.self_attn.weights.no_mask", "dec.L1.self_attn.weights", 1, 1, DECODE_TEACHER, "", 0.0f, 0, true},
    {"dec.L1.self_attn.weights.no_mask.zh-TW", "dec.L1.self_attn.weights", 1, 1, DECODE_TEACHER, "z", 0.0f, 0, true},
    // the experiment that silences a head: before and after side by side, every head silenced alone
    {"experiment.silenced", "dec.L2.cross_attn.weights", 1, 1, DECODE_TEACHER, "xE", 0.0f, 0, false},
    {"experiment.silenced.zh-TW", "dec.L2.cross_attn.weights", 1, 1, DECODE_TEACHER, "xEz", 0.0f, 0, false},
    // the KV cache: step 3 beside step 4, the kept rows washed and the new one outlined; every layer's K and V;
    // without the mask, the earlier rows that changed
    {"dec.L1.self_attn.weights.kv", "dec.L1.self_attn.weights", 1, 4, DECODE_GREEDY, "k", 0.0f, 0, false},
    {"dec.L2.self_attn.k.kv.zh-TW", "dec.L2.self_attn.k", 1, 4, DECODE_GREEDY, "kz", 0.0f, 0, false},
    {"dec.L1.self_attn.weights.kv.zh-TW", "dec.L1.self_attn.weights", 1, 4, DECODE_GREEDY, "kz", 0.0f, 0, false},
    {"dec.L1.self_attn.weights.kv.no_mask", "dec.L1.self_attn.weights", 1, 3, DECODE_GREEDY, "k", 0.0f, 0, true},
    // trained beside untrained: the same sentence through en-zh and its untrained twin, the gold over both
    {"twin.cross_attn", "dec.L2.cross_attn.weights", 1, 4, DECODE_GREEDY, "b", 0.0f, 0, false},
    {"twin.cross_attn.zh-TW", "dec.L2.cross_attn.weights", 1, 4, DECODE_GREEDY, "bz", 0.0f, 0, false},
    // the training history: the supervised head at step 99 of training (← twice from the end… then Home, → →)
    {"history.cross_attn", "dec.L2.cross_attn.weights", 1, 4, DECODE_GREEDY, "h0>>", 0.0f, 0, false},
    {"history.cross_attn.zh-TW", "dec.L2.cross_attn.weights", 1, 4, DECODE_GREEDY, "h0>>z", 0.0f, 0, false},
    {"help", "src.tokens", 0, 0, DECODE_GREEDY, "?", 0.0f, 0, false},
    {"text_box", "src.tokens", 0, 0, DECODE_GREEDY, "e", 0.0f, 0, false},
};
enum { N_GOLDEN = sizeof goldens / sizeof *goldens };

// The state cmocka passes in is the Golden; the test gets the Fixture.
static int setup_golden(void **state) {
    const Golden *gd = *state;
    AppOptions o = {.model_path = MODEL_PATH, .src = SENTENCE,
                    .decode = {.mode = gd->mode, .temperature = gd->temperature, .top_k = gd->top_k, .seed = 1,
                               .no_look_ahead_mask = gd->no_mask}};
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
        else if (*k == 'x') key(f->a, SDLK_x, KMOD_NONE);
        else if (*k == 'E') key(f->a, SDLK_e, KMOD_NONE);
        else if (*k == 'z') key(f->a, SDLK_F2, KMOD_NONE);
        else if (*k == 'g') key(f->a, SDLK_g, KMOD_NONE);
        else if (*k == 'v') key(f->a, SDLK_v, KMOD_NONE);
        else if (*k == 'k') key(f->a, SDLK_k, KMOD_NONE);
        else if (*k == 'b') key(f->a, SDLK_b, KMOD_NONE);
        else if (*k == 'h') key(f->a, SDLK_h, KMOD_NONE);
        else if (*k == '0') key(f->a, SDLK_HOME, KMOD_NONE);
        else if (*k == '>') key(f->a, SDLK_RIGHT, KMOD_NONE);
        else if (*k == 'e') {
            key(f->a, SDLK_l, KMOD_LCTRL);
            key(f->a, SDLK_END, KMOD_NONE);  // Ctrl+L selects the sentence: End keeps it to edit
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
    if (!golden_matches(gfx_pixels(f->g), f->golden->name, why, sizeof why)) fail_msg("%s", why);
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
    if (exp_render_png(model, t, step, 600, 400, 2.0f, false, CMAP_VIRIDIS, font, path, &err)) fail_msg("%s", err.msg);
    expect_png(path, 1200, 800, theme_get(false)->background);
    // its pixels: the golden of the export at twice the density
    Image im;
    char why[256];
    if (!png_read(path, &im, why, sizeof why)) fail_msg("%s: %s", path, why);
    SDL_Surface *s = surface_of(&im);
    GfxPixels sp = pixels_of(s);
    free(im.rgb);
    char message[2048];
    bool same = golden_matches(&sp, "export.dec.L2.cross_attn.weights@2x", message, sizeof message);
    SDL_FreeSurface(s);
    snprintf(path, sizeof path, "%s/dark.png", f->tmp);
    int rc = exp_render_png(model, t, 0, 300, 200, 1.0f, true, CMAP_MAGMA, font, path, &err);
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
        expect_int("app_render_step_png into an unwritable folder", exp_render_png(model, t, 0, 300, 200, 1.0f, false, CMAP_VIRIDIS,
                                                                                       font, bad[i], &err), -1);
        expect_contains("message names the file", err.msg, bad[i]);
    }
    trace_free(t);
}

// The PNG writer (image.c) against libpng's reader: pictures of every width
// from 1 pixel (runs that cross rows, a match at the stream's start), flat,
// striped, repeating and noisy, and a canvas whose pitch is wider than its
// rows; every pixel must come back.
static void test_png_round_trip(void **state) {
    Fixture *f = *state;
    // 88 × 4: each row differs from the one above in its first pixel only, so
    // a run of 87 pixels like those above follows a literal (260 bytes of copies)
    static const int sizes[][2] = {{1, 1}, {1, 7}, {2, 3}, {3, 5}, {7, 2}, {88, 4}, {300, 200}, {1201, 9}};
    uint32_t seed = 12345;
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        int w = sizes[k][0], h = sizes[k][1], pitch = w * 4 + 12;
        uint32_t *px = calloc((size_t)pitch / 4 * (size_t)h, 4);
        assert_non_null(px);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                seed = seed * 1664525u + 1013904223u;
                uint32_t c = y < h / 3 ? 0xFF000002u  // flat: runs at distance 3, the first reaching back to the filter byte
                             : y < 2 * h / 3 ? ((x / 3) % 2 ? 0xFFFFFFFFu : 0xFF000000u)  // stripes
                                             : seed >> 8;                           // noise: literals
                if (w == 88) c = x ? 0xFF336699u : 0xFF000000u + (uint32_t)y * 40u;
                px[(size_t)y * (size_t)(pitch / 4) + (size_t)x] = c | (seed & 0xFF000000u);  // alpha: padding, not written
            }
        GfxPixels p = {px, w, h, pitch};
        char path[512], why[256];
        Error err;
        snprintf(path, sizeof path, "%s/round-%zu.png", f->tmp, k);
        if (img_save_png(path, &p, &err)) fail_msg("%s", err.msg);
        Image im;
        if (!png_read(path, &im, why, sizeof why)) fail_msg("%s: %s", path, why);
        expect_int("width", im.w, w);
        expect_int("height", im.h, h);
        int differ = 0;
        for (int y = 0; y < h && im.w == w && im.h == h; y++)
            for (int x = 0; x < w; x++) {
                int c[3];
                image_pixel(&im, x, y, c);
                uint32_t want = px[(size_t)y * (size_t)(pitch / 4) + (size_t)x] & 0xFFFFFFu;
                differ += ((uint32_t)c[0] << 16 | (uint32_t)c[1] << 8 | (uint32_t)c[2]) != want;
            }
        if (differ) fail_msg("%d×%d: %d pixels came back different", w, h, differ);
        free(im.rgb);
        free(px);
    }
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
    key(f->a, SDLK_F2, KMOD_NONE);  // the other language: the English message is gone with it
    expect_str("status after F2", app_status(f->a), "");
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

// ---- the view data: worked out once per trace, drawing only reads it ----------------

// Pixels of rect r of the canvas that are not the colour bg.
static int pixels_not(Gfx *g, SDL_Rect r, Color bg) {
    const GfxPixels *s = gfx_pixels(g);
    int n = 0;
    for (int y = r.y; y < r.y + r.h; y++)
        for (int x = r.x; x < r.x + r.w; x++) n += (canvas_pixel(s, x, y) & 0xFFFFFFu) != (bg & 0xFFFFFFu);
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

// Steps are named in words from the stage table, in the interface's language,
// with the head, the decoding step and the token it produced; the timeline
// names the step under the pointer in the status line.
static void test_step_names(void **state) {
    Fixture *f = *state;
    const Trace *t = app_trace(f->a);
    const Step *s = trace_step(t, trace_find(t, "dec.L2.cross_attn.weights", 2, 3));
    char buf[512];
    expect_str("English name", view_step_name(t, s, LANG_EN, buf, sizeof buf),
               "Decoder layer 2 \xC2\xB7 cross-attention \xC2\xB7 weights \xC2\xB7 head 2 \xC2\xB7 step 3, producing 在");
    expect_str("Chinese name", view_step_name(t, s, LANG_ZH_TW, buf, sizeof buf),
               "解碼器第 2 層・交叉注意力・權重・第 2 頭・第 3 步，產生「在」");
    expect_str("place", view_step_place(t, s, LANG_EN, buf, sizeof buf), "Decoding step 3 of 7, producing 在");
    const Step *enc = trace_step(t, trace_find(t, "enc.L1.self_attn.weights", 1, 0));
    expect_str("encoder place", view_step_place(t, enc, LANG_ZH_TW, buf, sizeof buf), "編碼器第 1 層");
    // a layer and a head in Chinese: 「第 2 層・第 1 頭」, not 「層 2 頭 1」
    snprintf(buf, sizeof buf, i18n(LANG_ZH_TW, S_V_MASK_NOTE), 2, 1);
    expect_str("mask view's note", buf, "第 2 層・第 1 頭的分數與權重");
    // the pointer over the timeline's end: the last decoding step, named
    app_draw(f->a);
    SDL_Rect play = app_button(f->a, SDLK_SPACE);  // the timeline runs from the play button to the right edge
    mouse(f->a, SDL_MOUSEMOTION, W - 20, play.y + play.h / 2);
    expect_contains("status over the timeline's end", app_status(f->a), "step 7, producing <eos>");
}

// X silences the head shown (the sentence runs again, the place kept), X again lets it
// speak, Shift+X silences nothing; on a feed-forward step X silences the sub-layer.
static void test_silence_keys(void **state) {
    Fixture *f = *state;
    char names[256];
    go_to(f->a, "dec.L2.cross_attn.weights", 3, 2);
    key(f->a, SDLK_x, KMOD_NONE);
    expect_str("silenced", abl_format(&trace_options(app_trace(f->a))->ablate, names, sizeof names), "dec.L2.cross_attn.H3");
    expect_stage(f->a, "dec.L2.cross_attn.weights", 3);
    go_to(f->a, "enc.L1.ffn.hidden", 0, 0);
    key(f->a, SDLK_x, KMOD_NONE);
    expect_str("silenced", abl_format(&trace_options(app_trace(f->a))->ablate, names, sizeof names), "dec.L2.cross_attn.H3,enc.L1.ffn");
    key(f->a, SDLK_x, KMOD_NONE);
    expect_str("let go", abl_format(&app_decode(f->a)->ablate, names, sizeof names), "dec.L2.cross_attn.H3");
    key(f->a, SDLK_e, KMOD_NONE);  // the page works out its comparison; drawing it must not crash
    app_draw(f->a);
    key(f->a, SDLK_x, KMOD_LSHIFT);
    expect_int("silenced parts", trace_options(app_trace(f->a))->ablate.n, 0);
    app_draw(f->a);
    go_to(f->a, "src.tokens", 0, 0);  // a step of no sub-layer: nothing to silence
    expect_int("X on src.tokens", key(f->a, SDLK_x, KMOD_NONE), 0);
}

// K shows the KV cache on the decoder's matrices from step 2, in generation;
// its button is there only where it applies, and the view is drawn at sizes
// from a thumbnail to 8K.
static void test_kv_cache_key(void **state) {
    Fixture *f = *state;
    go_to(f->a, "enc.L1.self_attn.weights", 1, 0);
    app_draw(f->a);
    expect_int("the KV cache button on an encoder step", app_button(f->a, SDLK_k).w, 0);
    go_to(f->a, "dec.L2.self_attn.v", 3, 1);
    app_draw(f->a);
    expect_int("the KV cache button at decoding step 1", app_button(f->a, SDLK_k).w, 0);
    go_to(f->a, "dec.L2.self_attn.v", 3, 3);
    app_draw(f->a);
    assert_true(app_button(f->a, SDLK_k).w > 0);
    expect_int("K", key(f->a, SDLK_k, KMOD_NONE), 1);
    expect_int("the KV cache after K", app_view(f->a)->kv_cache, 1);
    expect_stage(f->a, "dec.L2.self_attn.v", 3);  // the step stays; only how it is shown changes
    static const int sizes[][2] = {{1024, 768}, {200, 150}, {7680, 4320}};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        if (gfx_resize(f->g, sizes[i][0], sizes[i][1])) fail_msg("gfx_resize %d×%d failed", sizes[i][0], sizes[i][1]);
        app_draw(f->a);
    }
    // a click on the lit button turns it off again
    if (gfx_resize(f->g, 1280, 800)) fail_msg("gfx_resize failed");
    app_draw(f->a);
    SDL_Rect b = app_button(f->a, SDLK_k);
    mouse(f->a, SDL_MOUSEBUTTONDOWN, b.x + b.w / 2, b.y + b.h / 2);
    mouse(f->a, SDL_MOUSEBUTTONUP, b.x + b.w / 2, b.y + b.h / 2);
    expect_int("the KV cache after a click on its button", app_view(f->a)->kv_cache, 0);
    go_to(f->a, "dec.probs", 0, 3);  // bars: no KV view
    app_draw(f->a);
    expect_int("the KV cache button on dec.probs", app_button(f->a, SDLK_k).w, 0);
}

// B opens the page of two models, E the experiment page: one at a time; the
// page follows the step shown and is drawn at any size; with no second model
// it says how to give one.
static void test_twin_page_key(void **state) {
    Fixture *f = *state;
    go_to(f->a, "dec.L1.cross_attn.weights", 2, 3);
    expect_int("B", key(f->a, SDLK_b, KMOD_NONE), 1);
    expect_int("the page after B", app_twin_page(f->a), 1);
    static const int sizes[][2] = {{1024, 768}, {120, 90}, {7680, 4320}, {1280, 800}};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        if (gfx_resize(f->g, sizes[i][0], sizes[i][1])) fail_msg("gfx_resize %d×%d failed", sizes[i][0], sizes[i][1]);
        app_draw(f->a);
    }
    key(f->a, SDLK_RIGHT, KMOD_NONE);  // the page follows the steps
    app_draw(f->a);
    go_to(f->a, "dec.choice", 0, 2);  // not in a teacher-forced pass: the cross-attention instead
    app_draw(f->a);
    key(f->a, SDLK_e, KMOD_NONE);
    expect_int("the page after E", app_twin_page(f->a), 0);
    key(f->a, SDLK_b, KMOD_NONE);
    expect_int("the page after B again", app_twin_page(f->a), 1);
    expect_int("a new sentence", app_set_sentence(f->a, "i love natural language processing"), 0);
    app_draw(f->a);
    expect_int("a model with no twin", app_set_model(f->a, TT_TEST_DATA "/../../assets/models/en-fr.safetensors"), 0);
    app_draw(f->a);  // says there is no second model
    key(f->a, SDLK_b, KMOD_NONE);
    expect_int("the page after B on en-fr", app_twin_page(f->a), 0);
}

// H opens the training history: ← → Home End go through the snapshots and
// leave the step alone, Space plays them to the end, a click on a step's
// button chooses it; one page at a time; a model with no history says so.
static void test_history_page_key(void **state) {
    Fixture *f = *state;
    go_to(f->a, "dec.L2.cross_attn.weights", 1, 3);
    int step = app_step(f->a);
    expect_int("H", key(f->a, SDLK_h, KMOD_NONE), 1);
    expect_int("the page after H", app_history_page(f->a), 1);
    expect_int("the first look: the trained model", app_history_snapshot(f->a), 9);
    key(f->a, SDLK_HOME, KMOD_NONE);
    expect_int("Home", app_history_snapshot(f->a), 0);
    key(f->a, SDLK_RIGHT, KMOD_NONE);
    key(f->a, SDLK_RIGHT, KMOD_NONE);
    expect_int("→ →", app_history_snapshot(f->a), 2);
    key(f->a, SDLK_LEFT, KMOD_NONE);
    expect_int("←", app_history_snapshot(f->a), 1);
    expect_int("the step, untouched", app_step(f->a), step);
    key(f->a, SDLK_SPACE, KMOD_NONE);  // plays: a snapshot a beat, to the end
    Uint32 now = SDL_GetTicks();
    for (int i = 0; i < 20; i++) app_tick(f->a, now += 1000);
    expect_int("played to the end", app_history_snapshot(f->a), 9);
    expect_int("and stopped", app_next_tick(f->a, now), -1);
    static const int sizes[][2] = {{1024, 768}, {120, 90}, {7680, 4320}, {1280, 800}};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        if (gfx_resize(f->g, sizes[i][0], sizes[i][1])) fail_msg("gfx_resize %d×%d failed", sizes[i][0], sizes[i][1]);
        app_draw(f->a);
    }
    // a click on the first step's button, the map of the model hidden (P): the page at the window's left
    for (int i = 0; i < 3 && !app_map_hidden(f->a); i++) key(f->a, SDLK_p, KMOD_NONE);
    expect_int("P hides the map within three presses", app_map_hidden(f->a), 1);
    app_draw(f->a);
    SDL_Event e = {.type = SDL_MOUSEBUTTONDOWN};
    e.button.button = SDL_BUTTON_LEFT;
    for (int y = 400; y < 800 && app_history_snapshot(f->a) != 0; y += 3)  // below the view: the curve, then the buttons
        for (int x = 0; x < 40 && app_history_snapshot(f->a) != 0; x += 3) {
            e.button.x = x, e.button.y = y;
            app_event(f->a, &e);
        }
    expect_int("a click at the curve's start or on step 0's button", app_history_snapshot(f->a), 0);
    key(f->a, SDLK_b, KMOD_NONE);
    expect_int("B closes the history", app_history_page(f->a), 0);
    key(f->a, SDLK_h, KMOD_NONE);
    expect_int("a new sentence keeps the page", app_set_sentence(f->a, "i love natural language processing"), 0);
    expect_int("the page", app_history_page(f->a), 1);
    app_draw(f->a);
    expect_int("a model with no history", app_set_model(f->a, TT_TEST_DATA "/../../assets/models/en-zh-random.safetensors"), 0);
    expect_int("no snapshots", app_history_snapshot(f->a), -1);
    app_draw(f->a);  // says why
    key(f->a, SDLK_h, KMOD_NONE);
    expect_int("H closes", app_history_page(f->a), 0);
}

// The decoding sliders: a press on the track and a drag set the value, the
// sentence running again at each new value; letting go ends the drag; the
// ends of the track are the panel's bounds.
static void test_sliders(void **state) {
    Fixture *f = *state;
    DecodeOptions d = *app_decode(f->a);
    d.mode = DECODE_SAMPLE;
    expect_int("sampling", app_set_decode(f->a, &d), 0);
    key(f->a, SDLK_d, KMOD_NONE);
    app_draw(f->a);
    SDL_Rect t = app_slider(f->a, ROW_TEMPERATURE), k = app_slider(f->a, ROW_TOP_K), p = app_slider(f->a, ROW_TOP_P);
    if (t.w <= 0 || k.w <= 0 || p.w <= 0) fail_msg("expected: the temperature, top-k and top-p sliders, got: widths %d, %d, %d", t.w, k.w, p.w);
    mouse(f->a, SDL_MOUSEBUTTONDOWN, t.x + t.w - 1, t.y + t.h / 2);
    if (!(trace_options(app_trace(f->a))->temperature == 5.0f)) fail_msg("temperature at the right end: got: %g", (double)trace_options(app_trace(f->a))->temperature);
    mouse(f->a, SDL_MOUSEMOTION, t.x - 50, t.y + t.h / 2);  // past the left end: the lowest
    if (!(trace_options(app_trace(f->a))->temperature == 0.1f)) fail_msg("temperature dragged to the left end: got: %g", (double)trace_options(app_trace(f->a))->temperature);
    mouse(f->a, SDL_MOUSEMOTION, t.x + (t.w - 1) / 2, t.y + 200);  // the drag follows x alone
    float mid = trace_options(app_trace(f->a))->temperature;
    if (!(mid > 0.6f && mid < 0.8f)) fail_msg("temperature halfway (log scale: about 0.7): got: %g", (double)trace_options(app_trace(f->a))->temperature);
    mouse(f->a, SDL_MOUSEBUTTONUP, t.x, t.y);
    mouse(f->a, SDL_MOUSEMOTION, t.x + t.w - 1, t.y + t.h / 2);
    if (!(trace_options(app_trace(f->a))->temperature == mid)) fail_msg("let go: the pointer moves the knob no more: got: %g", (double)trace_options(app_trace(f->a))->temperature);
    mouse(f->a, SDL_MOUSEBUTTONDOWN, k.x + k.w / 2, k.y + k.h / 2);
    mouse(f->a, SDL_MOUSEBUTTONUP, k.x, k.y);
    int half = voc_size(app_model(f->a)->tgt) / 2;
    int got = trace_options(app_trace(f->a))->top_k;
    if (got < half - 1 || got > half + 1) fail_msg("top-k halfway: expected: about %d, got: %d", half, got);
    mouse(f->a, SDL_MOUSEBUTTONDOWN, p.x, p.y + p.h / 2);
    mouse(f->a, SDL_MOUSEBUTTONUP, p.x, p.y);
    if (!(trace_options(app_trace(f->a))->top_p == 0.05f)) fail_msg("top-p at the left end: got: %g", (double)trace_options(app_trace(f->a))->top_p);
    // the beam width's slider, with beam search
    d = *app_decode(f->a);
    d.mode = DECODE_BEAM;
    expect_int("beam search", app_set_decode(f->a, &d), 0);
    app_draw(f->a);
    SDL_Rect b = app_slider(f->a, ROW_BEAM);
    mouse(f->a, SDL_MOUSEBUTTONDOWN, b.x + b.w - 1, b.y + b.h / 2);
    mouse(f->a, SDL_MOUSEBUTTONUP, b.x, b.y);
    expect_int("beam width at the right end", trace_options(app_trace(f->a))->beam_width, 16);
}

// C changes the colour map and names the new one in the status line.
static void test_c_names_the_map(void **state) {
    Fixture *f = *state;
    key(f->a, SDLK_c, KMOD_NONE);
    expect_contains("status after C", app_status(f->a), cmap_name(CMAP_CIVIDIS));
    key(f->a, SDLK_c, KMOD_NONE);
    expect_contains("status after C twice", app_status(f->a), cmap_name(CMAP_MAGMA));
}

// Every box of the map of the model a click reaches, from the step shown:
// their stage ids in found (a space-separated list). Every click keeps the
// decoding step (a decoder box) and the head (a value per head).
static void map_clicks(Gfx *g, const Trace *t, int step, SDL_Rect area, char *found, size_t size) {
    const Step *now = trace_step(t, step);
    found[0] = '\0';
    for (int y = area.y; y < area.y + area.h; y += 3)
        for (int x = area.x; x < area.x + area.w; x += 5) {
            int to = amap_click(g, area, t, step, now->head, AMAP_FULL, x, y);
            if (to < 0) continue;
            const Step *s = trace_step(t, to);
            char id[128], word[132];
            trace_stage_id(s, id, sizeof id);
            bool decoder = s->stage->part != STAGE_SOURCE && s->stage->part != STAGE_ENCODER;
            if (decoder && s->dstep != now->dstep) fail_msg("a click on %s went to decoding step %d, not %d", id, s->dstep, now->dstep);
            int want = now->head > 0 ? now->head : 1;  // from a value of all heads, the first
            if (s->stage->per_head && s->head != want) fail_msg("a click on %s went to head %d, not %d", id, s->head, want);
            snprintf(word, sizeof word, " %s ", id);
            if (!strstr(found, word) && strlen(found) + strlen(word) < size) strcat(found, word + (found[0] ? 1 : 0));
        }
}

// The map of the model: shown beside the step, made from the trace for any
// number of layers, the step's box highlighted; a click goes to a box's value
// at the same decoding step and head; P cycles it full, small, hidden.
static void test_architecture_map(void **state) {
    Fixture *f = *state;
    go_to(f->a, "dec.L2.cross_attn.weights", 2, 5);
    app_draw(f->a);
    SDL_Rect r = app_map_rect(f->a);
    if (app_map_hidden(f->a) || r.w <= 0) fail_msg("the map of the model is not shown beside the step");
    char found[4096];
    SDL_Rect area = {0, 0, amap_width(f->g, AMAP_FULL, LANG_EN), 760};
    map_clicks(f->g, app_trace(f->a), app_step(f->a), area, found, sizeof found);
    static const char *const boxes[] = {"src.input", "enc.L1.self_attn.weights", "enc.L1.norm1", "enc.L1.ffn.out", "enc.L2.norm2",
                                        "enc.output", "dec.input", "dec.look_ahead_mask", "dec.L1.self_attn.weights",
                                        "dec.L1.cross_attn.weights", "dec.L2.norm3", "dec.output", "dec.probs", "dec.choice"};
    for (size_t i = 0; i < sizeof boxes / sizeof *boxes; i++)
        if (!strstr(found, boxes[i])) fail_msg("no box of the map goes to %s; the boxes go to: %s", boxes[i], found);
    // through the window: a click on the map's source box goes to the source's input
    int before = app_step(f->a);
    for (int y = r.y; y < r.y + r.h && app_step(f->a) == before; y += 2)
        for (int x = r.x; x < r.x + r.w / 2 && app_step(f->a) == before; x += 4)
            mouse(f->a, SDL_MOUSEBUTTONDOWN, x, y);
    char id[128];
    if (app_step(f->a) == before) fail_msg("no click on the map moved from %s", stage(f->a, id, sizeof id));
    expect_str("the map's first box", stage(f->a, id, sizeof id), "src.input");
    // three layers of encoder and one of decoder: a zero model of that shape
    const char *words[] = {"<pad>", "<unk>", "<bos>", "<eos>", "a", "b"};
    Error err;
    Vocab *src = voc_new(words, 6, &err), *tgt = voc_new(words, 6, &err);
    Config c = {.d_model = 8, .nhead = 2, .n_enc = 3, .n_dec = 1, .d_ff = 16, .eps = 1e-5f, .max_len = 8, .src_vocab = 6, .tgt_vocab = 6};
    Model *m = src && tgt ? mdl_new(&c, src, tgt, &err) : NULL;
    if (!m) fail_msg("a zero model: %s", err.msg);
    int ids[] = {4, 5, 4};
    DecodeOptions o = {.mode = DECODE_GREEDY, .max_steps = 3, .show_top = 3, .ignore_eos = true};
    Trace *t = trace_run(m, ids, 3, &o, &err);
    if (!t) fail_msg("its trace: %s", err.msg);
    int at = trace_find(t, "dec.L1.ffn.out", 0, 2);
    if (at < 0) fail_msg("no dec.L1.ffn.out at step 2");
    map_clicks(f->g, t, at, area, found, sizeof found);
    static const char *const three[] = {"enc.L1.self_attn.weights", "enc.L2.self_attn.weights", "enc.L3.norm2", "dec.L1.cross_attn.weights",
                                        "dec.L1.norm3"};
    for (size_t i = 0; i < sizeof three / sizeof *three; i++)
        if (!strstr(found, three[i])) fail_msg("3 + 1 layers: no box goes to %s; the boxes go to: %s", three[i], found);
    if (strstr(found, "enc.L4") || strstr(found, "dec.L2")) fail_msg("3 + 1 layers: a box of a layer the model has not: %s", found);
    trace_free(t);
    mdl_free(m);
    // P: full or small, then hidden within three presses, then shown again
    for (int i = 0; i < 3 && !app_map_hidden(f->a); i++) key(f->a, SDLK_p, KMOD_NONE);
    expect_int("P hides the map", app_map_hidden(f->a), 1);
    app_draw(f->a);
    expect_int("hidden, it takes no room", app_map_rect(f->a).w, 0);
    key(f->a, SDLK_p, KMOD_NONE);
    expect_int("P shows it again", app_map_hidden(f->a), 0);
    expect_contains("the status line names it", app_status(f->a), "map of the model");
}

// Signed values on a map centred on 0 (white at 0, purple below, orange
// above), weights on the sequential map from 0 to 1; Shift+C's shared scale
// covers every head of the layer and every decoding step.
static void test_colour_scales(void **state) {
    (void)state;
    Trace *t = trace_of(SENTENCE);
    Error err;
    Gfx *g = gfx_new(W, H, font, &err);
    if (!g) fail_msg("gfx_new: %s", err.msg);
    expect_int("0 is white-ish", (int)(cmap_diverging(0.5f) & 0xFFFFFF), 0xf7f7f7);
    Color lo = cmap_diverging(0.0f), hi = cmap_diverging(1.0f);
    if (!((lo & 0xFF) > ((lo >> 16) & 0xFF) && ((hi >> 16) & 0xFF) > (hi & 0xFF)))
        fail_msg("expected: purple (more blue than red) below, orange (more red than blue) above: %06x, %06x", lo & 0xFFFFFF, hi & 0xFFFFFF);
    SDL_Rect area = {0, 0, W, H};
    ViewState vs = {.model = model, .trace = t, .theme = theme_get(false), .hover_row = -1, .hover_col = -1, .font_px = 18, .lang = LANG_EN};
    int scores = trace_find(t, "dec.L1.cross_attn.scores", 2, 3), weights = trace_find(t, "dec.L1.cross_attn.weights", 2, 3);
    const Step *s = trace_step(t, scores);
    HeatLayout L = heat_layout(g, area, &vs, s, true, true, true);
    if (!L.diverging || L.lo != -L.hi || L.hi <= 0.0f) fail_msg("scores: expected a scale symmetric about 0, got %g to %g", L.lo, L.hi);
    float most = 0.0f;
    for (int r = 0; r < s->rows; r++)
        for (int c = 0; c < s->cols; c++) most = fmaxf(most, fabsf(trace_row(s, r)[c]));
    if (L.hi != most) fail_msg("scores: expected the scale to reach the largest magnitude %g, got %g", most, L.hi);
    HeatLayout W8 = heat_layout(g, area, &vs, trace_step(t, weights), true, true, true);
    if (W8.diverging || W8.lo != 0.0f || W8.hi != 1.0f) fail_msg("weights: expected the sequential map from 0 to 1, got %g to %g", W8.lo, W8.hi);
    // shared: every head of layer 1's cross-attention scores, every step; a
    // step of smaller values than the largest is drawn on the larger scale
    vs.opt.shared_scale = true;
    float all = 0.0f;
    int smaller = -1;
    for (int i = 0; i < trace_count(t); i++) {
        const Step *o = trace_step(t, i);
        if (o->stage != s->stage || o->layer != 1) continue;
        for (int r = 0; r < o->rows; r++)
            for (int c = 0; c < o->cols; c++) all = fmaxf(all, fabsf(trace_row(o, r)[c]));
    }
    for (int i = 0; i < trace_count(t) && smaller < 0; i++) {
        const Step *o = trace_step(t, i);
        vs.opt.shared_scale = false;
        if (o->stage == s->stage && o->layer == 1 && heat_layout(g, area, &vs, o, true, true, true).hi < all) smaller = i;
    }
    vs.opt.shared_scale = true;
    if (smaller < 0) fail_msg("no step of smaller scores than the largest, %g", all);
    HeatLayout S = heat_layout(g, area, &vs, trace_step(t, smaller), true, true, true);
    if (S.hi != all || S.lo != -all) fail_msg("shared: expected ±%g, got %g to %g", all, S.lo, S.hi);
    // the same scale from the ranges the trace's view data worked out once (the window's way)
    ViewData *d = view_data_new(model, t, -1, &err);
    if (!d) fail_msg("view_data_new: %s", err.msg);
    float dlo = INFINITY, dhi = -INFINITY;
    if (!view_data_shared_range(d, trace_step(t, smaller), &dlo, &dhi)) fail_msg("no shared range in a whole trace's view data");
    vs.data = d;
    S = heat_layout(g, area, &vs, trace_step(t, smaller), true, true, true);
    if (S.hi != all || S.lo != -all) fail_msg("shared, from the view data: expected ±%g, got %g to %g", all, S.lo, S.hi);
    if (fmaxf(fabsf(dlo), fabsf(dhi)) != all) fail_msg("the view data's range: %g to %g, its largest magnitude should be %g", dlo, dhi, all);
    view_data_free(d);
    ViewData *one = view_data_new(model, t, smaller, &err);  // one step's data: no ranges
    if (!one) fail_msg("view_data_new: %s", err.msg);
    expect_int("a step's data has no shared ranges", view_data_shared_range(one, trace_step(t, smaller), &dlo, &dhi), 0);
    view_data_free(one);
    gfx_free(g);
    trace_free(t);
}

// The Chinese interface names the shipped models in Chinese; any other name
// stays as it is, and English shows them as they are.
static void test_model_names(void **state) {
    (void)state;
    char buf[256];
    expect_str("en-zh", i18n_model_name(LANG_ZH_TW, "en\xE2\x86\x92zh-TW (toy corpus)", buf, sizeof buf),
               "英文\xE2\x86\x92繁體中文（玩具語料）");
    expect_str("twin", i18n_model_name(LANG_ZH_TW, "en\xE2\x86\x92zh-TW (toy corpus), untrained", buf, sizeof buf),
               "英文\xE2\x86\x92繁體中文（玩具語料），未訓練");
    expect_str("en-fr", i18n_model_name(LANG_ZH_TW, "en\xE2\x86\x92" "fr (toy corpus)", buf, sizeof buf), "英文\xE2\x86\x92法文（玩具語料）");
    expect_str("another model", i18n_model_name(LANG_ZH_TW, "often frozen", buf, sizeof buf), "often frozen");
    expect_str("English", i18n_model_name(LANG_EN, "en\xE2\x86\x92" "fr (toy corpus)", buf, sizeof buf), "en\xE2\x86\x92" "fr (toy corpus)");
    char tiny[8];
    i18n_model_name(LANG_ZH_TW, "en\xE2\x86\x92zh-TW (toy corpus)", tiny, sizeof tiny);
    if (strlen(tiny) >= sizeof tiny) fail_msg("a small buffer overflowed");
}

int main(void) {
    const struct CMUnitTest behaviour[] = {
        cmocka_unit_test_setup_teardown(test_architecture_map, setup, teardown),
        cmocka_unit_test(test_colour_scales),
        cmocka_unit_test(test_model_names),
        cmocka_unit_test_setup_teardown(test_sliders, setup, teardown),
        cmocka_unit_test_setup_teardown(test_silence_keys, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kv_cache_key, setup, teardown),
        cmocka_unit_test_setup_teardown(test_twin_page_key, setup, teardown),
        cmocka_unit_test_setup_teardown(test_history_page_key, setup, teardown),
        cmocka_unit_test_setup_teardown(test_render_step_png, setup, teardown),
        cmocka_unit_test_setup_teardown(test_render_step_png_unwritable, setup, teardown),
        cmocka_unit_test_setup_teardown(test_png_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_export_view, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ctrl_s, setup, teardown),
        cmocka_unit_test(test_gold_once_per_trace),
        cmocka_unit_test(test_view_data_average),
        cmocka_unit_test(test_view_without_data_says_so),
        cmocka_unit_test(test_stage_kinds),
        cmocka_unit_test_setup_teardown(test_step_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_c_names_the_map, setup, teardown),
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
    return fixture_main(tests, sizeof tests / sizeof *tests);
}
