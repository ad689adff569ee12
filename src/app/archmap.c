#include "archmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stage.h"
#include "view.h"

enum { MAX_BOXES = 512, MAX_LAYERS = 64 };

// A box of the map: the value its click goes to, where it is drawn.
typedef struct {
    const StageInfo *stage;  // the box's main value: the attention weights, the value that ends the sub-layer, or its last stop
    int layer;               // 0 outside the layers
    bool decoder;            // the decoder's side of the map (its input, stack, output and the choice)
    SDL_Rect r;              // h 0: folded into its layer's row
} Box;

typedef struct {
    Box box[MAX_BOXES];
    int n;
    int current;                            // the box of the step shown, or -1
    SDL_Rect layer[2][MAX_LAYERS + 1];      // each side's layer frames (w 0: none)
    bool folded[2][MAX_LAYERS + 1];         // a layer drawn as one row, its first box the click's
    int px, pad;
    SDL_Rect title[2], footer;
    // what it was laid out for: a click or the pointer over the frame drawn needs no layout again
    // (the trace is asked again for the step a click goes to, so a stale layout cannot send it astray)
    const Trace *t;
    int step, scale_px;
    AmapMode mode;
    SDL_Rect area;
} Map;

// Where drawing and clicks lay the map out: 30 KB, kept off the stack of every frame.
static Map scratch;

static bool decoder_side(const StageInfo *s) { return s->part != STAGE_SOURCE && s->part != STAGE_ENCODER; }

static bool same_box(const StageInfo *a, const StageInfo *b) {
    return a->part == b->part && a->block == b->block && a->sublayer == b->sublayer;
}

// Which of two stages of a box a click on it goes to.
static int rank(const StageInfo *s) { return s->attention_weights ? 3 : s->ends_sublayer ? 2 : s->stop ? 1 : 0; }

// The boxes, in the order the trace first records their stages.
static void collect(const Trace *t, int step, Map *m) {
    m->n = 0;
    m->current = -1;
    const Step *now = trace_step(t, step);
    for (int i = 0; i < trace_count(t); i++) {
        const Step *s = trace_step(t, i);
        int b = 0;
        while (b < m->n && !(m->box[b].layer == s->layer && same_box(m->box[b].stage, s->stage))) b++;
        if (b == m->n) {
            if (m->n == MAX_BOXES || s->layer > MAX_LAYERS) continue;
            m->box[m->n++] = (Box){s->stage, s->layer, decoder_side(s->stage), {0}};
        } else if (rank(s->stage) > rank(m->box[b].stage) ||
                   (rank(s->stage) == 1 && rank(m->box[b].stage) == 1 && s->stage != m->box[b].stage))
            m->box[b].stage = s->stage;  // a later stop is the box's result
        if (now && now->layer == s->layer && same_box(now->stage, s->stage)) m->current = b;
    }
}

static int box_px(Gfx *g) { return gfx_px(g, 14); }  // the smallest text: the map stays narrow

int amap_strip_height(Gfx *g) { return gfx_px(g, 44); }

int amap_width(Gfx *g, AmapMode mode, Lang lang) {
    if (mode == AMAP_HIDDEN || mode == AMAP_STRIP) return 0;
    if (mode == AMAP_SMALL) return gfx_px(g, 60);
    int px = box_px(g), pad = gfx_px(g, 5), widest = 0;
    for (int i = 0; i < stage_count(); i++) {
        int w = gfx_text_width(g, stage_box_name(stage_at(i), view_stage_lang(lang)), px);
        widest = w > widest ? w : widest;
    }
    return 2 * (widest + 7 * pad) + gfx_px(g, 22);  // a box is 2 pads into its layer's frame, its text a pad into the box
}

// One side's boxes from y down, each layer framed under its name, the
// layers other than the current one folded to a row when fold; placed only
// when place (otherwise measured). Returns the bottom.
static int place_side(Map *m, int side, int x0, int col_w, int y, int row, int head_h, bool fold, int now_layer, bool now_decoder,
                      bool place) {
    int pad = m->pad, last_layer = -1;
    SDL_Rect *frame = NULL;  // the open layer's, when placing
    bool in_frame = false;
    for (int b = 0; b < m->n; b++) {
        Box *x = &m->box[b];
        if (x->decoder != side) continue;
        bool fold_it = fold && x->layer > 0 && !(x->layer == now_layer && now_decoder == side);
        if (x->layer != last_layer) {
            if (in_frame) {  // the layer before ends
                if (place) frame->h = y + pad - frame->y;
                y += pad;
                in_frame = false;
            }
            y += pad;
            if (x->layer > 0) {
                if (place) {
                    frame = &m->layer[side][x->layer];
                    *frame = (SDL_Rect){x0, y, col_w, 0};
                    m->folded[side][x->layer] = fold_it;
                }
                in_frame = true;
                y += head_h + pad + (fold_it ? row : 0);
            }
        }
        if (place) x->r = fold_it ? (SDL_Rect){0} : (SDL_Rect){x0 + 2 * pad, y, col_w - 4 * pad, row - pad / 2};
        if (!fold_it) y += row;
        last_layer = x->layer;
    }
    if (in_frame) {
        if (place) frame->h = y + pad - frame->y;
        y += pad;
    }
    return y;
}

