// A small strict JSON parser (RFC 8259), used for safetensors headers, their
// metadata values and reference files. Objects keep their keys in file order.
#ifndef TT_JSON_H
#define TT_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

typedef enum { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } JsonType;

typedef struct Json Json;
struct Json {
    JsonType type;
    bool boolean;        // JSON_BOOL
    double number;       // JSON_NUMBER
    char *string;        // JSON_STRING: UTF-8, NUL-terminated
    size_t len;          // JSON_STRING: bytes, excluding the NUL
    size_t count;        // JSON_ARRAY / JSON_OBJECT: number of items
    Json *items;         // JSON_ARRAY / JSON_OBJECT: count values
    char **keys;         // JSON_OBJECT: count keys, NUL-terminated
};

// Parses text[0..len). Nesting deeper than 64 levels, invalid UTF-8 in
// strings, trailing garbage and (with allow_nonfinite false) NaN/Infinity are
// errors. Error messages say "line L, column C: problem".
// allow_nonfinite accepts the tokens NaN, Infinity and -Infinity, as Python's
// json module writes them.
Json *json_parse(const char *text, size_t len, bool allow_nonfinite, Error *err);
void json_free(Json *j);

// Member of an object by key (first match), or NULL. j may be NULL.
const Json *json_get(const Json *j, const char *key);
// Item i of an array, or NULL.
const Json *json_at(const Json *j, size_t i);
// Index of the first repeated key in an object, or -1 when all keys differ.
long json_duplicate_key(const Json *j);

// Writes s as a JSON string literal (with quotes and escapes) to fp.
#include <stdio.h>
void json_write_string(FILE *fp, const char *s);
// The same into out, which has room for 6 × strlen(s) + 3 bytes; returns the length.
size_t json_quote(char *out, const char *s);

// Writes v into buf (at least JSON_FLOAT_MAX bytes) as printf's "%.9g" of
// (double)v writes it, byte for byte (9 significant digits: every float
// reads back exactly), or NaN, Infinity, -Infinity; returns the length.
// About ten times faster than printf: a trace writes 170,000 of them.
enum { JSON_FLOAT_MAX = 32 };
int json_format_float(char *buf, float v);

#endif
