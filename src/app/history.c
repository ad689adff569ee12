#include "history.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "vocab.h"
#include "widgets.h"

enum { PLAY_MS = 900 };  // a snapshot a beat: long enough to read the numbers

// The traces of the last sentence, and what they say; the models stay.
static void clear_runs(HistData *h) {
    for (int k = 0; k < h->n; k++) {
        view_data_free(h->data[k]);
        trace_free(h->forced[k]);
        trace_free(h->own[k]);
        h->data[k] = NULL, h->forced[k] = h->own[k] = NULL;
    }
    free(h->target);
    h->target = NULL;
    h->n = 0;
    h->ready = false;
    h->why[0] = '\0';
}

void hist_clear(HistData *h) {
    clear_runs(h);
    for (int k = 0; k < h->n_models; k++) mdl_free(h->models[k]);
    snap_free(h->snaps);
    *h = (HistData){0};
}

void hist_update(HistData *h, const char *model_path, const Trace *t) {
    int at = h->at, n_before = h->n;
    Error err;
    char path[sizeof h->snaps_path];
    const Model *m = trace_model(t);
    snap_path_for(model_path, path, sizeof path);
    if (h->snaps && h->snaps_of == m && !strcmp(h->snaps_path, path)) {
        clear_runs(h);
    } else {
        hist_clear(h);
        if (!(h->snaps = snap_load(path, m, &err))) {
            snprintf(h->why, sizeof h->why, "%s", err.msg);
            return;
        }
        h->snaps_of = m;
        snprintf(h->snaps_path, sizeof h->snaps_path, "%s", path);
    }
    // every snapshot reads the same target: the trace's output, or its own target under teacher forcing
    const DecodeOptions *d = trace_options(t);
    int n_target;
    const int *target = trace_output(t, &n_target);
    if (n_target + 1 > m->cfg.max_len) n_target = m->cfg.max_len - 1;
    h->target = malloc(((size_t)n_target + 1) * sizeof *h->target);
    if (!h->target || n_target <= 0) {
        snprintf(h->why, sizeof h->why, "%s", h->target ? "no output to compare: the translation is empty" : "out of memory");
        return;
    }
    memcpy(h->target, target, (size_t)n_target * sizeof *target);
    int src_n;
    const int *src_ids = trace_source(t, &src_n);
    for (int k = 0; k < snap_count(h->snaps); k++, h->n++) {
        DecodeOptions forced = *d, own = *d;
        forced.mode = DECODE_TEACHER, forced.target = h->target, forced.target_len = n_target;
        forced.ablate = own.ablate = (Ablation){0};
        forced.stages = own.stages = NULL;
        forced.each_head = own.each_head = false;
        if (own.mode == DECODE_TEACHER) own.mode = DECODE_GREEDY, own.target = NULL, own.target_len = 0, own.max_steps = 0;
        if (k == h->n_models && (h->models[k] = snap_model(h->snaps, k, &err))) h->n_models++;
        if (k >= h->n_models || !(h->forced[k] = trace_run(h->models[k], src_ids, src_n, &forced, &err)) ||
            !(h->own[k] = trace_run(h->models[k], src_ids, src_n, &own, &err))) {
            snprintf(h->why, sizeof h->why, "%s", err.msg);
            h->n++;  // what was made is freed with the rest
            return;
        }
        h->data[k] = view_data_new(h->models[k], h->forced[k], -1, NULL);  // NULL: the views say the data is missing
    }
    h->at = n_before == h->n && at < h->n ? at : h->n - 1;  // a new sentence keeps the snapshot; the first look is the trained model
    h->ready = true;
}

static void go(HistData *h, int k) {
    h->at = k < 0 ? 0 : k >= h->n ? h->n - 1 : k;
}

