#include "layout.h"

#include <stdio.h>

PageRects lay_page(Gfx *g, SDL_Rect area, const ViewOptions *opt) {
    int lh = gfx_line_height(g, gfx_px(g, 18)), big_lh = gfx_line_height(g, gfx_px(g, 24)), pad = gfx_px(g, 10);
    // a code line too long even at the smallest size takes two lines
    int code_lines = !opt || !opt->code[0] ? 0 : gfx_text_width(g, opt->code, gfx_px(g, 14)) > area.w - 2 * pad ? 2 : 1;
    int top = area.y + big_lh + pad, formula_h = (2 + code_lines) * lh + pad;
    PageRects r = {
        .title = {area.x, area.y, area.w, big_lh},
        .view = {area.x, top, area.w, area.y + area.h - top - formula_h - pad},
        .formula = {area.x, area.y + area.h - formula_h, area.w, formula_h},
    };
    // a given matrix (8 × 8 at most): a third of the width for 4 columns, half for 8, room for its
    // numbers at a projector's 1024 px; a table two thirds, the room its words need there
    if (opt && (opt->given.rows > 0 || opt->table.rows > 0)) {
        int c = opt->table.rows > 0 ? 16 : SDL_max(opt->given.cols, 4), w = r.view.w * c / (c + 8);
        r.given = (SDL_Rect){r.view.x + r.view.w - w, r.view.y, w, r.view.h};
        r.view.w -= w + 2 * pad;
    }
    return r;
}

void lay_frame(Gfx *g, const FrameContent *c, Layout *o) {
    int W = gfx_width(g), H = gfx_height(g);
    o->px = gfx_px(g, 18);
    o->small = gfx_px(g, 16);
    o->lh = gfx_line_height(g, o->px);
    o->pad = gfx_px(g, 12);
    int px = o->px, pad = o->pad, box_h = o->box_h = o->lh + pad;
    int bw = gfx_text_width(g, c->settings_label, o->small) + pad;
    o->settings_button = (SDL_Rect){W - pad - bw, pad, bw, box_h};
    o->help_button = (SDL_Rect){o->settings_button.x - pad / 2 - box_h, pad, box_h, box_h};
    int counter_w = c->counter ? gfx_text_width(g, c->counter, px) : 0, nav_w = c->counter ? 2 * box_h + counter_w + 2 * pad : 0;
    // the sentence box takes 3/5 of the width, less what the model and strategy need beside it (it scrolls), 1/3 at least
    // (room: the box's margin, then pad / 2 + pad before the line and 2 pad after it, up to the ? button)
    int text_w = SDL_max(SDL_min(W * 3 / 5, o->help_button.x - 5 * pad - gfx_text_width(g, c->info, px)), W / 3) - nav_w;
    o->text_box = (SDL_Rect){pad, pad, text_w > box_h ? text_w : box_h, box_h};
    int x = o->text_box.x + o->text_box.w + pad / 2, ty = o->text_box.y + pad / 2;
    o->list_prev = o->counter = o->list_next = (SDL_Rect){0};
    if (c->counter) {
        o->list_prev = (SDL_Rect){x, pad, box_h, box_h};
        x += box_h + pad / 2;
        o->counter = (SDL_Rect){x, ty, counter_w, o->lh};
        x += counter_w + pad / 2;
        o->list_next = (SDL_Rect){x, pad, box_h, box_h};
        x += box_h;
    }
    o->info = (SDL_Rect){x + pad, ty, o->help_button.x - x - 2 * pad, o->lh};
    o->chips_y = o->text_box.y + o->text_box.h + pad / 2;
    // the step, between the chips and the timeline
    int status_h = o->lh + pad / 2, timeline_h = gfx_px(g, 22);
    int top = o->chips_y + gfx_line_height(g, o->small) + pad;
    o->page = (SDL_Rect){pad, top, W - 2 * pad, H - top - timeline_h - status_h - 2 * pad};
    o->lesson_panel = o->map = (SDL_Rect){0};
    if (c->lesson_panel) {  // the lesson's narration on the right
        int panel_w = c->lesson_strip > 0 ? c->lesson_strip : W * 34 / 100;  // the view keeps at least 62% of the width
        o->page.w -= panel_w + pad;
        o->lesson_panel = (SDL_Rect){o->page.x + o->page.w + pad, o->page.y, panel_w, o->page.h};
        if (c->map_strip_h > 0 && c->lesson_strip <= 0 && c->map_strip_h < o->lesson_panel.h / 4) {  // the map above the narration
            o->map = (SDL_Rect){o->lesson_panel.x, o->lesson_panel.y, panel_w, c->map_strip_h};
            o->lesson_panel.y += c->map_strip_h + pad / 2;
            o->lesson_panel.h -= c->map_strip_h + pad / 2;
        }
    }
    if (c->map_w > 0 && c->map_w < o->page.w / 2) {  // the map of the model at the page's left
        o->map = (SDL_Rect){o->page.x, o->page.y, c->map_w, o->page.h};
        o->page.x += c->map_w + pad;
        o->page.w -= c->map_w + pad;
    }
    o->parts = lay_page(g, o->page, c->view);
    // play / pause, then the timeline; the status line under them
    int play_w = timeline_h * 3 / 2, tl_x = pad + play_w + pad / 2;
    o->play_button = (SDL_Rect){pad, H - status_h - timeline_h - pad, play_w, timeline_h};
    o->timeline = (SDL_Rect){tl_x, H - status_h - timeline_h - pad, W - pad - tl_x, timeline_h};
    o->status = (SDL_Rect){pad, H - status_h - pad / 2, W - 2 * pad, status_h};
}

