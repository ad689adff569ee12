#include "window.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dirent.h>
#include <unistd.h>

#include "lessonmode.h"
#include "pages.h"
#include "sentences.h"
#include "stage.h"
#include "window_script.h"
#include "xerror.h"
#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#include <emscripten/eventloop.h>
#endif

// ---- the window --------------------------------------------------------------

// Every pixel is drawn on the CPU, so the app draws straight into the
// window's own framebuffer (SDL_GetWindowSurface) and showing a frame copies
// nothing; a renderer and a texture would copy the frame twice and bring
// three buffers of first-touch page faults into the first frame. On a
// display whose pixel format the drawing code does not write, the canvas
// stays apart and is blitted.
//
// SDL replaces that framebuffer, and frees the old one, inside the next
// SDL_GetWindowSurface after any change of the window's size or mode (full
// screen, a resize, a minimise, another display). So the canvas is attached
// again before every frame the surface may have changed, never drawn or
// presented from the old one (F11 used to crash under X11 that way).
typedef struct {
    SDL_Surface *surface;   // as last attached; compared, never used after a change
    void *pixels;
    int w, h, pitch;
    Uint32 format;
    bool stale;             // a window event said the surface may have been replaced
} Screen;

// The window's surface now: the one attached, or a new one to attach.
static bool screen_same(const Screen *sc, const SDL_Surface *s) {
    return !sc->stale && s == sc->surface && s->pixels == sc->pixels && s->w == sc->w && s->h == sc->h &&
           s->pitch == sc->pitch && s->format->format == sc->format;
}

// Attaches the canvas to the window's framebuffer if it changed. Returns
// false when the window has none (the canvas is then a 1×1 of its own).
static bool attach(SDL_Window *win, Gfx *g, Screen *sc) {
    SDL_Surface *s = SDL_GetWindowSurface(win);
    if (!s) {
        *sc = (Screen){0};
        sc->stale = true;
        if (gfx_width(g) > 1 || gfx_height(g) > 1) gfx_resize(g, 1, 1);
        return false;
    }
    if (screen_same(sc, s)) return true;
    *sc = (Screen){s, s->pixels, s->w, s->h, s->pitch, s->format->format, false};
    pg_prefault(s->pixels, (size_t)s->pitch * (size_t)s->h);  // drawn whole at once: not page by page
    if (window_draw_on(g, s) == 0) return true;
    // a format the drawing does not write: a canvas of its own, converted
    // when shown (never the old framebuffer's pixels, which SDL has freed)
    if (gfx_resize(g, s->w, s->h) == 0) return true;
    sc->stale = true;  // no memory for it: tried again next frame, nothing shown
    SDL_SetError("no memory for a %d×%d canvas", s->w, s->h);
    return false;
}

int window_draw_on(Gfx *g, SDL_Surface *s) {
    // the drawing writes 0xAARRGGBB words: alpha may be padding, the colours must sit there
    Uint32 f = s->format->format;
    if (f != SDL_PIXELFORMAT_ARGB8888 && f != SDL_PIXELFORMAT_RGB888) return -1;
    return gfx_use_pixels(g, s->pixels, s->w, s->h, s->pitch);
}

// True for the window events after which SDL may hand out a new surface.
static bool surface_may_change(const SDL_Event *e) {
    if (e->type != SDL_WINDOWEVENT) return false;
    switch (e->window.event) {
    case SDL_WINDOWEVENT_SIZE_CHANGED:
    case SDL_WINDOWEVENT_RESIZED:
    case SDL_WINDOWEVENT_MINIMIZED:
    case SDL_WINDOWEVENT_MAXIMIZED:
    case SDL_WINDOWEVENT_RESTORED:
    case SDL_WINDOWEVENT_SHOWN:
    case SDL_WINDOWEVENT_EXPOSED:
    case SDL_WINDOWEVENT_DISPLAY_CHANGED:
        return true;
    default:
        return false;
    }
}

// Larger type on taller displays, so that a projector at 1080p shows even
// the smallest labels (4/5 of the text size) 18 pixels tall.
float window_display_fit(int display_height) { return display_height > 840 ? (float)display_height / 840.0f : 1.0f; }

