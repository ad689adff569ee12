#include "app.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "image.h"
#include "view.h"

#define EDIT_MAX 16384

struct App {
    Gfx *g;
    Model *m;
    Trace *t;
    DecodeOptions decode;
    char sentence[EDIT_MAX];    // the sentence the trace is of
    char edit[EDIT_MAX];        // the text box
    size_t cursor;              // byte offset in edit
    char composition[256];      // IME text being composed, drawn in place
    bool editing;
    int step;
    bool playing;
    Uint32 last_tick;
    int speed_ms;
    bool dark, help, quit, fullscreen, fullscreen_changed;
    Colormap cmap;
    Lang lang;
    char status[1024];
    int hover_row, hover_col;
    bool dragging;
    SDL_Rect text_box, view_area, timeline, chips[2][16];  // chips: [0] layers, [1] heads
    int n_chips[2];
    ViewOptions view;           // composite views: keys m, g, v, a
};

static void set_status(App *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_status(App *a, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->status, sizeof a->status, fmt, ap);
    va_end(ap);
}

int app_set_sentence(App *a, const char *text) {
    Tokens tok;
    Error err;
    if (voc_tokenize(a->m->src, text, &tok, &err)) {
        set_status(a, "%s", err.msg);
        return -1;
    }
    if (tok.n_unknown == tok.n) {
        set_status(a, "No word of this sentence is in the model's vocabulary; nothing to translate");
        voc_tokens_deinit(&tok);
        return -1;
    }
    if (tok.n > a->m->cfg.max_len) {
        set_status(a, "The sentence has %d tokens; this model takes at most %d", tok.n, a->m->cfg.max_len);
        voc_tokens_deinit(&tok);
        return -1;
    }
    Trace *t = trace_run(a->m, tok.ids, tok.n, &a->decode, &err);
    if (!t) {
        set_status(a, "%s", err.msg);
        voc_tokens_deinit(&tok);
        return -1;
    }
    trace_free(a->t);
    a->t = t;
    a->step = 0;
    snprintf(a->sentence, sizeof a->sentence, "%s", text);
    a->status[0] = '\0';
    if (tok.n_unknown) {
        char words[512] = "";
        for (int i = 0; i < tok.n; i++)
            if (tok.ids[i] == voc_unk(a->m->src) && strlen(words) + strlen(tok.pieces[i]) + 4 < sizeof words) {
                strcat(words, " \"");
                strcat(words, tok.pieces[i]);
                strcat(words, "\"");
            }
        set_status(a, i18n(a->lang, S_UNKNOWN_WORDS), words);
    }
    voc_tokens_deinit(&tok);
    return 0;
}

App *app_new(const AppOptions *o, Gfx *g, Error *err) {
    App *a = calloc(1, sizeof *a);
    if (!a) {
        err_set(err, "out of memory");
        return NULL;
    }
    a->g = g;
    a->decode = o->decode;
    a->dark = o->dark;
    a->cmap = o->cmap;
    a->lang = o->lang;
    a->speed_ms = 700;
    a->hover_row = a->hover_col = -1;
    gfx_set_scale(g, o->scale > 0 ? o->scale : 1.0f);
    a->m = mdl_load(o->model_path, err);
    if (!a->m) {
        free(a);
        return NULL;
    }
    const char *src = o->src ? o->src : "i love natural language processing";
    snprintf(a->edit, sizeof a->edit, "%s", src);
    a->cursor = strlen(a->edit);
    if (app_set_sentence(a, src)) {
        // keep why the sentence asked for could not run, above the default one
        char why[sizeof a->status];
        snprintf(why, sizeof why, "%s", a->status);
        if (app_set_sentence(a, "i love natural language processing")) {
            err_set(err, "%s", a->status);
            app_free(a);
            return NULL;
        }
        set_status(a, "%s", why);
    }
    return a;
}

void app_free(App *a) {
    if (!a) return;
    trace_free(a->t);
    mdl_free(a->m);
    free(a);
}

