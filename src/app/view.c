// The table of views: which view draws a step, chosen by the kind of its
// stage, and what the view files share. Adding a view: its file (declared in
// view_private.h) and a row in views[].
#include "view_private.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "vocab.h"

typedef struct {
    StageKind kind;
    bool one_row;   // only a step of one row (the next token's P: bars; the P of every position: a heatmap)
    void (*draw)(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s);
    // The cell under a point; NULL: the view is not a matrix of cells (no hover, no cell readout).
    bool (*hit)(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s, int x, int y, int *row, int *col);
} ViewRow;

static const ViewRow views[] = {
    {STAGE_KIND_TOKENS, false, bar_view_tokens, NULL},
    {STAGE_KIND_PROBS, true, bar_view_probs, NULL},
    {STAGE_KIND_TOP_K, false, bar_view_top_k, NULL},
    {STAGE_KIND_CHOICE, false, bar_view_choice, NULL},
    {STAGE_KIND_BEAM, false, beam_draw, NULL},
    {STAGE_KIND_LOSS, false, bar_view_loss, NULL},
    {STAGE_KIND_MATRIX, false, panels_draw, panels_hit},
    {STAGE_KIND_ATTENTION, false, panels_draw, panels_hit},
    {STAGE_KIND_SCORES, false, panels_draw, panels_hit},
    {STAGE_KIND_MASK, false, panels_draw, panels_hit},
    {STAGE_KIND_PROBS, false, panels_draw, panels_hit},
};

// The view of step s: the first row of its kind that takes it.
static const ViewRow *view_of(const Step *s) {
    for (size_t i = 0; i < sizeof views / sizeof *views; i++)
        if (views[i].kind == s->stage->kind_id && (!views[i].one_row || s->rows == 1)) return &views[i];
    return NULL;
}

void view_draw(Gfx *g, SDL_Rect area, const ViewState *vs) {
    const Step *s = trace_step(vs->trace, vs->step);
    const ViewRow *v = s ? view_of(s) : NULL;
    SDL_Rect outer = gfx_get_clip(g), clip;  // inside any clip already set (a zoomed view is larger than its place)
    if (!v || !gfx_intersect(&area, &outer, &clip)) return;
    gfx_clip(g, &clip);
    v->draw(g, area, vs, s);
    gfx_clip(g, &outer);
}

bool view_hit(Gfx *g, SDL_Rect area, const ViewState *vs, int x, int y, int *row, int *col) {
    const Step *s = trace_step(vs->trace, vs->step);
    const ViewRow *v = s ? view_of(s) : NULL;
    return v && v->hit && v->hit(g, area, vs, s, x, y, row, col);
}

bool view_cell_size(Gfx *g, SDL_Rect area, const ViewState *vs, int *w, int *h) {
    const Step *s = trace_step(vs->trace, vs->step);
    const ViewRow *v = s ? view_of(s) : NULL;
    return v && v->draw == panels_draw && panels_cell_size(g, area, vs, s, w, h);
}

ViewSwitches view_switches(const ViewState *vs) {
    const Step *s = trace_step(vs->trace, vs->step);
    ViewSwitches w = {0};
    if (!s) return w;
    w.heads_grid = w.lines = panels_heads_grid(s);
    w.side_by_side = panels_side_by_side(s);
    w.kv_cache = panels_kv_cache(vs, s);
    ViewState with_gold = *vs;
    with_gold.opt.no_gold = false;
    w.gold = view_gold_for(&with_gold, s, NULL) != NULL;
    return w;
}

const char *view_produced_at(const Trace *t, int d) {
    if (trace_options(t)->mode == DECODE_TEACHER) return NULL;
    const Step *choice = view_find_kind(t, STAGE_KIND_CHOICE, d);
    return choice && choice->row_labels ? choice->row_labels[0] : NULL;
}

StageLang view_stage_lang(Lang lang) { return lang == LANG_ZH_TW ? STAGE_ZH_TW : STAGE_EN; }

