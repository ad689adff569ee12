// The lesson format (docs/LESSONS.md): parsing, problems with file:line, and
// binding steps to a trace, also after the sentence changes.
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lesson.h"
#include "tt_config.h"

static const char example[] =
    "\xEF\xBB\xBF# a comment\r\n"
    "title: Cross-attention\r\n"
    "title.zh: 交叉注意力\n"
    "summary: One\n"
    "  line.\n"
    "summary.zh: 一行。\n"
    "model: en-fr\n"
    "sentence: The cat sits on the mat.\n"
    "\n"
    "[step]\n"
    "stage: src.tokens\n"
    "say: First paragraph,\n"
    "\tcontinued.\n"
    "say: Second.\n"
    "say.zh: 第一段。\n"
    "[step]\n"
    "stage: dec.L2.cross_attn.weights\n"
    "head: 1\n"
    "step: last\n"
    "view: gold grid\n"
    "highlight: 4,* 2,3\n"
    "decode: beam\n"
    "beam: 3\n"
    "say: Rows are French words.\n"
    "say.zh: 每列是法文詞。\n"
    "ask: Which?\n"
    "ask.zh: 哪一個？\n"
    "choice: cat\n"
    "choice.zh: 貓\n"
    "choice: sits\n"
    "choice.zh: 坐\n"
    "answer: 2\n"
    "reveal: sits\n"
    "reveal.zh: 坐\n"
    "[step]\n"
    "stage: dec.probs\n"
    "step: 2\n"
    "say: Back to greedy.\n"
    "say.zh: 回到貪婪解碼。\n";

static Lesson *parse(const char *text, size_t len, LesProblems *pr) {
    Lesson *l = les_parse(text, len, "x.lesson", pr);
    assert_non_null(l);
    return l;
}

static void print_problems(const LesProblems *pr) {
    for (int i = 0; i < pr->n; i++) fprintf(stderr, "  %s\n", pr->msgs[i]);
}

static void test_parses_the_example(void **state) {
    (void)state;
    LesProblems pr = {0};
    Lesson *l = parse(example, sizeof example - 1, &pr);
    print_problems(&pr);
    assert_int_equal(pr.n, 0);
    assert_string_equal(l->title[LES_EN], "Cross-attention");
    assert_string_equal(l->title[LES_ZH], "交叉注意力");
    assert_string_equal(l->summary[LES_EN], "One line.");
    assert_string_equal(l->model, "en-fr");
    assert_int_equal(l->n_steps, 3);
    const LesStep *s = &l->steps[0];
    assert_int_equal(s->line, 10);
    assert_string_equal(s->say[LES_EN], "First paragraph, continued.\nSecond.");
    s = &l->steps[1];
    assert_string_equal(s->stage, "dec.L2.cross_attn.weights");
    assert_int_equal(s->head, 1);
    assert_int_equal(s->dstep, -1);
    assert_true(s->grid);
    assert_false(s->no_gold);
    assert_int_equal(s->n_cells, 2);
    assert_int_equal(s->cells[0].row, 4);
    assert_int_equal(s->cells[0].col, 0);
    assert_int_equal(s->cells[1].col, 3);
    assert_int_equal(s->n_choices, 2);
    assert_string_equal(s->choices[LES_ZH][1], "坐");
    assert_int_equal(s->answer, 2);
    assert_int_equal(s->run.mode, DECODE_BEAM);
    assert_int_equal(s->run.beam, 3);
    // a step's settings are its own: the next step is greedy again
    LesRun r1 = les_run_for_step(l, 1, NULL), r2 = les_run_for_step(l, 2, NULL);
    assert_int_equal(r1.mode, DECODE_BEAM);
    assert_int_equal(r2.mode, -1);
    assert_false(les_run_equal(&r1, &r2));
    LesRun r0 = les_run_for_step(l, 0, NULL);
    assert_true(les_run_equal(&r0, &r2));
    assert_string_equal(r1.model, "en-fr");  // a step without a model of its own runs the lesson's
    LesRun own = les_run_for_step(l, 0, "the dog");
    assert_string_equal(own.sentence, "the dog");
    les_free(l);
    les_problems_deinit(&pr);
}

