// The views the window's benchmarks draw: one step of each kind, some with a
// decoding, a target (teacher forcing) or a key that switches the view.
#ifndef TT_BENCH_VIEWS_H
#define TT_BENCH_VIEWS_H

#include "app.h"

typedef struct {
    const char *name, *stage;
    int head, step;
    DecodeMode mode;     // DECODE_TEACHER: greedy options with target
    const char *target;
    SDL_Keycode key;     // 0: none; SDLK_g the heads grid, SDLK_v the line view, SDLK_k the KV cache
    const char *lesson;  // NULL, or a lesson (lessons/NAME) opened at lesson_step: its narration and map strip beside the view
    int lesson_step;
} BenchView;

extern const BenchView bench_views[];
extern const int bench_n_views;

// The App that shows view v on its step: base itself when v needs nothing of
// its own, else a new App like base's options o (free it when it is not
// base). NULL with err set when it cannot be made or the step is absent.
App *bench_view_open(const BenchView *v, App *base, const AppOptions *o, Gfx *g, Error *err);

#endif