void window_initial_size(int usable_w, int usable_h, int *w, int *h) {
    // a projector of 1024 × 768 has no room for a fixed minimum: the window
    // takes nine tenths of what the screen offers, the layouts fit any of it
    if (usable_w <= 0 || usable_h <= 0) return;
    *w = SDL_max(1, usable_w * 9 / 10);
    *h = SDL_max(1, usable_h * 9 / 10);
}

// The fit of the screen the window is on.
static float display_fit(SDL_Window *win) {
    SDL_DisplayMode mode;
    int d = SDL_GetWindowDisplayIndex(win);
    return d < 0 || SDL_GetDesktopDisplayMode(d, &mode) < 0 ? 1.0f : window_display_fit(mode.h);
}

// The window's normal size: the user's --scale, the screen's pixel density, its height.
static float base_scale(SDL_Window *win, const AppOptions *o, float hidpi) {
    return (o->scale > 0 ? o->scale : 1.0f) * hidpi * display_fit(win);
}

// Shows the frame drawn on the surface attached (attach, just before).
static void present(SDL_Window *win, Gfx *g, const Screen *sc) {
    if (!sc->surface) return;
    const GfxPixels *p = gfx_pixels(g);
    if (p->pixels != sc->pixels) {  // a framebuffer of another format: converted into it, when the sizes agree
        if (p->w != sc->w || p->h != sc->h) return;
        SDL_ConvertPixels(p->w, p->h, SDL_PIXELFORMAT_ARGB8888, p->pixels, p->pitch, sc->format, sc->pixels, sc->pitch);
    }
    SDL_UpdateWindowSurface(win);
}

// ---- what differs between the desktop and a web page -------------------------

// A file dropped on the window (or, in a page, picked or linked): a lesson
// opens; anything else is read as a sentence list. A bad file is one line
// in the status line, as on the command line.
static void open_file(App *a, const char *path) {
    size_t len = strlen(path);
    if (len > 7 && !strcmp(path + len - 7, ".lesson")) {
        if (app_lessons(a)) lm_open(app_lessons(a), a, path);
        return;
    }
    Error err;
    SentenceList *list = sl_load(path, &err);
    if (!list) app_show_status(a, "%s", err.msg);
    else app_set_sentences(a, list);
}

#ifdef __EMSCRIPTEN__
// The browser keeps Ctrl+L, Ctrl+T, Ctrl+W, Ctrl+Q, Ctrl+Page Up/Down and
// F11 for itself: the page's own keys stand for them (the help lists them).
static const bool platform_web = true;
static bool web_fetch(const char *path);
static bool platform_has_display(void) { return true; }

static void platform_translate_key(SDL_Event *e) {
    if (e->type != SDL_KEYDOWN && e->type != SDL_KEYUP) return;
    SDL_Keysym *k = &e->key.keysym;
    bool alt = k->mod & KMOD_ALT, ctrl = k->mod & KMOD_CTRL;
    if (alt && !ctrl && (k->sym == SDLK_l || k->sym == SDLK_PAGEUP || k->sym == SDLK_PAGEDOWN)) {
        k->mod = (Uint16)((k->mod & ~KMOD_ALT) | KMOD_LCTRL);  // Alt+L: type; Alt+Page Down/Up: the list
    } else if (alt && (k->sym == SDLK_RETURN || k->sym == SDLK_KP_ENTER)) {
        k->sym = SDLK_F11;  // Alt+Enter: full screen, through the page's Fullscreen API
        k->mod = KMOD_NONE;
    } else if (k->sym == SDLK_F11 || (ctrl && k->sym == SDLK_q)) {
        e->type = SDL_FIRSTEVENT;  // the browser's own full screen; a page is not quit
    }
}

// Full screen is the page's: toggled, whatever the App thinks (Esc may have left it).
static bool platform_fullscreen(bool on) {
    (void)on;
    emscripten_run_script("if (document.fullscreenElement) document.exitFullscreen();"
                          "else document.documentElement.requestFullscreen().catch(function(e) { console.log('full screen refused: ' + e); });");
    return true;
}

static void platform_frame_shown(void) {
    emscripten_run_script("Module.ttFrames = (Module.ttFrames || 0) + 1; if (Module.ttOnFrame) Module.ttOnFrame(Module.ttFrames);");
}