// Every problem names the file and line; the good parts are still parsed.
static void expect_problem(const char *text, const char *want) {
    LesProblems pr = {0};
    Lesson *l = parse(text, strlen(text), &pr);
    bool found = false;
    for (int i = 0; i < pr.n; i++) found |= strstr(pr.msgs[i], want) != NULL;
    if (!found) {
        fprintf(stderr, "expected a problem containing: %s\ngot:\n", want);
        print_problems(&pr);
    }
    assert_true(found);
    les_free(l);
    les_problems_deinit(&pr);
}

#define HEAD "title: t\ntitle.zh: t\nmodel: en-zh\nsentence: i love nlp\n"

static void test_problems_name_file_and_line(void **state) {
    (void)state;
    expect_problem("", "x.lesson:1: the lesson has no title");
    expect_problem(HEAD, "x.lesson:4: the lesson has no [step]");
    expect_problem(HEAD "[step]\nstage: src.tokens\nsay: a\n", "x.lesson:5: this step has no narration in 繁體中文 (say.zh)");
    expect_problem(HEAD "[step]\nstage: src.tokens\nsay: a\nsay.zh: b\nhead: zero\n", "x.lesson:9: head takes a whole number from 0 to 256, got \"zero\"");
    expect_problem(HEAD "[step]\nstage: src.tokens\nsay: a\nsay.zh: b\nstep: -1\n", "x.lesson:9: step takes a whole number from 0 to 4096, got \"-1\"");
    expect_problem(HEAD "seed: -3\n", "x.lesson:5: seed is \"-3\"");
    expect_problem(HEAD "top-p: 1.5\n", "x.lesson:5: top-p takes a number above 0 and at most 1, got \"1.5\"");
    expect_problem(HEAD "decode: nucleus\n", "x.lesson:5: decode is \"nucleus\"");
    expect_problem(HEAD "allow-special: maybe\n", "x.lesson:5: allow-special is \"maybe\"; expected yes or no");
    expect_problem(HEAD "pad-to: six\n", "x.lesson:5: pad-to is \"six\"; expected a whole number from 0 (off) to 4096");
    expect_problem(HEAD "pad-to: 4097\n", "x.lesson:5: pad-to is \"4097\"");
    expect_problem(HEAD "allow-special:\n", "x.lesson:5: \"allow-special\" has no value");
    expect_problem(HEAD "allow-special: yes\nallow-special: no\n", "x.lesson:6: \"allow-special\" given twice in the same lesson");
    expect_problem(HEAD "model: en-fr\n", "x.lesson:5: \"model\" given twice in the same lesson");
    expect_problem(HEAD "target: none\n", "\"target: none\" is for a step");
    expect_problem(HEAD "title:\n", "x.lesson:5: \"title\" has no value");
    expect_problem(HEAD "[step]\nstage: src.tokens\nsay: a\nsay.zh: b\nanswer: 1\n", "x.lesson:5: answer without choices");
    expect_problem(HEAD "[step]\nmodel: en-fr\nmodel: en-zh\nstage: src.tokens\nsay: a\nsay.zh: b\n", "x.lesson:7: \"model\" given twice in the same step");
}

static void test_broken_bytes(void **state) {
    (void)state;
    LesProblems pr = {0};
    // a NUL byte: not text at all
    const char nul[] = HEAD "\0[step]\n";
    Lesson *l = parse(nul, sizeof nul - 1, &pr);
    assert_int_equal(pr.n, 1);
    assert_non_null(strstr(pr.msgs[0], "x.lesson: the file holds a NUL byte"));
    les_free(l);
    les_problems_deinit(&pr);
    // a line of 1 MB, and a file over the limit
    size_t big = (size_t)LES_MAX_BYTES + 10;
    char *text = malloc(big + 1);
    assert_non_null(text);
    memset(text, 'a', big);
    memcpy(text, "say: ", 5);
    text[big] = '\0';
    l = parse(text, big, &pr);
    assert_non_null(strstr(pr.msgs[0], "more than a lesson's"));
    les_free(l);
    les_problems_deinit(&pr);
    l = parse(text, (size_t)LES_MAX_BYTES, &pr);
    assert_non_null(strstr(pr.msgs[0], "x.lesson:1: the line is"));
    les_free(l);
    les_problems_deinit(&pr);
    // binary noise: every byte value, over and over; problems, no crash
    for (size_t i = 0; i < 65536; i++) text[i] = (char)(i * 2654435761u >> 13);
    l = parse(text, 65536, &pr);
    assert_true(pr.n > 0);
    les_free(l);
    les_problems_deinit(&pr);
    free(text);
}