// The strip: the encoder's boxes in the top row, the decoder's under them,
// left to right with a gap between layers, each layer framed.
static void layout_strip(Gfx *g, SDL_Rect area, Map *m) {
    m->px = gfx_px(g, 14);
    m->pad = gfx_px(g, 2);
    int pad = m->pad, gap = gfx_px(g, 5), row_h = (area.h - 3 * pad) / 2;
    m->title[0] = m->title[1] = m->footer = (SDL_Rect){0};
    // each row named at its left ("Encoder", "Decoder"), as wide as the wider name in either language
    int name_w = 0;
    for (int side = 0; side < 2; side++)
        for (Lang l = 0; l < LANG_COUNT; l++) name_w = SDL_max(name_w, gfx_text_width(g, i18n(l, side ? S_MAP_DECODER : S_MAP_ENCODER), m->px));
    name_w += 3 * gfx_px(g, 4);
    if (name_w > area.w / 3) name_w = 0;  // a strip too narrow: boxes only
    for (int side = 0; side < 2 && name_w; side++)
        m->title[side] = (SDL_Rect){area.x, area.y + pad + side * (row_h + pad), name_w, row_h};
    area.x += name_w;
    area.w -= name_w;
    memset(m->layer, 0, sizeof m->layer);
    memset(m->folded, 0, sizeof m->folded);
    for (int side = 0; side < 2; side++) {
        int n = 0, groups = 0, last = -1;
        for (int b = 0; b < m->n; b++)
            if (m->box[b].decoder == side) {
                n++;
                groups += m->box[b].layer != last;
                last = m->box[b].layer;
            }
        if (n == 0) continue;
        float w = (float)(area.w - 2 * pad - (groups - 1) * gap) / (float)n, x = (float)(area.x + pad);
        int y = area.y + pad + side * (row_h + pad);
        last = -1;
        for (int b = 0; b < m->n; b++) {
            Box *bx = &m->box[b];
            if (bx->decoder != side) continue;
            if (last != -1 && bx->layer != last) x += (float)gap;
            bx->r = (SDL_Rect){(int)x + 1, y + 2, SDL_max(1, (int)(x + w) - (int)x - 2), row_h - 4};
            if (bx->layer > 0) {  // its layer's frame grows to hold it
                SDL_Rect *f = &m->layer[side][bx->layer], cell = {(int)x, y, (int)(x + w) - (int)x, row_h};
                if (f->w == 0) *f = cell;
                else *f = gfx_union(*f, cell);
            }
            x += w;
            last = bx->layer;
        }
    }
}

// Where everything goes: the two sides in columns, the encoder's and the
// decoder's; layers other than the current one fold to a row when the whole
// does not fit the height (and a small map is squeezed).
static void layout(Gfx *g, SDL_Rect area, const Trace *t, int step, AmapMode mode, Map *m) {
    m->t = t;
    m->step = step;
    m->mode = mode;
    m->scale_px = gfx_px(g, 100);  // the type size it was measured at
    m->area = area;
    collect(t, step, m);
    if (mode == AMAP_STRIP) {
        layout_strip(g, area, m);
        return;
    }
    bool full = mode == AMAP_FULL;
    m->px = full ? box_px(g) : gfx_px(g, 14);  // a small map has no words, only its step counter
    m->pad = gfx_px(g, full ? 5 : 2);
    int pad = m->pad, gap = full ? gfx_px(g, 22) : gfx_px(g, 12), lh = gfx_line_height(g, m->px);
    int col_w = (area.w - gap) / 2, head_h = full ? lh : 0;
    int title_h = full ? lh + pad : pad, footer_h = 2 * lh + pad;  // the step, and the token it produces
    m->title[0] = (SDL_Rect){area.x, area.y, col_w, lh};
    m->title[1] = (SDL_Rect){area.x + col_w + gap, area.y, col_w, lh};
    m->footer = (SDL_Rect){area.x, area.y + area.h - footer_h + pad, area.w, footer_h - pad};
    int top = area.y + title_h, bottom = area.y + area.h - footer_h;
    const Step *now = trace_step(t, step);
    int now_layer = now ? now->layer : 0;
    bool now_decoder = now && decoder_side(now->stage);
    memset(m->layer, 0, sizeof m->layer);
    memset(m->folded, 0, sizeof m->folded);
    int row = full ? lh + pad : gfx_px(g, 10);
    bool fold = false;
    for (;;) {
        int most = 0;
        for (int side = 0; side < 2; side++)
            most = SDL_max(most, place_side(m, side, 0, col_w, top, row, head_h, fold, now_layer, now_decoder, false));
        if (most <= bottom || (fold && (full || row <= 3))) break;
        if (!fold) fold = true;
        else row--;  // a small map, folded, is squeezed until it fits
    }
    for (int side = 0; side < 2; side++)
        place_side(m, side, side ? area.x + col_w + gap : area.x, col_w, top, row, head_h, fold, now_layer, now_decoder, true);
}