bool hist_event(HistData *h, const SDL_Event *e) {
    if (!h->ready) return false;
    if (e->type == SDL_KEYDOWN && !(e->key.keysym.mod & (KMOD_CTRL | KMOD_ALT | KMOD_SHIFT))) {
        switch (e->key.keysym.sym) {
        case SDLK_LEFT: h->playing = false, go(h, h->at - 1); return true;
        case SDLK_RIGHT: h->playing = false, go(h, h->at + 1); return true;
        case SDLK_HOME: h->playing = false, go(h, 0); return true;
        case SDLK_END: h->playing = false, go(h, h->n - 1); return true;
        case SDLK_SPACE:
            h->playing = !h->playing;
            if (h->playing && h->at == h->n - 1) h->at = 0;  // from the start again
            h->last_tick = SDL_GetTicks();
            return true;
        default: return false;
        }
    }
    if (e->type == SDL_MOUSEBUTTONDOWN && e->button.button == SDL_BUTTON_LEFT) {
        SDL_Point p = {e->button.x, e->button.y};
        for (int k = 0; k < h->n; k++)
            if (SDL_PointInRect(&p, &h->chips[k])) {
                h->playing = false, go(h, k);
                return true;
            }
        if (SDL_PointInRect(&p, &h->curve) && h->curve.w > 0) {  // the snapshot nearest the step clicked
            int last = snap_step(h->snaps, h->n - 1), best = 0;
            double step = (double)(p.x - h->curve.x) / h->curve.w * last;
            for (int k = 1; k < h->n; k++)
                if (abs(snap_step(h->snaps, k) - (int)step) < abs(snap_step(h->snaps, best) - (int)step)) best = k;
            h->playing = false, go(h, best);
            return true;
        }
    }
    return false;
}

bool hist_tick(HistData *h, Uint32 now) {
    if (!h->playing || now - h->last_tick < PLAY_MS) return false;
    h->last_tick = now;
    go(h, h->at + 1);
    if (h->at == h->n - 1) h->playing = false;
    return true;
}

int hist_next_tick(const HistData *h, Uint32 now) {
    if (!h->playing) return -1;
    Uint32 due = h->last_tick + PLAY_MS;
    return due > now ? (int)(due - now) : 0;
}

// The training loss over the steps, each snapshot a dot, the one shown marked.
static void draw_curve(Gfx *g, SDL_Rect r, const ViewState *vs, HistData *h) {
    const Theme *th = vs->theme;
    const int *steps;
    const float *loss;
    int n = snap_curve(h->snaps, &steps, &loss), last = snap_step(h->snaps, h->n - 1), small = view_small_px(vs);
    int lh = gfx_line_height(g, small), label_w = gfx_text_width(g, "0.00", small) + gfx_px(g, 8);
    gfx_text(g, r.x, r.y, i18n(vs->lang, S_HIST_CURVE), small, th->text_dim, GFX_LEFT);
    SDL_Rect plot = {r.x + label_w, r.y + lh + gfx_px(g, 4), r.w - label_w, r.h - lh - gfx_px(g, 4)};
    h->curve = plot;
    if (plot.w < 4 || plot.h < 4 || last <= 0) return;
    float hi = 0.0f;
    for (int i = 0; i < n; i++) hi = loss[i] > hi ? loss[i] : hi;
    if (hi <= 0.0f) hi = 1.0f;
    gfx_frame(g, plot, 1, th->panel_edge);
    char buf[32];
    snprintf(buf, sizeof buf, "%.2f", (double)hi);
    gfx_text(g, plot.x - gfx_px(g, 4), plot.y - lh / 2, buf, small, th->text_dim, GFX_RIGHT);
    gfx_text(g, plot.x - gfx_px(g, 4), plot.y + plot.h - lh / 2, "0", small, th->text_dim, GFX_RIGHT);
#define X(step) ((float)plot.x + (float)plot.w * (float)(step) / (float)last)
#define Y(v) ((float)(plot.y + plot.h) - (float)plot.h * (v) / hi)
    for (int i = 1; i < n; i++) gfx_line(g, X(steps[i - 1]), Y(loss[i - 1]), X(steps[i]), Y(loss[i]), 2.0f * gfx_scale(g), th->accent);
    int s = snap_step(h->snaps, h->at);
    gfx_line(g, X(s), (float)plot.y, X(s), (float)(plot.y + plot.h), 2.0f * gfx_scale(g), th->chosen);
#undef X
#undef Y
}