static Model *load(const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/models/%s.safetensors", TT_SOURCE_ASSETS, name);
    Error err;
    Model *m = mdl_load(path, &err);
    if (!m) fprintf(stderr, "%s\n", err.msg);
    assert_non_null(m);
    return m;
}

static void test_binds_and_rebinds(void **state) {
    (void)state;
    static const char text[] = HEAD "target: 我 愛 自然 語言 處理\n"
                                    "[step]\nstage: dec.loss\nsay: a\nsay.zh: b\n"
                                    "[step]\ntarget: none\nstage: dec.L1.cross_attn.weights\nhead: 2\nstep: last\nsay: a\nsay.zh: b\n"
                                    "[step]\ntarget: none\nstage: dec.probs\nstep: 6\nsay: a\nsay.zh: b\n";
    LesProblems pr = {0};
    Lesson *l = parse(text, sizeof text - 1, &pr);
    print_problems(&pr);
    assert_int_equal(pr.n, 0);
    Model *m = load("en-zh");
    Error err;
    char why[256];
    // teacher forcing with the lesson's target: the loss is there
    LesRun r = les_run_for_step(l, 0, NULL);
    Trace *t = les_trace(m, &r, false, &err);
    assert_non_null(t);
    assert_true(les_bind(l, 0, t, why, sizeof why) >= 0);
    trace_free(t);
    // greedy: "我 愛 自然 語言 處理" + <eos> is 6 steps; "last" is step 6
    r = les_run_for_step(l, 1, NULL);
    t = les_trace(m, &r, false, &err);
    assert_non_null(t);
    int i = les_bind(l, 1, t, why, sizeof why);
    assert_true(i >= 0);
    assert_int_equal(trace_step(t, i)->dstep, 6);
    assert_int_equal(trace_step(t, i)->head, 2);
    assert_true(les_bind(l, 2, t, why, sizeof why) >= 0);
    trace_free(t);
    // a teacher's shorter sentence (我 睡覺 <eos>): step 6 no longer exists, and says so
    r = les_run_for_step(l, 2, "i sleep");
    t = les_trace(m, &r, true, &err);
    assert_non_null(t);
    assert_int_equal(les_bind(l, 2, t, why, sizeof why), -1);
    assert_non_null(strstr(why, "not step 6"));
    i = les_bind(l, 1, t, why, sizeof why);
    assert_true(i >= 0);
    assert_true(trace_step(t, i)->dstep < 6);
    trace_free(t);
    // teacher forcing on the teacher's sentence forces the model's own translation
    r = les_run_for_step(l, 0, "i sleep");
    t = les_trace(m, &r, true, &err);
    if (!t) fprintf(stderr, "%s\n", err.msg);
    assert_non_null(t);
    assert_true(les_bind(l, 0, t, why, sizeof why) >= 0);
    int n;
    const int *ids = trace_output(t, &n);
    assert_string_equal(voc_token(m->tgt, ids[0]), "我");
    trace_free(t);
    // a sentence of only unknown words does not run
    r = les_run_for_step(l, 1, "zebra giraffe");
    assert_null(les_trace(m, &r, true, &err));
    assert_non_null(strstr(err.msg, "vocabulary"));
    mdl_free(m);
    les_free(l);
    les_problems_deinit(&pr);
}

static void test_model_path(void **state) {
    (void)state;
    LesProblems pr = {0};
    Lesson *l = les_parse(HEAD, strlen(HEAD), "dir/sub/x.lesson", &pr);
    char buf[256];
    assert_string_equal(les_model_path(l, l->model, "/models", buf, sizeof buf), "/models/en-zh.safetensors");
    assert_string_equal(les_model_path(l, "mine.safetensors", "/models", buf, sizeof buf), "dir/sub/mine.safetensors");
    les_free(l);
    les_problems_deinit(&pr);
}

