// Vocabularies and the tokenizer.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "vocab.h"

static const char *src_toks[] = {"<pad>", "<bos>", "<eos>", "<unk>", "i", "love", "the", "cat", "sits", "on", "mat", ".", ",", "didn't", "é", "élan"};
static const char *tgt_toks[] = {"<pad>", "<bos>", "<eos>", "<unk>", "我", "愛", "自然", "語言", "處理", "自然語言", "。", "，", "貓"};

static Vocab *make(const char **toks, int n) {
    Error err;
    Vocab *v = voc_new(toks, n, &err);
    if (!v) fail_msg("voc_new: %s", err.msg);
    return v;
}

// Tokenizes and compares the pieces with want (space-separated).
static void expect_pieces(const Vocab *v, const char *text, const char *want, int unknown) {
    Tokens t;
    Error err;
    if (voc_tokenize(v, text, &t, &err)) fail_msg("tokenize \"%s\": %s", text, err.msg);
    char got[512] = "";
    for (int i = 0; i < t.n; i++) {
        strcat(got, i ? " " : "");
        strcat(got, t.ids[i] == voc_unk(v) ? "<unk>" : t.pieces[i]);
        if (t.ids[i] != voc_unk(v) && strcmp(voc_token(v, t.ids[i]), t.pieces[i]))
            fail_msg("piece %d \"%s\" has the id of \"%s\"", i, t.pieces[i], voc_token(v, t.ids[i]));
    }
    if (strcmp(got, want)) fail_msg("\"%s\": expected: \"%s\", got: \"%s\"", text, want, got);
    if (t.n_unknown != unknown) fail_msg("\"%s\": expected: %d unknown, got: %d", text, unknown, t.n_unknown);
    voc_tokens_deinit(&t);
}

static void expect_string_in(const char *msg, const char *part) {
    if (!strstr(msg, part)) fail_msg("expected message containing: %s, got: %s", part, msg);
}

static void expect_error(const Vocab *v, const char *text, const char *part) {
    Tokens t;
    Error err = {{0}};
    if (!voc_tokenize(v, text, &t, &err)) fail_msg("tokenize expected to fail on \"%s\"", text);
    if (!strstr(err.msg, part)) fail_msg("expected message containing: %s, got: %s", part, err.msg);
}

static void test_english(void **state) {
    (void)state;
    Vocab *v = make(src_toks, sizeof src_toks / sizeof *src_toks);
    expect_pieces(v, "The cat sits on the mat.", "the cat sits on the mat .", 0);
    expect_pieces(v, "  I   love\tthe CAT , ", "i love the cat ,", 0);
    expect_pieces(v, "I didn't", "i didn't", 0);
    expect_pieces(v, "ÉLAN é", "élan é", 0);  // Latin-1 capitals are lower-cased
    expect_pieces(v, "I love dogs!", "i love <unk> <unk>", 2);
    voc_free(v);
}

static void test_unknown_reported_by_name(void **state) {
    (void)state;
    Vocab *v = make(src_toks, sizeof src_toks / sizeof *src_toks);
    Tokens t;
    Error err;
    assert_int_equal(voc_tokenize(v, "the zebra sits", &t, &err), 0);
    assert_int_equal(t.n, 3);
    assert_int_equal(t.ids[1], voc_unk(v));
    assert_string_equal(t.pieces[1], "zebra");
    voc_tokens_deinit(&t);
    voc_free(v);
}

static void test_chinese(void **state) {
    (void)state;
    Vocab *v = make(tgt_toks, sizeof tgt_toks / sizeof *tgt_toks);
    expect_pieces(v, "我 愛 自然 語言 處理 。", "我 愛 自然 語言 處理 。", 0);
    // unsegmented text: longest match against the vocabulary
    expect_pieces(v, "我愛自然語言處理。", "我 愛 自然語言 處理 。", 0);
    expect_pieces(v, "我愛狗", "<unk>", 1);
    expect_pieces(v, "貓，我", "貓 ， 我", 0);
    voc_free(v);
}

