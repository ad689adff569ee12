#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "vocab.h"

int err_set(Error *err, const char *fmt, ...) {
    if (!err) return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return -1;
}

void err_prefix(Error *err, const char *fmt, ...) {
    if (!err) return;
    char head[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(head, sizeof head, fmt, ap);
    va_end(ap);
    // head, then ": ", then the old message, cut to fit
    size_t hl = strlen(head), ol = strnlen(err->msg, sizeof err->msg - 1), cap = sizeof err->msg - 1;
    if (hl + 2 > cap) hl = cap - 2;
    if (hl + 2 + ol > cap) ol = cap - hl - 2;
    memmove(err->msg + hl + 2, err->msg, ol);
    memcpy(err->msg, head, hl);
    memcpy(err->msg + hl, ": ", 2);
    err->msg[hl + 2 + ol] = '\0';
}

// Bytes of the UTF-8 sequence a lead byte starts, or 0.
static long utf8_length(unsigned char c) {
    if (c < 0x80) return 1;
    if ((c & 0xE0) == 0xC0) return 2;
    if ((c & 0xF0) == 0xE0) return 3;
    if ((c & 0xF8) == 0xF0) return 4;
    return 0;
}

const char *err_quote(char *buf, size_t size, const char *text, size_t max_bytes) {
    static const char more[] = "\xE2\x80\xA6";  // …
    if (!size) return buf;
    size_t used = 0, len = strlen(text);
    long shown = (long)(len < max_bytes ? len : max_bytes);
    long i = 0;
    while (i < shown) {
        char piece[12];
        long k = utf8_length((unsigned char)text[i]);
        uint32_t cp;
        if (k && i + k <= shown && voc_utf8_invalid_at(text + i, k) < 0) {
            if (voc_forbidden_at(text + i, k, 0, &cp) < 0) {
                memcpy(piece, text + i, (size_t)k);
                piece[k] = '\0';
            } else {
                snprintf(piece, sizeof piece, "U+%04X", (unsigned)cp);
            }
        } else {
            k = 1;  // not UTF-8, or a sequence cut at max_bytes
            snprintf(piece, sizeof piece, "\\x%02X", (unsigned char)text[i]);
        }
        size_t n = strlen(piece);
        if (used + n + sizeof more > size) break;  // room for "…" stays
        memcpy(buf + used, piece, n);
        used += n;
        i += k;
    }
    if ((size_t)i < len && used + sizeof more <= size) {
        memcpy(buf + used, more, sizeof more - 1);
        used += sizeof more - 1;
    }
    buf[used] = '\0';
    return buf;
}