// Stage ids are the stage table's: binding asks it for the layer, the heads
// and the decoding steps, and says why an id is not in the trace: not in the
// table, a layer past the model's, or a layered stage named without one.
static void test_stage_ids_ask_the_table(void **state) {
    (void)state;
    static const char text[] = HEAD "[step]\nstage: dec.cross_attention\nsay: a\nsay.zh: b\n"
                                    "[step]\nstage: enc.L9.self_attn.weights\nsay: a\nsay.zh: b\n"
                                    "[step]\nstage: enc.self_attn.weights\nsay: a\nsay.zh: b\n"
                                    "[step]\nstage: dec.L1.self_attn.weights\nsay: a\nsay.zh: b\n"
                                    "[step]\nstage: out.tokens\nsay: a\nsay.zh: b\n"
                                    "[step]\nstage: src.embed\nstep: 2\nsay: a\nsay.zh: b\n"
                                    "[step]\nstage: src.L3.embed\nsay: a\nsay.zh: b\n";
    LesProblems pr = {0};
    Lesson *l = parse(text, sizeof text - 1, &pr);
    print_problems(&pr);
    assert_int_equal(pr.n, 0);
    Model *m = load("en-zh");
    LesRun r = les_run_for_step(l, 0, NULL);
    Error err;
    Trace *t = les_trace(m, &r, false, &err);
    assert_non_null(t);
    char why[256], want[256];
    assert_int_equal(les_bind(l, 0, t, why, sizeof why), -1);
    assert_string_equal(why, "this trace has no stage \"dec.cross_attention\" (stage ids: docs/TRACE.md)");
    assert_int_equal(les_bind(l, 1, t, why, sizeof why), -1);
    snprintf(want, sizeof want, "this trace has no stage \"enc.L9.self_attn.weights\" (stage ids: docs/TRACE.md); this model has %d encoder layers",
             m->cfg.n_enc);
    assert_string_equal(why, want);
    assert_int_equal(les_bind(l, 2, t, why, sizeof why), -1);
    assert_string_equal(why, "this trace has no stage \"enc.self_attn.weights\" (stage ids: docs/TRACE.md); name its layer, e.g. "
                             "\"enc.L1.self_attn.weights\"");
    // a per-head stage of the decoder: head 1 and decoding step 1 unless given
    int layer, i = les_bind(l, 3, t, why, sizeof why);
    assert_true(i >= 0);
    assert_ptr_equal(trace_step(t, i)->stage, stage_parse_id("dec.L1.self_attn.weights", &layer));
    assert_int_equal(trace_step(t, i)->head, 1);
    assert_int_equal(trace_step(t, i)->dstep, 1);
    // the output has no decoding step of its own
    i = les_bind(l, 4, t, why, sizeof why);
    assert_true(i >= 0);
    assert_int_equal(trace_step(t, i)->dstep, 0);
    assert_int_equal(les_bind(l, 5, t, why, sizeof why), -1);
    assert_string_equal(why, "stage \"src.embed\" has no decoding steps; leave out step");
    assert_int_equal(les_bind(l, 6, t, why, sizeof why), -1);
    assert_string_equal(why, "this trace has no stage \"src.L3.embed\" (stage ids: docs/TRACE.md)");
    trace_free(t);
    mdl_free(m);
    les_free(l);
    les_problems_deinit(&pr);
    // the parser checks the layer of a layered stage's id, and leaves other ids to binding
    expect_problem(HEAD "[step]\nstage: enc.L0.self_attn.weights\nsay: a\nsay.zh: b\n",
                   "x.lesson:6: the layer of stage \"enc.L0.self_attn.weights\" takes a whole number from 1 to 64, got \"0\"");
    expect_problem(HEAD "[step]\nstage: dec.Lx.cross_attn.weights\nsay: a\nsay.zh: b\n",
                   "x.lesson:6: the layer of stage \"dec.Lx.cross_attn.weights\" takes a whole number from 1 to 64, got \"x\"");
}