int app_step(const App *a) { return a->step; }
const Trace *app_trace(const App *a) { return a->t; }
const char *app_status(const App *a) { return a->status; }
const char *app_sentence(const App *a) { return a->sentence; }
bool app_quit_requested(const App *a) { return a->quit; }

bool app_fullscreen_requested(App *a, bool *on) {
    bool changed = a->fullscreen_changed;
    a->fullscreen_changed = false;
    *on = a->fullscreen;
    return changed;
}

void app_set_step(App *a, int step) {
    int n = trace_count(a->t);
    a->step = step < 0 ? 0 : step >= n ? n - 1 : step;
    a->hover_row = a->hover_col = -1;
}

// ---- navigation ----------------------------------------------------------

// The last step of a stage: after it, "next stage" begins.
static bool ends_stage(const Step *s) {
    static const char *const ends[] = {"src.tokens", "src.input", "enc.norm1", "enc.norm2", "enc.output", "dec.tokens", "dec.input",
                                       "dec.look_ahead_mask", "dec.norm1", "dec.norm2", "dec.norm3", "dec.output", "dec.probs",
                                       "dec.top_k", "dec.choice", "dec.beam", "dec.loss"};
    for (size_t i = 0; i < sizeof ends / sizeof *ends; i++)
        if (!strcmp(s->name, ends[i])) return true;
    return false;
}

static void next_stage(App *a) {
    int n = trace_count(a->t), i = a->step;
    while (i < n - 1 && !ends_stage(trace_step(a->t, i))) i++;
    app_set_step(a, i + 1);
}

static void prev_stage(App *a) {
    int i = a->step - 1;
    // back over the previous stage's end to its start
    while (i > 0 && !ends_stage(trace_step(a->t, i - 1))) i--;
    app_set_step(a, i);
}

// The same stage at another head or layer, if the trace has it.
static void jump_to(App *a, int layer, int head) {
    const Step *s = trace_step(a->t, a->step);
    char id[128];
    Step probe = *s;
    probe.layer = layer;
    trace_stage_id(&probe, id, sizeof id);
    int i = trace_find(a->t, id, head, s->dstep);
    if (i >= 0) app_set_step(a, i);
}

// ---- text box --------------------------------------------------------------

static void insert_text(App *a, const char *text) {
    size_t len = strlen(a->edit), add = strlen(text);
    if (len + add >= EDIT_MAX) {
        add = EDIT_MAX - 1 - len;
        while (add > 0 && ((unsigned char)text[add] & 0xC0) == 0x80) add--;  // keep whole characters
        set_status(a, "The text box holds at most %d bytes; the rest of the pasted text was left out", EDIT_MAX - 1);
    }
    memmove(a->edit + a->cursor + add, a->edit + a->cursor, len - a->cursor + 1);
    memcpy(a->edit + a->cursor, text, add);
    a->cursor += add;
}

static size_t prev_char(const char *s, size_t i) {
    while (i > 0 && ((unsigned char)s[--i] & 0xC0) == 0x80) {}
    return i;
}

static size_t next_char(const char *s, size_t i) {
    if (!s[i]) return i;
    i++;
    while (s[i] && ((unsigned char)s[i] & 0xC0) == 0x80) i++;
    return i;
}

static void start_editing(App *a) {
    a->editing = true;
    a->cursor = strlen(a->edit);
    SDL_StartTextInput();
}

static void stop_editing(App *a) {
    a->editing = false;
    a->composition[0] = '\0';
    SDL_StopTextInput();
}