// The experiment running, as the title's mark: its parts named, or brief (the narration and Settings name them).
static void experiment_mark(const DecodeOptions *o, Lang lang, bool brief, char *mark, size_t size) {
    char names[256];
    int n = o->no_look_ahead_mask ? snprintf(mark, size, "%s", i18n(lang, brief ? S_NO_MASK_SHORT : S_NO_MASK_MARK)) : 0;
    if (!o->ablate.n || n < 0 || (size_t)n >= size) return;
    if (n) n += snprintf(mark + n, size - (size_t)n, "  \xC2\xB7  ");  // both at once
    if ((size_t)n >= size) return;
    if (brief) snprintf(mark + n, size - (size_t)n, i18n(lang, S_SILENCED_COUNT), o->ablate.n);
    else snprintf(mark + n, size - (size_t)n, i18n(lang, S_SILENCED_MARK), abl_format(&o->ablate, names, sizeof names));
}

void lay_draw_page(Gfx *g, SDL_Rect area, const ViewState *vs, const SDL_Rect *view) {
    const Theme *th = vs->theme;
    Lang lang = vs->lang;
    const Step *s = trace_step(vs->trace, vs->step);
    PageRects r = lay_page(g, area, &vs->opt);
    int px = gfx_px(g, 18), big = gfx_px(g, 24), lh = gfx_line_height(g, px), pad = gfx_px(g, 10);
    char id[128], line[512];
    trace_stage_id(s, id, sizeof id);
    view_step_name(vs->trace, s, lang, line, sizeof line);
    SDL_Rect title = r.title;
    const DecodeOptions *o = trace_options(vs->trace);
    if (o->no_look_ahead_mask || o->ablate.n) {
        // an experiment is named on every page, so that no picture of it passes
        // for the real model: in full, or shorter when the title would lose its name
        char mark[320], shortest[512];
        view_step_name_at(vs->trace, s, lang, 0, shortest, sizeof shortest);
        int room = SDL_min(title.w / 2, title.w - pad - gfx_text_width(g, shortest, gfx_px(g, 16)));
        for (int brief = 0; brief < 2; brief++) {
            experiment_mark(o, lang, brief, mark, sizeof mark);
            if (gfx_text_width(g, mark, px) + 2 * pad <= room) break;
        }
        int w = SDL_min(gfx_text_width(g, mark, px) + 2 * pad, title.w / 2);
        SDL_Rect box = {title.x + title.w - w, title.y, w, title.h};
        gfx_fill(g, box, th->accent);
        gfx_text_fit(g, box.x + pad, box.y + (box.h - lh) / 2, box.w - 2 * pad, mark, px, th->accent_text, GFX_LEFT);
        title.w -= w + pad;
    }
    // the step's human name, and its stage id small beside it for those who read the JSON
    int small = gfx_px(g, 14), id_w = gfx_text_width(g, id, small) + 2 * pad;
    // a long name is set smaller before it is cut, down to the text's size; the id goes first
    big = gfx_px_to_fit(g, line, title.w, 24, 16);
    // still too long: the token being produced goes first (the chips row and the map say it too)
    for (int detail = 1; detail >= 0 && gfx_text_width(g, line, big) > title.w; detail--) view_step_name_at(vs->trace, s, lang, detail, line, sizeof line);
    // and smaller still, down to the smallest text, then without the head (its chip is lit), before it is cut
    if (gfx_text_width(g, line, big) > title.w) big = gfx_px_to_fit(g, line, title.w, 16, 14);
    if (gfx_text_width(g, line, big) > title.w) view_step_name_at(vs->trace, s, lang, -1, line, sizeof line);
    bool with_id = gfx_text_width(g, line, big) + id_w <= title.w;
    int drawn = gfx_text_fit(g, title.x, title.y, with_id ? title.w - id_w : title.w, line, big, th->text, GFX_LEFT);
    int big_lh = gfx_line_height(g, big), small_lh = gfx_line_height(g, small);
    if (with_id) gfx_text(g, title.x + drawn + 2 * pad, title.y + big_lh - small_lh - (big_lh - small_lh) / 6, id, small, th->text_dim, GFX_LEFT);
    // a lesson's table with no room for its numbers (a narrow window) takes the
    // view's place too: the lesson is about the table, and a number is never cut
    bool zoomed = view && (view->w > r.view.w || view->h > r.view.h);
    if (vs->opt.table.rows > 0 && !zoomed && view_table_least_width(g, vs) > r.given.w) {
        view_table(g, (SDL_Rect){r.view.x, r.given.y, r.given.x + r.given.w - r.view.x, r.given.h}, vs);
        r.given.w = 0;
    } else {
        gfx_clip(g, &r.view);
        view_draw(g, view ? *view : r.view, vs);
        gfx_clip(g, NULL);
    }
    if (r.given.w > 0) {
        gfx_fill(g, (SDL_Rect){r.given.x - pad, r.given.y, 1, r.given.h}, th->panel_edge);  // apart from the model's own
        // zoomed, the given matrix grows with the view and pans with it: its text
        // grows either way, and in its own place its cells would shrink
        SDL_Rect given = r.given;
        if (zoomed) {
            int gw = r.given.w * view->w / SDL_max(1, r.view.w), gh = r.given.h * view->h / SDL_max(1, r.view.h);
            float fx = view->w > r.view.w ? (float)(r.view.x - view->x) / (float)(view->w - r.view.w) : 0.0f;
            float fy = view->h > r.view.h ? (float)(r.view.y - view->y) / (float)(view->h - r.view.h) : 0.0f;
            given = (SDL_Rect){r.given.x - (int)(fx * (float)(gw - r.given.w)), r.given.y - (int)(fy * (float)(gh - r.given.h)), gw, gh};
        }
        if (zoomed) gfx_clip(g, &r.given);
        if (vs->opt.table.rows > 0) view_table(g, given, vs);
        else view_given(g, given, vs);
        if (zoomed) gfx_clip(g, NULL);
    }
    gfx_fill(g, r.formula, th->panel);
    gfx_frame(g, r.formula, 1, th->panel_edge);
    gfx_math(g, r.formula.x + pad, r.formula.y + pad / 2, r.formula.w - 2 * pad, i18n_formula(lang, s->formula), px, th->text);
    const char *colon = lang == LANG_ZH_TW ? "\xEF\xBC\x9A" : ": ";  // full-width ： in Chinese
    if (vs->opt.hide_shape) snprintf(line, sizeof line, "%s%s%s", i18n(lang, S_SHAPE), colon, i18n(lang, S_L_SHAPE_HIDDEN));
    else if (s->stage->kind_id == STAGE_KIND_CHOICE)  // three numbers of different kinds: named, not a shape
        snprintf(line, sizeof line, "%s", i18n(lang, S_CHOICE_HOLDS));
    else snprintf(line, sizeof line, "%s%s%s \xC3\x97 %s = %d \xC3\x97 %d", i18n(lang, S_SHAPE), colon, s->sym_rows, s->sym_cols, s->rows, s->cols);
    gfx_math(g, r.formula.x + pad, r.formula.y + pad / 2 + lh, r.formula.w - 2 * pad, line, px, th->text_dim);
    if (vs->opt.code[0]) {  // code as written, not typeset: its _ and ** are not subscripts; long, set smaller
        int code_px = gfx_px_to_fit(g, vs->opt.code, r.formula.w - 2 * pad, 18, 14);
        gfx_text_wrap(g, r.formula.x + pad, r.formula.y + pad / 2 + 2 * lh, r.formula.w - 2 * pad, vs->opt.code, code_px, th->accent, true);
    }
}
