#include "experiment.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "vocab.h"

bool xp_part_of(const Step *s, AblPart *part) {
    bool enc = s->stage->part == STAGE_ENCODER, dec = s->stage->part == STAGE_DECODER;
    if (!s->layer || (!enc && !dec)) return false;
    switch (s->stage->block) {
    case STAGE_BLOCK_SELF_ATTN: *part = enc ? ABL_ENC_SELF : ABL_DEC_SELF; return true;
    case STAGE_BLOCK_CROSS_ATTN: *part = ABL_DEC_CROSS; return dec;
    case STAGE_BLOCK_FFN: *part = enc ? ABL_ENC_FFN : ABL_DEC_FFN; return true;
    default: return false;
    }
}

void xp_clear(XpData *x) {
    trace_compare_deinit(&x->cmp);
    *x = (XpData){0};
}

void xp_update(XpData *x, const Model *m, const char *model_path, const Trace *t) {
    xp_clear(x);
    Error err;
    (void)m;
    if (trace_compare(t, model_path, NULL, 0, &x->cmp, &err)) {
        snprintf(x->why, sizeof x->why, "%s", err.msg);
        return;
    }
    x->ready = true;
}

static void format_aer(char *buf, size_t size, double aer) {
    if (aer < 0) snprintf(buf, size, "\xE2\x80\x94");  // —
    else snprintf(buf, size, "%.3f", aer);
}

