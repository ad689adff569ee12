#include "twinpage.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "i18n.h"
#include "vocab.h"

static bool is_file(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

const char *twp_default_other(const char *model_path, char *buf, size_t size) {
    static const char ext[] = ".safetensors", twin[] = "-random";
    size_t n = strlen(model_path), e = sizeof ext - 1, r = sizeof twin - 1;
    buf[0] = '\0';
    if (n <= e || strcmp(model_path + n - e, ext)) return buf;
    size_t stem = n - e;
    if (stem > r && !strncmp(model_path + stem - r, twin, r))  // NAME-random: its trained twin NAME
        snprintf(buf, size, "%.*s%s", (int)(stem - r), model_path, ext);
    else
        snprintf(buf, size, "%.*s%s%s", (int)stem, model_path, twin, ext);
    if (!is_file(buf)) buf[0] = '\0';
    return buf;
}

void twp_clear(TwpData *x) {
    view_data_free(x->data[0]);
    view_data_free(x->data[1]);
    twin_deinit(&x->tw);
    *x = (TwpData){0};
}

void twp_update(TwpData *x, const Trace *t, const char *other_path) {
    twp_clear(x);
    Error err;
    if (!other_path || !*other_path) {
        snprintf(x->why, sizeof x->why, "%s", "");
        return;
    }
    if (twin_run(&x->tw, t, other_path, NULL, 0, &err)) {
        snprintf(x->why, sizeof x->why, "%s", err.msg);
        return;
    }
    // once per comparison: drawing only reads it (NULL when memory ran out: the views say so)
    // the second model's gold alignment is the first's corpus when both read the same words and have the same heads
    const Model *mine = trace_model(t), *other = x->tw.other;
    bool same = x->tw.same_target && other->cfg.nhead == mine->cfg.nhead;
    x->data[0] = view_data_new(mine, x->tw.forced[0], -1, NULL);
    x->data[1] = view_data_new(same ? mine : other, x->tw.forced[1], -1, NULL);
    x->ready = true;
}

void twp_draw(Gfx *g, SDL_Rect area, const ViewState *vs, const TwpData *x) {
    const Theme *th = vs->theme;
    Lang lang = vs->lang;
    int px = vs->font_px, pad = gfx_px(g, 10);
    char line[1024], out[512];
    if (!x->ready) {
        view_page_says_why(g, area, vs, i18n(lang, S_TW_TITLE_NONE), x->why[0] ? x->why : i18n(lang, S_TW_NO_OTHER));
        return;
    }
    const Twin *tw = &x->tw;
    const Model *models[2] = {vs->model, tw->other};
    const Trace *own[2] = {vs->trace, tw->own};
    snprintf(line, sizeof line, i18n(lang, tw->same_target ? S_TW_TITLE : S_TW_TITLE_OWN), view_output_text(vs->model, tw->forced[0], out, sizeof out));
    int col_w = (area.w - 2 * pad) / 2, top = view_page_title(g, area, vs, line) + pad;
    // each column's name, output and loss, measured first: both heatmaps start
    // at the same height, so that their rows line up side by side
    int heights[2] = {0, 0};
    for (int pass = 0; pass < 2; pass++) {
        int below = heights[0] > heights[1] ? heights[0] : heights[1];
        for (int i = 0; i < 2; i++) {
            int cx = area.x + i * (col_w + 2 * pad), cy = top;
            const Model *m = models[i];
            char name[256];
            bool draw = pass == 1;
            cy += gfx_text_wrap(g, cx, cy, col_w, m->name && *m->name ? i18n_model_name(vs->lang, m->name, name, sizeof name) : "?", px,
                                th->accent, draw);
            view_output_text(m, own[i], out, sizeof out);
            snprintf(line, sizeof line, i18n(lang, S_TW_OUTPUT), out[0] ? out : i18n(lang, S_HIST_NOTHING));
            cy += gfx_text_wrap(g, cx, cy, col_w, line, px, th->text, draw);  // an untrained model's output runs long
            snprintf(line, sizeof line, i18n(lang, S_TW_LOSS), (double)trace_mean_loss(tw->forced[i]));
            cy += gfx_text_wrap(g, cx, cy, col_w, line, px, th->text, draw) + pad;
            heights[i] = cy - top;
            if (!draw) continue;
            cy = top + below;
            view_draw_forced(g, (SDL_Rect){cx, cy, col_w, area.y + area.h - cy}, vs, m, tw->forced[i], x->data[i]);
        }
    }
}
