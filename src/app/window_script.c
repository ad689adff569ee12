#include "window_script.h"

#include <ctype.h>
#include <png.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fileio.h"
#include "image.h"

struct Script {
    const char *path;
    char *data;         // the file; lines are cut in place
    char **lines;       // command lines, comments and blanks left out
    int *line_no;       // each one's line number in the file
    int n, next;        // how many, and the next to run
    int passed, failed;
    Uint32 wake;        // an event of our own that ends each batch, so the loop never waits for ever
};

void script_free(Script *sc) {
    if (!sc) return;
    free(sc->data);
    free(sc->lines);
    free(sc->line_no);
    free(sc);
}

// The argument after the command word and one space ("" if none).
static const char *script_arg(const char *line) {
    const char *sp = strchr(line, ' ');
    return sp ? sp + 1 : "";
}

static bool script_is(const char *line, const char *cmd) {
    size_t n = strlen(cmd);
    return !strncmp(line, cmd, n) && (line[n] == ' ' || line[n] == '\0');
}

// Text as written, with \xNN and \\ decoded. Returns the byte count.
static size_t script_unescape(const char *in, char *out, size_t size) {
    size_t o = 0;
    for (const char *p = in; *p && o + 1 < size;) {
        if (p[0] == '\\' && p[1] == '\\') {
            out[o++] = '\\';
            p += 2;
        } else if (p[0] == '\\' && p[1] == 'x' && isxdigit((unsigned char)p[2]) && isxdigit((unsigned char)p[3])) {
            char hex[3] = {p[2], p[3], '\0'};
            out[o++] = (char)strtol(hex, NULL, 16);
            p += 4;
        } else {
            out[o++] = *p++;
        }
    }
    out[o] = '\0';
    return o;
}

// "ctrl+shift+Right x3" → key, modifiers and repeat count. Returns false if NAME is no key.
static bool script_key(const char *arg, SDL_Keycode *key, Uint16 *mod, int *repeat) {
    char name[64];
    snprintf(name, sizeof name, "%s", arg);
    *mod = KMOD_NONE;
    *repeat = 1;
    char *x = strrchr(name, ' ');
    if (x && x[1] == 'x' && x[2] && strspn(x + 2, "0123456789") == strlen(x + 2)) {
        *repeat = atoi(x + 2);
        *x = '\0';
    }
    char *p = name;
    for (;;) {
        if (!strncasecmp(p, "ctrl+", 5)) *mod |= KMOD_LCTRL, p += 5;
        else if (!strncasecmp(p, "shift+", 6)) *mod |= KMOD_LSHIFT, p += 6;
        else if (!strncasecmp(p, "alt+", 4)) *mod |= KMOD_LALT, p += 4;
        else break;
    }
    *key = SDL_GetKeyFromName(p);
    return *key != SDLK_UNKNOWN && *repeat >= 1;
}

static bool script_two_ints(const char *arg, int *a, int *b) {
    char end;
    return sscanf(arg, "%d %d%c", a, b, &end) == 2;
}

