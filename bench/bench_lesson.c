// bench_lesson: how long parsing a lesson of 1 MB (the most a lesson may be)
// takes, and how much memory it needs, for the shapes that were quadratic:
// thousands of say: lines in one step, and paragraphs continued over
// thousands of lines. Then the picker's work: every lesson of the shipped
// folder parsed, plus a 1 MB one. Each case runs in its own process, so its
// peak memory is its own. Figures and how to reproduce them: docs/PERFORMANCE.md.
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lesson.h"
#include "tt_config.h"
#include "bench_clock.h"

#define HEAD "title: A long lesson\ntitle.zh: 長課\nmodel: en-zh\nsentence: the cat sits on the mat .\n"

typedef struct {
    char *text;
    size_t len, cap;
} Buf;

static void put(Buf *b, const char *s) {
    size_t n = strlen(s);
    if (b->len + n + 1 > b->cap) return;  // the lesson stops just under the limit
    memcpy(b->text + b->len, s, n + 1);
    b->len += n;
}

// Lines from make_line until the text is within a line of limit bytes.
static void fill(Buf *b, size_t limit, void (*make_line)(char *, size_t, int)) {
    char line[200];
    for (int i = 0;; i++) {
        make_line(line, sizeof line, i);
        if (b->len + strlen(line) + 64 > limit) break;
        put(b, line);
    }
}

static void say_line(char *out, size_t size, int i) { snprintf(out, size, "say: paragraph %d of many.\n", i); }
static void continued_line(char *out, size_t size, int i) { snprintf(out, size, "  and the paragraph goes on, line %d.\n", i); }
// Up to 200 steps (the most a lesson has) of long paragraphs in both languages.
static void step_lines(char *out, size_t size, int i) {
    if (i % 130 == 129) {
        snprintf(out, size, "[step]\nstage: src.tokens\n");
        return;
    }
    switch (i % 4) {
    case 0: snprintf(out, size, "say: the %d-th step says this much, and then a little more.\n", i); break;
    case 1: snprintf(out, size, "  continued: the tokens of the sentence, one a column.\n"); break;
    case 2: snprintf(out, size, "say.zh: 第 %d 步說了這麼多，然後再多一點。\n", i); break;
    default: snprintf(out, size, "  繼續：句子的詞元，每欄一個。\n"); break;
    }
}

// The lesson text of a case, just under LES_MAX_BYTES.
static Buf make_lesson(const char *name, int *lines) {
    Buf b = {.cap = LES_MAX_BYTES};
    b.text = malloc(b.cap);
    if (!b.text) exit(1);
    b.text[0] = '\0';
    put(&b, HEAD);
    if (!strcmp(name, "say-lines")) {
        put(&b, "[step]\nstage: src.tokens\nsay.zh: 好\n");
        fill(&b, LES_MAX_BYTES, say_line);
    } else if (!strcmp(name, "continued")) {
        put(&b, "[step]\nstage: src.tokens\nsay.zh: 好\nsay: one paragraph,\n");
        fill(&b, LES_MAX_BYTES / 2, continued_line);
        put(&b, "say: and another,\n");
        fill(&b, LES_MAX_BYTES, continued_line);
    } else {  // "steps"
        put(&b, "[step]\nstage: src.tokens\nsay: a\nsay.zh: 好\n");
        fill(&b, LES_MAX_BYTES, step_lines);
    }
    *lines = 0;
    for (size_t i = 0; i < b.len; i++) *lines += b.text[i] == '\n';
    return b;
}

// One case, in this process: prints time per parse and the peak memory it added.
static void run_case(const char *name, int reps) {
    int lines;
    Buf b = make_lesson(name, &lines);
    long before = peak_rss_kb();
    double best = 1e30, total = 0;
    int problems = 0;
    for (int r = 0; r < reps; r++) {
        LesProblems pr = {0};
        double t0 = now_ms();
        Lesson *l = les_parse(b.text, b.len, "bench.lesson", &pr);
        double ms = now_ms() - t0;
        if (!l) exit(1);
        problems = pr.n;
        if (pr.n && r == 0) fprintf(stderr, "%s: first problem: %s\n", name, pr.msgs[0]);
        les_free(l);
        les_problems_deinit(&pr);
        total += ms;
        if (ms < best) best = ms;
    }
    printf("%-10s %8zu bytes %6d lines  %9.2f ms best  %9.2f ms mean  %7.1f MB peak added  (%d problem%s)\n", name, b.len, lines, best,
           total / reps, (double)(peak_rss_kb() - before) / 1024.0, problems, problems == 1 ? "" : "s");
    free(b.text);
}

// The picker's start: every lesson of the folder loaded, plus the 1 MB one written beside them (in /tmp).
static void run_picker(const char *folder, int reps) {
    int lines;
    Buf b = make_lesson("say-lines", &lines);
    char big[] = "/tmp/bench-lesson-XXXXXX";
    int fd = mkstemp(big);
    if (fd < 0 || write(fd, b.text, b.len) != (ssize_t)b.len) exit(1);
    close(fd);
    free(b.text);
    char *paths[64];
    int n = 0;
    DIR *d = opendir(folder);
    for (struct dirent *e; d && (e = readdir(d)) && n < 63;) {
        size_t k = strlen(e->d_name);
        if (k > 7 && !strcmp(e->d_name + k - 7, ".lesson")) {
            paths[n] = malloc(strlen(folder) + k + 2);
            sprintf(paths[n++], "%s/%s", folder, e->d_name);
        }
    }
    if (d) closedir(d);
    paths[n++] = big;
    long before = peak_rss_kb();
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        double t0 = now_ms();
        for (int i = 0; i < n; i++) {
            LesProblems pr = {0};
            les_free(les_load(paths[i], &pr));
            les_problems_deinit(&pr);
        }
        double ms = now_ms() - t0;
        if (ms < best) best = ms;
    }
    printf("%-10s %d lessons (%d shipped + one of 1 MB)  %9.2f ms best  %7.1f MB peak added\n", "picker", n, n - 1, best,
           (double)(peak_rss_kb() - before) / 1024.0);
    remove(big);
    for (int i = 0; i < n - 1; i++) free(paths[i]);
}

int main(int argc, char **argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 5;
    const char *folder = argc > 2 ? argv[2] : TT_SOURCE_ASSETS "/../lessons";
    if (reps < 1) {
        fprintf(stderr, "usage: bench_lesson [REPS [LESSONS_FOLDER]]\n");
        return 2;
    }
    static const char *const cases[] = {"say-lines", "continued", "steps", "picker"};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {  // each case in its own process: its own peak memory
            if (!strcmp(cases[i], "picker")) run_picker(folder, reps);
            else run_case(cases[i], reps);
            fflush(stdout);
            _exit(0);
        }
        int status;
        if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) return 1;
    }
    return 0;
}
