#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

// Parses a copy of text[0..len) in a buffer of exactly len bytes, so the
// sanitizers catch any read past the end (the parser must not need a NUL).
static Json *parse_exact(const char *text, size_t len, bool allow_nonfinite, Error *err) {
    char *copy = malloc(len ? len : 1);
    assert_non_null(copy);
    memcpy(copy, text, len);
    Json *j = json_parse(copy, len, allow_nonfinite, err);
    free(copy);
    return j;
}

static Json *parse_ok(const char *text) {
    Error err = {{0}};
    Json *j = parse_exact(text, strlen(text), false, &err);
    if (!j) fail_msg("expected: parse of %s to succeed, got: %s", text, err.msg);
    return j;
}

static void check_type(const Json *j, JsonType type) {
    assert_non_null(j);
    if (j->type != type) fail_msg("expected type: %d, got: %d", (int)type, (int)j->type);
}

static void check_number(const Json *j, double want) {
    check_type(j, JSON_NUMBER);
    if (j->number != want || signbit(j->number) != signbit(want))
        fail_msg("expected: %.17g, got: %.17g", want, j->number);
}

static void check_string(const Json *j, const char *want, size_t want_len) {
    check_type(j, JSON_STRING);
    if (j->len != want_len || memcmp(j->string, want, want_len) != 0)
        fail_msg("expected: \"%s\" (%zu bytes), got: \"%s\" (%zu bytes)", want, want_len, j->string, j->len);
    if (j->string[j->len] != '\0') fail_msg("expected: NUL terminator after %zu bytes", j->len);
}

static void test_nested_document(void **state) {
    (void)state;
    Json *j = parse_ok(" {\"a\": [1, 2, {\"b\": null}],\n \"c\": {\"d\": true, \"e\": false}, \"s\": \"x\"} ");
    check_type(j, JSON_OBJECT);
    assert_int_equal(j->count, 3);
    // keys stay in file order
    assert_string_equal(j->keys[0], "a");
    assert_string_equal(j->keys[1], "c");
    assert_string_equal(j->keys[2], "s");

    const Json *a = json_get(j, "a");
    check_type(a, JSON_ARRAY);
    assert_int_equal(a->count, 3);
    check_number(json_at(a, 0), 1);
    check_number(json_at(a, 1), 2);
    check_type(json_get(json_at(a, 2), "b"), JSON_NULL);
    assert_null(json_at(a, 3));

    const Json *c = json_get(j, "c");
    check_type(json_get(c, "d"), JSON_BOOL);
    assert_true(json_get(c, "d")->boolean);
    assert_false(json_get(c, "e")->boolean);
    check_string(json_get(j, "s"), "x", 1);

    assert_null(json_get(j, "missing"));
    assert_null(json_get(NULL, "a"));
    assert_null(json_get(a, "a"));
    assert_null(json_at(j, 0));
    json_free(j);
    json_free(NULL);
}

static void test_scalars_at_top_level(void **state) {
    (void)state;
    Json *j = parse_ok("null");
    check_type(j, JSON_NULL);
    json_free(j);
    j = parse_ok("\t\r\ntrue\n");
    check_type(j, JSON_BOOL);
    assert_true(j->boolean);
    json_free(j);
    j = parse_ok("\"\"");
    check_string(j, "", 0);
    json_free(j);
}

static void test_escapes(void **state) {
    (void)state;
    Json *j = parse_ok("\"q\\\" b\\\\ s\\/ \\b\\f\\n\\r\\t \\u0041\\u00e9\\u20AC\"");
    const char want[] = "q\" b\\ s/ \b\f\n\r\t A\xC3\xA9\xE2\x82\xAC";
    check_string(j, want, sizeof want - 1);
    json_free(j);

    // \u0000 is legal JSON: it lands in the string and len counts it
    j = parse_ok("\"a\\u0000b\"");
    check_string(j, "a\0b", 3);
    json_free(j);
}

