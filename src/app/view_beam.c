// Beam search: the tree of hypotheses, and the table of the step.
#include "view_private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BEAM_STEPS_MAX = 256 };

// The dec.beam tables of a trace by decoding step, and the output's path
// through them: the best row of the last step, then its parents (the
// trace's parent column, docs/TRACE.md).
typedef struct {
    const Step *step[BEAM_STEPS_MAX + 1];  // [d]: the table of decoding step d, 1 … last
    int last;
    int path[BEAM_STEPS_MAX + 1];          // [d]: the row of step d on the output's path, or -1
} BeamSteps;

static int beam_parent(const Step *s, int r) { return s->cols >= 4 ? (int)trace_row(s, r)[3] : -1; }
static bool beam_kept(const Step *s, int r) { return trace_row(s, r)[2] > 0.5f; }

static void beam_steps(const Trace *tr, BeamSteps *b) {
    memset(b, 0, sizeof *b);
    for (int i = 0; i < trace_count(tr); i++) {
        const Step *s = trace_step(tr, i);
        if (s->dstep >= 1 && s->dstep <= BEAM_STEPS_MAX && s->stage->kind_id == STAGE_KIND_BEAM) {
            b->step[s->dstep] = s;
            if (s->dstep > b->last) b->last = s->dstep;
        }
    }
    for (int d = 0; d <= BEAM_STEPS_MAX; d++) b->path[d] = -1;
    for (int d = b->last, r = 0; d >= 1 && b->step[d] && r >= 0 && r < b->step[d]->rows; d--) {
        b->path[d] = r;
        r = beam_parent(b->step[d], r);
    }
}

// The token a row adds (after "+ " in its label), or the word for a finished hypothesis carried over.
static const char *beam_token(const ViewState *vs, const Step *s, int r) {
    const char *label = s->row_labels ? s->row_labels[r] : "", *plus = strstr(label, "+ ");
    return plus ? plus + 2 : i18n(vs->lang, S_V_BEAM_DONE);
}

// The table: each candidate of the step, best first, kept ones marked and
// in full colour, the output's row in the path colour.
static void draw_beam_table(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s, int path_row) {
    const Theme *t = vs->theme;
    int px = vs->font_px, lh = gfx_line_height(g, px), row_h = lh + gfx_px(g, 4), gap = gfx_px(g, 16);
    char buf[64];
    int num_w = gfx_text_width(g, "-00.000", px), flag_w = 0;
    for (int k = S_V_BEAM_KEPT; k <= S_V_BEAM_PRUNED; k++) {
        int w = gfx_text_width(g, i18n(vs->lang, (StringId)k), px);
        if (w > flag_w) flag_w = w;
    }
    int flag_x = area.x + area.w - flag_w, score_x = flag_x - gap - num_w, logp_x = score_x - gap - num_w;
    int label_x = area.x + gfx_px(g, 8), label_w = logp_x - gap - label_x;
    gfx_text_fit(g, area.x, area.y, logp_x - gap - area.x, i18n(vs->lang, S_V_BEAM_HYPOTHESIS), px, t->text_dim, GFX_LEFT);
    gfx_text(g, logp_x + num_w, area.y, i18n(vs->lang, S_V_BEAM_LOGP), px, t->text_dim, GFX_RIGHT);
    gfx_text(g, score_x + num_w, area.y, i18n(vs->lang, S_V_BEAM_SCORE), px, t->text_dim, GFX_RIGHT);
    // the rows that fit under the heading: every kept one first (a kept
    // hypothesis can score below pruned ones that finished the sentence or
    // lost to it), then the best pruned ones; the last line counts the rest
    int fit = area.h / row_h - 1, shown = s->rows <= fit ? s->rows : fit - 1;
    if (shown < 0) shown = 0;
    int n_kept = 0;
    for (int r = 0; r < s->rows; r++) n_kept += beam_kept(s, r);
    int pruned_room = shown - n_kept, line = 0;
    if (shown < s->rows) {
        int kept_left = n_kept > shown ? n_kept - shown : 0;
        snprintf(buf, sizeof buf, i18n(vs->lang, S_V_BEAM_MORE), s->rows - shown, kept_left);
        gfx_text_fit(g, label_x, area.y + (shown + 1) * row_h, area.w - (label_x - area.x), buf, px, kept_left ? t->text : t->text_dim, GFX_LEFT);
    }
    for (int r = 0; r < s->rows && line < shown; r++) {
        if (!beam_kept(s, r) && pruned_room-- <= 0) continue;  // room kept for the kept rows below
        int y = area.y + (++line) * row_h;
        bool kept = beam_kept(s, r);
        Color c = r == path_row ? t->chosen : kept ? t->text : t->text_dim;
        if (kept) gfx_fill(g, (SDL_Rect){area.x, y, gfx_px(g, 4), lh}, r == path_row ? t->chosen : t->accent);
        gfx_text_fit_end(g, label_x, y, label_w, s->row_labels[r], px, c, GFX_LEFT);  // the end: the token this row adds
        snprintf(buf, sizeof buf, "%.3f", (double)trace_row(s, r)[0]);
        gfx_text(g, logp_x + num_w, y, buf, px, c, GFX_RIGHT);
        snprintf(buf, sizeof buf, "%.3f", (double)trace_row(s, r)[1]);
        gfx_text(g, score_x + num_w, y, buf, px, c, GFX_RIGHT);
        gfx_text(g, flag_x, y, i18n(vs->lang, kept ? S_V_BEAM_KEPT : S_V_BEAM_PRUNED), px, c, GFX_LEFT);
        if (view_row_highlighted(vs, r)) view_outline_row(g, vs, (SDL_Rect){area.x, y, area.w, lh});
    }
}