// Saved files land in the page's working folder: each is handed to the
// browser as a download, then removed.
static void platform_after_events(void) {
    DIR *d = opendir(".");
    for (struct dirent *e; d && (e = readdir(d));) {
        // the program's own names (exp_free_name): nothing to quote
        if (e->d_name[0] == '.' || strstr(e->d_name, ".tmp.") || strpbrk(e->d_name, "\"\\\n")) continue;
        char js[sizeof e->d_name + 32];
        snprintf(js, sizeof js, "Module.ttDownload(\"%s\")", e->d_name);
        emscripten_run_script(js);
        unlink(e->d_name);
    }
    if (d) closedir(d);
}

// Called by the page for a file picked, dropped or linked (written into its file system first).
EMSCRIPTEN_KEEPALIVE void tt_web_open(const char *path) {
    SDL_Event e = {.type = SDL_DROPFILE};
    e.drop.file = SDL_strdup(path);
    if (e.drop.file) SDL_PushEvent(&e);
}
#else
static const bool platform_web = false;
static bool (*const web_fetch)(const char *path) = NULL;
static bool platform_has_display(void) {
    return getenv("DISPLAY") || getenv("WAYLAND_DISPLAY") || getenv("SDL_VIDEODRIVER");
}
static void platform_translate_key(SDL_Event *e) { (void)e; }
static bool platform_fullscreen(bool on) { (void)on; return false; }
static void platform_frame_shown(void) {}
static void platform_after_events(void) {}
#endif

// The open window and its loop's state, between one pass and the next.
typedef struct {
    AppOptions o;
    Script *sc;
    SDL_Window *win;
    Gfx *g;
    App *a;
    Screen screen;
    float hidpi;
    int windowed_w, windowed_h;  // the size before full screen
    SDL_Surface *scaled_for;     // the surface the base scale was last set for
    bool dirty;
    const char *first_frame;
    int frames;                  // drawn so far
    int passes;                  // in a page: the loop's passes so far (none while idle)
} Window;

