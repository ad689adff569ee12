// Time per frame of each view in a real window at 1920×1080. As the window
// does (--renderer none, the default): drawn (app_draw) straight into the
// window's framebuffer, then SDL_UpdateWindowSurface. For comparison, as it
// did before (--renderer default|software): drawn on a canvas of its own,
// copied into a streaming texture and presented with SDL's default renderer
// or its software one. Needs a display (e.g. xvfb-run -s "-screen 0 1920x1080x24").
//   build/bench/bench_window [--renderer none|default|software] [--reps N] [--model FILE]
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"
#include "bench_views.h"
#include "gfx.h"
#include "tt_config.h"
#include "window.h"
#include "bench_clock.h"

static int by_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

// Shows a frame: the framebuffer drawn in, or the canvas through the texture.
static void present(SDL_Window *win, SDL_Renderer *r, SDL_Texture *tex, Gfx *g) {
    if (!r) {
        SDL_UpdateWindowSurface(win);
        return;
    }
    const GfxPixels *s = gfx_pixels(g);
    SDL_UpdateTexture(tex, NULL, s->pixels, s->pitch);
    SDL_RenderClear(r);
    SDL_RenderCopy(r, tex, NULL, NULL);
    SDL_RenderPresent(r);
}

int main(int argc, char **argv) {
    int reps = 30;
    const char *model = TT_SOURCE_ASSETS "/models/en-zh.safetensors", *which = "none";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--model")) model = argv[i + 1];
        else if (!strcmp(argv[i], "--renderer")) which = argv[i + 1];
    }
    if (reps < 1) reps = 1;
    if (SDL_Init(SDL_INIT_VIDEO) < 0) {
        fprintf(stderr, "bench_window: %s (is there a display?)\n", SDL_GetError());
        return 1;
    }
    bool framebuffer = !strcmp(which, "none");
    if (framebuffer) SDL_SetHint(SDL_HINT_FRAMEBUFFER_ACCELERATION, "0");  // as window.c
    SDL_Window *win = SDL_CreateWindow("bench", 0, 0, 1920, 1080, 0);
    // no vsync: the time of the work, not of the display's refresh
    SDL_Renderer *ren = win && !framebuffer ? SDL_CreateRenderer(win, -1, strcmp(which, "software") ? 0 : SDL_RENDERER_SOFTWARE) : NULL;
    SDL_Surface *screen = win && framebuffer ? SDL_GetWindowSurface(win) : NULL;
    if (!ren && !screen) {
        fprintf(stderr, "bench_window: %s\n", SDL_GetError());
        return 1;
    }
    SDL_RendererInfo info = {.name = "framebuffer"};
    if (ren) SDL_GetRendererInfo(ren, &info);
    int w, h;
    if (ren) SDL_GetRendererOutputSize(ren, &w, &h);
    else w = screen->w, h = screen->h;
    Error err;
    const char *font = gfx_find_font(&err);
    Gfx *g = font ? gfx_new(w, h, font, &err) : NULL;
    if (g && screen && window_draw_on(g, screen)) {
        fprintf(stderr, "bench_window: the framebuffer's pixel format is not one the drawing writes\n");
        return 1;
    }
    AppOptions o = {.model_path = model, .src = "the cat sits on the mat ."};
    App *a = g ? app_new(&o, g, &err) : NULL;
    SDL_DisplayMode mode;  // the window's normal size on this display, as window.c sets it
    if (a && SDL_GetDesktopDisplayMode(0, &mode) == 0) app_set_base_scale(a, window_display_fit(mode.h));
    float scale = g ? gfx_scale(g) : 1.0f;  // a view's own App starts at scale 1: it gets this one
    SDL_Texture *tex = ren ? SDL_CreateTexture(ren, SDL_PIXELFORMAT_ARGB8888, SDL_TEXTUREACCESS_STREAMING, w, h) : NULL;
    if (!a || (ren && !tex)) {
        fprintf(stderr, "bench_window: %s\n", a ? SDL_GetError() : err.msg);
        return 1;
    }
    printf("renderer: %s (video driver %s), %d×%d\n", info.name, SDL_GetCurrentVideoDriver(), w, h);
    double *draw = malloc((size_t)reps * sizeof *draw), *frame = malloc((size_t)reps * sizeof *frame), worst = 0.0;
    printf("%-34s %14s %14s\n", "view", "draw ms", "frame ms");
    for (int v = 0; v < bench_n_views; v++) {
        App *va = bench_view_open(&bench_views[v], a, &o, g, &err);
        if (!va) {
            printf("%-34s (%s)\n", bench_views[v].name, err.msg);
            continue;
        }
        if (va != a) app_set_base_scale(va, scale);
        app_draw(va);
        present(win, ren, tex, g);  // warm: text cache, texture
        for (int r = 0; r < reps; r++) {
            double t0 = now_ms();
            app_draw(va);
            double t1 = now_ms();
            present(win, ren, tex, g);
            draw[r] = t1 - t0;
            frame[r] = now_ms() - t0;
        }
        qsort(draw, (size_t)reps, sizeof *draw, by_double);
        qsort(frame, (size_t)reps, sizeof *frame, by_double);
        double med = frame[reps / 2];
        if (med > worst) worst = med;
        printf("%-34s %14.2f %14.2f\n", bench_views[v].name, draw[reps / 2], med);
        printf("bench: renderer=%s view=%s draw_median_ms=%.3f frame_median_ms=%.3f\n", info.name, bench_views[v].name, draw[reps / 2], med);
        if (va != a) app_free(va);
    }
    printf("bench: renderer=%s slowest_frame_median_ms=%.2f\n", info.name, worst);
    free(draw);
    free(frame);
    app_free(a);
    gfx_free(g);
    if (tex) SDL_DestroyTexture(tex);
    if (ren) SDL_DestroyRenderer(ren);
    SDL_DestroyWindow(win);
    SDL_Quit();
    return 0;
}
