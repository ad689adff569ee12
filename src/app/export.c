#include "export.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "gfx.h"
#include "image.h"
#include "layout.h"
#include "theme.h"
#include "view.h"

// A label as a CSV field (RFC 4180): always quoted, so that a token such as
// "1" stays text, with each quote inside doubled.
static void csv_label(FILE *fp, const char *label) {
    fputc('"', fp);
    for (const char *c = label; *c; c++) {
        if (*c == '"') fputc('"', fp);
        fputc(*c, fp);
    }
    fputc('"', fp);
}

int exp_write_csv(const Step *s, const char *path, Error *err) {
    AtomicFile af;
    if (fio_atomic_open(&af, path, err)) return -1;
    for (int c = 0; c < s->cols; c++) {
        fputc(',', af.fp);
        if (s->col_labels) csv_label(af.fp, s->col_labels[c]);
        else fprintf(af.fp, "%d", c);
    }
    fputc('\n', af.fp);
    for (int r = 0; r < s->rows; r++) {
        if (s->row_labels) csv_label(af.fp, s->row_labels[r]);
        else fprintf(af.fp, "%d", r);
        for (int c = 0; c < s->cols; c++) fprintf(af.fp, ",%.9g", (double)trace_row(s, r)[c]);
        fputc('\n', af.fp);
    }
    return fio_atomic_commit(&af, err);
}

// So that saving again never overwrites a picture already on a slide.
void exp_free_name(const char *base, const char *ext, char *out, size_t size) {
    snprintf(out, size, "%s%s", base, ext);
    for (int i = 2; i < 10000 && access(out, F_OK) == 0; i++) snprintf(out, size, "%s-%d%s", base, i, ext);
}

int exp_names(const char *dir, const Step *s, char *png, char *csv, size_t size, Error *err) {
    char id[128], base[512];
    trace_stage_id(s, id, sizeof id);
    char suffix[32] = "";
    if (s->head) snprintf(suffix, sizeof suffix, "-h%d", s->head);
    if (s->dstep) snprintf(suffix + strlen(suffix), sizeof suffix - strlen(suffix), "-step%d", s->dstep);
    if ((size_t)snprintf(base, sizeof base, "%s/tracer-%s%s", dir, id, suffix) >= sizeof base)
        return err_set(err, "%s: the folder's name is too long", dir);
    exp_free_name(base, ".png", png, size);
    // the numbers beside the picture, under the same name
    snprintf(csv, size, "%.*s.csv", (int)(strlen(png) - 4), png);
    return 0;
}

const char *exp_shown_path(const char *path, char *out, size_t size) {
    char cwd[PATH_MAX];
    if (path[0] != '/' && getcwd(cwd, sizeof cwd)) snprintf(out, size, "%s/%s", cwd, path[0] == '.' && path[1] == '/' ? path + 2 : path);
    else snprintf(out, size, "%s", path);
    return out;
}

int exp_render_png(const Model *m, const Trace *t, int step, int w, int h, float scale, bool dark, int cmap, const char *font,
                   const char *path, Error *err) {
    int W = (int)lroundf((float)w * scale), H = (int)lroundf((float)h * scale);
    Gfx *g = gfx_new(W, H, font, err);
    if (!g) return -1;
    gfx_set_scale(g, scale);
    const Theme *th = theme_get(dark);
    gfx_clear(g, th->background);
    int pad = gfx_px(g, 16);
    ViewData *data = view_data_new(m, t, step, err);  // only what this step shows: the corpus is read only for gold
    if (!data) {
        gfx_free(g);
        return -1;
    }
    ViewState vs = {.model = m, .trace = t, .data = data, .step = step, .theme = th, .cmap = (Colormap)cmap, .hover_row = -1, .hover_col = -1,
                    .font_px = gfx_px(g, 18), .lang = LANG_EN};
    lay_draw_page(g, (SDL_Rect){pad, pad, W - 2 * pad, H - 2 * pad}, &vs, NULL);
    view_data_free(data);
    int rc = img_save_png(path, gfx_pixels(g), err);
    gfx_free(g);
    return rc;
}