// lint: the view options fit the stage the table says it is.
static void test_lint_views_fit_the_stage(void **state) {
    (void)state;
    char lesson[] = "/tmp/tt-lesson-XXXXXX";
    int fd = mkstemp(lesson);
    assert_true(fd >= 0);
    static const char text[] = HEAD "[step]\nstage: dec.L1.self_attn.weights\nview: alone\nsay: a\nsay.zh: b\n"
                                    "[step]\nstage: enc.L1.self_attn.weights\nview: lines\nsay: a\nsay.zh: b\n"
                                    "[step]\nstage: enc.L1.self_attn.weights\nview: alone\nsay: a\nsay.zh: b\n"
                                    "[step]\nstage: dec.L1.cross_attn.scores\nview: grid\nsay: a\nsay.zh: b\n"
                                    "[step]\nstage: enc.L1.ffn.out\nview: lines\nsay: a\nsay.zh: b\n";
    assert_int_equal(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    LesProblems pr = {0};
    int n = les_lint(lesson, TT_SOURCE_ASSETS "/models", &pr);
    print_problems(&pr);
    assert_int_equal(n, 4);
    static const char *const want[] = {
        ":17: view alone is for decoder self-attention stages",
        ":22: view grid is for attention weights, and dec.L1.cross_attn.scores is not",
        ":27: view lines is for attention weights, and enc.L1.ffn.out is not",
        ":27: view lines is for attention stages",
    };
    for (int i = 0; i < 4; i++) {
        char full[256];
        snprintf(full, sizeof full, "%s%s", lesson, want[i]);
        assert_string_equal(pr.msgs[i], full);
    }
    les_problems_deinit(&pr);
    remove(lesson);
}

// A lesson names its model by a shipped name or a path beside it: an absolute
// path or ".." is refused with one problem at its line, and nothing is read.
static void test_model_outside_refused(void **state) {
    (void)state;
    static const char *const refused[] = {"/etc/shadow", "../x.safetensors", "models/../../x.safetensors", "..", "a/.."};
    char buf[256];
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        assert_false(les_model_name_ok(refused[i]));
        char text[512];
        snprintf(text, sizeof text, "title: t\ntitle.zh: t\nmodel: %s\nsentence: i love nlp\n[step]\nmodel: %s\nstage: src.tokens\nsay: a\nsay.zh: b\n",
                 refused[i], refused[i]);
        LesProblems pr = {0};
        Lesson *l = parse(text, strlen(text), &pr);
        print_problems(&pr);
        assert_int_equal(pr.n, 2);
        assert_non_null(strstr(pr.msgs[0], "x.lesson:3: model \""));
        assert_non_null(strstr(pr.msgs[0], "never an absolute path or .."));
        assert_non_null(strstr(pr.msgs[1], "x.lesson:6: model \""));
        assert_null(l->model);
        assert_null(les_model_path(l, refused[i], "/models", buf, sizeof buf));
        les_free(l);
        les_problems_deinit(&pr);
    }
    assert_true(les_model_name_ok("en-zh"));
    assert_true(les_model_name_ok("mine/..x.safetensors"));
    // lint reads nothing of an absolute path: the message holds none of the file's bytes
    char path[] = "/tmp/tt-lesson-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "SECRET!!", 8), 8);
    close(fd);
    char lesson[64], text[512];
    snprintf(lesson, sizeof lesson, "%s.lesson", path);
    FILE *fp = fopen(lesson, "w");
    assert_non_null(fp);
    fprintf(fp, "title: t\ntitle.zh: t\nmodel: %s\nsentence: i love nlp\n[step]\nstage: src.tokens\nsay: a\nsay.zh: b\n", path);
    fclose(fp);
    LesProblems pr = {0};
    assert_int_equal(les_lint(lesson, TT_SOURCE_ASSETS "/models", &pr), 1);
    snprintf(text, sizeof text, "%s:3: model \"%s\": a lesson names a shipped model or a file beside it", lesson, path);
    if (strncmp(pr.msgs[0], text, strlen(text))) fail_msg("expected: %s…, got: %s", text, pr.msgs[0]);
    les_problems_deinit(&pr);
    remove(lesson);
    remove(path);
}

// Numeric settings have the command line's bounds (settings.h), checked by
// the same function, so a value a lesson accepts also decodes.
static void test_settings_have_command_line_bounds(void **state) {
    (void)state;
    expect_problem(HEAD "temperature: 1e-40\n", "x.lesson:5: temperature takes a number from 0.01 to 100, got \"1e-40\"");
    expect_problem(HEAD "temperature: 101\n", "x.lesson:5: temperature takes a number from 0.01 to 100");
    expect_problem(HEAD "top-p: 1e-50\n", "x.lesson:5: top-p takes a number above 0 and at most 1");
    expect_problem(HEAD "top-k: 2000000\n", "x.lesson:5: top-k takes a whole number from 0 to 1000000");
    expect_problem(HEAD "beam: 65\n", "x.lesson:5: beam takes a whole number from 1 to 64");
    expect_problem(HEAD "max-steps: 5000\n", "x.lesson:5: max-steps takes a whole number from 1 to 4096");
    expect_problem(HEAD "[step]\nstage: src.tokens\nsay: a\nsay.zh: b\nhead: 257\n", "x.lesson:9: head takes a whole number from 0 to 256");
    expect_problem(HEAD "[step]\nstage: src.tokens\nsay: a\nsay.zh: b\nstep: 4097\n", "x.lesson:9: step takes a whole number from 0 to 4096");
    expect_problem(HEAD "[step]\nstage: dec.L99999999999.cross_attn.weights\nsay: a\nsay.zh: b\n",
                   "x.lesson:6: the layer of stage \"dec.L99999999999.cross_attn.weights\" takes a whole number from 1 to 64");
    // what the command line takes, a lesson takes
    static const char ok[] = HEAD "temperature: 0.01\nmax-steps: 2000\ntop-k: 0\ndecode: sample\n"
                                  "[step]\nstage: dec.L2.cross_attn.weights\nhead: 200\nstep: 3000\nsay: a\nsay.zh: b\n";
    LesProblems pr = {0};
    Lesson *l = parse(ok, sizeof ok - 1, &pr);
    print_problems(&pr);
    assert_int_equal(pr.n, 0);
    assert_int_equal(l->run.max_steps, 2000);
    assert_int_equal(l->steps[0].head, 200);
    // the lowest temperature decodes (it does not overflow into a message about the weights)
    Model *m = load("en-zh");
    LesRun r = les_run_for_step(l, 0, NULL);
    r.max_steps = 3;
    Error err;
    Trace *t = les_trace(m, &r, false, &err);
    if (!t) fprintf(stderr, "%s\n", err.msg);
    assert_non_null(t);
    trace_free(t);
    mdl_free(m);
    les_free(l);
    les_problems_deinit(&pr);
}