void hist_draw(Gfx *g, SDL_Rect area, const ViewState *vs, HistData *h) {
    const Theme *th = vs->theme;
    Lang lang = vs->lang;
    int px = vs->font_px, pad = gfx_px(g, 10);
    char line[1024], out[512];
    if (!h->ready) {
        if (h->fetching) snprintf(line, sizeof line, i18n(lang, S_HIST_FETCHING), h->fetched_percent);
        if (h->fetch_failed) {  // worded here, so that F2 changes its language too
            const char *name = strrchr(h->fetch_path, '/');
            if (h->fetch_status) snprintf(out, sizeof out, "HTTP %d", h->fetch_status);
            snprintf(line, sizeof line, i18n(lang, S_HIST_FETCH_FAILED), name ? name + 1 : h->fetch_path,
                     h->fetch_status ? out : i18n(lang, S_HIST_NO_CONNECTION));
        }
        view_page_says_why(g, area, vs, i18n(lang, S_HIST_TITLE_NONE), h->fetching || h->fetch_failed ? line : h->why);
        return;
    }
    int k = h->at, step = snap_step(h->snaps, k), last = snap_step(h->snaps, h->n - 1);
    const Model *m = h->models[k];
    char name[256];
    snprintf(line, sizeof line, i18n(lang, S_HIST_TITLE), i18n_model_name(lang, vs->model->name, name, sizeof name), step, last, k + 1, h->n);
    int y = view_page_title(g, area, vs, line) + pad / 2;
    view_output_text(m, h->own[k], out, sizeof out);
    snprintf(line, sizeof line, i18n(lang, S_TW_OUTPUT), out[0] ? out : i18n(lang, S_HIST_NOTHING));
    y += gfx_text_wrap(g, area.x, y, area.w, line, px, th->text, true);  // an early snapshot's output runs long
    snprintf(line, sizeof line, i18n(lang, S_HIST_LOSS), view_output_text(m, h->forced[k], out, sizeof out), (double)trace_mean_loss(h->forced[k]));
    y += gfx_text_wrap(g, area.x, y, area.w, line, px, th->text, true) + pad;
    // the bottom: the snapshots as buttons, the loss curve above them
    int chip_px = gfx_px(g, 16), chip_h = gfx_line_height(g, chip_px) + gfx_px(g, 8), hint_h = gfx_line_height(g, view_small_px(vs));
    int curve_h = (area.y + area.h - y) / 4;
    int chips_y = area.y + area.h - hint_h - pad / 2 - chip_h;
    SDL_Rect curve = {area.x, chips_y - pad - curve_h, area.w, curve_h};
    int x = area.x;
    for (int i = 0; i < h->n; i++) {
        char label[16];
        snprintf(label, sizeof label, "%d", snap_step(h->snaps, i));
        h->chips[i] = wg_toggle(g, th, x, chips_y, label, chip_px, gfx_px(g, 6), i == k);
        x += h->chips[i].w + gfx_px(g, 4);
    }
    gfx_text_fit(g, area.x, area.y + area.h - hint_h, area.w, i18n(lang, S_HIST_HINT), view_small_px(vs), th->text_dim, GFX_LEFT);
    draw_curve(g, curve, vs, h);
    // the stage shown, from this snapshot
    view_draw_forced(g, (SDL_Rect){area.x, y, area.w, curve.y - pad - y}, vs, m, h->forced[k], h->data[k]);
}