// One node of the tree: row r of decoding step d (d 0: the root, <bos>).
typedef struct {
    int d, r;
    int parent;     // index of the parent node, -1 for the root
    int y;          // centre
    bool kept, path;
    int pruned;     // > 0: not one candidate but this many pruned ones of the parent, grouped ("+3")
} BeamNode;

// Node a goes above node b: by its parent's place, then by score (the row).
static bool beam_above(const BeamNode *nodes, int a, int b) {
    int pa = nodes[nodes[a].parent].y, pb = nodes[nodes[b].parent].y;
    return pa != pb ? pa < pb : nodes[a].r < nodes[b].r;
}

// Vertical places for one column's nodes (indices idx, n of them): each
// parent's children centred on it, pushed apart to one pitch and into [top, bottom].
static void place_column(BeamNode *nodes, int *idx, int n, int pitch, int top, int bottom) {
    for (int i = 1; i < n; i++)  // insertion sort: a column holds a few dozen nodes
        for (int j = i; j > 0 && beam_above(nodes, idx[j], idx[j - 1]); j--) {
            int tmp = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = tmp;
        }
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && nodes[idx[j]].parent == nodes[idx[i]].parent) j++;
        int centre = nodes[idx[i]].parent >= 0 ? nodes[nodes[idx[i]].parent].y : (top + bottom) / 2;
        for (int k = i; k < j; k++) nodes[idx[k]].y = centre + (2 * (k - i) - (j - i - 1)) * pitch / 2;
        i = j;
    }
    for (int i = 0; i < n; i++) {
        int least = i ? nodes[idx[i - 1]].y + pitch : top;
        if (nodes[idx[i]].y < least) nodes[idx[i]].y = least;
    }
    for (int i = n - 1; i >= 0; i--) {
        int most = i < n - 1 ? nodes[idx[i + 1]].y - pitch : bottom;
        if (nodes[idx[i]].y > most) nodes[idx[i]].y = most;
    }
}