// given: and code: as parsed: rows packed, −∞ in three spellings, the typographic minus, labels and titles.
static void test_given_and_code(void **state) {
    (void)state;
    static const char text[] = HEAD "[step]\nstage: src.tokens\nsay: a\nsay.zh: b\n"
                                    "given: 2.1 -inf \xE2\x88\x92\xE2\x88\x9E; 1.2 4.3 -\xE2\x88\x9E; \xE2\x88\x92" "0.5 -1e9 0\n"
                                    "given-rows: I love NLP\ngiven-title: scores\ngiven-title.zh: \xE5\x88\x86\xE6\x95\xB8\n"
                                    "code: scores = np.where(mask == 0, -1e9, scores)\n";
    LesProblems pr = {0};
    Lesson *l = parse(text, sizeof text - 1, &pr);
    print_problems(&pr);
    assert_int_equal(pr.n, 0);
    const LesGiven *g = &l->steps[0].given;
    assert_int_equal(g->rows, 3);
    assert_int_equal(g->cols, 3);
    const float want[] = {2.1f, -INFINITY, -INFINITY, 1.2f, 4.3f, -INFINITY, -0.5f, -1e9f, 0.0f};
    for (int i = 0; i < 9; i++)
        if (!(g->values[i] == want[i])) fail_msg("given value %d expected: %g, got: %g", i, (double)want[i], (double)g->values[i]);
    assert_int_equal(g->n_row_labels, 3);
    assert_string_equal(g->row_labels[2], "NLP");
    assert_int_equal(g->n_col_labels, 0);
    assert_string_equal(g->title[LES_ZH], "\xE5\x88\x86\xE6\x95\xB8");
    assert_string_equal(l->steps[0].code, "scores = np.where(mask == 0, -1e9, scores)");
    les_free(l);
    les_problems_deinit(&pr);
    expect_problem(HEAD "[step]\nstage: src.tokens\nsay: a\nsay.zh: b\ngiven: nan 1\ngiven-title: t\ngiven-title.zh: t\n", "given \"nan\" is not a number");
    expect_problem(HEAD "[step]\nstage: src.tokens\nsay: a\nsay.zh: b\ngiven: 1e40\ngiven-title: t\ngiven-title.zh: t\n", "given \"1e40\" is not a number");
    expect_problem(HEAD "[step]\nstage: src.tokens\nsay: a\nsay.zh: b\ngiven: 1\ngiven: 2\n", "\"given\" given twice in the same step");
    expect_problem(HEAD "code: x\n", "\"code\" belongs in a [step]");
}

