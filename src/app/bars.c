#include "bars.h"

#include <stdio.h>

#include "settings_panel.h"
#include "vocab.h"
#include "widgets.h"

const SDL_Keycode bars_switch_keys[BARS_SWITCHES] = {SDLK_g, SDLK_v, SDLK_m, SDLK_a, SDLK_k};

const char *bars_info(const Model *m, const Trace *t, Lang lang, char *info, size_t size) {
    const DecodeOptions *d = trace_options(t);  // a lesson step may differ from the settings
    char name[256];
    int n = snprintf(info, size, "%s  \xC2\xB7  %s", i18n_model_name(lang, m->name, name, sizeof name), i18n_mode_name(lang, d->mode));
    if (n < 0 || n >= (int)size) n = (int)size - 1;  // a model's name has no length limit
    if (d->mode == DECODE_BEAM) snprintf(info + n, size - (size_t)n, " %d", d->beam_width ? d->beam_width : 4);
    if (d->mode == DECODE_SAMPLE) {
        char k[32];  // top-k 0: every token, not none
        if (d->top_k > 0) snprintf(k, sizeof k, "%d", d->top_k);
        else snprintf(k, sizeof k, "%s", lang == LANG_ZH_TW ? "\xE5\x85\xA8\xE9\x83\xA8" : "all");  // 全部
        snprintf(info + n, size - (size_t)n, "  T %.1f  k %s  p %.2f  #%llu", (double)(d->temperature > 0 ? d->temperature : 1.0f), k,
                 (double)(d->top_p > 0 ? d->top_p : 1.0f), (unsigned long long)d->seed);
    }
    return info;
}

bool bars_toggle_view(ViewOptions *v, SDL_Keycode key) {
    if (key == SDLK_m) v->no_side_by_side = !v->no_side_by_side;
    else if (key == SDLK_g) v->heads_grid = !v->heads_grid;
    else if (key == SDLK_v) v->lines = !v->lines;
    else if (key == SDLK_a) v->no_gold = !v->no_gold;
    else if (key == SDLK_k) v->kv_cache = !v->kv_cache;
    else return false;
    return true;
}

const char *bars_counter(int at, int count, char *buf, size_t size) {
    if (at >= 0) snprintf(buf, size, "%d/%d", at + 1, count);
    else snprintf(buf, size, "\xE2\x80\x93/%d", count);  // –
    return buf;
}

void bars_draw_top(Gfx *g, const Layout *l, const Theme *th, Lang lang, const char *counter, const char *info, bool help, bool settings) {
    if (counter) {
        wg_button(g, th, l->list_prev, "\xE2\x97\x80", l->small, false);  // ◀
        gfx_text(g, l->counter.x, l->counter.y, counter, l->px, th->text, GFX_LEFT);
        wg_button(g, th, l->list_next, "\xE2\x96\xB6", l->small, false);  // ▶
    }
    // the model and the decoding: smaller, down to the smallest text, before it is cut (a narrow window)
    int px = gfx_px_to_fit(g, info, l->info.w, 18, 14);  // l->px is 18
    gfx_text_fit(g, l->info.x, l->info.y + (gfx_line_height(g, l->px) - gfx_line_height(g, px)) / 2, l->info.w, info, px, th->text_dim, GFX_LEFT);
    wg_button(g, th, l->help_button, "?", l->small, help);
    wg_button(g, th, l->settings_button, i18n(lang, S_SETTINGS_BUTTON), l->small, settings);
}

static void draw_chips(Bars *b, Gfx *g, const Theme *th, int x, int y, int k, int count, int current, const char *prefix) {
    int px = gfx_px(g, 16), pad = gfx_px(g, 6);
    char buf[16];
    b->n_chips[k] = count < 16 ? count : 16;
    for (int i = 0; i < b->n_chips[k]; i++) {
        snprintf(buf, sizeof buf, "%s%d", prefix, i + 1);
        b->chips[k][i] = wg_toggle(g, th, x, y, buf, px, pad, i + 1 == current);
        x += b->chips[k][i].w + pad / 2;
    }
}