static void test_surrogate_pair(void **state) {
    (void)state;
    Json *j = parse_ok("\"\\uD83D\\uDE00\"");
    check_string(j, "\xF0\x9F\x98\x80", 4);
    json_free(j);
    // highest code point, U+10FFFF
    j = parse_ok("\"\\udbff\\udfff\"");
    check_string(j, "\xF4\x8F\xBF\xBF", 4);
    json_free(j);
}

static void test_utf8_passes_through(void **state) {
    (void)state;
    const char text[] = "\"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xED\x9F\xBF \xEE\x80\x80\"";
    Json *j = parse_ok(text);
    check_string(j, text + 1, sizeof text - 3);
    json_free(j);
}

static void test_numbers(void **state) {
    (void)state;
    static const struct {
        const char *text;
        double want;
    } cases[] = {
        {"0", 0.0},           {"-0", -0.0},         {"1", 1.0},
        {"-12", -12.0},       {"1.5", 1.5},         {"-12.25e2", -1225.0},
        {"1E3", 1000.0},      {"1e+2", 100.0},      {"25e-2", 0.25},
        {"0.1", 0.1},         {"123456789", 123456789.0},
        {"9007199254740993", 9007199254740992.0},   {"1e-400", 0.0},
        {"1.7976931348623157e308", 1.7976931348623157e308},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Json *j = parse_ok(cases[i].text);
        check_number(j, cases[i].want);
        json_free(j);
    }
}

static void test_empty_containers(void **state) {
    (void)state;
    const char *texts[] = {"[]", "{}", " [ ] ", "{ \n}", "[[]]", "{\"a\":{}}", "[{}, []]"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        Json *j = parse_ok(texts[i]);
        json_free(j);
    }
    Json *j = parse_ok("[{}, []]");
    check_type(json_at(j, 0), JSON_OBJECT);
    assert_int_equal(json_at(j, 0)->count, 0);
    check_type(json_at(j, 1), JSON_ARRAY);
    assert_int_equal(json_at(j, 1)->count, 0);
    json_free(j);
}

static void test_nonfinite_when_allowed(void **state) {
    (void)state;
    Error err = {{0}};
    const char text[] = "[NaN, Infinity, -Infinity, -1]";
    Json *j = parse_exact(text, strlen(text), true, &err);
    if (!j) fail_msg("expected: success, got: %s", err.msg);
    assert_true(isnan(json_at(j, 0)->number));
    assert_true(isinf(json_at(j, 1)->number) && json_at(j, 1)->number > 0);
    assert_true(isinf(json_at(j, 2)->number) && json_at(j, 2)->number < 0);
    check_number(json_at(j, 3), -1);
    json_free(j);
}

static void test_not_nul_terminated(void **state) {
    (void)state;
    Error err = {{0}};
    // "[12]" followed by bytes that must not be read
    const char text[] = "[12]345";
    Json *j = parse_exact(text, 4, false, &err);
    if (!j) fail_msg("expected: success, got: %s", err.msg);
    assert_int_equal(j->count, 1);
    check_number(json_at(j, 0), 12);
    json_free(j);
    // a number that runs to the very end of the buffer
    j = parse_exact("-1.5e3", 6, false, &err);
    check_number(j, -1500);
    json_free(j);
}

static char *nested(int depth) {
    char *s = malloc(2 * (size_t)depth + 1);
    assert_non_null(s);
    for (int i = 0; i < depth; i++) {
        s[i] = '[';
        s[2 * depth - 1 - i] = ']';
    }
    s[2 * depth] = '\0';
    return s;
}