Script *script_load(const char *path, Error *err) {
    Script *sc = calloc(1, sizeof *sc);
    size_t len;
    if (!sc) {
        err_set(err, "out of memory");
        return NULL;
    }
    sc->path = path;
    if (fio_read_all(path, 1 << 24, &sc->data, &len, err)) goto fail;
    size_t cap = 1;
    for (size_t i = 0; i < len; i++) cap += sc->data[i] == '\n';
    sc->lines = malloc(cap * sizeof *sc->lines);
    sc->line_no = malloc(cap * sizeof *sc->line_no);
    if (!sc->lines || !sc->line_no) {
        err_set(err, "out of memory");
        goto fail;
    }
    char *line = sc->data;
    for (int no = 1; line; no++) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        size_t n = strlen(line);
        if (n && line[n - 1] == '\r') line[--n] = '\0';
        char *cmd = line + strspn(line, " \t");
        line = nl ? nl + 1 : NULL;
        if (!*cmd || *cmd == '#') continue;
        const char *arg = script_arg(cmd);
        SDL_Keycode key;
        Uint16 mod;
        int x, y;
        bool ok;
        if (script_is(cmd, "key")) ok = script_key(arg, &key, &mod, &x);
        else if (script_is(cmd, "click") || script_is(cmd, "move") || script_is(cmd, "expect-canvas")) ok = script_two_ints(arg, &x, &y);
        else if (script_is(cmd, "resize")) ok = script_two_ints(arg, &x, &y) && x > 0 && y > 0;
        else if (script_is(cmd, "expect-step") || script_is(cmd, "expect-head")) ok = sscanf(arg, "%d", &x) == 1;
        else if (script_is(cmd, "expect-png")) ok = sscanf(arg, "%*s %d %d", &x, &y) == 2;
        else if (script_is(cmd, "text") || script_is(cmd, "type") || script_is(cmd, "paste") || script_is(cmd, "compose") ||
                 script_is(cmd, "expect-sentence") || script_is(cmd, "expect-status-contains"))
            ok = strchr(cmd, ' ') != NULL;
        else if (script_is(cmd, "expect-stage") || script_is(cmd, "export") || script_is(cmd, "model") || script_is(cmd, "drop"))
            ok = *arg != '\0';
        else if (script_is(cmd, "decode")) ok = !strcmp(arg, "greedy") || !strcmp(arg, "beam") || !strcmp(arg, "sample");
        else if (script_is(cmd, "quit")) ok = true;
        else {
            err_set(err, "%s:%d: unknown command \"%s\"", path, no, cmd);
            goto fail;
        }
        if (!ok) {
            err_set(err, "%s:%d: cannot read \"%s\" (the forms are listed in src/app/window_script.h)", path, no, cmd);
            goto fail;
        }
        sc->lines[sc->n] = cmd;
        sc->line_no[sc->n++] = no;
    }
    sc->wake = SDL_RegisterEvents(1);
    return sc;
fail:
    script_free(sc);
    return NULL;
}