static bool edit_key(App *a, const SDL_KeyboardEvent *k) {
    switch (k->keysym.sym) {
    case SDLK_RETURN:
    case SDLK_KP_ENTER:
        if (app_set_sentence(a, a->edit) == 0) stop_editing(a);  // on failure the text stays for fixing
        return true;
    case SDLK_ESCAPE: stop_editing(a); return true;
    case SDLK_BACKSPACE:
        if (a->cursor > 0) {
            size_t p = prev_char(a->edit, a->cursor);
            memmove(a->edit + p, a->edit + a->cursor, strlen(a->edit) - a->cursor + 1);
            a->cursor = p;
        }
        return true;
    case SDLK_DELETE:
        if (a->edit[a->cursor]) {
            size_t q = next_char(a->edit, a->cursor);
            memmove(a->edit + a->cursor, a->edit + q, strlen(a->edit) - q + 1);
        }
        return true;
    case SDLK_LEFT: a->cursor = prev_char(a->edit, a->cursor); return true;
    case SDLK_RIGHT: a->cursor = next_char(a->edit, a->cursor); return true;
    case SDLK_HOME: a->cursor = 0; return true;
    case SDLK_END: a->cursor = strlen(a->edit); return true;
    case SDLK_v:
        if (k->keysym.mod & KMOD_CTRL) {
            char *clip = SDL_GetClipboardText();
            if (clip) {
                for (char *c = clip; *c; c++)
                    if (*c == '\n' || *c == '\r' || *c == '\t') *c = ' ';
                insert_text(a, clip);
                SDL_free(clip);
            }
        }
        return true;
    default: return false;
    }
}

// ---- export ----------------------------------------------------------------

static void draw_step_page(Gfx *g, const Model *m, const Trace *t, int step, const Theme *th, Colormap cmap, Lang lang, SDL_Rect area,
                           int hover_row, int hover_col, ViewOptions opt);

int app_render_step_png(const Model *m, const Trace *t, int step, int w, int h, float scale, bool dark, Colormap cmap, const char *font,
                        const char *path, Error *err) {
    int W = (int)lroundf((float)w * scale), H = (int)lroundf((float)h * scale);
    Gfx *g = gfx_new(W, H, font, err);
    if (!g) return -1;
    gfx_set_scale(g, scale);
    const Theme *th = theme_get(dark);
    gfx_clear(g, th->background);
    int pad = gfx_px(g, 16);
    draw_step_page(g, m, t, step, th, cmap, LANG_EN, (SDL_Rect){pad, pad, W - 2 * pad, H - 2 * pad}, -1, -1, (ViewOptions){0});
    int rc = img_save_png(path, gfx_surface(g), err);
    gfx_free(g);
    return rc;
}

static int write_csv(const Step *s, const char *path, Error *err) {
    AtomicFile af;
    if (fio_atomic_open(&af, path, err)) return -1;
    fputs("", af.fp);
    for (int c = 0; c < s->cols; c++) {
        fputc(',', af.fp);
        if (s->col_labels) fprintf(af.fp, "\"%s\"", s->col_labels[c]);
        else fprintf(af.fp, "%d", c);
    }
    fputc('\n', af.fp);
    for (int r = 0; r < s->rows; r++) {
        if (s->row_labels) fprintf(af.fp, "\"%s\"", s->row_labels[r]);
        else fprintf(af.fp, "%d", r);
        for (int c = 0; c < s->cols; c++) fprintf(af.fp, ",%.9g", (double)s->data[r * s->cols + c]);
        fputc('\n', af.fp);
    }
    return fio_atomic_commit(&af, err);
}

int app_export_view(App *a, const char *dir, float scale, char *out, size_t size, Error *err) {
    const Step *s = trace_step(a->t, a->step);
    char id[128], base[512];
    trace_stage_id(s, id, sizeof id);
    char suffix[32] = "";
    if (s->head) snprintf(suffix, sizeof suffix, "-h%d", s->head);
    if (s->dstep) snprintf(suffix + strlen(suffix), sizeof suffix - strlen(suffix), "-step%d", s->dstep);
    if ((size_t)snprintf(base, sizeof base, "%s/tracer-%s%s", dir, id, suffix) >= sizeof base)
        return err_set(err, "%s: the folder's name is too long", dir);
    char png[600], csv[600];
    snprintf(png, sizeof png, "%s.png", base);
    snprintf(csv, sizeof csv, "%s.csv", base);
    Error ferr;
    const char *font = gfx_find_font(&ferr);
    if (!font) return err_set(err, "%s", ferr.msg);
    if (app_render_step_png(a->m, a->t, a->step, 1200, 800, scale, a->dark, a->cmap, font, png, err)) return -1;
    if (write_csv(s, csv, err)) return -1;
    snprintf(out, size, "%s", png);
    return 0;
}

