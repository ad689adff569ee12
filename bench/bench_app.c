// Benchmark of the window's drawing, headless: the time from nothing to the
// first drawn frame (font, model, trace, layout, pixels), the time to draw one
// frame of each kind of view on the software canvas at 1920×1080 and at
// 3840×2160 (each at the type size the window gives that screen), the time
// from a key press to the redrawn frame, and the peak memory.
//   build/bench/bench_app [--reps N] [--model FILE]
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
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

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, by_double);
    return v[n / 2];
}

// Draws each view reps times on a w × h canvas at the window's type size for
// that screen; prints the medians. Returns the slowest median, or -1.
static double time_views(const char *font, const char *model, int w, int h, int reps, double *t) {
    Error err;
    Gfx *g = gfx_new(w, h, font, &err);
    AppOptions o = {.model_path = model, .src = "the cat sits on the mat .", .scale = window_display_fit(h)};
    App *a = g ? app_new(&o, g, &err) : NULL;
    if (!a) {
        fprintf(stderr, "bench_app: %s\n", err.msg);
        gfx_free(g);
        return -1.0;
    }
    double worst = 0.0;
    char head[64];
    snprintf(head, sizeof head, "view (software canvas %dx%d)", w, h);
    printf("%-34s %10s %10s\n", head, "median ms", "min ms");
    for (int v = 0; v < bench_n_views; v++) {
        App *va = bench_view_open(&bench_views[v], a, &o, g, &err);
        if (!va) {
            printf("%-34s %10s (%s)\n", bench_views[v].name, "absent", err.msg);
            continue;
        }
        app_draw(va);  // warm the text cache, as a frame after the first does
        for (int r = 0; r < reps; r++) {
            double s = now_ms();
            app_draw(va);
            t[r] = now_ms() - s;
        }
        double med = median(t, reps);
        if (med > worst) worst = med;
        printf("%-34s %10.2f %10.2f\n", bench_views[v].name, med, t[0]);
        printf("bench: size=%dx%d view=%s median_ms=%.3f min_ms=%.3f\n", w, h, bench_views[v].name, med, t[0]);
        if (va != a) app_free(va);
    }
    app_free(a);
    gfx_free(g);
    return worst;
}

int main(int argc, char **argv) {
    int reps = 50;
    const char *model = TT_SOURCE_ASSETS "/models/en-zh.safetensors";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--model")) model = argv[i + 1];
    }
    if (reps < 1) reps = 1;
    double t0 = now_ms();
    Error err;
    const char *font = gfx_find_font(&err);
    Gfx *g = font ? gfx_new(1920, 1080, font, &err) : NULL;
    // the type size the window uses on a 1080p display
    AppOptions o = {.model_path = model, .src = "the cat sits on the mat .", .scale = window_display_fit(1080)};
    App *a = g ? app_new(&o, g, &err) : NULL;
    if (!a) {
        fprintf(stderr, "bench_app: %s\n", err.msg);
        return 1;
    }
    app_draw(a);
    double first = now_ms() - t0;
    printf("first frame (font, model, trace, draw at 1920x1080): %.1f ms\n", first);

    double *t = malloc((size_t)reps * sizeof *t), worst = 0.0;
    static const int sizes[][2] = {{1920, 1080}, {3840, 2160}};
    for (int z = 0; z < 2; z++) {
        double w = time_views(font, model, sizes[z][0], sizes[z][1], reps, t);
        if (w < 0) return 1;
        if (w > worst) worst = w;
    }
    // a key press: the event, then the redrawn frame
    app_set_step(a, 0);
    SDL_Event e = {.type = SDL_KEYDOWN};
    e.key.keysym.sym = SDLK_RIGHT;
    for (int r = 0; r < reps; r++) {
        double s = now_ms();
        app_event(a, &e);
        app_draw(a);
        t[r] = now_ms() - s;
    }
    double key = median(t, reps);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("key press to drawn frame: median %.2f ms\n", key);
    printf("slowest view: median %.2f ms\n", worst);
    printf("peak memory (RSS): %.1f MiB\n", ru.ru_maxrss / 1024.0);
    printf("bench: first_frame_ms=%.1f key_ms=%.2f worst_view_ms=%.2f peak_rss_mib=%.1f\n", first, key, worst, ru.ru_maxrss / 1024.0);
    free(t);
    app_free(a);
    gfx_free(g);
    return 0;
}