// A folded layer's row: under its name, across the frame.
static SDL_Rect folded_row(const Map *m, int side, int layer, bool full, int lh) {
    SDL_Rect f = m->layer[side][layer];
    int top = f.y + (full ? lh : 0) + m->pad;
    return (SDL_Rect){f.x + 2 * m->pad, top, f.w - 4 * m->pad, f.y + f.h - m->pad - top};
}

void amap_draw(Gfx *g, SDL_Rect area, const Trace *t, int step, AmapMode mode, const Theme *th, Lang lang) {
    if (mode == AMAP_HIDDEN || area.w <= 0 || area.h <= 0) return;
    Map *m = &scratch;
    layout(g, area, t, step, mode, m);
    bool full = mode == AMAP_FULL;
    int px = m->px, pad = m->pad, lh = gfx_line_height(g, px);
    StageLang sl = view_stage_lang(lang);
    const Step *now = trace_step(t, step);
    gfx_frame(g, area, 1, th->panel_edge);  // on the window's own background: a 4K frame paints 7 MB less
    if (full) {
        gfx_text_fit(g, m->title[0].x + pad, m->title[0].y + pad / 2, m->title[0].w - pad, i18n(lang, S_MAP_ENCODER), px, th->text, GFX_LEFT);
        gfx_text_fit(g, m->title[1].x + pad, m->title[1].y + pad / 2, m->title[1].w - pad, i18n(lang, S_MAP_DECODER), px, th->text, GFX_LEFT);
    } else if (mode == AMAP_STRIP)  // the strip's rows, named
        for (int side = 0; side < 2; side++)
            if (m->title[side].w > 0)
                gfx_text(g, m->title[side].x + gfx_px(g, 4), m->title[side].y + (m->title[side].h - lh) / 2,
                         i18n(lang, side ? S_MAP_DECODER : S_MAP_ENCODER), px, th->text_dim, GFX_LEFT);
    // the layers' frames and names; a folded layer is one row
    for (int side = 0; side < 2; side++)
        for (int l = 1; l <= MAX_LAYERS; l++) {
            SDL_Rect f = m->layer[side][l];
            if (f.w <= 0) continue;
            bool here = now && now->layer == l && decoder_side(now->stage) == side;
            gfx_frame(g, f, here ? 2 : 1, here ? th->accent : th->panel_edge);
            char name[64];
            snprintf(name, sizeof name, i18n(lang, S_MAP_LAYER), l);
            if (full) gfx_text_fit(g, f.x + pad, f.y + pad / 2, f.w - 2 * pad, name, px, th->text_dim, GFX_LEFT);
            if (m->folded[side][l]) {  // its sub-layers hidden for room: a click shows the layer's first
                SDL_Rect r = folded_row(m, side, l, full, lh);
                gfx_fill(g, r, th->panel);
                gfx_frame(g, r, 1, th->panel_edge);
                if (full) gfx_text_fit(g, r.x + pad, r.y + (r.h - lh) / 2, r.w - 2 * pad, "\xE2\x80\xA6", px, th->text_dim, GFX_LEFT);
            }
        }
    // the memory: from the encoder's last box into every cross-attention of the decoder
    const Box *memory = NULL;
    for (int b = 0; b < m->n; b++)
        if (!m->box[b].decoder) memory = &m->box[b];
    if (memory && memory->r.h > 0 && mode != AMAP_STRIP) {  // the strip is a locator: its lines would cross its boxes
        float x0 = (float)(memory->r.x + memory->r.w), y0 = (float)memory->r.y + (float)memory->r.h / 2.0f;
        float mid = (float)(m->title[0].x + m->title[0].w) + (float)(m->title[1].x - m->title[0].x - m->title[0].w) / 2.0f;
        float w = full ? (float)gfx_px(g, 2) : 1.0f, head = (float)gfx_px(g, full ? 6 : 3);
        Color c = th->text_dim;
        float top = y0, bottom = y0;
        for (int b = 0; b < m->n; b++) {
            const Box *x = &m->box[b];
            if (x->stage->block != STAGE_BLOCK_CROSS_ATTN) continue;
            SDL_Rect r = x->r.h > 0 ? x->r : folded_row(m, 1, x->layer, full, lh);
            float y = (float)r.y + (float)r.h / 2.0f, x1 = (float)r.x;
            gfx_line(g, mid, y, x1, y, w, c);
            gfx_line(g, x1 - head, y - head, x1, y, w, c);
            gfx_line(g, x1 - head, y + head, x1, y, w, c);
            top = y < top ? y : top;
            bottom = y > bottom ? y : bottom;
        }
        gfx_line(g, x0, y0, mid, y0, w, c);
        gfx_line(g, mid, top, mid, bottom, w, c);
    }
    // the boxes, the current one in the accent colour
    for (int b = 0; b < m->n; b++) {
        const Box *x = &m->box[b];
        if (x->r.h <= 0) continue;
        bool here = b == m->current;
        gfx_fill(g, x->r, here ? th->accent : th->panel);
        gfx_frame(g, x->r, 1, here ? th->accent : th->panel_edge);
        if (!full) continue;
        char name[160];
        const char *label = stage_box_name(x->stage, sl), *out = NULL;
        if (x->stage->block == STAGE_BLOCK_CHOICE && now && now->dstep > 0 && (out = view_produced_at(t, now->dstep)))
            snprintf(name, sizeof name, lang == LANG_ZH_TW ? "%s：%s" : "%s: %s", label, out);
        else
            snprintf(name, sizeof name, "%s", label);
        gfx_text_fit(g, x->r.x + pad, x->r.y + (x->r.h - lh) / 2, x->r.w - 2 * pad, name, px, here ? th->accent_text : th->text, GFX_LEFT);
    }
    // under it all: the decoding step, and the token it produces (the strip has no room: the title says them)
    if (now && now->dstep > 0 && mode != AMAP_STRIP) {
        int last = view_last_dstep(t);
        char line[128];
        if (full) snprintf(line, sizeof line, i18n(lang, S_MAP_STEP), now->dstep, last);
        else snprintf(line, sizeof line, "%d/%d", now->dstep, last);
        const char *out = view_produced_at(t, now->dstep);
        gfx_text_fit(g, m->footer.x + pad, m->footer.y, m->footer.w - 2 * pad, line, px, th->text, GFX_LEFT);
        if (out && !full && gfx_text_width(g, out, px) <= m->footer.w - 2 * pad)  // small: the token alone, where it fits
            gfx_text(g, m->footer.x + pad, m->footer.y + lh, out, px, th->accent, GFX_LEFT);
        else if (out && full) {
            char producing[96];
            snprintf(producing, sizeof producing, i18n(lang, S_PRODUCING), out);
            gfx_text_fit(g, m->footer.x + pad, m->footer.y + lh, m->footer.w - 2 * pad, producing, px, th->accent, GFX_LEFT);
        }
    }
}