// ---- events ----------------------------------------------------------------

static bool key_down(App *a, const SDL_KeyboardEvent *k) {
    bool ctrl = k->keysym.mod & KMOD_CTRL, shift = k->keysym.mod & KMOD_SHIFT;
    if (a->editing) {
        if (edit_key(a, k)) return true;
        // while typing, plain keys are text: only Ctrl and F keys act as shortcuts
        if (!ctrl && !(k->keysym.sym >= SDLK_F1 && k->keysym.sym <= SDLK_F12)) return false;
    }
    const Step *s = trace_step(a->t, a->step);
    switch (k->keysym.sym) {
    case SDLK_RIGHT: shift ? next_stage(a) : app_set_step(a, a->step + 1); return true;
    case SDLK_LEFT: shift ? prev_stage(a) : app_set_step(a, a->step - 1); return true;
    case SDLK_HOME: app_set_step(a, 0); return true;
    case SDLK_END: app_set_step(a, trace_count(a->t) - 1); return true;
    case SDLK_SPACE:
        a->playing = !a->playing;
        a->last_tick = SDL_GetTicks();
        return true;
    case SDLK_LEFTBRACKET: a->speed_ms = a->speed_ms * 3 / 2 > 5000 ? 5000 : a->speed_ms * 3 / 2; return true;
    case SDLK_RIGHTBRACKET: a->speed_ms = a->speed_ms * 2 / 3 < 50 ? 50 : a->speed_ms * 2 / 3; return true;
    case SDLK_PAGEUP: if (s->layer > 1) jump_to(a, s->layer - 1, s->head); return true;
    case SDLK_PAGEDOWN: jump_to(a, s->layer + 1, s->head); return true;
    case SDLK_F11:
        a->fullscreen = !a->fullscreen;
        a->fullscreen_changed = true;
        return true;
    case SDLK_F2: a->lang = (Lang)((a->lang + 1) % LANG_COUNT); return true;
    case SDLK_F1: a->help = !a->help; return true;
    case SDLK_ESCAPE:
        if (a->help) a->help = false;
        return true;
    case SDLK_q:
        if (ctrl) a->quit = true;
        return ctrl;
    case SDLK_l:
        if (ctrl) start_editing(a);
        return ctrl;
    case SDLK_t:
        if (!ctrl) a->dark = !a->dark;
        return !ctrl;
    case SDLK_c:
        if (!ctrl) a->cmap = (Colormap)((a->cmap + 1) % CMAP_COUNT);
        return !ctrl;
    case SDLK_m:
        if (!ctrl) a->view.no_side_by_side = !a->view.no_side_by_side;
        return !ctrl;
    case SDLK_g:
        if (!ctrl) a->view.heads_grid = !a->view.heads_grid;
        return !ctrl;
    case SDLK_v:
        if (!ctrl) a->view.lines = !a->view.lines;
        return !ctrl;
    case SDLK_a:
        if (!ctrl) a->view.no_gold = !a->view.no_gold;
        return !ctrl;
    case SDLK_0:
        if (ctrl) gfx_set_scale(a->g, 1.0f);
        return ctrl;
    case SDLK_EQUALS:
    case SDLK_PLUS:
    case SDLK_KP_PLUS:
        if (ctrl) gfx_set_scale(a->g, gfx_scale(a->g) * 1.15f);
        return ctrl;
    case SDLK_MINUS:
    case SDLK_KP_MINUS:
        if (ctrl) gfx_set_scale(a->g, gfx_scale(a->g) / 1.15f);
        return ctrl;
    case SDLK_s:
        if (ctrl) {
            Error err;
            char path[700];
            if (shift) {
                snprintf(path, sizeof path, "./tracer-window.png");
                if (img_save_png(path, gfx_surface(a->g), &err)) set_status(a, "%s", err.msg);
                else set_status(a, i18n(a->lang, S_SAVED), path);
            } else if (app_export_view(a, ".", 2.0f, path, sizeof path, &err)) {
                set_status(a, "%s", err.msg);
            } else {
                set_status(a, i18n(a->lang, S_SAVED), path);
            }
        }
        return ctrl;
    default:
        if (k->keysym.sym >= SDLK_1 && k->keysym.sym <= SDLK_9 && s->head > 0) {
            jump_to(a, s->layer, (int)(k->keysym.sym - SDLK_1) + 1);
            return true;
        }
        return false;
    }
}