// The view switches that apply to the step shown, as toggles lit when on,
// from x; returns the x where they end.
static int draw_switches(Bars *b, Gfx *g, const ViewState *vs, int x, int y) {
    int px = gfx_px(g, 16), pad = gfx_px(g, 6);
    const ViewOptions *v = &vs->opt;
    ViewSwitches w = view_switches(vs);
    // M does nothing where the grid, the lines or the KV cache show the weights instead (plan_panels)
    bool kv = w.kv_cache && v->kv_cache;
    bool side_by_side = w.side_by_side && !kv && !(w.heads_grid && v->heads_grid) && !(w.lines && v->lines);
    const bool shown[BARS_SWITCHES] = {w.heads_grid && !kv, w.lines && !kv, side_by_side, w.gold, w.kv_cache};
    const bool on[BARS_SWITCHES] = {v->heads_grid, v->lines, !v->no_side_by_side, !v->no_gold, v->kv_cache};
    static const StringId labels[BARS_SWITCHES] = {S_SW_GRID, S_SW_LINES, S_SW_SIDE_BY_SIDE, S_SW_GOLD, S_SW_KV_CACHE};
    for (int i = 0; i < BARS_SWITCHES; i++) {
        b->switches[i] = (SDL_Rect){0};
        if (!shown[i]) continue;
        b->switches[i] = wg_toggle(g, vs->theme, x, y, i18n(vs->lang, labels[i]), px, pad, on[i]);
        x += b->switches[i].w + pad / 2;
    }
    return x;
}

// The mode, unmistakable, and the target it is fed (--target, or a lesson's), from x to right.
static void draw_teacher(Gfx *g, const ViewState *vs, int x, int y, int right) {
    const Theme *th = vs->theme;
    int small = gfx_px(g, 16), pad = gfx_px(g, 12);
    const char *badge = i18n(vs->lang, S_TEACHER_FORCING);
    int bh = gfx_line_height(g, small), bw = gfx_text_width(g, badge, small) + pad;
    if (x + bw > right) return;  // a narrow window: the top row already names the strategy
    gfx_fill(g, (SDL_Rect){x, y, bw, bh}, th->chosen);
    gfx_text(g, x + pad / 2, y, badge, small, theme_text_on(th->chosen), GFX_LEFT);
    enum { FED_MAX = 16384 };  // as the text box holds
    char target[FED_MAX + 64], fed[FED_MAX] = "";
    int n_out, used = 0;
    const int *out = trace_output(vs->trace, &n_out);  // in teacher forcing, the target itself
    for (int i = 0; i < n_out && used < (int)sizeof fed - 64; i++)
        used += snprintf(fed + used, sizeof fed - (size_t)used, "%s%s", i ? " " : "", voc_token(vs->model->tgt, out[i]));
    snprintf(target, sizeof target, i18n(vs->lang, S_TARGET), fed);
    // whole or not at all: the timeline's runs name the target's tokens too
    if (gfx_text_width(g, target, small) <= right - (x + bw + pad / 2)) gfx_text(g, x + bw + pad / 2, y, target, small, th->text, GFX_LEFT);
}