// The step of stage at layer nearest to step's decoding step, at head for a value per head.
static int step_of(const Trace *t, const StageInfo *stage, int layer, int dstep, int head) {
    int best = -1, best_cost = 0;
    for (int i = 0; i < trace_count(t); i++) {
        const Step *s = trace_step(t, i);
        if (s->stage != stage || s->layer != layer) continue;
        int cost = 4 * abs(s->dstep - dstep) + (stage->per_head && s->head != (head > 0 ? head : 1));
        if (best < 0 || cost < best_cost) best = i, best_cost = cost;
    }
    return best;
}

int amap_click(Gfx *g, SDL_Rect area, const Trace *t, int step, int head, AmapMode mode, int x, int y) {
    if (mode == AMAP_HIDDEN || !SDL_PointInRect(&(SDL_Point){x, y}, &area)) return -1;
    Map *m = &scratch;
    if (!(m->t == t && m->step == step && m->mode == mode && m->scale_px == gfx_px(g, 100) && SDL_RectEquals(&m->area, &area)))
        layout(g, area, t, step, mode, m);
    const Step *now = trace_step(t, step);
    int dstep = now ? now->dstep : 0, lh = gfx_line_height(g, m->px);
    for (int b = 0; b < m->n; b++) {
        const Box *bx = &m->box[b];
        SDL_Rect r = bx->r.h > 0 ? bx->r : m->folded[bx->decoder][bx->layer] ? folded_row(m, bx->decoder, bx->layer, mode == AMAP_FULL, lh)
                                                                           : (SDL_Rect){0};
        if (r.w > 0 && SDL_PointInRect(&(SDL_Point){x, y}, &r)) {
            // the encoder and the source are computed once: decoding step 0
            int at = step_of(t, bx->stage, bx->layer, bx->decoder ? (dstep > 0 ? dstep : 1) : 0, head);
            if (at >= 0) return at;
        }
    }
    return -1;
}
