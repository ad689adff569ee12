#include "window.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pages.h"
#include "window_script.h"

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
        if (gfx_surface(g) && (gfx_width(g) > 1 || gfx_height(g) > 1)) gfx_resize(g, 1, 1);
        return false;
    }
    if (screen_same(sc, s)) return true;
    *sc = (Screen){s, s->pixels, s->w, s->h, s->pitch, s->format->format, false};
    pg_prefault(s->pixels, (size_t)s->pitch * (size_t)s->h);  // drawn whole at once: not page by page
    if (gfx_use_surface(g, s) == 0) return true;
    SDL_Surface *c = gfx_surface(g);
    return (c->w == s->w && c->h == s->h) || gfx_resize(g, s->w, s->h) == 0;
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
    if (sc->surface != gfx_surface(g)) SDL_BlitSurface(gfx_surface(g), NULL, sc->surface, NULL);
    SDL_UpdateWindowSurface(win);
}

int window_run(const AppOptions *o) {
    Error err;
    const char *font = gfx_find_font(&err);
    if (!font) {
        fprintf(stderr, "transformer-tracer: %s\n", err.msg);
        return 1;
    }
    Script *sc = NULL;
    if (o->script && !(sc = script_load(o->script, &err))) {
        fprintf(stderr, "transformer-tracer: %s\n", err.msg);
        return 1;
    }
    if (!getenv("DISPLAY") && !getenv("WAYLAND_DISPLAY") && !getenv("SDL_VIDEODRIVER")) {
        fprintf(stderr, "transformer-tracer: cannot open a window: no display found (set DISPLAY, or use the export command)\n");
        script_free(sc);
        return 1;
    }
    if (SDL_Init(SDL_INIT_VIDEO) < 0) {
        fprintf(stderr, "transformer-tracer: cannot open a window: %s (is there a display?)\n", SDL_GetError());
        script_free(sc);
        return 1;
    }
    // with no display SDL falls back to its offscreen driver, where a window
    // would run unseen for ever: unless asked for, that is "no display"
    const char *driver = SDL_GetCurrentVideoDriver();
    if (driver && (!strcmp(driver, "offscreen") || !strcmp(driver, "dummy")) && !getenv("SDL_VIDEODRIVER")) {
        fprintf(stderr, "transformer-tracer: cannot open a window: no display found (set DISPLAY, or use the export command)\n");
        SDL_Quit();
        script_free(sc);
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
    SDL_Window *win = SDL_CreateWindow("Transformer Tracer", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, win_w, win_h,
                                       SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
    Screen screen = {0};
    if (!win || !SDL_GetWindowSurface(win)) {
        fprintf(stderr, "transformer-tracer: cannot open a window: %s\n", SDL_GetError());
        if (win) SDL_DestroyWindow(win);
        SDL_Quit();
        script_free(sc);
        return 1;
    }
    SDL_StopTextInput();  // typing goes to the text box only after Ctrl+L or a click on it
    // the font is opened on a 1×1 canvas: the window's framebuffer is the canvas
    Gfx *g = gfx_new(1, 1, font, &err);
    if (g && !attach(win, g, &screen)) {
        err_set(&err, "cannot draw in the window: %s", SDL_GetError());
        gfx_free(g);
        g = NULL;
    }
    App *a = g ? app_new(o, g, &err) : NULL;
    if (!a) {
        fprintf(stderr, "transformer-tracer: %s\n", err.msg);
        gfx_free(g);
        SDL_DestroyWindow(win);
        SDL_Quit();
        script_free(sc);
        return 1;
    }
    float hidpi = 1.0f;
    int windowed_w = 0, windowed_h = 0;  // the size before full screen
    SDL_Surface *scaled_for = NULL;  // the surface the base scale was last set for
    bool dirty = true;
    const char *first_frame = getenv("TRANSFORMER_TRACER_FIRST_FRAME");
    while (!app_quit_requested(a)) {
        if (dirty && attach(win, g, &screen)) {
            if (screen.surface != scaled_for) {
                // HiDPI: the canvas has the screen's pixels and the UI scale
                // their ratio; a new size or screen may change both
                int w_points;
                SDL_GetWindowSize(win, &w_points, NULL);
                if (w_points > 0) hidpi = (float)gfx_width(g) / (float)w_points;
                app_set_base_scale(a, base_scale(win, o, hidpi));
                scaled_for = screen.surface;
            }
            app_draw(a);
            present(win, g, &screen);
            if (first_frame) {  // TRANSFORMER_TRACER_FIRST_FRAME: the cold-start benchmark (bench/first_frame.sh)
                struct timespec now;
                clock_gettime(CLOCK_REALTIME, &now);
                printf("first-frame %lld.%09ld\n", (long long)now.tv_sec, now.tv_nsec);
                fflush(stdout);
                if (!strcmp(first_frame, "quit")) break;
                first_frame = NULL;
            }
            dirty = false;
        }
        if (sc && !script_step(sc, a, win, g)) break;
        int wait = app_next_tick(a, SDL_GetTicks());
        SDL_Event e;
        bool got = wait < 0 ? SDL_WaitEvent(&e) : SDL_WaitEventTimeout(&e, wait);
        while (got) {
            if (surface_may_change(&e)) {
                // attached again before the next frame; nothing is drawn until then
                screen.stale = true;
                scaled_for = NULL;
                dirty = true;
            }
            if (e.type == SDL_MOUSEMOTION) {  // window coordinates → canvas pixels
                e.motion.x = (int)((float)e.motion.x * hidpi);
                e.motion.y = (int)((float)e.motion.y * hidpi);
            } else if (e.type == SDL_MOUSEBUTTONDOWN || e.type == SDL_MOUSEBUTTONUP) {
                e.button.x = (int)((float)e.button.x * hidpi);
                e.button.y = (int)((float)e.button.y * hidpi);
            }
            // a script's own lines (model, decode) change the app directly: its wake-up redraws
            dirty |= app_event(a, &e) || script_is_wake(sc, &e);
            got = SDL_PollEvent(&e);
        }
        dirty |= app_tick(a, SDL_GetTicks());
        bool on;
        if (app_fullscreen_requested(a, &on)) {
            if (on) SDL_GetWindowSize(win, &windowed_w, &windowed_h);
            SDL_SetWindowFullscreen(win, on ? SDL_WINDOW_FULLSCREEN_DESKTOP : 0);
            // with no window manager to honour full screen, SDL still takes the
            // screen's size for the window's, and keeps it after: set it back
            int w, h;
            SDL_GetWindowSize(win, &w, &h);
            if (!on && windowed_w > 0 && (w != windowed_w || h != windowed_h)) SDL_SetWindowSize(win, windowed_w, windowed_h);
            screen.stale = true;  // the old surface is freed by the next SDL_GetWindowSurface
            scaled_for = NULL;
            dirty = true;
        }
    }
    app_free(a);
    gfx_free(g);
    SDL_DestroyWindow(win);
    SDL_Quit();
    return sc ? script_finish(sc) : 0;
}