static void script_check(Script *sc, bool ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void script_check(Script *sc, bool ok, const char *fmt, ...) {
    if (ok) {
        sc->passed++;
        return;
    }
    sc->failed++;
    int i = sc->next - 1;
    fprintf(stderr, "%s:%d: %s: ", sc->path, sc->line_no[i], sc->lines[i]);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

// A key going down (SDL_KEYDOWN) or up.
static void push_key_event(SDL_Window *win, Uint32 type, SDL_Keycode key, Uint16 mod) {
    SDL_Event e = {.type = type};
    e.key.windowID = SDL_GetWindowID(win);
    e.key.state = type == SDL_KEYDOWN ? SDL_PRESSED : SDL_RELEASED;
    e.key.keysym.sym = key;
    e.key.keysym.scancode = SDL_GetScancodeFromKey(key);
    e.key.keysym.mod = mod;
    SDL_PushEvent(&e);
}

static void push_key(SDL_Window *win, SDL_Keycode key, Uint16 mod) {
    push_key_event(win, SDL_KEYDOWN, key, mod);
    push_key_event(win, SDL_KEYUP, key, mod);
}

// Typed text arrives in events of at most 31 bytes, cut between characters.
static void push_text(SDL_Window *win, const char *text, size_t len) {
    SDL_Event e = {0};
    e.type = SDL_TEXTINPUT;
    e.text.windowID = SDL_GetWindowID(win);
    const size_t most = sizeof e.text.text - 1;
    for (size_t at = 0; at < len;) {
        size_t n = len - at < most ? len - at : most;
        while (n > 1 && at + n < len && ((unsigned char)text[at + n] & 0xC0) == 0x80) n--;
        memcpy(e.text.text, text + at, n);
        e.text.text[n] = '\0';
        SDL_PushEvent(&e);
        at += n;
    }
}

static void push_mouse(SDL_Window *win, Uint32 type, int x, int y) {
    SDL_Event e = {0};
    e.type = type;
    if (type == SDL_MOUSEMOTION) {
        e.motion.windowID = SDL_GetWindowID(win);
        e.motion.x = x;
        e.motion.y = y;
    } else {
        e.button.windowID = SDL_GetWindowID(win);
        e.button.button = SDL_BUTTON_LEFT;
        e.button.state = type == SDL_MOUSEBUTTONDOWN ? SDL_PRESSED : SDL_RELEASED;
        e.button.clicks = 1;
        e.button.x = x;
        e.button.y = y;
    }
    SDL_PushEvent(&e);
}

// Reads a PNG's size, or returns false with the reason in why.
static bool png_size(const char *path, int *w, int *h, char *why, size_t size) {
    png_image img = {.version = PNG_IMAGE_VERSION};
    if (!png_image_begin_read_from_file(&img, path)) {
        snprintf(why, size, "%s", img.message);
        return false;
    }
    img.format = PNG_FORMAT_RGB;
    png_bytep px = malloc(PNG_IMAGE_SIZE(img));
    bool ok = px && png_image_finish_read(&img, NULL, px, 0, NULL);
    if (!ok) snprintf(why, size, "%s", px ? img.message : "out of memory");
    png_image_free(&img);
    free(px);
    *w = (int)img.width;
    *h = (int)img.height;
    return ok;
}

bool script_step(Script *sc, App *a, SDL_Window *win, Gfx *g) {
    char id[128], why[256];
    while (sc->next < sc->n) {
        const char *line = sc->lines[sc->next++], *arg = script_arg(line);
        size_t size = strlen(arg) + 1;
        char *text = malloc(size);  // the argument unescaped
        if (!text) {
            script_check(sc, false, "out of memory");
            continue;
        }
        SDL_Keycode key;
        Uint16 mod;
        int x, y, n;
        const Step *s = trace_step(app_trace(a), app_step(a));
        if (script_is(line, "key")) {
            script_key(arg, &key, &mod, &n);
            for (int i = 0; i < n; i++) push_key(win, key, mod);
        } else if (script_is(line, "text")) {
            push_text(win, text, script_unescape(arg, text, size));
        } else if (script_is(line, "type")) {  // as on a keyboard: a key press with each ASCII character
            size_t len = script_unescape(arg, text, size);
            for (size_t i = 0; i < len;) {
                unsigned char c = (unsigned char)text[i];
                size_t n = 1;
                while (c >= 0x80 && i + n < len && ((unsigned char)text[i + n] & 0xC0) == 0x80) n++;
                bool ascii = c >= ' ' && c < 0x7F, upper = c >= 'A' && c <= 'Z';
                SDL_Keycode sym = upper ? c - 'A' + 'a' : c;  // SDL's keycodes of printable keys are their characters
                Uint16 shift = upper ? KMOD_LSHIFT : KMOD_NONE;
                if (ascii) push_key_event(win, SDL_KEYDOWN, sym, shift);
                push_text(win, text + i, n);
                if (ascii) push_key_event(win, SDL_KEYUP, sym, shift);
                i += n;
            }
        } else if (script_is(line, "paste")) {
            script_unescape(arg, text, size);
            SDL_SetClipboardText(text);
            push_key(win, SDLK_v, KMOD_LCTRL);
        } else if (script_is(line, "compose")) {
            SDL_Event e = {.type = SDL_TEXTEDITING};
            e.edit.windowID = SDL_GetWindowID(win);
            script_unescape(arg, e.edit.text, sizeof e.edit.text);
            e.edit.start = (Sint32)strlen(e.edit.text);
            SDL_PushEvent(&e);
        } else if (script_is(line, "click")) {
            script_two_ints(arg, &x, &y);
            push_mouse(win, SDL_MOUSEBUTTONDOWN, x, y);
            push_mouse(win, SDL_MOUSEBUTTONUP, x, y);
        } else if (script_is(line, "move")) {
            script_two_ints(arg, &x, &y);
            push_mouse(win, SDL_MOUSEMOTION, x, y);
        } else if (script_is(line, "resize")) {
            script_two_ints(arg, &x, &y);
            SDL_SetWindowSize(win, x, y);  // the window system's size events follow
        } else if (script_is(line, "quit")) {
            SDL_Event e = {.type = SDL_QUIT};
            SDL_PushEvent(&e);
        } else if (script_is(line, "drop")) {  // a file dragged onto the window
            SDL_Event e = {.type = SDL_DROPFILE};
            e.drop.windowID = SDL_GetWindowID(win);
            if ((e.drop.file = SDL_strdup(arg))) SDL_PushEvent(&e);
        } else if (script_is(line, "model")) {  // as the settings panel does; a bad file leaves its reason in the status line
            app_set_model(a, arg);
        } else if (script_is(line, "decode")) {
            DecodeOptions d = *app_decode(a);
            d.mode = !strcmp(arg, "beam") ? DECODE_BEAM : !strcmp(arg, "sample") ? DECODE_SAMPLE : DECODE_GREEDY;
            app_set_decode(a, &d);
        } else {  // checks: on the state after the events before them, as drawn
            if (script_is(line, "expect-step")) {
                sscanf(arg, "%d", &x);
                script_check(sc, app_step(a) == x, "expected: %d, got: %d (%s)", x, app_step(a),
                             trace_stage_id(s, id, sizeof id));
            } else if (script_is(line, "expect-stage")) {
                trace_stage_id(s, id, sizeof id);
                script_check(sc, !strcmp(id, arg), "expected: %s, got: %s (step %d)", arg, id, app_step(a));
            } else if (script_is(line, "expect-head")) {
                sscanf(arg, "%d", &x);
                script_check(sc, s->head == x, "expected: %d, got: %d", x, s->head);
            } else if (script_is(line, "expect-sentence")) {
                script_unescape(arg, text, size);
                script_check(sc, !strcmp(app_sentence(a), text), "expected: \"%s\", got: \"%s\" (status: %s)", text,
                             app_sentence(a), app_status(a));
            } else if (script_is(line, "expect-status-contains")) {
                script_unescape(arg, text, size);
                script_check(sc, strstr(app_status(a), text) != NULL, "got: \"%s\"", app_status(a));
            } else if (script_is(line, "expect-canvas")) {
                script_two_ints(arg, &x, &y);
                script_check(sc, gfx_width(g) == x && gfx_height(g) == y, "expected: %d×%d, got: %d×%d", x, y, gfx_width(g),
                             gfx_height(g));
            } else if (script_is(line, "export")) {
                Error err;
                bool ok = img_save_png(arg, gfx_pixels(g), &err) == 0;
                script_check(sc, ok, "%s", ok ? "" : err.msg);
            } else if (script_is(line, "expect-png")) {
                char path[1024];
                int w = 0, h = 0;
                sscanf(arg, "%1023s %d %d", path, &x, &y);
                bool ok = png_size(path, &w, &h, why, sizeof why);
                if (!ok) script_check(sc, false, "%s: %s", path, why);
                else script_check(sc, w == x && h == y, "expected: %d×%d, got: %d×%d", x, y, w, h);
            }
            free(text);
            continue;
        }
        free(text);
        SDL_Event wake = {.type = sc->wake};
        SDL_PushEvent(&wake);
        return true;
    }
    return false;
}

bool script_is_wake(const Script *sc, const SDL_Event *e) { return sc && e->type == sc->wake; }

int script_finish(Script *sc) {
    if (sc->next < sc->n) fprintf(stderr, "%s:%d: not run: the window closed before it\n", sc->path, sc->line_no[sc->next]);
    printf("script: %d passed, %d failed\n", sc->passed, sc->failed);
    int rc = sc->failed || sc->next < sc->n ? 1 : 0;
    script_free(sc);
    return rc;
}
