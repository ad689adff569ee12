// Bars and choices: the tokens, the next token's probabilities (and the
// draw of a sampling step), the most likely tokens, the choice and the loss.
#include "view_private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Lays out token boxes of text size px in rows across area (draw false:
// measures only). Returns the height used.
static int token_rows(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s, int px, bool draw) {
    const Theme *t = vs->theme;
    int small = SDL_max(view_small_px(vs), px / 2), pad = SDL_max(gfx_px(g, 10), px / 4), x = area.x, y = area.y + pad;
    int lh = gfx_line_height(g, px), row_h = lh + gfx_line_height(g, small) + 3 * pad;
    char buf[32];
    for (int c = 0; c < s->cols; c++) {
        const char *tok = s->col_labels ? s->col_labels[c] : "?";
        int w = gfx_text_width(g, tok, px) + 2 * pad;
        if (x + w > area.x + area.w && x > area.x) {
            x = area.x;
            y += row_h;
        }
        if (draw) {
            bool unk = !strcmp(tok, VOC_UNK);
            SDL_Rect box = {x, y, w, lh + pad};
            gfx_fill(g, box, unk ? t->chosen : c == vs->hover_col ? t->hover : t->accent);
            gfx_text(g, x + w / 2, y + pad / 2, tok, px, t->accent_text, GFX_CENTER);
            snprintf(buf, sizeof buf, "%d", (int)s->data[c]);
            gfx_text(g, x + w / 2, y + lh + pad + gfx_px(g, 4), buf, small, t->text_dim, GFX_CENTER);
        }
        x += w + pad;
    }
    return y + row_h - area.y;
}

// Token boxes with ids under them, as large as the area holds; <unk> stands out.
void bar_view_tokens(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s) {
    int px = vs->font_px * 5 / 2, least = vs->font_px;
    while (px > least && token_rows(g, area, vs, s, px, false) > area.h) px = SDL_max(least, px * 9 / 10);
    token_rows(g, area, vs, s, px, true);
}

typedef struct {
    const char *label;
    float value;
    bool mark;
} Bar;

// Horizontal bars, full length at the value full.
// rows_are_steps: bar i is row i of the step, so a lesson can outline it.
// Returns the y under the last row drawn.
static int draw_bars(Gfx *g, SDL_Rect area, const ViewState *vs, const Bar *bars, int n, const char *fmt, float full, bool rows_are_steps) {
    const Theme *t = vs->theme;
    int px = vs->font_px, lh = gfx_line_height(g, px), pad = gfx_px(g, 6);
    int label_w = 0;
    for (int i = 0; i < n; i++) {
        int w = gfx_text_width(g, bars[i].label, px);
        if (w > label_w) label_w = w;
    }
    int row_h = lh + pad, bar_x = area.x + label_w + 2 * pad, bar_w = area.x + area.w - bar_x - gfx_px(g, 110);  // the value and ◀ after it
    char buf[32];
    int i = 0;
    for (; i < n && (i + 1) * row_h <= area.h; i++) {
        int y = area.y + i * row_h;
        Color c = bars[i].mark ? t->chosen : t->accent;
        gfx_text(g, bar_x - pad, y + pad / 2, bars[i].label, px, bars[i].mark ? t->chosen : t->text, GFX_RIGHT);
        int w = (int)(fmaxf(0.0f, fminf(1.0f, bars[i].value / full)) * (float)bar_w);
        gfx_fill(g, (SDL_Rect){bar_x, y + pad / 2, w > 1 ? w : 1, lh}, c);
        snprintf(buf, sizeof buf, fmt, (double)bars[i].value);
        gfx_text(g, bar_x + w + pad, y + pad / 2, buf, px, t->text_dim, GFX_LEFT);
        if (bars[i].mark) gfx_text(g, bar_x + w + gfx_px(g, 80), y + pad / 2, "\xE2\x97\x80", px, t->chosen, GFX_LEFT);  // ◀
        if (rows_are_steps && view_row_highlighted(vs, i)) view_outline_row(g, vs, (SDL_Rect){area.x, y, bar_x + bar_w + gfx_px(g, 100) - area.x, row_h});
    }
    return area.y + i * row_h;
}

// The token chosen at a decoding step, or -1.
static int chosen_at(const Trace *tr, int dstep) {
    const Step *choice = view_find_kind(tr, STAGE_KIND_CHOICE, dstep);
    return choice ? (int)choice->data[0] : -1;
}

