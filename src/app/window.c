#include "window.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void present(SDL_Renderer *r, SDL_Texture **tex, Gfx *g) {
    SDL_Surface *s = gfx_surface(g);
    int tw = 0, th = 0;
    if (*tex) SDL_QueryTexture(*tex, NULL, NULL, &tw, &th);
    if (!*tex || tw != s->w || th != s->h) {
        SDL_DestroyTexture(*tex);
        *tex = SDL_CreateTexture(r, SDL_PIXELFORMAT_ARGB8888, SDL_TEXTUREACCESS_STREAMING, s->w, s->h);
    }
    if (!*tex) return;
    SDL_UpdateTexture(*tex, NULL, s->pixels, s->pitch);
    SDL_RenderClear(r);
    SDL_RenderCopy(r, *tex, NULL, NULL);
    SDL_RenderPresent(r);
}

int window_run(const AppOptions *o) {
    Error err;
    const char *font = gfx_find_font(&err);
    if (!font) {
        fprintf(stderr, "transformer-tracer: %s\n", err.msg);
        return 1;
    }
    if (!getenv("DISPLAY") && !getenv("WAYLAND_DISPLAY") && !getenv("SDL_VIDEODRIVER")) {
        fprintf(stderr, "transformer-tracer: cannot open a window: no display found (set DISPLAY, or use the export command)\n");
        return 1;
    }
    if (SDL_Init(SDL_INIT_VIDEO) < 0) {
        fprintf(stderr, "transformer-tracer: cannot open a window: %s (is there a display?)\n", SDL_GetError());
        return 1;
    }
    // with no display SDL falls back to its offscreen driver, where a window
    // would run unseen for ever: unless asked for, that is "no display"
    const char *driver = SDL_GetCurrentVideoDriver();
    if (driver && (!strcmp(driver, "offscreen") || !strcmp(driver, "dummy")) && !getenv("SDL_VIDEODRIVER")) {
        fprintf(stderr, "transformer-tracer: cannot open a window: no display found (set DISPLAY, or use the export command)\n");
        SDL_Quit();
        return 1;
    }
    SDL_SetHint(SDL_HINT_IME_SHOW_UI, "1");
    SDL_Window *win = SDL_CreateWindow("Transformer Tracer", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, 1280, 800,
                                       SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
    SDL_Renderer *ren = win ? SDL_CreateRenderer(win, -1, SDL_RENDERER_PRESENTVSYNC) : NULL;
    if (!ren && win) ren = SDL_CreateRenderer(win, -1, SDL_RENDERER_SOFTWARE);
    if (!win || !ren) {
        fprintf(stderr, "transformer-tracer: cannot open a window: %s\n", SDL_GetError());
        if (win) SDL_DestroyWindow(win);
        SDL_Quit();
        return 1;
    }
    SDL_StopTextInput();  // typing goes to the text box only after Ctrl+L or a click on it
    int dw, dh, ww, wh;
    SDL_GetRendererOutputSize(ren, &dw, &dh);
    SDL_GetWindowSize(win, &ww, &wh);
    Gfx *g = gfx_new(dw, dh, font, &err);
    App *a = g ? app_new(o, g, &err) : NULL;
    if (!a) {
        fprintf(stderr, "transformer-tracer: %s\n", err.msg);
        gfx_free(g);
        SDL_DestroyRenderer(ren);
        SDL_DestroyWindow(win);
        SDL_Quit();
        return 1;
    }
    // HiDPI: the canvas has the screen's pixels; the UI scale follows
    float hidpi = ww > 0 ? (float)dw / (float)ww : 1.0f;
    gfx_set_scale(g, (o->scale > 0 ? o->scale : 1.0f) * hidpi);
    SDL_Texture *tex = NULL;
    bool dirty = true;
    while (!app_quit_requested(a)) {
        if (dirty) {
            app_draw(a);
            present(ren, &tex, g);
            dirty = false;
        }
        int wait = app_next_tick(a, SDL_GetTicks());
        SDL_Event e;
        bool got = wait < 0 ? SDL_WaitEvent(&e) : SDL_WaitEventTimeout(&e, wait);
        while (got) {
            if (e.type == SDL_WINDOWEVENT && e.window.event == SDL_WINDOWEVENT_SIZE_CHANGED) {
                SDL_GetRendererOutputSize(ren, &dw, &dh);
                gfx_resize(g, dw, dh);
            }
            if (e.type == SDL_MOUSEMOTION) {  // window coordinates → canvas pixels
                e.motion.x = (int)((float)e.motion.x * hidpi);
                e.motion.y = (int)((float)e.motion.y * hidpi);
            } else if (e.type == SDL_MOUSEBUTTONDOWN || e.type == SDL_MOUSEBUTTONUP) {
                e.button.x = (int)((float)e.button.x * hidpi);
                e.button.y = (int)((float)e.button.y * hidpi);
            }
            dirty |= app_event(a, &e);
            got = SDL_PollEvent(&e);
        }
        dirty |= app_tick(a, SDL_GetTicks());
        bool on;
        if (app_fullscreen_requested(a, &on)) SDL_SetWindowFullscreen(win, on ? SDL_WINDOW_FULLSCREEN_DESKTOP : 0);
    }
    app_free(a);
    gfx_free(g);
    SDL_DestroyTexture(tex);
    SDL_DestroyRenderer(ren);
    SDL_DestroyWindow(win);
    SDL_Quit();
    return 0;
}