int view_last_dstep(const Trace *t) {
    int last = 0;
    for (int i = 0; i < trace_count(t); i++) last = SDL_max(last, trace_step(t, i)->dstep);
    return last;
}

const char *view_step_name_at(const Trace *t, const Step *s, Lang lang, int detail, char *buf, size_t size) {
    const char *sep = lang == LANG_ZH_TW ? "\xE3\x83\xBB" : " \xC2\xB7 ";  // ・ or ·
    char part[96];
    stage_human_name(s->stage, s->layer, view_stage_lang(lang), buf, size);
    size_t n = strlen(buf);
    if (detail < 0) return buf;
    if (s->head && n < size) {
        snprintf(part, sizeof part, i18n(lang, S_HEAD), s->head);
        n += (size_t)snprintf(buf + n, size - n, "%s%s", sep, part);
    }
    if (!detail) return buf;
    if (s->dstep && n < size && trace_options(t)->mode == DECODE_TEACHER) {
        n += (size_t)snprintf(buf + n, size - n, "%s%s", sep, i18n(lang, S_TEACHER_FORCING));
    } else if (s->dstep && n < size) {
        snprintf(part, sizeof part, i18n(lang, S_DECODING_STEP), s->dstep);
        n += (size_t)snprintf(buf + n, size - n, "%s%s", sep, part);
        const char *out = detail == 2 ? view_produced_at(t, s->dstep) : NULL;
        if (out && n < size) {
            snprintf(part, sizeof part, i18n(lang, S_PRODUCING), out);
            snprintf(buf + n, size - n, "%s%s", lang == LANG_ZH_TW ? "\xEF\xBC\x8C" : ", ", part);  // ，
        }
    }
    return buf;
}

const char *view_step_name(const Trace *t, const Step *s, Lang lang, char *buf, size_t size) {
    return view_step_name_at(t, s, lang, 2, buf, size);
}

const char *view_step_place(const Trace *t, const Step *s, Lang lang, char *buf, size_t size) {
    const char *out = view_produced_at(t, s->dstep);
    if (s->dstep && trace_options(t)->mode != DECODE_TEACHER) {
        int n = snprintf(buf, size, i18n(lang, S_PLACE_DECODING), s->dstep, view_last_dstep(t));
        char part[96];
        if (out && n >= 0 && (size_t)n < size) {
            snprintf(part, sizeof part, i18n(lang, S_PRODUCING), out);
            snprintf(buf + n, size - (size_t)n, "%s%s", lang == LANG_ZH_TW ? "\xEF\xBC\x8C" : ", ", part);
        }
        return buf;
    }
    // the part, and the layer when it has one: the human name up to its first separator after the layer
    char name[256];
    stage_human_name(s->stage, s->layer, view_stage_lang(lang), name, sizeof name);
    char *cut = strstr(name, lang == LANG_ZH_TW ? "\xE3\x83\xBB" : " \xC2\xB7 ");
    if (cut) *cut = '\0';
    snprintf(buf, size, "%s", name);
    return buf;
}

// (view.h)
int view_forced_step(const Trace *t, const Step *s, int layers, bool *instead) {
    *instead = false;
    for (int i = 0; i < trace_count(t); i++) {
        const Step *f = trace_step(t, i);
        if (f->stage == s->stage && f->layer == s->layer && f->head == s->head && (f->dstep > 0) == (s->dstep > 0)) return i;
    }
    *instead = true;
    for (int i = 0; i < trace_count(t); i++) {
        const Step *f = trace_step(t, i);
        if (f->stage->block == STAGE_BLOCK_CROSS_ATTN && f->stage->attention_weights && f->layer == layers &&
            f->head == (s->head ? s->head : 1))
            return i;
    }
    return -1;
}