// The draw of a sampling step: the tokens' shares of [0, 1) laid end to end
// in rank order, the chosen one's share marked, and u on it.
static void draw_strip(Gfx *g, SDL_Rect area, const ViewState *vs, const TraceRanked *r, int n, int chosen, float u, int y) {
    const Theme *t = vs->theme;
    int px = view_small_px(vs), lh = gfx_line_height(g, px), pad = gfx_px(g, 6);
    int x0 = area.x + pad, w = area.w - 2 * pad - gfx_px(g, 40), h = lh * 2;
    char buf[200];
    snprintf(buf, sizeof buf, i18n(vs->lang, S_V_DRAW_STRIP), (double)u, voc_token(vs->model->tgt, chosen));
    int said_h = gfx_text_wrap(g, x0, y, area.w - 2 * pad, buf, px, t->text_dim, false);
    if (w < 20 || y + said_h + 2 * lh + h + pad > area.y + area.h) return;
    gfx_text_wrap(g, x0, y, area.w - 2 * pad, buf, px, t->text_dim, true);
    y += said_h + lh;  // room for u's label above the strip
    double acc = 0.0;
    for (int i = 0; i < n && r[i].p > 0.0f; i++) {
        int a = x0 + (int)lround(acc * w);
        acc += r[i].p;
        int b = x0 + (int)lround(fmin(acc, 1.0) * w);
        Color c = r[i].id == chosen ? t->chosen : view_with_alpha(t->accent, i % 2 ? 0.45f : 0.8f);
        gfx_fill(g, (SDL_Rect){a, y, b - a > 1 ? b - a : 1, h}, c);
        const char *tok = voc_token(vs->model->tgt, r[i].id);
        if (b - a > gfx_text_width(g, tok, px) + pad)
            gfx_text(g, (a + b) / 2, y + (h - lh) / 2, tok, px, r[i].id == chosen ? t->accent_text : t->text, GFX_CENTER);
    }
    gfx_frame(g, (SDL_Rect){x0, y, w, h}, 1, t->panel_edge);
    gfx_text(g, x0, y + h + gfx_px(g, 2), "0", px, t->text_dim, GFX_CENTER);
    gfx_text(g, x0 + w, y + h + gfx_px(g, 2), "1", px, t->text_dim, GFX_CENTER);
    // u: a line through the strip and its value above it
    int ux = x0 + (int)lroundf(u * (float)w), m = gfx_px(g, 2);
    gfx_fill(g, (SDL_Rect){ux - m / 2, y - gfx_px(g, 4), m > 1 ? m : 1, h + gfx_px(g, 8)}, t->text);
    snprintf(buf, sizeof buf, "u = %.3f", (double)u);
    gfx_text(g, ux, y - lh - gfx_px(g, 4), buf, px, t->text, GFX_CENTER);
}

// The most likely tokens of the last row, best first. In a sampling step the
// tokens top-k and top-p removed (P = 0) are counted, not drawn; a chosen
// token below the bars takes the last bar, with its rank; and the draw u is
// shown on the tokens' shares.
void bar_view_probs(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s) {
    const Theme *t = vs->theme;
    // the choice of this step: its token, and the draw u (−1 for greedy)
    const Step *choice = view_find_kind(vs->trace, STAGE_KIND_CHOICE, s->dstep);
    int V = s->cols, chosen = choice ? (int)choice->data[0] : -1;
    float u = choice ? choice->data[2] : -1.0f;
    const float *p = trace_row(s, s->rows - 1);
    bool sampled = s->stage->block == STAGE_BLOCK_CHOICE;  // the draw, not the model's probabilities
    TraceRanked *r = malloc((size_t)V * sizeof *r);
    if (!r) {
        view_say(g, area, vs, S_V_NO_MEMORY);
        return;
    }
    int kept = 0, chosen_rank = -1;
    trace_rank(r, p, V);  // in the sampler's order: the strip lays them end to end as it did
    for (int j = 0; j < V; j++) {
        if (r[j].id == chosen) chosen_rank = j;
        kept += !sampled || r[j].p > 0.0f;
    }
    bool strip = sampled && chosen >= 0 && u >= 0.0f;
    // as many bars as leave room for the lines under them (draw_strip: 6 lines)
    int px = view_small_px(vs), lh = gfx_line_height(g, px), row_h = gfx_line_height(g, vs->font_px) + gfx_px(g, 6);
    int below = gfx_px(g, 8) + (sampled && kept < V ? lh : 0) + (strip ? 6 * lh : 0);
    int fit = (area.h - below) / row_h;
    Bar bars[12];
    int n = kept < 12 ? kept : 12;
    if (n > fit) n = SDL_min(n, SDL_max(fit, 2));  // never more than the tokens kept
    for (int i = 0; i < n; i++) bars[i] = (Bar){voc_token(vs->model->tgt, r[i].id), r[i].p, r[i].id == chosen};
    char ranked[160];
    if (chosen_rank >= n && n > 0) {
        snprintf(ranked, sizeof ranked, i18n(vs->lang, S_V_RANK), voc_token(vs->model->tgt, chosen), chosen_rank + 1);
        bars[n - 1] = (Bar){ranked, p[chosen], true};
    }
    int y = draw_bars(g, area, vs, bars, n, "%.3f", 1.0f, false) + gfx_px(g, 8);
    char buf[160];
    if (sampled && kept < V && y + lh <= area.y + area.h) {
        // <pad>, <bos> and <unk> have P = 0 too unless allowed; said apart from what top-k and top-p removed
        const Vocab *tv = vs->model->tgt;
        int special = trace_options(vs->trace)->allow_special ? 0 : 3, removed = V - kept - special;
        if (!special) snprintf(buf, sizeof buf, i18n(vs->lang, S_V_REMOVED), removed);
        else if (removed > 0) snprintf(buf, sizeof buf, i18n(vs->lang, S_V_REMOVED_SPECIAL), removed, voc_token(tv, voc_pad(tv)),
                                       voc_token(tv, voc_bos(tv)), voc_token(tv, voc_unk(tv)));
        else snprintf(buf, sizeof buf, i18n(vs->lang, S_V_SPECIAL), voc_token(tv, voc_pad(tv)), voc_token(tv, voc_bos(tv)), voc_token(tv, voc_unk(tv)));
        gfx_text(g, area.x + gfx_px(g, 6), y, buf, px, t->text_dim, GFX_LEFT);
        y += lh;
    }
    if (strip) draw_strip(g, area, vs, r, kept, chosen, u, y + lh);
    free(r);
}

