// The sentence list reader (--sentences FILE).
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sentences.h"

#define expect_str(what, got, want)                                                                 \
    do {                                                                                            \
        const char *got_ = (got), *want_ = (want);                                                  \
        if (strcmp(got_, want_)) fail_msg("%s: expected: \"%s\", got: \"%s\"", what, want_, got_); \
    } while (0)

#define expect_int(what, got, want)                                                              \
    do {                                                                                         \
        long got_ = (long)(got), want_ = (long)(want);                                           \
        if (got_ != want_) fail_msg("%s: expected: %ld, got: %ld", what, want_, got_);           \
    } while (0)

static SentenceList *parse_ok(const char *text) {
    Error err;
    SentenceList *l = sl_parse("list.txt", text, strlen(text), &err);
    if (!l) fail_msg("sl_parse: %s", err.msg);
    return l;
}

// Refused with a message that starts with want (file:line: or file:).
static void parse_fails(const char *text, size_t len, const char *want, const char *also) {
    Error err = {{0}};
    SentenceList *l = sl_parse("list.txt", text, len, &err);
    if (l) {
        sl_free(l);
        fail_msg("expected a refusal \"%s…\", got a list", want);
    }
    if (strncmp(err.msg, want, strlen(want))) fail_msg("message: expected to start with \"%s\", got: \"%s\"", want, err.msg);
    if (also && !strstr(err.msg, also)) fail_msg("message: expected to contain \"%s\", got: \"%s\"", also, err.msg);
}

static void test_lines_and_numbers(void **state) {
    (void)state;
    SentenceList *l = parse_ok("the cat sits on the mat .\n\n# a comment\n  i love nlp  \n   # an indented comment\nthe red cat");
    expect_int("count", sl_count(l), 3);
    expect_str("first", sl_get(l, 0), "the cat sits on the mat .");
    expect_str("second, blanks trimmed", sl_get(l, 1), "i love nlp");
    expect_str("third, no line end", sl_get(l, 2), "the red cat");
    expect_int("line of the first", sl_line(l, 0), 1);
    expect_int("line of the second", sl_line(l, 1), 4);
    expect_int("line of the third", sl_line(l, 2), 6);
    sl_free(l);
}

static void test_crlf_bom_and_multibyte(void **state) {
    (void)state;
    SentenceList *l = parse_ok("\xEF\xBB\xBFthe caf\xC3\xA9\r\n\r\n貓 坐 在 墊子 上 。\r\n");
    expect_int("count", sl_count(l), 2);
    expect_str("first, BOM and CR gone", sl_get(l, 0), "the caf\xC3\xA9");
    expect_str("second", sl_get(l, 1), "貓 坐 在 墊子 上 。");
    expect_int("line of the second", sl_line(l, 1), 3);
    sl_free(l);
    l = parse_ok("a\tb\n");  // a tab is a blank, not a control character
    expect_str("tab kept inside", sl_get(l, 0), "a\tb");
    sl_free(l);
}

static void test_bad_lines(void **state) {
    (void)state;
    parse_fails("the cat\nthe \xFF mat\n", 16, "list.txt:2: ", "UTF-8");
    parse_fails("the cat\nthe \xE6\x88\n", 14, "list.txt:2: ", "UTF-8");  // a character cut short
    parse_fails("ok\n\nthe \x01 cat\n", 14, "list.txt:3: ", "control");
    parse_fails("the\rcat\n", 8, "list.txt:1: ", "control");        // a lone CR
    parse_fails("the\0cat\n", 8, "list.txt:1: ", "control");        // a NUL byte
    parse_fails("the\x7F" "cat\n", 8, "list.txt:1: ", "control");
    // the same rule as typed text and corpora (voc_forbidden_at), naming the character and its column
    parse_fails("the \xC2\x85" "cat\n", 10, "list.txt:1: ", "U+0085 at column 5");
    parse_fails("ok\nthe \xC2\x9B" "cat\n", 13, "list.txt:2: ", "U+009B at column 5");
    parse_fails("the cat\xE2\x80\xA8\n", 11, "list.txt:1: ", "U+2028 at column 8");
    parse_fails("\xE2\x81\xA7the cat\n", 11, "list.txt:1: ", "U+2067 at column 1");
    char *long_line = malloc(SL_MAX_LINE_BYTES + 10);
    memset(long_line, 'a', SL_MAX_LINE_BYTES + 1);
    strcpy(long_line + SL_MAX_LINE_BYTES + 1, "\n");
    parse_fails(long_line, strlen(long_line), "list.txt:1: ", "at most 1000");
    // exactly the limit is fine, with a CRLF after it
    memset(long_line, 'a', SL_MAX_LINE_BYTES);
    strcpy(long_line + SL_MAX_LINE_BYTES, "\r\n");
    SentenceList *l = parse_ok(long_line);
    expect_int("length of the longest line", strlen(sl_get(l, 0)), SL_MAX_LINE_BYTES);
    sl_free(l);
    free(long_line);
}

static void test_empty_lists(void **state) {
    (void)state;
    parse_fails("", 0, "list.txt: ", "no sentences");
    parse_fails("\n  \n# only a comment\r\n", 22, "list.txt: ", "no sentences");
    parse_fails("\xEF\xBB\xBF", 3, "list.txt: ", "no sentences");
}

static void test_files(void **state) {
    (void)state;
    char dir[] = "/tmp/tt_sentences_XXXXXX", path[256];
    if (!mkdtemp(dir)) fail_msg("mkdtemp failed");
    snprintf(path, sizeof path, "%s/class.txt", dir);
    FILE *fp = fopen(path, "w");
    fputs("# week 3\nthe cat sits on the mat .\ni love nlp\n", fp);
    fclose(fp);
    Error err;
    SentenceList *l = sl_load(path, &err);
    if (!l) fail_msg("sl_load: %s", err.msg);
    expect_int("count", sl_count(l), 2);
    expect_int("line", sl_line(l, 1), 3);
    sl_free(l);
    fp = fopen(path, "w");
    fputs("fine\nbad \x02\n", fp);
    fclose(fp);
    assert_null(sl_load(path, &err));
    char want[300];
    snprintf(want, sizeof want, "%s:2: ", path);
    if (strncmp(err.msg, want, strlen(want))) fail_msg("message: expected to start with \"%s\", got: \"%s\"", want, err.msg);
    unlink(path);
    assert_null(sl_load(path, &err));  // now missing
    if (!strstr(err.msg, path)) fail_msg("message: expected to name %s, got: \"%s\"", path, err.msg);
    assert_null(sl_load(dir, &err));   // a folder
    if (!strstr(err.msg, dir)) fail_msg("message: expected to name %s, got: \"%s\"", dir, err.msg);
    rmdir(dir);
    sl_free(NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines_and_numbers),
        cmocka_unit_test(test_crlf_bom_and_multibyte),
        cmocka_unit_test(test_bad_lines),
        cmocka_unit_test(test_empty_lists),
        cmocka_unit_test(test_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
