#include "settings_panel.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "snapshots.h"
#include "vocab.h"
#include "widgets.h"

static bool same_file(const char *x, const char *y) {
    struct stat sx, sy;
    if (stat(x, &sx) || stat(y, &sy)) return !strcmp(x, y);
    return sx.st_dev == sy.st_dev && sx.st_ino == sy.st_ino;
}

static int compare_paths(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

void sp_init(SettingsPanel *sp, const char *dir, const char *model_path) {
    memset(sp, 0, sizeof *sp);
    sp->export_scale = 2;
    int cap = 1;
    DIR *d = dir ? opendir(dir) : NULL;
    for (struct dirent *e; d && (e = readdir(d));) cap++;
    if (d) rewinddir(d);
    sp->models = calloc((size_t)cap, sizeof *sp->models);
    if (!sp->models) {
        if (d) closedir(d);
        return;
    }
    for (struct dirent *e; d && sp->n_models < cap - 1 && (e = readdir(d));) {
        size_t len = strlen(e->d_name), ext = strlen(".safetensors");
        if (len <= ext || strcmp(e->d_name + len - ext, ".safetensors") || e->d_name[0] == '.') continue;
        if (snap_is_history_name(e->d_name)) continue;  // a model's training history, beside it: not a model
        size_t size = strlen(dir) + len + 2;
        char *path = malloc(size);
        if (!path) break;
        snprintf(path, size, "%s/%s", dir, e->d_name);
        sp->models[sp->n_models++] = path;
    }
    if (d) closedir(d);
    qsort(sp->models, (size_t)sp->n_models, sizeof *sp->models, compare_paths);
    sp_set_model(sp, model_path);
    if (sp->model_at < 0 && (sp->models[sp->n_models] = strdup(model_path))) sp->model_at = sp->n_models++;
}

void sp_deinit(SettingsPanel *sp) {
    for (int i = 0; i < sp->n_models; i++) free(sp->models[i]);
    free(sp->models);
    sp->models = NULL;
    sp->n_models = 0;
}

void sp_set_model(SettingsPanel *sp, const char *path) {
    sp->model_at = -1;
    for (int i = 0; i < sp->n_models && sp->model_at < 0; i++)
        if (same_file(sp->models[i], path)) sp->model_at = i;
}

// The rows that apply to the current strategy, in order. Returns how many.
static int settings_rows(const SpState *st, SettingsRow *rows) {
    int n = 0;
    DecodeMode mode = st->decode->mode;
    rows[n++] = ROW_MODEL;
    rows[n++] = ROW_STRATEGY;
    if (mode == DECODE_BEAM) rows[n++] = ROW_BEAM;
    if (mode == DECODE_SAMPLE) {
        rows[n++] = ROW_TEMPERATURE;
        rows[n++] = ROW_TOP_K;
        rows[n++] = ROW_TOP_P;
        rows[n++] = ROW_SEED;
    }
    if (mode != DECODE_TEACHER) rows[n++] = ROW_MAX_STEPS;  // teacher forcing runs the target's length
    if (mode != DECODE_TEACHER) rows[n++] = ROW_SPECIAL;    // it chooses nothing
    rows[n++] = ROW_MASK;
    rows[n++] = ROW_EXPORT_SCALE;
    return n;
}

static int clamp_int(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
static float clamp_float(float v, float lo, float hi) { return v < lo ? lo : v > hi ? hi : v; }

// The strategies offered: teacher forcing only with a target.
static int strategies(const SpState *st, DecodeMode *modes) {
    int n = 0;
    modes[n++] = DECODE_GREEDY;
    modes[n++] = DECODE_BEAM;
    modes[n++] = DECODE_SAMPLE;
    if (st->has_target) modes[n++] = DECODE_TEACHER;
    return n;
}

// Changes a row's value by delta steps (−1 / +1): the change the App is to run.
static void change(SettingsPanel *sp, const SpState *st, SettingsRow row, int delta, SpChange *out) {
    DecodeOptions d = *st->decode;
    DecodeMode modes[4];
    int n = strategies(st, modes), i = 0;
    const Config *cfg = &st->model->cfg;
    switch (row) {
    case ROW_MODEL:
        if (sp->n_models > 0) {
            out->what = SP_MODEL;
            out->model = sp->models[((sp->model_at < 0 ? 0 : sp->model_at) + delta + sp->n_models) % sp->n_models];
        }
        return;
    case ROW_STRATEGY:
        while (i < n && modes[i] != d.mode) i++;
        d.mode = modes[(i + delta + n) % n];
        break;
    case ROW_BEAM: d.beam_width = clamp_int((d.beam_width ? d.beam_width : 4) + delta, 1, 16); break;
    case ROW_TEMPERATURE:
        d.temperature = clamp_float(roundf(((d.temperature > 0 ? d.temperature : 1.0f) + 0.1f * (float)delta) * 10.0f) / 10.0f, 0.1f, 5.0f);
        break;
    case ROW_TOP_K: d.top_k = clamp_int(d.top_k + delta, 0, voc_size(st->model->tgt)); break;
    case ROW_TOP_P: d.top_p = clamp_float(roundf(((d.top_p > 0 ? d.top_p : 1.0f) + 0.05f * (float)delta) * 20.0f) / 20.0f, 0.05f, 1.0f); break;
    case ROW_SEED:
        if (delta < 0 && d.seed == 0) return;
        d.seed += (uint64_t)(int64_t)delta;
        break;
    case ROW_MAX_STEPS: d.max_steps = clamp_int((d.max_steps ? d.max_steps : cfg->max_len) + delta, 1, cfg->max_len); break;
    case ROW_SPECIAL: d.allow_special = !d.allow_special; break;
    case ROW_MASK: d.no_look_ahead_mask = !d.no_look_ahead_mask; break;  // − and + both switch it
    case ROW_EXPORT_SCALE: sp->export_scale = clamp_int(sp->export_scale + delta, 1, 4); return;
    default: return;
    }
    out->what = SP_DECODE;
    out->decode = d;
}

// The sliders: beam width 1 to 16, temperature 0.1 to 5 on a log scale, top-k 0 (all) to the vocabulary, top-p 0.05 to 1.
static bool is_slider(SettingsRow row) { return row == ROW_BEAM || row == ROW_TEMPERATURE || row == ROW_TOP_K || row == ROW_TOP_P; }

// Where the row's value sits on its slider, 0 to 1.
static float slider_at(const SpState *st, SettingsRow row) {
    const DecodeOptions *d = st->decode;
    switch (row) {
    case ROW_BEAM: return ((float)(d->beam_width ? d->beam_width : 4) - 1.0f) / 15.0f;
    case ROW_TEMPERATURE: return logf((d->temperature > 0 ? d->temperature : 1.0f) / 0.1f) / logf(50.0f);
    case ROW_TOP_K: return (float)d->top_k / (float)voc_size(st->model->tgt);
    case ROW_TOP_P: return ((d->top_p > 0 ? d->top_p : 1.0f) - 0.05f) / 0.95f;
    default: return 0.0f;
    }
}

// The options with the slider of row at fraction f (0 to 1), rounded as its − and + step.
static DecodeOptions slider_set(const SpState *st, SettingsRow row, float f) {
    DecodeOptions d = *st->decode;
    f = clamp_float(f, 0.0f, 1.0f);
    switch (row) {
    case ROW_BEAM: d.beam_width = 1 + (int)lroundf(f * 15.0f); break;
    case ROW_TEMPERATURE: d.temperature = clamp_float(roundf(0.1f * expf(f * logf(50.0f)) * 10.0f) / 10.0f, 0.1f, 5.0f); break;
    case ROW_TOP_K: d.top_k = (int)lroundf(f * (float)voc_size(st->model->tgt)); break;
    case ROW_TOP_P: d.top_p = clamp_float(roundf((0.05f + f * 0.95f) * 20.0f) / 20.0f, 0.05f, 1.0f); break;
    default: break;
    }
    return d;
}

// The slider's change for the pointer at x over track: none when the value stays.
static void slide(const SettingsPanel *sp, const SpState *st, int x, SpChange *out) {
    DecodeOptions d = slider_set(st, sp->drag_row, sp->drag_track.w > 1 ? (float)(x - sp->drag_track.x) / (float)(sp->drag_track.w - 1) : 0.0f);
    const DecodeOptions *o = st->decode;
    if (d.beam_width == o->beam_width && d.temperature == o->temperature && d.top_k == o->top_k && d.top_p == o->top_p) return;
    out->what = SP_DECODE;
    out->decode = d;
}

// Arrow keys in the open panel: ↑ ↓ choose a row, ← → change it.
static bool settings_key(SettingsPanel *sp, const SpState *st, SDL_Keycode sym, SpChange *out) {
    SettingsRow rows[ROW_COUNT];
    int n = settings_rows(st, rows), at = 0;
    while (at < n && rows[at] != sp->row) at++;
    if (at == n) at = 1;  // the row went with the strategy
    switch (sym) {
    case SDLK_UP: sp->row = rows[(at + n - 1) % n]; return true;
    case SDLK_DOWN: sp->row = rows[(at + 1) % n]; return true;
    case SDLK_LEFT:
    case SDLK_RIGHT:
        sp->row = rows[at];
        change(sp, st, rows[at], sym == SDLK_LEFT ? -1 : 1, out);
        return true;
    default: return false;
    }
}

bool sp_event(SettingsPanel *sp, const SDL_Event *e, const SpState *st, SpChange *out) {
    out->what = SP_NONE;
    if (e->type == SDL_KEYDOWN) {
        bool mods = e->key.keysym.mod & (KMOD_CTRL | KMOD_SHIFT | KMOD_ALT);
        return sp->open && !mods && settings_key(sp, st, e->key.keysym.sym, out);
    }
    if (e->type == SDL_MOUSEMOTION && sp->dragging) {  // the knob follows the pointer; each new value runs
        slide(sp, st, e->motion.x, out);
        return true;
    }
    if (e->type == SDL_MOUSEBUTTONUP && sp->dragging) {
        sp->dragging = false;
        return true;
    }
    if (e->type != SDL_MOUSEBUTTONDOWN || e->button.button != SDL_BUTTON_LEFT) return false;
    SDL_Point p = {e->button.x, e->button.y};
    // what is drawn on top first
    for (int i = 0; sp->open && i < sp->n_hits; i++)
        if (SDL_PointInRect(&p, &sp->hits[i].r)) {
            const SpHit *h = &sp->hits[i];
            sp->row = h->row;
            if (h->choice == SP_SLIDER) {
                sp->dragging = true;
                sp->drag_row = h->row;
                sp->drag_track = h->r;
                slide(sp, st, p.x, out);
            } else if (h->choice < 0) {
                change(sp, st, h->row, h->delta, out);
            } else if ((DecodeMode)h->choice != st->decode->mode) {
                out->what = SP_DECODE;
                out->decode = *st->decode;
                out->decode.mode = (DecodeMode)h->choice;
            }
            return true;
        }
    return sp->open && SDL_PointInRect(&p, &sp->box);
}

static const char *base_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

// A row's value as shown.
static void row_value(const SettingsPanel *sp, const SpState *st, SettingsRow row, Lang lang, char *buf, size_t size) {
    const DecodeOptions *d = st->decode;
    switch (row) {
    case ROW_MODEL: snprintf(buf, size, "%s   %d/%d", base_name(st->model_path), sp->model_at + 1, sp->n_models); break;
    case ROW_BEAM: snprintf(buf, size, "%d", d->beam_width ? d->beam_width : 4); break;
    case ROW_TEMPERATURE: snprintf(buf, size, "%.1f", (double)(d->temperature > 0 ? d->temperature : 1.0f)); break;
    case ROW_TOP_K:
        if (d->top_k) snprintf(buf, size, "%d", d->top_k);
        else snprintf(buf, size, "%s", i18n(lang, S_ALL));
        break;
    case ROW_TOP_P: snprintf(buf, size, "%.2f", (double)(d->top_p > 0 ? d->top_p : 1.0f)); break;
    case ROW_SEED: snprintf(buf, size, "%llu", (unsigned long long)d->seed); break;
    case ROW_MAX_STEPS:
        if (d->max_steps) snprintf(buf, size, "%d", d->max_steps);
        else snprintf(buf, size, i18n(lang, S_MODEL_MAX), st->model->cfg.max_len);
        break;
    case ROW_SPECIAL: snprintf(buf, size, "%s", i18n(lang, d->allow_special ? S_SPECIAL_ALLOWED : S_SPECIAL_EXCLUDED)); break;
    case ROW_MASK: snprintf(buf, size, "%s", i18n(lang, d->no_look_ahead_mask ? S_OFF : S_ON)); break;
    case ROW_EXPORT_SCALE: snprintf(buf, size, "%d\xC3\x97", sp->export_scale); break;  // 2×
    default: buf[0] = '\0';
    }
}

static void add_hit(SettingsPanel *sp, SDL_Rect r, SettingsRow row, int delta, int choice) {
    if (sp->n_hits < (int)(sizeof sp->hits / sizeof *sp->hits)) sp->hits[sp->n_hits++] = (SpHit){r, row, delta, choice};
}

// A design size at the type's zoom, times fit (below 1 when the panel would not fit).
static int fit_px(const Gfx *g, float design_px, float fit) {
    int v = (int)lroundf((float)gfx_px(g, design_px) * fit);
    return v > 1 ? v : 1;
}

// The panel's height with n rows, and the gap above it.
static int panel_height(Gfx *g, int n, float fit) {
    int px = fit_px(g, 18, fit), pad = fit_px(g, 12, fit);
    int row_h = gfx_line_height(g, px) + pad / 2 + fit_px(g, 4, fit), title_h = gfx_line_height(g, fit_px(g, 22, fit)) + pad / 2;
    return pad / 2 + title_h + n * row_h + gfx_line_height(g, fit_px(g, 15, fit)) + 2 * pad;
}

void sp_draw(SettingsPanel *sp, Gfx *g, const SpState *st, const Theme *th, Lang lang) {
    sp->n_hits = 0;
    sp->box = (SDL_Rect){0};
    if (!sp->open) return;
    SettingsRow rows[ROW_COUNT];
    int n = settings_rows(st, rows);
    // type zoomed past what the canvas holds: the panel shrinks until it fits below its button
    float fit = 1.0f;
    for (int k = 0; k < 20 && sp->button.y + sp->button.h + panel_height(g, n, fit) > gfx_height(g); k++) fit *= 0.93f;
    int W = gfx_width(g), px = fit_px(g, 18, fit), small = fit_px(g, 15, fit), lh = gfx_line_height(g, px), pad = fit_px(g, 12, fit);
    int row_h = lh + pad / 2 + fit_px(g, 4, fit);
    static const StringId labels[ROW_COUNT] = {S_MODEL, S_DECODING, S_BEAM_WIDTH, S_TEMPERATURE, S_TOP_K, S_TOP_P, S_SEED, S_MAX_STEPS, S_SPECIAL,
                                               S_LOOK_AHEAD_MASK, S_EXPORT_SCALE};
    int label_w = 0;
    for (int i = 0; i < n; i++) {
        int w = gfx_text_width(g, i18n(lang, labels[rows[i]]), px);
        label_w = w > label_w ? w : label_w;
    }
    DecodeMode modes[4];
    int n_modes = strategies(st, modes), chips_w = 0;
    for (int i = 0; i < n_modes; i++) chips_w += gfx_text_width(g, i18n_mode_name(lang, modes[i]), px) + 2 * pad + pad / 2;
    int title_h = gfx_line_height(g, fit_px(g, 22, fit)) + pad / 2;
    SDL_Rect box = {0, sp->button.y + sp->button.h + pad / 2, label_w + 2 * pad + (chips_w > fit_px(g, 420, fit) ? chips_w : fit_px(g, 420, fit)), 0};
    box.h = panel_height(g, n, fit);
    if (box.w > W) box.w = W;
    box.x = W - box.w - pad > 0 ? W - box.w - pad : 0;
    gfx_fill(g, box, th->panel);
    gfx_frame(g, box, 2, th->accent);
    gfx_text(g, box.x + pad, box.y + pad, i18n(lang, S_SETTINGS), fit_px(g, 22, fit), th->text, GFX_LEFT);
    int cx = box.x + pad + label_w + pad, cw = box.x + box.w - pad - cx;
    for (int i = 0; i < n; i++) {
        int y = box.y + pad + title_h + i * row_h;
        SDL_Rect line = {box.x + fit_px(g, 4, fit), y - fit_px(g, 2, fit), box.w - fit_px(g, 8, fit), row_h};
        if (rows[i] == sp->row) gfx_fill(g, line, (th->accent & 0x00FFFFFF) | 0x30000000);
        gfx_text(g, box.x + pad, y + (row_h - lh) / 2, i18n(lang, labels[rows[i]]), px, th->text, GFX_LEFT);
        SDL_Rect r = {cx, y + fit_px(g, 2, fit), 0, row_h - fit_px(g, 6, fit)};
        if (rows[i] == ROW_STRATEGY) {
            for (int k = 0; k < n_modes; k++) {
                const char *name = i18n_mode_name(lang, modes[k]);
                r.w = gfx_text_width(g, name, px) + 2 * pad;
                wg_button(g, th, r, name, px, modes[k] == st->decode->mode);
                add_hit(sp, r, rows[i], 0, (int)modes[k]);
                r.x += r.w + pad / 2;
            }
            continue;
        }
        // − value +
        char value[4800];
        row_value(sp, st, rows[i], lang, value, sizeof value);
        r.w = r.h;
        wg_button(g, th, r, "\xE2\x88\x92", px, false);  // −
        add_hit(sp, r, rows[i], -1, -1);
        SDL_Rect plus = {cx + cw - r.w, r.y, r.w, r.h};
        wg_button(g, th, plus, "+", px, false);
        add_hit(sp, plus, rows[i], 1, -1);
        int vx = r.x + r.w + pad / 2, vw = plus.x - pad / 2 - vx;
        if (is_slider(rows[i]) && vw > fit_px(g, 160, fit)) {
            // the value, then its slider: a track and a knob, the whole height of the row clickable
            int value_w = fit_px(g, 64, fit), knob_w = fit_px(g, 10, fit);
            gfx_text_fit(g, vx, y + (row_h - lh) / 2, value_w, value, px, th->text, GFX_LEFT);
            SDL_Rect track = {vx + value_w + pad / 2, r.y, plus.x - pad - (vx + value_w + pad / 2), r.h};
            gfx_fill(g, (SDL_Rect){track.x, track.y + track.h / 2 - fit_px(g, 2, fit), track.w, fit_px(g, 4, fit)}, th->panel_edge);
            int kx = track.x + (int)lroundf(clamp_float(slider_at(st, rows[i]), 0.0f, 1.0f) * (float)(track.w - 1)) - knob_w / 2;
            gfx_fill(g, (SDL_Rect){kx, track.y, knob_w, track.h}, th->accent);
            add_hit(sp, track, rows[i], 0, SP_SLIDER);
            continue;
        }
        gfx_text_fit(g, vx, y + (row_h - lh) / 2, vw, value, px, th->text, GFX_LEFT);
    }
    gfx_text_fit(g, box.x + pad, box.y + box.h - pad - gfx_line_height(g, small), box.w - 2 * pad, i18n(lang, S_SETTINGS_HINT), small,
                 th->text_dim, GFX_LEFT);
    sp->box = box;
}