void bar_view_top_k(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s) {
    Bar bars[64];
    int chosen = chosen_at(vs->trace, s->dstep), n = s->rows < 64 ? s->rows : 64;
    const char *chosen_tok = chosen >= 0 ? voc_token(vs->model->tgt, chosen) : NULL;
    for (int i = 0; i < n; i++) bars[i] = (Bar){s->row_labels[i], s->data[i], chosen_tok && !strcmp(chosen_tok, s->row_labels[i])};
    draw_bars(g, area, vs, bars, n, "%.3f", 1.0f, true);
}

// The tokens chosen up to s's step, in rows across area from y at size px,
// the last one lit; measured only when draw is false. Returns the height taken.
static int choice_tokens(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s, int px, int y, bool draw) {
    const Theme *t = vs->theme;
    int pad = gfx_px(g, 10), lh = gfx_line_height(g, px), x = area.x, top = y;
    y += 2 * pad;
    for (int d = 1; d <= s->dstep; d++) {
        int at = chosen_at(vs->trace, d);
        if (at < 0) break;
        const char *tok = voc_token(vs->model->tgt, at);
        int w = gfx_text_width(g, tok, px) + 2 * pad;
        if (x + w > area.x + area.w && x > area.x) {
            x = area.x;
            y += lh + 2 * pad;
        }
        bool now = d == s->dstep;
        if (draw) {
            gfx_fill(g, (SDL_Rect){x, y, w, lh + pad}, now ? t->chosen : t->panel_edge);
            gfx_text(g, x + w / 2, y + pad / 2, tok, px, now ? t->accent_text : t->text, GFX_CENTER);
        }
        x += w + pad;
    }
    return y + lh + 2 * pad - top;
}

// The choice in words, then the output so far with the new token marked,
// as large as the area holds.
void bar_view_choice(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s) {
    const Theme *t = vs->theme;
    int id = (int)s->data[0];
    const char *chosen = id >= 0 && id < voc_size(vs->model->tgt) ? voc_token(vs->model->tgt, id) : "?";
    bool sampled = s->data[2] >= 0.0f;
    char words[256], buf[96];
    if (sampled) snprintf(words, sizeof words, i18n(vs->lang, S_CHOICE_WORDS_SAMPLED), s->dstep, chosen);
    else snprintf(words, sizeof words, i18n(vs->lang, S_CHOICE_WORDS_GREEDY), s->dstep, chosen, voc_size(vs->model->tgt));
    int y = area.y + gfx_text_wrap(g, area.x, area.y, area.w, words, vs->font_px, t->text, true);
    if (sampled) snprintf(buf, sizeof buf, i18n(vs->lang, S_V_CHOICE_SAMPLED), (double)s->data[1], (double)s->data[2]);
    else snprintf(buf, sizeof buf, i18n(vs->lang, S_V_CHOICE_GREEDY), (double)s->data[1]);
    y += gfx_text_wrap(g, area.x, y, area.w, buf, vs->font_px, t->text_dim, true);
    // the tokens: the largest size at which they fit the rest of the area, in rows
    int px = vs->font_px * 5 / 2;
    while (px > vs->font_px && y + choice_tokens(g, area, vs, s, px, y, false) > area.y + area.h) px = SDL_max(vs->font_px, px * 9 / 10);
    choice_tokens(g, area, vs, s, px, y, true);
}

void bar_view_loss(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s) {
    Bar bars[64];
    int n = s->rows < 64 ? s->rows : 64;
    float mx = 1e-6f;
    for (int i = 0; i < n; i++) mx = fmaxf(mx, s->data[i]);
    for (int i = 0; i < n; i++) bars[i] = (Bar){s->row_labels[i], s->data[i], false};
    draw_bars(g, area, vs, bars, n, "%.3f", mx, true);  // lengths relative to the largest loss, numbers as they are
}