static void test_bad_sentences(void **state) {
    (void)state;
    Vocab *v = make(src_toks, sizeof src_toks / sizeof *src_toks);
    expect_error(v, "", "empty");
    expect_error(v, "   \t ", "empty");
    expect_error(v, "the \xff cat", "not valid UTF-8");
    expect_error(v, "the \xc0\xaf cat", "not valid UTF-8");     // overlong
    expect_error(v, "the \xed\xa0\x80 cat", "not valid UTF-8"); // surrogate
    expect_error(v, "the \xe6\x88", "not valid UTF-8");         // truncated
    expect_error(v, "the\x07 cat", "control character");
    voc_free(v);
}

// One rule for every kind of text (voc_forbidden_at): typed text refuses DEL,
// C1, the line and paragraph separators and bidi overrides, naming each.
static void test_control_characters_named(void **state) {
    (void)state;
    Vocab *v = make(src_toks, sizeof src_toks / sizeof *src_toks);
    expect_error(v, "the\x7f cat", "U+007F at byte 3");
    expect_error(v, "the \xc2\x85 cat", "U+0085 at byte 4");        // next line (NEL)
    expect_error(v, "the \xc2\x9b" "31m cat", "U+009B at byte 4");  // control sequence introducer
    expect_error(v, "the cat\xe2\x80\xa8", "U+2028 at byte 7");     // line separator
    expect_error(v, "\xe2\x80\xa9the cat", "U+2029 at byte 0");     // paragraph separator
    expect_error(v, "the \xe2\x80\xae" "tac", "U+202E at byte 4");   // right-to-left override
    expect_error(v, "the \xe2\x81\xa6" "cat", "U+2066 at byte 4");   // left-to-right isolate
    // white space stays white space; no-break space and Latin-1 letters are text
    Tokens t;
    Error err;
    assert_int_equal(voc_tokenize(v, "the\tcat\r\n", &t, &err), 0);
    voc_tokens_deinit(&t);
    uint32_t cp = 0;
    assert_int_equal(voc_forbidden_at("caf\xc3\xa9\xc2\xa0ok", 9, 0, &cp), -1);
    assert_int_equal(voc_forbidden_at("a\tb", 3, 0, &cp), 1);
    assert_int_equal(cp, 0x09);
    assert_int_equal(voc_forbidden_at("a\tb", 3, VOC_ALLOW_TAB, &cp), -1);
    assert_int_equal(voc_forbidden_at("a\nb", 3, VOC_ALLOW_TAB, &cp), 1);
    voc_free(v);
}