int view_page_title(Gfx *g, SDL_Rect area, const ViewState *vs, const char *title) {
    // a long title is set smaller, then wrapped: never cut
    int big = gfx_px(g, 22);
    if (gfx_text_width(g, title, big) > area.w) big = vs->font_px;
    return area.y + gfx_text_wrap(g, area.x, area.y, area.w, title, big, vs->theme->text, true);
}

void view_page_says_why(Gfx *g, SDL_Rect area, const ViewState *vs, const char *title, const char *why) {
    int y = view_page_title(g, area, vs, title) + gfx_px(g, 10);
    gfx_text_wrap(g, area.x, y, area.w, why, vs->font_px, vs->theme->text_dim, true);
}

const char *view_output_text(const Model *m, const Trace *t, char *buf, size_t size) {
    int n;
    const int *ids = trace_output(t, &n);
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && len + 1 < size; i++) len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? " " : "", voc_token(m->tgt, ids[i]));
    return buf;
}

void view_draw_forced(Gfx *g, SDL_Rect area, const ViewState *vs, const Model *m, const Trace *t, const ViewData *data) {
    bool instead;
    int at = view_forced_step(t, trace_step(vs->trace, vs->step), m->cfg.n_dec, &instead), lh = gfx_line_height(g, vs->font_px);
    if (at < 0) {
        gfx_text_wrap(g, area.x, area.y, area.w, i18n(vs->lang, S_V_NO_SUCH_STEP), vs->font_px, vs->theme->text_dim, true);
        return;
    }
    if (area.h < 2 * lh) return;
    ViewState v = *vs;
    v.model = m;
    v.trace = t;
    v.data = data;
    v.step = at;
    v.hover_row = v.hover_col = -1;
    v.opt.kv_cache = false;  // one teacher-forced pass: no step before
    char name[512];
    view_step_name(t, trace_step(t, at), vs->lang, name, sizeof name);
    if (instead) snprintf(name + strlen(name), sizeof name - strlen(name), "  (%s)", i18n(vs->lang, S_V_FORCED_INSTEAD));
    int title_h = gfx_text_wrap(g, area.x, area.y, area.w, name, vs->font_px, vs->theme->text_dim, true);
    if (area.h - title_h >= lh) view_draw(g, (SDL_Rect){area.x, area.y + title_h, area.w, area.h - title_h}, &v);
}

// ---- shared by the view files ----

int view_small_px(const ViewState *vs) { return vs->font_px * 4 / 5 > 8 ? vs->font_px * 4 / 5 : 8; }

Color view_with_alpha(Color c, float a) { return (c & 0x00FFFFFFu) | (Color)lroundf(255.0f * fminf(1.0f, a)) << 24; }

void view_grow_range(const Step *s, float *lo, float *hi) {
    for (int r = 0; r < s->rows; r++)
        for (int c = 0; c < s->cols; c++) {
            float v = trace_row(s, r)[c];
            if (!isfinite(v)) continue;
            *lo = fminf(*lo, v);
            *hi = fmaxf(*hi, v);
        }
}

void view_format_value(char *buf, size_t size, float v) {
    if (isinf(v)) snprintf(buf, size, v < 0 ? "\xE2\x88\x92\xE2\x88\x9E" : "\xE2\x88\x9E");  // −∞, ∞
    else if (fabsf(v) >= 100.0f) snprintf(buf, size, "%.0f", (double)v);
    else if (fabsf(v) >= 10.0f) snprintf(buf, size, "%.1f", (double)v);
    else snprintf(buf, size, "%.2f", (double)v);
}

// Comparing fields rather than formatting ids: labels look steps up on every redraw and hover.
const Step *view_find_step(const Trace *tr, const StageInfo *stage, int layer, int head, int dstep) {
    for (int i = 0; i < trace_count(tr); i++) {
        const Step *s = trace_step(tr, i);
        if (s->dstep == dstep && s->head == head && s->layer == layer && s->stage == stage) return s;
    }
    return NULL;
}