static void hover(App *a, int x, int y) {
    ViewState vs = {.model = a->m, .trace = a->t, .step = a->step, .theme = theme_get(a->dark), .cmap = a->cmap, .hover_row = -1,
                    .hover_col = -1, .font_px = gfx_px(a->g, 18), .opt = a->view, .lang = a->lang};
    int r, c;
    if (!view_hit(a->g, a->view_area, &vs, x, y, &r, &c)) {
        a->hover_row = a->hover_col = -1;
        return;
    }
    a->hover_row = r;
    a->hover_col = c;
    const Step *s = trace_step(a->t, a->step);
    double sum = 0.0;
    for (int k = 0; k < s->cols; k++) sum += isfinite(s->data[r * s->cols + k]) ? s->data[r * s->cols + k] : 0.0;
    char rl[64], cl[64];
    snprintf(rl, sizeof rl, "%s", s->row_labels ? s->row_labels[r] : "");
    snprintf(cl, sizeof cl, "%s", s->col_labels ? s->col_labels[c] : "");
    set_status(a, "row %d %s \xE2\x86\x92 column %d %s: %.6g   (row sum %.6g)", r, rl, c, cl, (double)s->data[r * s->cols + c], sum);
}

static bool mouse_down(App *a, int x, int y) {
    SDL_Point p = {x, y};
    if (SDL_PointInRect(&p, &a->text_box)) {
        start_editing(a);
        return true;
    }
    if (SDL_PointInRect(&p, &a->timeline)) {
        a->dragging = true;
        app_set_step(a, (int)((long)(x - a->timeline.x) * trace_count(a->t) / (a->timeline.w > 0 ? a->timeline.w : 1)));
        return true;
    }
    const Step *s = trace_step(a->t, a->step);
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < a->n_chips[k]; i++)
            if (SDL_PointInRect(&p, &a->chips[k][i])) {
                if (k == 0) jump_to(a, i + 1, s->head);
                else jump_to(a, s->layer, i + 1);
                return true;
            }
    return false;
}

bool app_event(App *a, const SDL_Event *e) {
    switch (e->type) {
    case SDL_QUIT: a->quit = true; return false;
    case SDL_KEYDOWN:
        if (e->key.keysym.sym == SDLK_SLASH && (e->key.keysym.mod & KMOD_SHIFT) && !a->editing) {
            a->help = !a->help;
            return true;
        }
        return key_down(a, &e->key);
    case SDL_TEXTINPUT:
        if (!a->editing) return false;
        insert_text(a, e->text.text);
        a->composition[0] = '\0';
        return true;
    case SDL_TEXTEDITING:
        snprintf(a->composition, sizeof a->composition, "%s", e->edit.text);
        return true;
    case SDL_MOUSEBUTTONDOWN: return e->button.button == SDL_BUTTON_LEFT && mouse_down(a, e->button.x, e->button.y);
    case SDL_MOUSEBUTTONUP: a->dragging = false; return false;
    case SDL_MOUSEMOTION:
        if (a->dragging) {
            app_set_step(a, (int)((long)(e->motion.x - a->timeline.x) * trace_count(a->t) / (a->timeline.w > 0 ? a->timeline.w : 1)));
            return true;
        }
        hover(a, e->motion.x, e->motion.y);
        return true;
    case SDL_WINDOWEVENT: return true;
    default: return false;
    }
}