// allow-special: the lesson's setting, a step's own for itself alone, into DecodeOptions.
static void test_allow_special(void **state) {
    (void)state;
    static const char text[] = HEAD "allow-special: yes\n"
                                    "[step]\nstage: src.tokens\nsay: a\nsay.zh: b\n"
                                    "[step]\nstage: src.tokens\nallow-special: no\nsay: a\nsay.zh: b\n"
                                    "[step]\nstage: src.tokens\nsay: a\nsay.zh: b\n";
    LesProblems pr = {0};
    Lesson *l = parse(text, sizeof text - 1, &pr);
    print_problems(&pr);
    assert_int_equal(pr.n, 0);
    LesRun r0 = les_run_for_step(l, 0, NULL), r1 = les_run_for_step(l, 1, NULL), r2 = les_run_for_step(l, 2, NULL);
    assert_true(les_decode_options(&r0).allow_special);
    assert_false(les_decode_options(&r1).allow_special);
    assert_true(les_decode_options(&r2).allow_special);
    assert_int_equal(les_decode_options(&r0).pad_to, 0);
    assert_false(les_run_equal(&r0, &r1));
    assert_true(les_run_equal(&r0, &r2));
    les_free(l);
    les_problems_deinit(&pr);
    static const char padded[] = HEAD "pad-to: 6\n[step]\nstage: src.padding_mask\nsay: a\nsay.zh: b\n"
                                      "[step]\nstage: src.tokens\npad-to: 0\nsay: a\nsay.zh: b\n";
    l = parse(padded, sizeof padded - 1, &pr);
    assert_int_equal(pr.n, 0);
    LesRun p0 = les_run_for_step(l, 0, NULL), p1 = les_run_for_step(l, 1, NULL);
    assert_int_equal(les_decode_options(&p0).pad_to, 6);
    assert_int_equal(les_decode_options(&p1).pad_to, 0);  // a step's own 0 turns padding off
    assert_false(les_run_equal(&p0, &p1));
    les_free(l);
    les_problems_deinit(&pr);
    static const char plain[] = HEAD "[step]\nstage: src.tokens\nsay: a\nsay.zh: b\n";
    l = parse(plain, sizeof plain - 1, &pr);
    LesRun r = les_run_for_step(l, 0, NULL);
    assert_false(les_decode_options(&r).allow_special);  // excluded unless a lesson says so
    les_free(l);
    les_problems_deinit(&pr);
}

// The experiment without the look-ahead mask: the lesson's setting, a step's own, and a bad value.
static void test_look_ahead_mask_key(void **state) {
    (void)state;
    expect_problem(HEAD "look-ahead-mask: maybe\n", "x.lesson:5: look-ahead-mask is \"maybe\"; expected on or off");
    static const char text[] = HEAD "look-ahead-mask: off\n"
                                    "[step]\nstage: dec.L1.self_attn.weights\nsay: a\nsay.zh: b\n"
                                    "[step]\nstage: dec.L1.self_attn.weights\nlook-ahead-mask: on\nsay: a\nsay.zh: b\n";
    LesProblems pr = {0};
    Lesson *l = parse(text, sizeof text - 1, &pr);
    print_problems(&pr);
    assert_int_equal(pr.n, 0);
    LesRun off = les_run_for_step(l, 0, NULL), on = les_run_for_step(l, 1, NULL);
    assert_true(les_decode_options(&off).no_look_ahead_mask);
    assert_false(les_decode_options(&on).no_look_ahead_mask);
    assert_false(les_run_equal(&off, &on));
    Model *m = load("en-zh");
    Error err;
    Trace *t = les_trace(m, &off, false, &err);
    assert_non_null(t);
    assert_true(trace_options(t)->no_look_ahead_mask);
    trace_free(t);
    mdl_free(m);
    les_free(l);
    les_problems_deinit(&pr);
}

// The experiment that silences heads: the lesson's list, a step's "none", a step's own; lists the parser refuses.
static void test_ablate_key(void **state) {
    (void)state;
    expect_problem(HEAD "ablate: L2H1,\n", "x.lesson:5: ablate ends with a comma");
    expect_problem(HEAD "ablate: enc.L1.cross_attn\n", "x.lesson:5: ablate \"enc.L1.cross_attn\" is not a head or sub-layer");
    static const char text[] = HEAD "ablate: L2H1, dec.L1.ffn\n"
                                    "[step]\nstage: dec.L2.cross_attn.concat\nsay: a\nsay.zh: b\n"
                                    "[step]\nstage: dec.L2.cross_attn.concat\nablate: none\nsay: a\nsay.zh: b\n"
                                    "[step]\nstage: dec.L2.cross_attn.concat\nablate: enc.L2.self_attn.H4\nsay: a\nsay.zh: b\n";
    LesProblems pr = {0};
    Lesson *l = parse(text, sizeof text - 1, &pr);
    print_problems(&pr);
    assert_int_equal(pr.n, 0);
    LesRun r0 = les_run_for_step(l, 0, NULL), r1 = les_run_for_step(l, 1, NULL), r2 = les_run_for_step(l, 2, NULL);
    char buf[256];
    DecodeOptions o0 = les_decode_options(&r0), o1 = les_decode_options(&r1), o2 = les_decode_options(&r2);
    assert_string_equal(abl_format(&o0.ablate, buf, sizeof buf), "dec.L2.cross_attn.H1,dec.L1.ffn");
    assert_int_equal(o1.ablate.n, 0);
    assert_string_equal(abl_format(&o2.ablate, buf, sizeof buf), "enc.L2.self_attn.H4");
    assert_false(les_run_equal(&r0, &r1));
    assert_false(les_run_equal(&r0, &r2));
    les_free(l);
    les_problems_deinit(&pr);
}

