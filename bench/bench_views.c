#include "bench_views.h"

#include <stdio.h>
#include <string.h>

#include "lessonmode.h"
#include "tt_config.h"

const BenchView bench_views[] = {
    {"src.tokens", "src.tokens", 0, 0, DECODE_GREEDY, NULL, 0, NULL, 0},
    {"src.embed", "src.embed", 0, 0, DECODE_GREEDY, NULL, 0, NULL, 0},
    {"src.pos_enc", "src.pos_enc", 0, 0, DECODE_GREEDY, NULL, 0, NULL, 0},
    {"enc.L1.self_attn.weights", "enc.L1.self_attn.weights", 1, 0, DECODE_GREEDY, NULL, 0, NULL, 0},
    {"  all heads (G)", "enc.L1.self_attn.weights", 1, 0, DECODE_GREEDY, NULL, SDLK_g, NULL, 0},
    {"dec.look_ahead_mask", "dec.look_ahead_mask", 0, 4, DECODE_GREEDY, NULL, 0, NULL, 0},
    {"dec.L1.self_attn.masked_scores", "dec.L1.self_attn.masked_scores", 1, 4, DECODE_GREEDY, NULL, 0, NULL, 0},
    {"dec.L1.self_attn.weights", "dec.L1.self_attn.weights", 1, 4, DECODE_GREEDY, NULL, 0, NULL, 0},
    {"dec.L2.cross_attn.weights", "dec.L2.cross_attn.weights", 1, 6, DECODE_GREEDY, NULL, 0, NULL, 0},
    {"  as lines (V)", "dec.L2.cross_attn.weights", 1, 6, DECODE_GREEDY, NULL, SDLK_v, NULL, 0},
    {"enc.L2.norm2", "enc.L2.norm2", 0, 0, DECODE_GREEDY, NULL, 0, NULL, 0},
    {"dec.probs", "dec.probs", 0, 3, DECODE_GREEDY, NULL, 0, NULL, 0},
    {"dec.top_k", "dec.top_k", 0, 3, DECODE_GREEDY, NULL, 0, NULL, 0},
    {"dec.choice", "dec.choice", 0, 6, DECODE_GREEDY, NULL, 0, NULL, 0},
    {"dec.sample (T 2)", "dec.sample", 0, 1, DECODE_SAMPLE, NULL, 0, NULL, 0},
    {"dec.beam (tree)", "dec.beam", 0, 5, DECODE_BEAM, NULL, 0, NULL, 0},
    {"dec.probs (teacher, m x |V|)", "dec.probs", 0, 1, DECODE_TEACHER,
     "\xE8\xB2\x93 \xE5\x9D\x90 \xE5\x9C\xA8 \xE5\xA2\x8A\xE5\xAD\x90 \xE4\xB8\x8A \xE3\x80\x82", 0, NULL, 0},  // 貓 坐 在 墊子 上 。
    {"dec.logits (1 x |V|)", "dec.logits", 0, 3, DECODE_GREEDY, NULL, 0, NULL, 0},
    {"dec.loss (teacher)", "dec.loss", 0, 1, DECODE_TEACHER,
     "\xE8\xB2\x93 \xE5\x9D\x90 \xE5\x9C\xA8 \xE5\xA2\x8A\xE5\xAD\x90 \xE4\xB8\x8A \xE3\x80\x82", 0, NULL, 0},
    {"  KV cache (K)", "dec.L1.self_attn.k", 1, 4, DECODE_GREEDY, NULL, SDLK_k, NULL, 0},
    {"  two models (B)", "dec.L2.cross_attn.weights", 1, 6, DECODE_GREEDY, NULL, SDLK_b, NULL, 0},
    {"  training history (H)", "dec.L2.cross_attn.weights", 1, 6, DECODE_GREEDY, NULL, SDLK_h, NULL, 0},
    {"lesson 03, masking steps", NULL, 0, 0, DECODE_GREEDY, NULL, 0, "03-decoder.lesson", 8},
    {"lesson 06, cross-attention", NULL, 0, 0, DECODE_GREEDY, NULL, 0, "06-cross-attention.lesson", 4},
};
const int bench_n_views = sizeof bench_views / sizeof *bench_views;

App *bench_view_open(const BenchView *v, App *base, const AppOptions *o, Gfx *g, Error *err) {
    App *a = base;
    if (v->lesson) {  // lesson mode: its own App, on the lesson's sentence and step
        char path[4096];
        snprintf(path, sizeof path, "%s/../lessons/%s", TT_SOURCE_ASSETS, v->lesson);
        AppOptions vo = *o;
        vo.src = NULL;
        vo.lesson = path;
        vo.lessons_dir = NULL;
        vo.models_dir = TT_SOURCE_ASSETS "/models";
        if (!(a = app_new(&vo, g, err))) return NULL;
        if (!app_lessons(a)) {
            err_set(err, "%s: no lesson mode", v->name);
            app_free(a);
            return NULL;
        }
        lm_go(app_lessons(a), a, v->lesson_step);
        return a;
    }
    if (v->mode != DECODE_GREEDY || v->key) {
        AppOptions vo = *o;
        vo.decode.mode = v->mode == DECODE_TEACHER ? DECODE_GREEDY : v->mode;
        vo.decode.temperature = v->mode == DECODE_SAMPLE ? 2.0f : 0.0f;
        vo.decode.seed = 1;
        vo.target = v->target;
        vo.models_dir = TT_SOURCE_ASSETS "/models";  // B's untrained twin, H's snapshots
        if (!(a = app_new(&vo, g, err))) return NULL;
    }
    int i = trace_find(app_trace(a), v->stage, v->head, v->step);
    if (i < 0) {
        err_set(err, "%s: no such step in the trace", v->name);
        if (a != base) app_free(a);
        return NULL;
    }
    app_set_step(a, i);
    if (v->key) {
        SDL_Event k = {.type = SDL_KEYDOWN};
        k.key.keysym.sym = v->key;
        app_event(a, &k);
    }
    return a;
}