bool app_tick(App *a, Uint32 now) {
    if (!a->playing || now - a->last_tick < (Uint32)a->speed_ms) return false;
    a->last_tick = now;
    if (a->step + 1 >= trace_count(a->t)) a->playing = false;
    else app_set_step(a, a->step + 1);
    return true;
}

int app_next_tick(const App *a, Uint32 now) {
    if (!a->playing) return -1;
    Uint32 due = a->last_tick + (Uint32)a->speed_ms;
    return due > now ? (int)(due - now) : 0;
}

// ---- drawing ---------------------------------------------------------------

// Title, the view and the formula panel for one step: the window's middle,
// and the whole of an exported image.
static void draw_step_page(Gfx *g, const Model *m, const Trace *t, int step, const Theme *th, Colormap cmap, Lang lang, SDL_Rect area,
                           int hover_row, int hover_col, ViewOptions opt) {
    const Step *s = trace_step(t, step);
    int px = gfx_px(g, 18), big = gfx_px(g, 24), lh = gfx_line_height(g, px), pad = gfx_px(g, 10);
    char id[128], line[512];
    trace_stage_id(s, id, sizeof id);
    int n = snprintf(line, sizeof line, "%s", id);
    if (s->layer) n += snprintf(line + n, sizeof line - (size_t)n, "   %s %d", i18n(lang, S_LAYER), s->layer);
    if (s->head) n += snprintf(line + n, sizeof line - (size_t)n, "   %s %d", i18n(lang, S_HEAD), s->head);
    if (trace_options(t)->mode == DECODE_TEACHER && s->dstep)  // one pass over the whole target: no decoding steps
        snprintf(line + n, sizeof line - (size_t)n, "   %s", i18n(lang, S_TEACHER_FORCING));
    else if (s->dstep)
        snprintf(line + n, sizeof line - (size_t)n, "   %s %d", i18n(lang, S_DECODING_STEP), s->dstep);
    gfx_text_fit(g, area.x, area.y, area.w, line, big, th->text, GFX_LEFT);
    int top = area.y + gfx_line_height(g, big) + pad;
    int formula_h = 2 * lh + pad;
    SDL_Rect view = {area.x, top, area.w, area.y + area.h - top - formula_h - pad};
    ViewState vs = {.model = m, .trace = t, .step = step, .theme = th, .cmap = cmap, .hover_row = hover_row, .hover_col = hover_col,
                    .font_px = px, .opt = opt, .lang = lang};
    view_draw(g, view, &vs);
    SDL_Rect panel = {area.x, area.y + area.h - formula_h, area.w, formula_h};
    gfx_fill(g, panel, th->panel);
    gfx_frame(g, panel, 1, th->panel_edge);
    gfx_text_fit(g, panel.x + pad, panel.y + pad / 2, panel.w - 2 * pad, s->formula, px, th->text, GFX_LEFT);
    snprintf(line, sizeof line, "%s: %s \xC3\x97 %s = %d \xC3\x97 %d", i18n(lang, S_SHAPE), s->sym_rows, s->sym_cols, s->rows, s->cols);
    gfx_text(g, panel.x + pad, panel.y + pad / 2 + lh, line, px, th->text_dim, GFX_LEFT);
}