void bars_draw_chips(Bars *b, Gfx *g, const Layout *lay, const ViewState *vs) {
    const Step *s = trace_step(vs->trace, vs->step);
    const Config *cfg = &vs->model->cfg;
    int W = gfx_width(g), pad = lay->pad, y = lay->chips_y;
    b->n_chips[0] = b->n_chips[1] = 0;
    if (s->layer) draw_chips(b, g, vs->theme, pad, y, 0, s->stage->part == STAGE_ENCODER ? cfg->n_enc : cfg->n_dec, s->layer, "L");
    if (s->head) draw_chips(b, g, vs->theme, W / 4, y, 1, cfg->nhead, s->head, "H");
    const SDL_Rect *last = b->n_chips[1] ? &b->chips[1][b->n_chips[1] - 1] : NULL;
    int switches_end = draw_switches(b, g, vs, last ? last->x + last->w + 2 * pad : W / 4, y);
    // where the step is, in words ("Decoding step 3 of 7, producing 在"), then its index small
    char place[256], index[48];
    view_step_place(vs->trace, s, vs->lang, place, sizeof place);
    snprintf(index, sizeof index, i18n(vs->lang, S_PLACE_OF), vs->step + 1, trace_count(vs->trace));
    int room = W - pad - SDL_max(switches_end, W / 2) - 2 * pad;
    int index_w = gfx_text_width(g, index, lay->small), place_w = gfx_text_width(g, place, lay->small);
    int pos_w = gfx_text(g, W - pad, y, index, lay->small, vs->theme->text_dim, GFX_RIGHT);
    if (place_w + pad + index_w <= room) pos_w += pad + gfx_text(g, W - pad - index_w - pad, y, place, lay->small, vs->theme->text, GFX_RIGHT);
    if (trace_options(vs->trace)->mode == DECODE_TEACHER) draw_teacher(g, vs, SDL_max(W / 2, switches_end + 2 * pad), y, W - pad - pos_w - pad);
}

// The run of the timeline a step is in: the source, an encoder layer (its
// final norm with the last), or a decoding step (teacher forcing: one).
static int timeline_part(const Step *s) {
    if (s->dstep) return 1000 + s->dstep;
    if (s->stage->part == STAGE_SOURCE) return 0;
    if (s->stage->part == STAGE_ENCODER) return s->layer ? s->layer : 999;
    return 1000;
}

static Color timeline_color(const Theme *th, const Step *s, int part) {
    if (!s->dstep) return part % 2 ? th->accent : (th->accent & 0x00FFFFFFu) | 0xB0000000u;  // the encoder's layers told apart
    return s->dstep % 2 ? th->panel_edge : th->text_dim;
}

// The steps before the first decoding step (the source and the encoder) take
// at least a quarter of the timeline, so that they are not a sliver beside
// the decoder's passes; the rest is shared in proportion. Returns that count.
static int before_decoding(const Trace *t) {
    int n = trace_count(t), k = 0;
    while (k < n && trace_step(t, k)->dstep == 0 && trace_step(t, k)->stage->part <= STAGE_ENCODER) k++;
    return k;
}

static int timeline_share(const Trace *t, int w, int *k) {
    int n = trace_count(t);
    *k = before_decoding(t);
    if (*k == 0 || *k == n) return *k == n ? w : 0;
    return SDL_max((int)((long)*k * w / n), w / 4);
}

// The x (from the timeline's left) where step i starts.
static int timeline_x(const Trace *t, int w, int i) {
    int k, head = timeline_share(t, w, &k), n = trace_count(t);
    if (i <= k) return k ? (int)((long)i * head / k) : 0;
    return head + (int)((long)(i - k) * (w - head) / (n - k));
}

int bars_timeline_step(const Layout *lay, const Trace *t, int x) {
    int w = lay->timeline.w > 0 ? lay->timeline.w : 1, k, head = timeline_share(t, w, &k), n = trace_count(t);
    x -= lay->timeline.x;
    int i = x < head ? (head ? (int)((long)x * k / head) : k) : k + (int)((long)(x - head) * (n - k) / SDL_max(1, w - head));
    return i < 0 ? 0 : i >= n ? n - 1 : i;
}

// A run's name: the source, an encoder layer, or a decoding step and the token it produced ("3 在").
static void timeline_label(const Trace *t, const Step *s, Lang lang, char *buf, size_t size) {
    const char *out = s->dstep ? view_produced_at(t, s->dstep) : NULL;
    if (s->dstep && trace_options(t)->mode != DECODE_TEACHER) snprintf(buf, size, out ? "%d %s" : "%d", s->dstep, out);
    else view_step_place(t, s, lang, buf, size);
}