static void test_depth_limit(void **state) {
    (void)state;
    char *ok = nested(64);
    Json *j = parse_ok(ok);
    json_free(j);
    free(ok);

    Error err = {{0}};
    char *deep = nested(65);
    assert_null(parse_exact(deep, strlen(deep), false, &err));
    if (!strstr(err.msg, "nesting deeper than 64"))
        fail_msg("expected message containing: %s, got: %s", "nesting deeper than 64", err.msg);
    free(deep);

    // far deeper than the limit must fail just as quickly, without recursion
    char *very_deep = nested(100000);
    assert_null(parse_exact(very_deep, strlen(very_deep), false, &err));
    free(very_deep);
}

typedef struct {
    const char *name;
    const char *text;
    int len;          // -1: strlen(text)
    bool nonfinite;
    const char *want; // substring of the message
} BadCase;

static const BadCase bad_cases[] = {
    {"empty input", "", -1, false, "expected a value, got end of input"},
    {"only whitespace", "  \n ", -1, false, "line 2, column 2: expected a value"},
    {"trailing comma in array", "[1, 2,]", -1, false, "trailing comma before ']'"},
    {"trailing comma in object", "{\"a\": 1,}", -1, false, "trailing comma before '}'"},
    {"unterminated string", "\"abc", -1, false, "unterminated string"},
    {"unterminated after backslash", "\"abc\\", -1, false, "unterminated string"},
    {"bad escape", "\"a\\x\"", -1, false, "line 1, column 3: invalid escape '\\x' in string"},
    {"escaped newline", "\"a\\\nb\"", -1, false, "backslash followed by byte 0x0A"},
    {"short \\u escape", "\"\\u12\"", -1, false, "4 hex digits"},
    {"non-hex \\u escape", "\"\\u12G4\"", -1, false, "4 hex digits, got 'G'"},
    {"lone high surrogate", "\"\\uD800\"", -1, false, "lone high surrogate \\uD800"},
    {"high surrogate at end", "\"\\uD800", -1, false, "lone high surrogate"},
    {"lone low surrogate", "\"\\uDC00\"", -1, false, "lone low surrogate \\uDC00"},
    {"high then non-low surrogate", "\"\\uD800\\u0041\"", -1, false, "not a low surrogate"},
    {"high then two high", "\"\\uD800\\uD800\"", -1, false, "not a low surrogate"},
    {"invalid UTF-8 byte", "\"\xFF\"", -1, false, "invalid UTF-8 in string (byte 0xFF)"},
    {"stray continuation byte", "\"\x80\"", -1, false, "invalid UTF-8"},
    {"overlong 2-byte", "\"\xC0\xAF\"", -1, false, "invalid UTF-8"},
    {"overlong 3-byte", "\"\xE0\x80\xAF\"", -1, false, "invalid UTF-8"},
    {"overlong 4-byte", "\"\xF0\x80\x80\xAF\"", -1, false, "invalid UTF-8"},
    {"surrogate in UTF-8", "\"\xED\xA0\x80\"", -1, false, "invalid UTF-8"},
    {"above U+10FFFF", "\"\xF4\x90\x80\x80\"", -1, false, "invalid UTF-8"},
    {"truncated UTF-8", "\"\xE2\x82", -1, false, "invalid UTF-8"},
    {"UTF-8 missing continuation", "\"\xE2\x82x\"", -1, false, "invalid UTF-8"},
    {"control character", "\"a\nb\"", -1, false, "control character 0x0A"},
    {"tab in string", "\"a\tb\"", -1, false, "control character 0x09"},
    {"leading zero", "01", -1, false, "leading zeros"},
    {"negative leading zero", "[-01]", -1, false, "leading zeros"},
    {"bare minus", "-", -1, false, "expected a digit in number, got end of input"},
    {"plus sign", "+1", -1, false, "expected a value, got '+'"},
    {"leading point", ".5", -1, false, "expected a value, got '.'"},
    {"trailing point", "1.", -1, false, "after the decimal point"},
    {"empty exponent", "1e+", -1, false, "in the exponent"},
    {"hex number", "0x10", -1, false, "expected end of input after the value, got 'x'"},
    {"number too large", "1e400", -1, false, "too large for a double"},
    {"garbage after value", "[1] x", -1, false, "line 1, column 5: expected end of input"},
    {"two values", "1 2", -1, false, "expected end of input"},
    {"NUL after value", "[1]\0", 4, false, "got byte 0x00"},
    {"truncated array", "[1, 2, 3]", 5, false, "expected ',' or ']' after an array item, got end of input"},
    {"truncated string", "{\"key\": \"value\"}", 10, false, "unterminated string"},
    {"truncated literal", "true", 3, false, "invalid literal, expected 'true'"},
    {"truncated object", "{\"a\"", -1, false, "expected ':' after an object key"},
    {"missing colon", "{\"a\" 1}", -1, false, "expected ':'"},
    {"non-string key", "{1: 2}", -1, false, "expected a string key, got '1'"},
    {"missing comma", "[1 2]", -1, false, "expected ',' or ']'"},
    {"missing comma in object", "{\"a\":1 \"b\":2}", -1, false, "expected ',' or '}'"},
    {"single quotes", "'a'", -1, false, "expected a value, got '''"},
    {"byte order mark", "\xEF\xBB\xBF{}", -1, false, "expected a value, got byte 0xEF"},
    {"misspelt literal", "nul", -1, false, "invalid literal, expected 'null'"},
    {"capitalised literal", "True", -1, false, "expected a value, got 'T'"},
    {"NaN not allowed", "NaN", -1, false, "NaN is not valid JSON"},
    {"Infinity not allowed", "[Infinity]", -1, false, "Infinity is not valid JSON"},
    {"-Infinity not allowed", "{\"x\": -Infinity}", -1, false, "-Infinity is not valid JSON"},
    {"partial NaN even when allowed", "Na", -1, true, "expected a value"},
    {"-Inf partial when allowed", "-Inf", -1, true, "expected a digit in number, got 'I'"},
    {"error position on line 2", "{\n  \"a\": tru\n}", -1, false, "line 2, column 8: invalid literal"},
    {"column counts characters", "[\"\xC3\xA9\xC3\xA9\", x]", -1, false, "line 1, column 8: expected a value"},
};