static void draw_chips(App *a, int x, int y, int k, int count, int current, const char *prefix) {
    const Theme *th = theme_get(a->dark);
    int px = gfx_px(a->g, 16), pad = gfx_px(a->g, 6), lh = gfx_line_height(a->g, px);
    char buf[16];
    a->n_chips[k] = count < 16 ? count : 16;
    for (int i = 0; i < a->n_chips[k]; i++) {
        snprintf(buf, sizeof buf, "%s%d", prefix, i + 1);
        int w = gfx_text_width(a->g, buf, px) + 2 * pad;
        SDL_Rect r = {x, y, w, lh};
        bool on = i + 1 == current;
        gfx_fill(a->g, r, on ? th->accent : th->panel);
        gfx_frame(a->g, r, 1, th->panel_edge);
        gfx_text(a->g, x + pad, y, buf, px, on ? th->accent_text : th->text, GFX_LEFT);
        a->chips[k][i] = r;
        x += w + pad / 2;
    }
}

static void draw_help(App *a) {
    const Theme *th = theme_get(a->dark);
    Gfx *g = a->g;
    int W = gfx_width(g), H = gfx_height(g), px = gfx_px(g, 18), lh = gfx_line_height(g, px), pad = gfx_px(g, 20);
    gfx_fill(g, (SDL_Rect){0, 0, W, H}, (th->background & 0x00FFFFFF) | 0xC0000000);
    const char *keys = i18n(a->lang, S_HELP_KEYS);
    int lines = 1;
    for (const char *c = keys; *c; c++) lines += *c == '\n';
    SDL_Rect box = {W / 2 - gfx_px(g, 360), pad, gfx_px(g, 720), (lines + 2) * lh + 2 * pad};
    if (box.x < 0) box.x = 0;
    gfx_fill(g, box, th->panel);
    gfx_frame(g, box, 2, th->accent);
    gfx_text(g, box.x + pad, box.y + pad, i18n(a->lang, S_HELP_TITLE), gfx_px(g, 24), th->text, GFX_LEFT);
    int y = box.y + pad + 2 * lh;
    char line[256];
    for (const char *c = keys; *c;) {
        const char *end = strchr(c, '\n');
        size_t len = end ? (size_t)(end - c) : strlen(c);
        snprintf(line, sizeof line, "%.*s", (int)len, c);
        char *tab = strchr(line, '\t');
        if (tab) {
            *tab = '\0';
            gfx_text(g, box.x + pad, y, line, px, th->accent, GFX_LEFT);
            gfx_text(g, box.x + pad + gfx_px(g, 260), y, tab + 1, px, th->text, GFX_LEFT);
        }
        y += lh;
        c += len + (end ? 1 : 0);
    }
}