void bars_draw_timeline(Gfx *g, const Layout *lay, const Theme *th, const Trace *t, int step, bool playing, Lang lang) {
    SDL_Rect play = lay->play_button, tl = lay->timeline;
    wg_button(g, th, play, "", lay->small, playing);
    if (playing) {  // pause: two bars
        int bw = SDL_max(1, tl.h / 6), bh = tl.h / 2, cx = play.x + play.w / 2, by = play.y + tl.h / 4;
        gfx_fill(g, (SDL_Rect){cx - bw - bw / 2 - 1, by, bw, bh}, th->accent_text);
        gfx_fill(g, (SDL_Rect){cx + bw / 2 + 1, by, bw, bh}, th->accent_text);
    } else {
        gfx_text(g, play.x + play.w / 2, play.y + (tl.h - gfx_line_height(g, lay->small)) / 2, "\xE2\x96\xB6", lay->small, th->text, GFX_CENTER);  // ▶
    }
    int n = trace_count(t);
    // each part a run of one colour, named where it has room: the source, the encoder's layers, each decoding step and its token
    for (int i = 0; i < n;) {
        const Step *first = trace_step(t, i);
        int key = timeline_part(first), j = i + 1;
        while (j < n && timeline_part(trace_step(t, j)) == key) j++;
        int x0 = tl.x + timeline_x(t, tl.w, i), x1 = tl.x + timeline_x(t, tl.w, j);
        gfx_fill(g, (SDL_Rect){x0, tl.y, SDL_max(1, x1 - x0), tl.h}, timeline_color(th, first, key));
        char label[128];
        timeline_label(t, first, lang, label, sizeof label);
        // a layer too narrow for "Encoder layer 1" is "Layer 1", then "L1"
        const char *shorter[] = {i18n(lang, S_MAP_LAYER), "L%d"};
        bool fits = gfx_text_width(g, label, lay->small) + gfx_px(g, 8) <= x1 - x0;
        for (int k = 0; k < 2 && !fits && first->layer > 0 && !first->dstep; k++) {
            snprintf(label, sizeof label, shorter[k], first->layer);
            fits = gfx_text_width(g, label, lay->small) + gfx_px(g, 8) <= x1 - x0;
        }
        if (fits)
            gfx_text(g, (x0 + x1) / 2, tl.y + (tl.h - gfx_line_height(g, lay->small)) / 2, label, lay->small,
                     theme_text_on(timeline_color(th, first, key)), GFX_CENTER);
        i = j;
    }
    int mx = tl.x + timeline_x(t, tl.w, step);
    gfx_fill(g, (SDL_Rect){mx - gfx_px(g, 2), tl.y - gfx_px(g, 3), gfx_px(g, 4), tl.h + gfx_px(g, 6)}, th->chosen);
}

void bars_draw_status(Gfx *g, const Layout *lay, const Theme *th, const char *said, bool playing) {
    char status[1100];
    snprintf(status, sizeof status, "%s%s", playing ? "\xE2\x96\xB6 " : "", said);  // ▶
    gfx_text_fit(g, lay->status.x, lay->status.y, lay->status.w, status, lay->px, th->text_dim, GFX_LEFT);
}

BarsClick bars_click(const Bars *b, int x, int y) {
    SDL_Point p = {x, y};
    for (int i = 0; i < BARS_SWITCHES; i++)
        if (SDL_PointInRect(&p, &b->switches[i])) return (BarsClick){BARS_SWITCH, i};
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < b->n_chips[k]; i++)
            if (SDL_PointInRect(&p, &b->chips[k][i])) return (BarsClick){k == 0 ? BARS_LAYER : BARS_HEAD, i + 1};
    return (BarsClick){BARS_NONE, 0};
}