const Step *view_find_kind(const Trace *tr, StageKind kind, int dstep) {
    for (int i = 0; i < trace_count(tr); i++) {
        const Step *s = trace_step(tr, i);
        if (s->dstep == dstep && s->stage->kind_id == kind) return s;
    }
    return NULL;
}

const char *view_produced(const Trace *tr, const Step *s, int r) {
    bool decoder = s->stage->part == STAGE_TARGET || s->stage->part == STAGE_DECODER;
    if (!decoder || !s->row_labels || s->dstep < 1) return NULL;
    const Step *loss = view_find_kind(tr, STAGE_KIND_LOSS, 1);
    if (loss) return r < loss->rows ? loss->row_labels[r] : NULL;
    const Step *choice = view_find_kind(tr, STAGE_KIND_CHOICE, r + 1);
    return choice ? choice->row_labels[0] : NULL;
}

bool view_query_rows(const Step *s) {
    StageKind k = s->stage->kind_id;
    return k == STAGE_KIND_ATTENTION || k == STAGE_KIND_SCORES || k == STAGE_KIND_MASK;
}

bool view_row_highlighted(const ViewState *vs, int r) {
    for (int k = 0; k < vs->opt.n_highlight; k++)
        if (vs->opt.highlight[k].row == r + 1) return true;
    return false;
}

void view_outline_row(Gfx *g, const ViewState *vs, SDL_Rect r) {
    int m = gfx_px(g, 2);
    gfx_frame(g, (SDL_Rect){r.x - m, r.y - m, r.w + 2 * m, r.h + 2 * m}, gfx_px(g, 3), vs->theme->chosen);
}

// A circle's outline, from short straight pieces.
void view_draw_ring(Gfx *g, float cx, float cy, float radius, float width, Color c) {
    enum { PIECES = 24 };
    for (int i = 0; i < PIECES; i++) {
        float a0 = 6.2831853f * (float)i / PIECES, a1 = 6.2831853f * (float)(i + 1) / PIECES;
        gfx_line(g, cx + radius * cosf(a0), cy + radius * sinf(a0), cx + radius * cosf(a1), cy + radius * sinf(a1), width, c);
    }
}

void view_draw_dashed(Gfx *g, float x0, float y0, float x1, float y1, float width, float dash, Color c) {
    float len = hypotf(x1 - x0, y1 - y0);
    for (float d = 0.0f; d < len; d += 2.0f * dash) {
        float e = fminf(d + dash, len);
        gfx_line(g, x0 + (x1 - x0) * d / len, y0 + (y1 - y0) * d / len, x0 + (x1 - x0) * e / len, y0 + (y1 - y0) * e / len, width, c);
    }
}

void view_say(Gfx *g, SDL_Rect area, const ViewState *vs, StringId id) {
    gfx_text_fit(g, area.x, area.y, area.w, i18n(vs->lang, id), vs->font_px, vs->theme->text, GFX_LEFT);
}

// ---- the gold alignment ----

bool view_gold_cell(const ViewState *vs, const Step *s, const CorpusPair *gold, int k, int *row, int *col) {
    AlignLink l = gold->links[k];
    const char *out = l.tgt < s->rows ? view_produced(vs->trace, s, l.tgt) : NULL;
    if (l.src >= s->cols || !out || strcmp(out, gold->tgt[l.tgt])) return false;
    *row = l.tgt;
    *col = l.src;
    return true;
}

// Only cross-attention weights align source and target words.
bool view_gold_step(const Step *s) { return s->stage->attention_weights && s->stage->block == STAGE_BLOCK_CROSS_ATTN; }

const CorpusPair *view_gold_for(const ViewState *vs, const Step *s, const char **file) {
    if (vs->opt.no_gold || !view_gold_step(s)) return NULL;
    const CorpusPair *gold = view_data_gold(vs->data, file);
    for (int k = 0, r, c; gold && k < gold->n_links; k++)
        if (view_gold_cell(vs, s, gold, k, &r, &c)) return gold;
    return NULL;
}