// err_quote shows untrusted text by the same rule: printable text and UTF-8
// as they are, a forbidden character as U+XXXX, a stray byte as \xNN.
static void test_quote(void **state) {
    (void)state;
    const struct {
        const char *text;
        size_t max;
        const char *want;
    } cases[] = {
        {"d_model", 40, "d_model"},
        {"caf\xc3\xa9 \xe6\x88\x91", 40, "caf\xc3\xa9 \xe6\x88\x91"},
        {"3\x1b[31m", 40, "3U+001B[31m"},
        {"a\nb\tc\x7f", 40, "aU+000AbU+0009cU+007F"},
        {"\xc2\x85\xe2\x80\xa8\xe2\x80\xae", 40, "U+0085U+2028U+202E"},
        {"\xff\xc3(", 40, "\\xFF\\xC3("},
        {"abcdef", 4, "abcd\xe2\x80\xa6"},
        {"ab\xc3\xa9", 3, "ab\\xC3\xe2\x80\xa6"},  // a sequence cut at max_bytes is not shown half
        {"", 40, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char buf[128];
        const char *got = err_quote(buf, sizeof buf, cases[i].text, cases[i].max);
        if (got != buf || strcmp(buf, cases[i].want)) fail_msg("case %zu: expected: %s, got: %s", i, cases[i].want, buf);
    }
    // a small buffer cuts at a whole piece and keeps room for the ellipsis
    char small[10];
    err_quote(small, sizeof small, "ab\x1b" "cdef", 40);
    if (strcmp(small, "ab\xe2\x80\xa6")) fail_msg("expected: ab..., got: %s", small);
    assert_string_equal(ERR_QUOTE("x\x1b", 8), "xU+001B");
}

static void test_bad_vocabularies(void **state) {
    (void)state;
    Error err;
    const char *dup[] = {"<pad>", "<bos>", "<eos>", "<unk>", "a", "a"};
    assert_null(voc_new(dup, 6, &err));
    assert_non_null(strstr(err.msg, "duplicate"));
    const char *no_unk[] = {"<pad>", "<bos>", "<eos>", "a"};
    assert_null(voc_new(no_unk, 4, &err));
    assert_non_null(strstr(err.msg, "<unk>"));
    const char *space[] = {"<pad>", "<bos>", "<eos>", "<unk>", "a b"};
    assert_null(voc_new(space, 5, &err));
    expect_string_in(err.msg, "white space or a control character (U+0020 at byte 1)");
    // tokens follow typed text's rule; a refused one is named, never shown raw
    const char *del[] = {"<pad>", "<bos>", "<eos>", "<unk>", "a\x7f" "b"};
    assert_null(voc_new(del, 5, &err));
    expect_string_in(err.msg, "vocabulary entry 4 (\"aU+007Fb\") contains white space or a control character (U+007F at byte 1)");
    const char *csi[] = {"<pad>", "<bos>", "<eos>", "<unk>", "x\xc2\x9b" "31m"};
    assert_null(voc_new(csi, 5, &err));
    expect_string_in(err.msg, "(\"xU+009B31m\") contains white space or a control character (U+009B at byte 1)");
    const char *lsep[] = {"<pad>", "<bos>", "<eos>", "<unk>", "\xe2\x80\xa8"};
    assert_null(voc_new(lsep, 5, &err));
    expect_string_in(err.msg, "U+2028 at byte 0");
    const char *esc_dup[] = {"<pad>", "<bos>", "<eos>", "<unk>", "\xef\xbf\xbd", "\xef\xbf\xbd"};
    assert_null(voc_new(esc_dup, 6, &err));
    expect_string_in(err.msg, "entry 5 (\"\xef\xbf\xbd\") is a duplicate");
    const char *empty[] = {"<pad>", "<bos>", "<eos>", "<unk>", ""};
    assert_null(voc_new(empty, 5, &err));
    assert_null(voc_from_json("{\"a\": 1}", &err));
    assert_null(voc_from_json("[\"<pad>\", 3]", &err));
    assert_non_null(strstr(err.msg, "not a string"));
    assert_null(voc_from_json("[\"<pad>\"", &err));
}

static void test_json_round_trip(void **state) {
    (void)state;
    Vocab *v = make(tgt_toks, sizeof tgt_toks / sizeof *tgt_toks);
    char *json = voc_to_json(v);
    Error err;
    Vocab *back = voc_from_json(json, &err);
    if (!back) fail_msg("%s", err.msg);
    assert_int_equal(voc_size(back), voc_size(v));
    for (int i = 0; i < voc_size(v); i++) assert_string_equal(voc_token(back, i), voc_token(v, i));
    assert_int_equal(voc_id(back, "自然"), 6);
    assert_int_equal(voc_id(back, "nope"), -1);
    free(json);
    voc_free(back);
    voc_free(v);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_english),
        cmocka_unit_test(test_unknown_reported_by_name),
        cmocka_unit_test(test_chinese),
        cmocka_unit_test(test_bad_sentences),
        cmocka_unit_test(test_control_characters_named),
        cmocka_unit_test(test_quote),
        cmocka_unit_test(test_bad_vocabularies),
        cmocka_unit_test(test_json_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