void xp_draw(Gfx *g, SDL_Rect area, const ViewState *vs, const XpData *x) {
    const Theme *th = vs->theme;
    const Model *m = vs->model;
    Lang lang = vs->lang;
    int px = vs->font_px, lh = gfx_line_height(g, px), pad = gfx_px(g, 10);
    const Ablation *abl = &trace_options(vs->trace)->ablate;
    char line[1024], names[768];
    if (abl->n) snprintf(line, sizeof line, i18n(lang, S_XP_TITLE), abl_format(abl, names, sizeof names));
    else snprintf(line, sizeof line, "%s", i18n(lang, S_XP_NONE));
    int y = view_page_title(g, area, vs, line) + pad;
    if (!x->ready) {
        gfx_text_fit(g, area.x, y, area.w, x->why, px, th->text_dim, GFX_LEFT);
        return;
    }
    // the two runs side by side: output, mean loss, AER
    int col_w = area.w / 2 - pad, label_w = gfx_px(g, 170);
    static const StringId heads[2] = {S_XP_BEFORE, S_XP_AFTER};
    for (int i = 0; i < 2; i++) {
        int cx = area.x + i * (col_w + 2 * pad), cy = y;
        gfx_text_fit(g, cx, cy, col_w, i18n(lang, heads[i]), px, th->accent, GFX_LEFT);
        cy += lh;
        char out[512], aer[32];
        gfx_text_fit(g, cx, cy, label_w, i18n(lang, S_XP_OUTPUT), px, th->text_dim, GFX_LEFT);
        gfx_text_fit(g, cx + label_w, cy, col_w - label_w, view_output_text(m, x->cmp.free[i], out, sizeof out), px, th->text, GFX_LEFT);
        cy += lh;
        format_aer(aer, sizeof aer, x->cmp.aer[i]);
        snprintf(line, sizeof line, i18n(lang, S_XP_LOSS_AER), (double)trace_mean_loss(x->cmp.forced[i]), aer);
        gfx_text_fit(g, cx, cy, col_w, line, px, th->text, GFX_LEFT);
    }
    y += 3 * lh + pad;
    // each position of the forced target: the token, then the choice and the loss without and with
    int n_out;
    const int *target = trace_output(x->cmp.forced[0], &n_out);
    const Config *c = &m->cfg;
    int rows = c->n_enc + 2 * c->n_dec;
    int table_w = area.w * 45 / 100, row_h = lh + gfx_px(g, 2);
    int cols[5] = {area.x, area.x + table_w * 22 / 100, area.x + table_w * 44 / 100, area.x + table_w * 64 / 100, area.x + table_w * 86 / 100};
    static const StringId col_names[5] = {S_XP_TARGET, S_XP_CHOSEN, S_XP_LOSS, S_XP_CHOSEN, S_XP_LOSS};
    for (int i = 0; i < 2; i++) gfx_text_fit(g, cols[1 + 2 * i], y, cols[2] - cols[0], i18n(lang, heads[i]), px, th->text_dim, GFX_LEFT);
    y += row_h;
    for (int k = 0; k < 5; k++) gfx_text(g, cols[k], y, i18n(lang, col_names[k]), px, k == 0 ? th->text_dim : th->accent, GFX_LEFT);
    int ty = y + row_h;
    for (int r = 0; r <= n_out && ty + row_h <= area.y + area.h - lh; r++, ty += row_h) {
        const char *want = r < n_out ? voc_token(m->tgt, target[r]) : "<eos>";
        gfx_text_fit(g, cols[0], ty, cols[1] - cols[0] - pad, want, px, th->text, GFX_LEFT);
        for (int i = 0; i < 2; i++) {
            float loss;
            int best;
            if (!trace_forced_position(x->cmp.forced[i], r, &loss, &best)) continue;
            bool right = r < n_out ? best == target[r] : best == voc_eos(m->tgt);
            gfx_text_fit(g, cols[1 + 2 * i], ty, cols[2 + 2 * i] - cols[1 + 2 * i] - pad, voc_token(m->tgt, best), px,
                         right ? th->text : th->accent, GFX_LEFT);
            snprintf(line, sizeof line, "%.3f", (double)loss);
            gfx_text(g, cols[2 + 2 * i], ty, line, px, th->text, GFX_LEFT);
        }
    }
    // every head silenced alone: the loss, coloured by how much it rose
    int hx = area.x + table_w + 3 * pad, hw = area.x + area.w - hx, H = c->nhead;
    float base = trace_mean_loss(x->cmp.forced[0]), most = 1e-6f;
    for (int k = 0; k < rows * H; k++) most = fmaxf(most, fabsf(x->cmp.each_head[k] - base));
    snprintf(line, sizeof line, i18n(lang, S_XP_EACH_HEAD), (double)base);
    gfx_text_fit(g, hx, y, hw, line, px, th->text, GFX_LEFT);
    int name_w = gfx_px(g, 210), cell_w = (hw - name_w) / (H > 0 ? H : 1), cy = y + row_h;
    for (int h = 0; h < H; h++) {
        snprintf(line, sizeof line, "H%d", h + 1);
        gfx_text(g, hx + name_w + h * cell_w + cell_w / 2, cy, line, px, th->text_dim, GFX_CENTER);
    }
    cy += row_h;
    for (int r = 0; r < rows && cy + row_h <= area.y + area.h - lh; r++, cy += row_h) {
        AblPart part;
        int layer;
        trace_each_head_part(c, r, &part, &layer);
        abl_item_name((AblItem){(uint8_t)part, (uint8_t)layer, 0}, line, sizeof line);
        gfx_text_fit(g, hx, cy, name_w - pad, line, px, th->text, GFX_LEFT);
        for (int h = 0; h < H; h++) {
            float d = x->cmp.each_head[r * H + h] - base;
            SDL_Rect cell = {hx + name_w + h * cell_w, cy, cell_w - gfx_px(g, 2), row_h - gfx_px(g, 2)};
            Color fill = cmap_diverging(0.5f + 0.5f * d / most);  // a change of the loss: signed, 0 in white
            gfx_fill(g, cell, fill);
            if (abl_head(abl, part, layer, h + 1)) gfx_frame(g, cell, gfx_px(g, 2), th->accent);
            snprintf(line, sizeof line, "%+.3f", (double)d);
            gfx_text(g, cell.x + cell.w / 2, cell.y + (cell.h - lh) / 2, line, px, theme_text_on(fill), GFX_CENTER);
        }
    }
    gfx_text_fit(g, area.x, area.y + area.h - lh, area.w, i18n(lang, S_XP_HINT), px, th->text_dim, GFX_LEFT);
}