// The hypotheses as a tree growing left to right, one column per decoding
// step up to the one shown: every candidate a node with its token and total
// score; kept branches solid, pruned ones faded and dashed; the output's path
// in the path colour. When the steps do not fit, the earliest are left out.
static void draw_beam_tree(Gfx *g, SDL_Rect area, const ViewState *vs, const BeamSteps *b, int upto) {
    const Theme *t = vs->theme;
    int px = view_small_px(vs), pad = gfx_px(g, 6), n = 1;
    for (int d = 1; d <= upto; d++) n += b->step[d] ? b->step[d]->rows : 0;
    BeamNode *nodes = malloc((size_t)n * sizeof *nodes);
    int *idx = malloc((size_t)n * sizeof *idx), *first = calloc((size_t)upto + 2, sizeof *first);
    int *row_node = malloc((size_t)n * sizeof *row_node), *row_first = calloc((size_t)upto + 2, sizeof *row_first);
    if (!nodes || !idx || !first || !row_node || !row_first) {
        view_say(g, area, vs, S_V_NO_MEMORY);
        goto done;
    }
    // heading, then the legend's line at the bottom
    char buf[160];
    snprintf(buf, sizeof buf, i18n(vs->lang, S_V_BEAM_TREE), trace_options(vs->trace)->beam_width);
    gfx_text_fit(g, area.x, area.y, area.w, buf, vs->font_px, t->text_dim, GFX_LEFT);
    int lh = gfx_line_height(g, px), heading = gfx_line_height(g, vs->font_px) + lh + pad;
    int top = area.y + heading + lh / 2, bottom = area.y + area.h - 2 * lh - pad;
    // nodes, column by column, parents as node indices: each kept candidate
    // a node, a parent's pruned ones one node under it (row_node: a step's
    // rows to their nodes, from row_first[d])
    // (a tree too tall for a line each leaves the pruned groups out)
    int most = 1;
    for (int groups = 1; groups >= 0; groups--) {
    nodes[0] = (BeamNode){0, 0, -1, 0, true, true, 0};
    first[0] = 0;
    n = 1;
    most = 1;
    int rows_before = 0;
    for (int d = 1; d <= upto; d++) {
        const Step *s = b->step[d];
        first[d] = n;
        row_first[d] = rows_before;
        for (int r = 0; s && r < s->rows; r++) {
            int pr = d == 1 ? -1 : beam_parent(s, r);
            int parent = d == 1 ? 0 : pr >= 0 && b->step[d - 1] && pr < b->step[d - 1]->rows ? row_node[row_first[d - 1] + pr] : first[d - 1];
            if (parent < first[d - 1] || parent >= first[d]) parent = first[d - 1];  // a trace without the parent column
            bool kept = beam_kept(s, r) || b->path[d] == r;
            int group = -1;
            for (int k = first[d]; !kept && k < n && group < 0; k++)
                if (nodes[k].pruned && nodes[k].parent == parent) group = k;
            if (group >= 0) nodes[group].pruned++;
            else if (kept || groups) nodes[group = n++] = (BeamNode){d, r, parent, 0, kept, b->path[d] == r, kept ? 0 : 1};
            row_node[rows_before + r] = group >= 0 ? group : parent;
        }
        rows_before += s ? s->rows : 0;
        if (n - first[d] > most) most = n - first[d];
    }
    first[upto + 1] = n;
    if ((most - 1) * lh <= bottom - top) break;
    }
    // the pitch the fullest column allows, never less than a line: labels keep their size
    int pitch = most > 1 ? (bottom - top) / (most - 1) : bottom - top;
    if (pitch > 2 * lh) pitch = 2 * lh;
    if (pitch < lh) pitch = lh;
    if (most > 1) {  // the fullest column is centred: start there, not at the top
        int used = (most - 1) * pitch;
        top = (top + bottom - used) / 2;
        bottom = top + used;
    }
    nodes[0].y = (top + bottom) / 2;
    for (int d = 1; d <= upto; d++) {
        int m = first[d + 1] - first[d];
        for (int i = 0; i < m; i++) idx[i] = first[d] + i;
        place_column(nodes, idx, m, pitch, top, bottom);
    }
    // each node's box: [x, x + box_w], its score after it; edges leave after the score
    int *box_w = idx;  // reused: widths by node
    int widest = 0;
    for (int i = 0; i < n; i++) {
        char group[16];
        snprintf(group, sizeof group, "+%d", nodes[i].pruned);
        const char *tok = nodes[i].pruned ? group : i ? beam_token(vs, b->step[nodes[i].d], nodes[i].r) : "<bos>";
        box_w[i] = gfx_text_width(g, tok, px) + 2 * pad;
        if (box_w[i] > widest) widest = box_w[i];
    }
    int score_w = gfx_text_width(g, "-00.00", px) + pad;
    // columns: as many of the last steps as fit at a width that holds the widest token and its score
    int col_min = widest + score_w + pad + gfx_px(g, 28);
    int cols = upto + 1, from = 0;
    if (cols * col_min > area.w) {
        from = cols - area.w / col_min;
        if (from < 1) from = 1;
        cols = upto + 1 - from;
    }
    // the steps left out: their kept path in words ("… 貓 坐"), or "…" where that would take over a quarter of the width
    char skipped[160] = "\xE2\x80\xA6";
    for (int d = from > 3 ? from - 2 : 1; d < from && b->path[d] >= 0; d++) {
        size_t at = strlen(skipped);
        snprintf(skipped + at, sizeof skipped - at, "%s%s", d == 1 && from <= 3 ? "" : " ", beam_token(vs, b->step[d], b->path[d]));
    }
    if (from <= 3 && from > 1) memmove(skipped, skipped + 3, strlen(skipped + 3) + 1);  // the path whole: no "…" before it
    if (gfx_text_width(g, skipped, px) + gfx_px(g, 18) > area.w / 4) snprintf(skipped, sizeof skipped, "\xE2\x80\xA6");
    int skip_w = from ? gfx_text_width(g, skipped, px) + gfx_px(g, 18) : 0;
    int col_w = (area.w - skip_w) / (cols > 0 ? cols : 1);
    if (col_w > 3 * col_min) col_w = 3 * col_min;
    area.x += skip_w;
    float scale = gfx_scale(g);
    for (int d = from; d <= upto; d++) {
        int x = area.x + (d - from) * col_w;
        snprintf(buf, sizeof buf, "%d", d);
        if (d) gfx_text(g, x + pad, area.y + heading - lh, buf, px, d == upto ? t->text : t->text_dim, GFX_LEFT);
    }
    if (from > 0) {  // level with the path where it comes back into view
        int path_y = (top + bottom) / 2;
        for (int i = first[from]; i < n; i++)
            if (nodes[i].d == from && nodes[i].path) path_y = nodes[i].y;
        gfx_text(g, area.x - skip_w, path_y - lh / 2, skipped, px, from > 1 ? t->chosen : t->text_dim, GFX_LEFT);
    }
    // edges first, the path's last, so that the nodes and the path sit on top
    for (int pass = 0; pass < 2; pass++)
        for (int i = 1; i < n; i++) {
            const BeamNode *c = &nodes[i], *p = &nodes[c->parent];
            if (c->d < from || (pass == 1) != (c->path && p->path)) continue;
            if (c->d - 1 < from && !c->kept) continue;  // pruned under a step left out: no parent to hang from
            float x1 = (float)(area.x + (c->d - from) * col_w);
            // from a step left out: a short level stub from the "…"
            bool shown = c->d - 1 >= from;
            float x0 = shown ? (float)(area.x + (c->d - 1 - from) * col_w + box_w[c->parent] + (c->d - 1 ? score_w : 0))
                             : (float)(area.x - gfx_px(g, 12));  // just after the words of the steps left out
            float y0 = shown ? (float)p->y : (float)c->y, y1 = (float)c->y;
            if (pass == 1) gfx_line(g, x0, y0, x1, y1, 3.0f * scale, t->chosen);
            else if (c->kept) gfx_line(g, x0, y0, x1, y1, 1.5f * scale, t->text_dim);
            else view_draw_dashed(g, x0, y0, x1, y1, 1.0f * scale, 3.0f * scale, view_with_alpha(t->text_dim, 0.55f));
        }
    for (int i = from ? first[from] : 0; i < n; i++) {
        const BeamNode *nd = &nodes[i];
        int x = area.x + (nd->d - from) * col_w, y = nd->y - lh / 2;
        SDL_Rect box = {x, y, box_w[i], lh};
        if (nd->pruned && nd->d - 1 < from) continue;
        char group[16];
        snprintf(group, sizeof group, "+%d", nd->pruned);
        const char *tok = nd->pruned ? group : i ? beam_token(vs, b->step[nd->d], nd->r) : "<bos>";
        Color text = nd->path ? t->accent_text : nd->kept ? t->text : view_with_alpha(t->text_dim, 0.7f);
        if (nd->path) gfx_fill(g, box, t->chosen);
        else if (nd->kept) {
            gfx_fill(g, box, t->panel);
            gfx_frame(g, box, 1, t->panel_edge);
        }
        gfx_text(g, x + pad, y, tok, px, text, GFX_LEFT);
        if (!i || nd->pruned) continue;
        snprintf(buf, sizeof buf, "%.2f", (double)trace_row(b->step[nd->d], nd->r)[1]);
        gfx_text(g, x + box_w[i] + pad / 2, y, buf, px, nd->path ? t->chosen : nd->kept ? t->text_dim : view_with_alpha(t->text_dim, 0.6f), GFX_LEFT);
    }
    // legend: the path, a kept branch, a pruned one
    int ly = area.y + area.h - lh, lx = area.x, sample = gfx_px(g, 30);
    float cy = (float)ly + (float)lh / 2.0f;
    gfx_line(g, (float)lx, cy, (float)(lx + sample), cy, 3.0f * scale, t->chosen);
    lx += sample + pad;
    lx += gfx_text(g, lx, ly, i18n(vs->lang, S_V_BEAM_PATH), px, t->text_dim, GFX_LEFT) + 3 * pad;
    gfx_line(g, (float)lx, cy, (float)(lx + sample), cy, 1.5f * scale, t->text_dim);
    lx += sample + pad;
    lx += gfx_text(g, lx, ly, i18n(vs->lang, S_V_BEAM_KEPT), px, t->text_dim, GFX_LEFT) + 3 * pad;
    view_draw_dashed(g, (float)lx, cy, (float)(lx + sample), cy, 1.0f * scale, 3.0f * scale, view_with_alpha(t->text_dim, 0.55f));
    lx += sample + pad;
    gfx_text(g, lx, ly, i18n(vs->lang, S_V_BEAM_PRUNED), px, t->text_dim, GFX_LEFT);
done:
    free(nodes);
    free(idx);
    free(first);
    free(row_node);
    free(row_first);
}