static void test_invalid_documents(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const BadCase *c = &bad_cases[i];
        size_t len = c->len < 0 ? strlen(c->text) : (size_t)c->len;
        Error err = {{0}};
        Json *j = parse_exact(c->text, len, c->nonfinite, &err);
        if (j) {
            json_free(j);
            fail_msg("%s: expected: failure, got: success", c->name);
        }
        if (strncmp(err.msg, "line ", 5) != 0 || !strstr(err.msg, c->want))
            fail_msg("%s: expected message containing: %s, got: %s", c->name, c->want, err.msg);
    }
}

static void test_parse_with_null_error(void **state) {
    (void)state;
    assert_null(json_parse("[", 1, false, NULL));
}

static void test_duplicate_key(void **state) {
    (void)state;
    static const struct {
        const char *text;
        long want;
    } cases[] = {
        {"{}", -1},
        {"{\"a\":1}", -1},
        {"{\"a\":1,\"b\":2}", -1},
        {"{\"a\":1,\"b\":2,\"a\":3}", 2},
        {"{\"x\":1,\"y\":2,\"y\":3,\"x\":4}", 2},
        {"{\"a\":1,\"b\":2,\"c\":3,\"b\":4,\"a\":5}", 3},
        // keys compare as the C strings callers see
        {"{\"a\":1,\"a\\u0000b\":2}", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Json *j = parse_ok(cases[i].text);
        long got = json_duplicate_key(j);
        if (got != cases[i].want) fail_msg("%s: expected: %ld, got: %ld", cases[i].text, cases[i].want, got);
        json_free(j);
    }
    Json *arr = parse_ok("[1, 1]");
    assert_int_equal(json_duplicate_key(arr), -1);
    json_free(arr);
}

static void test_big_array(void **state) {
    (void)state;
    // Geometric growth: 200k items must parse in well under a second.
    size_t n = 200000;
    char *text = malloc(2 * n + 2);
    assert_non_null(text);
    text[0] = '[';
    for (size_t i = 0; i < n; i++) {
        text[1 + 2 * i] = (char)('0' + i % 10);
        text[2 + 2 * i] = i + 1 < n ? ',' : ']';
    }
    Error err = {{0}};
    Json *j = json_parse(text, 2 * n + 1, false, &err);
    if (!j) fail_msg("expected: success, got: %s", err.msg);
    if (j->count != n) fail_msg("expected: %zu items, got: %zu", n, j->count);
    check_number(json_at(j, n - 1), (double)((n - 1) % 10));
    json_free(j);
    free(text);
}

static void test_big_object_duplicates(void **state) {
    (void)state;
    // Many keys: the duplicate check must not be quadratic.
    size_t n = 50000;
    size_t cap = n * 16 + 16;
    char *text = malloc(cap);
    assert_non_null(text);
    size_t len = 0;
    text[len++] = '{';
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(text + len, cap - len, "%s\"k%zu\":0", i ? "," : "", i == n - 1 ? (size_t)7 : i);
    text[len++] = '}';
    Json *j = json_parse(text, len, false, NULL);
    assert_non_null(j);
    long got = json_duplicate_key(j);
    if (got != (long)(n - 1)) fail_msg("expected: %ld, got: %ld", (long)(n - 1), got);
    json_free(j);
    free(text);
}

static char *write_to_string(const char *s) {
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    assert_non_null(mem);
    json_write_string(mem, s);
    fclose(mem);
    return buf;
}

static void test_write_string(void **state) {
    (void)state;
    const char *s = "a\"b\\c/\n\t\r\b\f\x01\x1f caf\xC3\xA9 \xF0\x9F\x98\x80";
    char *out = write_to_string(s);
    const char *want = "\"a\\\"b\\\\c/\\n\\t\\r\\b\\f\\u0001\\u001f caf\xC3\xA9 \xF0\x9F\x98\x80\"";
    if (strcmp(out, want) != 0) fail_msg("expected: %s, got: %s", want, out);

    // what we write, we read back unchanged
    Json *j = parse_ok(out);
    check_string(j, s, strlen(s));
    json_free(j);
    free(out);

    out = write_to_string("");
    assert_string_equal(out, "\"\"");
    free(out);
}

// Tiny deterministic generator for the robustness test.
static uint32_t next_random(uint32_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

// json_format_float against printf's own "%.9g", which it must equal byte
// for byte; also run over every float by bench/float_format_all.c.
static void check_float_bits(uint32_t bits) {
    float v;
    memcpy(&v, &bits, sizeof v);
    char ours[JSON_FLOAT_MAX], want[64];
    int n = json_format_float(ours, v);
    if (isnan(v)) snprintf(want, sizeof want, "NaN");
    else if (isinf(v)) snprintf(want, sizeof want, "%s", v < 0 ? "-Infinity" : "Infinity");
    else snprintf(want, sizeof want, "%.9g", (double)v);
    if (strcmp(ours, want) != 0 || n != (int)strlen(want))
        fail_msg("expected: %s (length %zu) for 0x%08x, got: %s (length %d)", want, strlen(want), bits, ours, n);
}

static void test_format_float(void **state) {
    (void)state;
    // the edges: zeros, the smallest and largest subnormals and normals, the
    // largest float, NaN, the infinities, 1 and its neighbours
    const uint32_t edges[] = {0x00000000, 0x80000000, 0x00000001, 0x007fffff, 0x00800000, 0x7f7fffff, 0xff7fffff,
                              0x7fc00000, 0x7f800000, 0xff800000, 0x3f800000, 0x3f7fffff, 0x3f800001};
    for (size_t i = 0; i < sizeof edges / sizeof *edges; i++) check_float_bits(edges[i]);
    // every power of ten a float can be near, and the floats either side:
    // where the nine digits roll over to the next exponent
    for (int k = -45; k <= 38; k++) {
        float p = (float)pow(10.0, k);
        uint32_t bits;
        memcpy(&bits, &p, sizeof bits);
        for (uint32_t d = 0; d < 5; d++) {
            check_float_bits(bits + d);
            if (bits >= d) check_float_bits(bits - d);
        }
    }
    // where %g turns from fixed to scientific notation: 1e-5, 1e-4, 1e9
    const float turns[] = {0.0001f, 0.00009999999f, 0.00001f, 999999999.0f, 1e9f, 123456789.0f, 12345.678f, 0.5f, 100.0f};
    for (size_t i = 0; i < sizeof turns / sizeof *turns; i++) {
        uint32_t bits;
        memcpy(&bits, &turns[i], sizeof bits);
        check_float_bits(bits);
        check_float_bits(bits | 0x80000000u);
    }
    // and a million floats spread over all bit patterns
    uint32_t r = 12345;
    for (int i = 0; i < 1000000; i++) check_float_bits(next_random(&r));
}

static void test_arbitrary_bytes(void **state) {
    (void)state;
    // Mutated documents and random bytes must fail cleanly or parse; the
    // sanitizers watch for overreads and leaks.
    const char *seeds[] = {
        "{\"a\": [1, -2.5e3, true, false, null, \"x\\u00e9\\uD83D\\uDE00\"], \"b\": {\"c\": []}}",
        "[NaN, Infinity, -Infinity, 0, \"\xC3\xA9\"]",
        "\"\\\\\\\"\\/\\b\\f\\n\\r\\t\"",
    };
    const char alphabet[] = "{}[]\",:\\u0123456789eE.-+ntfalsNIy\xC3\xA9\xED\xF0\x80\xBF\n";
    uint32_t rng = 12345;
    char buf[128];
    for (int iter = 0; iter < 20000; iter++) {
        size_t len;
        if (iter % 4 == 0) {
            len = next_random(&rng) % sizeof buf;
            for (size_t i = 0; i < len; i++) buf[i] = alphabet[next_random(&rng) % (sizeof alphabet - 1)];
        } else {
            const char *seed = seeds[next_random(&rng) % 3];
            len = strlen(seed);
            memcpy(buf, seed, len);
            int edits = 1 + (int)(next_random(&rng) % 4);
            for (int e = 0; e < edits; e++) {
                size_t at = next_random(&rng) % len;
                uint32_t r = next_random(&rng);
                if (r % 3 == 0)
                    buf[at] = (char)(r >> 8);
                else if (r % 3 == 1)
                    buf[at] = alphabet[(r >> 8) % (sizeof alphabet - 1)];
                else
                    len = at;  // truncate
                if (len == 0) break;
            }
        }
        Error err = {{0}};
        Json *j = parse_exact(buf, len, iter % 2 == 0, &err);
        if (!j && strncmp(err.msg, "line ", 5) != 0)
            fail_msg("expected: a message starting with 'line ', got: %s", err.msg);
        json_free(j);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nested_document),
        cmocka_unit_test(test_scalars_at_top_level),
        cmocka_unit_test(test_escapes),
        cmocka_unit_test(test_surrogate_pair),
        cmocka_unit_test(test_utf8_passes_through),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_empty_containers),
        cmocka_unit_test(test_nonfinite_when_allowed),
        cmocka_unit_test(test_not_nul_terminated),
        cmocka_unit_test(test_depth_limit),
        cmocka_unit_test(test_invalid_documents),
        cmocka_unit_test(test_parse_with_null_error),
        cmocka_unit_test(test_duplicate_key),
        cmocka_unit_test(test_big_array),
        cmocka_unit_test(test_big_object_duplicates),
        cmocka_unit_test(test_write_string),
        cmocka_unit_test(test_format_float),
        cmocka_unit_test(test_arbitrary_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