void app_draw(App *a) {
    Gfx *g = a->g;
    const Theme *th = theme_get(a->dark);
    int W = gfx_width(g), H = gfx_height(g), px = gfx_px(g, 18), lh = gfx_line_height(g, px), pad = gfx_px(g, 12);
    gfx_clear(g, th->background);
    // the sentence box
    a->text_box = (SDL_Rect){pad, pad, W * 3 / 5, lh + pad};
    gfx_fill(g, a->text_box, th->panel);
    gfx_frame(g, a->text_box, a->editing ? 2 : 1, a->editing ? th->accent : th->panel_edge);
    int tx = a->text_box.x + pad / 2, ty = a->text_box.y + pad / 2;
    const char *shown = a->editing ? a->edit : a->sentence;
    gfx_clip(g, &a->text_box);
    int w = gfx_text(g, tx, ty, shown, px, th->text, GFX_LEFT);
    if (!*shown && a->editing) gfx_text(g, tx, ty, i18n(a->lang, S_TYPE_SENTENCE), px, th->text_dim, GFX_LEFT);
    if (a->editing) {
        char head[EDIT_MAX];
        snprintf(head, sizeof head, "%.*s", (int)a->cursor, a->edit);
        int cx = tx + gfx_text_width(g, head, px);
        if (a->composition[0]) {  // the IME's text, underlined, at the cursor
            int cw = gfx_text(g, cx, ty, a->composition, px, th->accent, GFX_LEFT);
            gfx_fill(g, (SDL_Rect){cx, ty + lh - 2, cw, 2}, th->accent);
            cx += cw;
        }
        gfx_fill(g, (SDL_Rect){cx, ty, 2, lh}, th->accent);
        SDL_Rect ime = {cx, ty, 1, lh};
        SDL_SetTextInputRect(&ime);
    }
    (void)w;
    gfx_clip(g, NULL);
    char info[256];
    static const char *const modes[] = {"greedy", "beam", "sample", "teacher forcing"};
    snprintf(info, sizeof info, "%s  \xC2\xB7  %s", a->m->name, modes[a->decode.mode]);
    gfx_text_fit(g, a->text_box.x + a->text_box.w + pad, ty, W - a->text_box.w - 3 * pad, info, px, th->text_dim, GFX_LEFT);

    // layer and head selectors for steps that have them
    const Step *s = trace_step(a->t, a->step);
    int chips_y = a->text_box.y + a->text_box.h + pad / 2;
    a->n_chips[0] = a->n_chips[1] = 0;
    if (s->layer) draw_chips(a, pad, chips_y, 0, s->name[0] == 'e' ? a->m->cfg.n_enc : a->m->cfg.n_dec, s->layer, "L");
    if (s->head) draw_chips(a, W / 4, chips_y, 1, a->m->cfg.nhead, s->head, "H");
    char pos[64];
    snprintf(pos, sizeof pos, i18n(a->lang, S_STEP), a->step + 1, trace_count(a->t));
    gfx_text(g, W - pad, chips_y, pos, gfx_px(g, 16), th->text_dim, GFX_RIGHT);

    // the step itself
    int status_h = lh + pad / 2, timeline_h = gfx_px(g, 22);
    int top = chips_y + gfx_line_height(g, gfx_px(g, 16)) + pad;
    SDL_Rect page = {pad, top, W - 2 * pad, H - top - timeline_h - status_h - 2 * pad};
    draw_step_page(g, a->m, a->t, a->step, th, a->cmap, a->lang, page, a->hover_row, a->hover_col, a->view);
    // the view area, for hit testing: below the page's title
    a->view_area = (SDL_Rect){page.x, page.y + gfx_line_height(g, gfx_px(g, 24)) + gfx_px(g, 10), page.w,
                              page.h - gfx_line_height(g, gfx_px(g, 24)) - gfx_px(g, 10) - (2 * lh + gfx_px(g, 10)) - gfx_px(g, 10)};

    // the timeline: encoder and each decoding step in turn, the current step marked
    a->timeline = (SDL_Rect){pad, H - status_h - timeline_h - pad, W - 2 * pad, timeline_h};
    int n = trace_count(a->t);
    for (int x = 0; x < a->timeline.w; x++) {
        const Step *ts = trace_step(a->t, (int)((long)x * n / a->timeline.w));
        Color c = ts->dstep == 0 ? th->accent : (ts->dstep % 2 ? th->panel_edge : th->text_dim);
        gfx_fill(g, (SDL_Rect){a->timeline.x + x, a->timeline.y, 1, a->timeline.h}, c);
    }
    int mx = a->timeline.x + (int)((long)a->step * a->timeline.w / (n > 0 ? n : 1));
    gfx_fill(g, (SDL_Rect){mx - gfx_px(g, 2), a->timeline.y - gfx_px(g, 3), gfx_px(g, 4), a->timeline.h + gfx_px(g, 6)}, th->chosen);

    // the status line
    char status[1100];
    snprintf(status, sizeof status, "%s%s", a->playing ? "\xE2\x96\xB6 " : "", a->status);  // ▶
    gfx_text_fit(g, pad, H - status_h - pad / 2, W - 2 * pad, status, px, th->text_dim, GFX_LEFT);
    if (a->help) draw_help(a);
}