// The tree beside the table when both fit, else the tree above the table.
void beam_draw(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s) {
    BeamSteps *b = malloc(sizeof *b);
    if (!b) {
        view_say(g, area, vs, S_V_NO_MEMORY);
        return;
    }
    beam_steps(vs->trace, b);
    int upto = s->dstep < BEAM_STEPS_MAX ? s->dstep : BEAM_STEPS_MAX;
    int path_row = s->dstep <= BEAM_STEPS_MAX ? b->path[s->dstep] : -1;
    int table_w = gfx_px(g, 470), gap = gfx_px(g, 32);
    if (area.w - table_w - gap >= gfx_px(g, 480)) {
        draw_beam_tree(g, (SDL_Rect){area.x, area.y, area.w - table_w - gap, area.h}, vs, b, upto);
        draw_beam_table(g, (SDL_Rect){area.x + area.w - table_w, area.y, table_w, area.h}, vs, s, path_row);
    } else {
        // the table one above the other: room for every kept hypothesis, a heading and the line of the rest
        int kept = 0, row_h = gfx_line_height(g, vs->font_px) + gfx_px(g, 4);
        for (int r = 0; r < s->rows; r++) kept += beam_kept(s, r);
        int tree_h = SDL_max(area.h / 2, SDL_min(area.h * 3 / 5, area.h - (kept + 2) * row_h - gfx_px(g, 12)));
        draw_beam_tree(g, (SDL_Rect){area.x, area.y, area.w, tree_h}, vs, b, upto);
        draw_beam_table(g, (SDL_Rect){area.x, area.y + tree_h + gfx_px(g, 12), area.w, area.h - tree_h - gfx_px(g, 12)}, vs, s, path_row);
    }
    free(b);
}