// Control characters: the one rule of voc_forbidden_at, naming the character and where.
static void test_control_characters(void **state) {
    (void)state;
    expect_problem(HEAD "[step]\nstage: src.tokens\nsay: a\x7f" "b\n", "x.lesson:7: control character U+007F at byte 7 of the line");
    expect_problem(HEAD "[step]\nstage: src.tokens\nsay: a\xc2\x85" "b\n", "x.lesson:7: control character U+0085 at byte 7 of the line");
    expect_problem(HEAD "[step]\nstage: src.tokens\nsay: \xc2\x9b" "31m\n", "x.lesson:7: control character U+009B at byte 6 of the line");
    expect_problem(HEAD "[step]\nstage: src.tokens\nsay: a\xe2\x80\xa8\n", "x.lesson:7: control character U+2028 at byte 7 of the line");
    expect_problem(HEAD "[step]\nstage: src.tokens\nsay: \xe2\x80\xae" "abc\n", "x.lesson:7: control character U+202E at byte 6 of the line");
    expect_problem(HEAD "\x07\n", "x.lesson:5: control character U+0007 at byte 1 of the line");
}

// Thousands of say: lines and long continued paragraphs join as they should
// (bench/bench_lesson measures that this stays linear).
static void test_many_paragraphs(void **state) {
    (void)state;
    size_t cap = 1 << 20, n = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    n += (size_t)snprintf(text + n, cap - n, "%s[step]\nstage: src.tokens\nsay.zh: b\n", HEAD);
    for (int i = 0; i < 10000; i++) n += (size_t)snprintf(text + n, cap - n, "say: p%d\n", i);
    n += (size_t)snprintf(text + n, cap - n, "reveal: start\n");
    for (int i = 0; i < 20000; i++) n += (size_t)snprintf(text + n, cap - n, "  c%d\n", i);
    n += (size_t)snprintf(text + n, cap - n, "ask: q\nask.zh: q\nreveal.zh: r\n");
    assert_true(n < cap - 1);
    LesProblems pr = {0};
    Lesson *l = parse(text, n, &pr);
    print_problems(&pr);
    assert_int_equal(pr.n, 0);
    const char *say = l->steps[0].say[LES_EN];
    assert_int_equal(strncmp(say, "p0\np1\np2\n", 9), 0);
    assert_non_null(strstr(say, "\np9998\np9999"));
    size_t lines = 0;
    for (const char *p = say; *p; p++) lines += *p == '\n';
    assert_int_equal(lines, 9999);
    const char *reveal = l->steps[0].reveal[LES_EN];
    assert_int_equal(strncmp(reveal, "start c0 c1 c2 ", 15), 0);
    assert_non_null(strstr(reveal, " c19998 c19999"));
    les_free(l);
    les_problems_deinit(&pr);
    free(text);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parses_the_example),
        cmocka_unit_test(test_problems_name_file_and_line),
        cmocka_unit_test(test_broken_bytes),
        cmocka_unit_test(test_binds_and_rebinds),
        cmocka_unit_test(test_stage_ids_ask_the_table),
        cmocka_unit_test(test_lint_views_fit_the_stage),
        cmocka_unit_test(test_model_path),
        cmocka_unit_test(test_model_outside_refused),
        cmocka_unit_test(test_settings_have_command_line_bounds),
        cmocka_unit_test(test_allow_special),
        cmocka_unit_test(test_look_ahead_mask_key),
        cmocka_unit_test(test_given_and_code),
        cmocka_unit_test(test_ablate_key),
        cmocka_unit_test(test_control_characters),
        cmocka_unit_test(test_many_paragraphs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