// Opens the window and the App on it. Returns 0, or 1 with the reason on stderr.
static int window_open(Window *w, const AppOptions *o) {
    *w = (Window){.o = *o, .hidpi = 1.0f, .dirty = true};
    w->o.web = platform_web;
    w->o.fetch = web_fetch;
    Error err;
    const char *font = gfx_find_font(&err);
    if (!font) {
        fprintf(stderr, "transformer-tracer: %s\n", err.msg);
        return 1;
    }
    if (o->script && !(w->sc = script_load(o->script, &err))) {
        fprintf(stderr, "transformer-tracer: %s\n", err.msg);
        return 1;
    }
    if (!platform_has_display()) {
        fprintf(stderr, "transformer-tracer: cannot open a window: no display found (set DISPLAY, or use the export command)\n");
        script_free(w->sc);
        return 1;
    }
    xerr_install();  // before SDL_Init: SDL keeps it as the handler it falls back on
    if (SDL_Init(SDL_INIT_VIDEO) < 0) {
        fprintf(stderr, "transformer-tracer: cannot open a window: %s (is there a display?)\n", SDL_GetError());
        script_free(w->sc);
        return 1;
    }
    // with no display SDL falls back to its offscreen driver, where a window
    // would run unseen for ever: unless asked for, that is "no display"
    const char *driver = SDL_GetCurrentVideoDriver();
    if (driver && (!strcmp(driver, "offscreen") || !strcmp(driver, "dummy")) && !getenv("SDL_VIDEODRIVER")) {
        fprintf(stderr, "transformer-tracer: cannot open a window: no display found (set DISPLAY, or use the export command)\n");
        SDL_Quit();
        script_free(w->sc);
        return 1;
    }
    // X11, Windows and the offscreen driver give a window a framebuffer of
    // their own; without this hint SDL backs it with a GL renderer instead,
    // and loading the GL driver cost about 300 ms before the first frame
    // (bench/first_frame.sh). Drivers without one (Wayland, KMS/DRM, …) keep
    // SDL's default: there the hint would leave no window surface at all.
    // SDL_FRAMEBUFFER_ACCELERATION in the environment still takes precedence.
    static const char *const own_framebuffer[] = {"x11", "windows", "offscreen", "dummy"};
    for (size_t i = 0; driver && i < sizeof own_framebuffer / sizeof *own_framebuffer; i++)
        if (!strcmp(driver, own_framebuffer[i])) SDL_SetHint(SDL_HINT_FRAMEBUFFER_ACCELERATION, "0");
    SDL_SetHint(SDL_HINT_IME_SHOW_UI, "1");
    int win_w = 1280, win_h = 800;
    SDL_Rect usable;
    if (SDL_GetDisplayUsableBounds(0, &usable) == 0) window_initial_size(usable.w, usable.h, &win_w, &win_h);
    w->win = SDL_CreateWindow("Transformer Tracer", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, win_w, win_h,
                              SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
    if (!w->win || !SDL_GetWindowSurface(w->win)) {
        fprintf(stderr, "transformer-tracer: cannot open a window: %s\n", SDL_GetError());
        if (w->win) SDL_DestroyWindow(w->win);
        SDL_Quit();
        script_free(w->sc);
        return 1;
    }
    SDL_StopTextInput();  // typing goes to the text box only after Ctrl+L or a click on it
    // the font is opened on a 1×1 canvas: the window's framebuffer is the canvas
    w->g = gfx_new(1, 1, font, &err);
    if (w->g && !attach(w->win, w->g, &w->screen)) {
        err_set(&err, "cannot draw in the window: %s", SDL_GetError());
        gfx_free(w->g);
        w->g = NULL;
    }
    w->a = w->g ? app_new(&w->o, w->g, &err) : NULL;
    if (!w->a) {
        fprintf(stderr, "transformer-tracer: %s\n", err.msg);
        gfx_free(w->g);
        SDL_DestroyWindow(w->win);
        SDL_Quit();
        script_free(w->sc);
        return 1;
    }
    w->first_frame = getenv("TRANSFORMER_TRACER_FIRST_FRAME");
    return 0;
}

// Draws a frame if anything changed, and runs the script's next line.
// Returns false when the window is done.
static bool window_frame(Window *w) {
    if (app_quit_requested(w->a)) return false;
    if (w->dirty && attach(w->win, w->g, &w->screen)) {
        if (w->screen.surface != w->scaled_for) {
            // HiDPI: the canvas has the screen's pixels and the UI scale
            // their ratio; a new size or screen may change both
            int w_points;
            SDL_GetWindowSize(w->win, &w_points, NULL);
            if (w_points > 0) w->hidpi = (float)gfx_width(w->g) / (float)w_points;
            app_set_base_scale(w->a, base_scale(w->win, &w->o, w->hidpi));
            w->scaled_for = w->screen.surface;
        }
        app_draw(w->a);
        present(w->win, w->g, &w->screen);
        if (w->first_frame) {  // TRANSFORMER_TRACER_FIRST_FRAME: the cold-start benchmark (bench/first_frame.sh)
            struct timespec now;
            clock_gettime(CLOCK_REALTIME, &now);
            printf("first-frame %lld.%09ld\n", (long long)now.tv_sec, now.tv_nsec);
            fflush(stdout);
            if (!strcmp(w->first_frame, "quit")) return false;
            w->first_frame = NULL;
        }
        platform_frame_shown();
        w->frames++;
        w->dirty = false;
    }
    return !w->sc || script_step(w->sc, w->a, w->win, w->g);
}

// Hands one event to the App.
static void window_event(Window *w, SDL_Event *e) {
    if (surface_may_change(e)) {
        // attached again before the next frame; nothing is drawn until then
        w->screen.stale = true;
        w->scaled_for = NULL;
        w->dirty = true;
    }
    if (e->type == SDL_MOUSEMOTION) {  // window coordinates → canvas pixels
        e->motion.x = (int)((float)e->motion.x * w->hidpi);
        e->motion.y = (int)((float)e->motion.y * w->hidpi);
    } else if (e->type == SDL_MOUSEBUTTONDOWN || e->type == SDL_MOUSEBUTTONUP) {
        e->button.x = (int)((float)e->button.x * w->hidpi);
        e->button.y = (int)((float)e->button.y * w->hidpi);
    } else if (e->type == SDL_DROPFILE) {  // a lesson or a sentence list dropped on the window
        open_file(w->a, e->drop.file);
        SDL_free(e->drop.file);
        w->dirty = true;
        return;
    }
    platform_translate_key(e);
    if (e->type == SDL_FIRSTEVENT) return;  // a key the platform keeps
    // a script's own lines (model, decode) change the app directly: its wake-up redraws
    w->dirty |= app_event(w->a, e) || script_is_wake(w->sc, e);
}

// After a batch of events: playback, full screen, what the platform does with saved files.
static void window_after_events(Window *w) {
    w->dirty |= app_tick(w->a, SDL_GetTicks());
    bool on;
    if (app_fullscreen_requested(w->a, &on)) {
        if (!platform_fullscreen(on)) {
            if (on) SDL_GetWindowSize(w->win, &w->windowed_w, &w->windowed_h);
            SDL_SetWindowFullscreen(w->win, on ? SDL_WINDOW_FULLSCREEN_DESKTOP : 0);
            // with no window manager to honour full screen, SDL still takes the
            // screen's size for the window's, and keeps it after: set it back
            int ww, wh;
            SDL_GetWindowSize(w->win, &ww, &wh);
            if (!on && w->windowed_w > 0 && (ww != w->windowed_w || wh != w->windowed_h))
                SDL_SetWindowSize(w->win, w->windowed_w, w->windowed_h);
        }
        w->screen.stale = true;  // the old surface is freed by the next SDL_GetWindowSurface
        w->scaled_for = NULL;
        w->dirty = true;
    }
    platform_after_events();
}

static int window_close(Window *w) {
    app_free(w->a);
    gfx_free(w->g);
    SDL_DestroyWindow(w->win);
    SDL_Quit();
    return w->sc ? script_finish(w->sc) : 0;
}

#ifdef __EMSCRIPTEN__
// In a page the browser runs the loop: one pass per animation frame, and
// none at all while nothing changes (the loop pauses; an event or a
// playback tick resumes it).
static int wake_on_event(void *data, SDL_Event *e) {
    (void)data;
    (void)e;
    emscripten_resume_main_loop();
    return 0;
}

static void wake_for_tick(void *data) {
    (void)data;
    emscripten_resume_main_loop();
}

// The models' training histories are not in the page's data (about 5 MB
// each, more than the rest of the page): the server holds them in histories/
// beside the page, and the data lists them as empty files of the same names
// in /data/histories (tools/build-web.sh). A shipped model's is downloaded
// when first shown, into the place the program reads it from; the service
// worker (web/sw.js) keeps it for offline use. Up to four at once, one a
// file; the App hears of each when it ends.
static Window *web_window;
static char web_fetching[4][4096];

static void web_fetch_ended(char *slot, bool ok, int http_status) {
    char path[sizeof web_fetching[0]];
    snprintf(path, sizeof path, "%s", slot);
    slot[0] = '\0';
    if (!web_window) return;  // the program has ended
    app_file_arrived(web_window->a, path, ok, http_status);
    web_window->dirty = true;
    emscripten_resume_main_loop();
}
static void web_fetched(unsigned handle, void *slot, const char *file) {
    (void)handle, (void)file;
    web_fetch_ended(slot, true, 200);
}
static void web_fetch_failed(unsigned handle, void *slot, int http_status) {
    (void)handle;
    web_fetch_ended(slot, false, http_status);
}
static void web_fetch_progress(unsigned handle, void *slot, int percent) {
    (void)handle;
    if (!web_window) return;
    app_file_progress(web_window->a, slot, percent);
    web_window->dirty = true;
    emscripten_resume_main_loop();
}

static bool web_fetch(const char *path) {
    static const char models[] = "/data/assets/models/";  // the shipped models in the page's files
    if (strncmp(path, models, strlen(models)) || strlen(path) >= sizeof web_fetching[0]) return false;
    const char *name = path + strlen(models);
    char listed[sizeof web_fetching[0] + 32];
    if (strchr(name, '/')) return false;
    snprintf(listed, sizeof listed, "/data/histories/%s", name);
    if (access(listed, F_OK) != 0) return false;  // the server has none: the page says so as the desktop does
    int free_slot = -1;
    for (int i = 0; i < 4; i++) {
        if (!strcmp(web_fetching[i], path)) return true;  // already on its way
        if (!web_fetching[i][0]) free_slot = i;
    }
    if (free_slot < 0) return false;
    char url[sizeof web_fetching[0] + 16];
    snprintf(url, sizeof url, "histories/%s", name);
    char *slot = web_fetching[free_slot];
    snprintf(slot, sizeof web_fetching[0], "%s", path);
    emscripten_async_wget2(url, path, "GET", "", slot, web_fetched, web_fetch_failed, web_fetch_progress);
    return true;
}

// What the page's tests ask: the step, the lesson's step and question, the history (its snapshot, or how much
// of its file has come), the status line.
EMSCRIPTEN_KEEPALIVE const char *tt_web_state(void) {
    static char state[1024];
    if (!web_window) return "";
    App *a = web_window->a;
    LessonMode *lm = app_lessons(a);
    bool lesson = lm && lm_running(lm);
    const Step *s = trace_step(app_trace(a), app_step(a));
    char id[128] = "";
    if (s) stage_id(s->stage, s->layer, id, sizeof id);
    // numbers and the stage as JSON, then the sentence and the status line each on a line of its own
    snprintf(state, sizeof state,
             "{\"step\":%d,\"steps\":%d,\"stage\":\"%s\",\"head\":%d,\"dstep\":%d,\"lesson_step\":%d,\"revealed\":%s,"
             "\"list\":%d,\"frames\":%d,\"passes\":%d,\"history\":%s,\"snapshot\":%d,\"fetching\":%d}\n%s\n%s",
             app_step(a), trace_count(app_trace(a)), id, s ? s->head : 0, s ? s->dstep : 0, lesson ? lm_step(lm) : -1,
             lesson && lm_revealed(lm) ? "true" : "false", app_list_index(a), web_window->frames, web_window->passes,
             app_history_page(a) ? "true" : "false", app_history_snapshot(a), app_history_fetching(a), app_sentence(a), app_status(a));
    return state;
}

// Shows the step of stage id (as "enc.L1.self_attn.weights"), head and decoding step, as the tests' go_to does.
EMSCRIPTEN_KEEPALIVE int tt_web_go(const char *id, int head, int dstep) {
    if (!web_window) return -1;
    int i = trace_find(app_trace(web_window->a), id, head, dstep);
    if (i >= 0) {
        app_set_step(web_window->a, i);
        web_window->dirty = true;
        emscripten_resume_main_loop();
    }
    return i;
}

// Where the last frame drew a button, in canvas pixels, as JSON: "help", "play", or a view switch's key ("g", "v", "m", "a").
EMSCRIPTEN_KEEPALIVE const char *tt_web_button(const char *name) {
    static char rect[96];
    SDL_Keycode key = !strcmp(name, "help") ? SDLK_SLASH : !strcmp(name, "play") ? SDLK_SPACE : SDL_GetKeyFromName(name);
    SDL_Rect r = web_window ? app_button(web_window->a, key) : (SDL_Rect){0};
    snprintf(rect, sizeof rect, "{\"x\":%d,\"y\":%d,\"w\":%d,\"h\":%d}", r.x, r.y, r.w, r.h);
    return rect;
}

static void web_pass(void *data) {
    Window *w = data;
    w->passes++;
    SDL_Event e;
    while (SDL_PollEvent(&e)) window_event(w, &e);
    window_after_events(w);
    if (!window_frame(w)) {
        emscripten_cancel_main_loop();
        web_window = NULL;  // a download ending later finds no program
        int rc = window_close(w);
        free(w);
        emscripten_force_exit(rc);
        return;
    }
    int wait = app_next_tick(w->a, SDL_GetTicks());
    if (!w->dirty && !w->sc) {
        emscripten_pause_main_loop();
        if (wait >= 0) emscripten_set_timeout(wake_for_tick, wait, NULL);
    }
}

int window_run(const AppOptions *o) {
    Window *w = malloc(sizeof *w);
    if (!w || window_open(w, o)) {
        free(w);
        return 1;
    }
    web_window = w;
    SDL_AddEventWatch(wake_on_event, NULL);
    emscripten_set_main_loop_arg(web_pass, w, 0, true);  // does not return
    return 0;
}
#else
int window_run(const AppOptions *o) {
    Window w;
    if (window_open(&w, o)) return 1;
    while (window_frame(&w)) {
        int wait = app_next_tick(w.a, SDL_GetTicks());
        SDL_Event e;
        bool got = wait < 0 ? SDL_WaitEvent(&e) : SDL_WaitEventTimeout(&e, wait);
        while (got) {
            window_event(&w, &e);
            got = SDL_PollEvent(&e);
        }
        window_after_events(&w);
    }
    return window_close(&w);
}
#endif
