// Text broken into lines (gfx.h: gfx_text_wrap, gfx_math_wrap,
// gfx_text_widest_unit): where a line may break, in English and in Chinese.
#include <limits.h>
#include <string.h>

#include "gfx.h"
#include "gfx_private.h"

// Punctuation that may not start a line, and that may not end one.
static bool closing_punct(unsigned cp) {
    return cp == 0x3001 || cp == 0x3002 || cp == 0xFF0C || cp == 0xFF0E || cp == 0xFF1A || cp == 0xFF1B || cp == 0xFF01 || cp == 0xFF1F ||
           cp == 0x300D || cp == 0x300F || cp == 0xFF09 || cp == 0x3011 || cp == 0x201D || cp == ',' || cp == '.' || cp == ';' ||
           cp == ':' || cp == '!' || cp == '?' || cp == ')';
}

static bool opening_punct(unsigned cp) { return cp == 0x300C || cp == 0x300E || cp == 0xFF08 || cp == 0x3010 || cp == 0x201C || cp == '('; }

// Signs that join the two sides of a formula: "7 × 16" and "a = b" are not
// broken around them.
static bool joining_sign(unsigned cp) {
    return cp == 0xD7 || cp == '=' || cp == '+' || cp == 0x2212 || cp == 0x2192 || cp == 0x2248 || cp == 0x2264 || cp == 0x2265;
}

// The end of the next unbreakable unit starting at s: a word (with the spaces
// after it), or one wide character, with opening punctuation before and
// closing punctuation after either. A no-break space ties the next unit to
// this one, and so does a joining sign standing alone between spaces.
static size_t wrap_unit(const char *s) {
    size_t i = 0;
    unsigned cp = 0;
    int n;
    while (s[i] && (n = gfx_utf8_char(s + i, &cp), opening_punct(cp))) i += (size_t)n;
    n = s[i] ? gfx_utf8_char(s + i, &cp) : 0;
    if (s[i] && gfx_wide_char(cp)) {
        // Chinese prose breaks between any two characters; a short word set
        // apart by spaces (a key's name "單元", a token "墊子") stays whole
        size_t j = i;
        int chars = 0;
        unsigned c2 = 0;
        for (int m; s[j] && s[j] != ' ' && s[j] != '\n' && (m = gfx_utf8_char(s + j, &c2), gfx_wide_char(c2)) && !closing_punct(c2); j += (size_t)m)
            chars++;
        bool spaced = !s[j] || s[j] == ' ' || s[j] == '\n' || closing_punct(c2);
        i += chars <= 4 && spaced ? j - i : (size_t)n;
    } else
        while (s[i] && s[i] != ' ' && s[i] != '\n') {
            n = gfx_utf8_char(s + i, &cp);
            if (cp == 0xA0) return i + (size_t)n + (s[i + (size_t)n] && s[i + (size_t)n] != '\n' ? wrap_unit(s + i + (size_t)n) : 0);
            if (gfx_wide_char(cp)) {
                if (closing_punct(cp)) i += (size_t)n;  // the word ends with its CJK punctuation
                break;
            }
            i += (size_t)n;
        }
    while (s[i] && s[i] != '\n') {
        n = gfx_utf8_char(s + i, &cp);
        if (!closing_punct(cp)) break;
        i += (size_t)n;
    }
    while (s[i] == ' ') i++;
    // "x × y": the sign and what follows it stay with this unit when that is a
    // formula's term ("6 × 64", "d_ff + d_model"), not a word ("look-ahead + padding")
    if (s[i] && (n = gfx_utf8_char(s + i, &cp), joining_sign(cp)) && s[i + (size_t)n] == ' ') {
        size_t j = i + (size_t)n, len;
        while (s[j] == ' ') j++;
        len = strcspn(s + j, " \n");
        bool word = len > 3 && strspn(s + j, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-") == len;
        if (s[j] && s[j] != '\n' && !word) return j + wrap_unit(s + j);
    }
    return i ? i : 1;
}

int gfx_text_widest_unit(Gfx *g, const char *utf8, int px) {
    char unit[256];
    int most = 0;
    for (const char *p = utf8; *p;) {
        size_t u = wrap_unit(p), n = u < sizeof unit ? u : sizeof unit - 1;
        while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\n' || ((unsigned char)p[n] & 0xC0) == 0x80)) n--;  // whole characters
        memcpy(unit, p, n);
        unit[n] = '\0';
        most = SDL_max(most, gfx_text_width(g, unit, px));
        p += u;
        p += strspn(p, "\n");
    }
    return most;
}

// The width of a line of text, typeset as a formula when math is true.
static int line_width(Gfx *g, const char *line, int px, bool math) {
    return math ? gfx_math_width(g, line, px) : gfx_text_width(g, line, px);
}

static int wrap(Gfx *g, int x, int y, int w, const char *utf8, int px, Color c, bool draw, bool math) {
    int lh = gfx_line_height(g, px), top = y;
    char line[1024];
    const char *p = utf8;
    while (*p) {
        size_t len = 0;
        while (*p && *p != '\n') {
            size_t u = wrap_unit(p);
            if (len + u >= sizeof line) {
                if (len > 0) break;
                // one unit longer than the buffer: cut it at a character boundary
                u = sizeof line - 8;
                while (u > 0 && ((unsigned char)p[u] & 0xC0) == 0x80) u--;
            }
            memcpy(line + len, p, u);
            line[len + u] = '\0';
            // the line's trailing spaces do not count
            size_t vis = len + u;
            while (vis > 0 && line[vis - 1] == ' ') vis--;
            char save = line[vis];
            line[vis] = '\0';
            bool fits = line_width(g, line, px, math) <= w;
            line[vis] = save;
            if (!fits && len > 0) break;
            len += u;
            p += u;
        }
        while (len > 0 && line[len - 1] == ' ') len--;
        line[len] = '\0';
        if (draw && math) gfx_math(g, x, y, INT_MAX, line, px, c);
        else if (draw) gfx_text_fit(g, x, y, w, line, px, c, GFX_LEFT);  // one unit wider than w: cut, not over its neighbours
        y += lh;
        if (*p == '\n') {
            p++;
            y += lh / 3;  // a paragraph's gap
        }
    }
    return y - top;
}

int gfx_text_wrap(Gfx *g, int x, int y, int w, const char *utf8, int px, Color c, bool draw) {
    return wrap(g, x, y, w, utf8, px, c, draw, false);
}

int gfx_math_wrap(Gfx *g, int x, int y, int w, const char *utf8, int px, Color c, bool draw) {
    return wrap(g, x, y, w, utf8, px, c, draw, true);
}
