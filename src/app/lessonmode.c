#include "lessonmode.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lesson.h"
#include "view.h"

enum { MAX_ITEMS = 64 };

// One lesson in the picker: its header, read when the picker opens.
typedef struct {
    char *path;
    char *title[LES_LANGS], *summary[LES_LANGS];
    int n_steps, n_problems;
    SDL_Rect r;
} Item;

struct LessonMode {
    const LmHost *host;         // all lesson mode asks of the App
    char *lessons_dir, *models_dir;
    Lesson *l;
    LesProblems problems;       // of the lesson opened; it runs only without any
    bool show_problems;
    int step;
    bool revealed, exploring;
    bool not_here;              // the step's question does not apply to this sentence (apply works it out)
    int chosen;                 // the class's choice, from 1; 0 = none yet
    char *own;                  // a sentence the teacher typed, or NULL for the lesson's own
    LesRun have;                // the settings of the trace on show
    bool have_set;
    char why[512];              // why the current step does not apply
    char shown[4096];           // the sentence we put in the App: another one was typed by the user
    bool picker;
    int pick;
    int pick_top;               // the first lesson the picker shows: it scrolls to keep the chosen one in view
    Item items[MAX_ITEMS];
    int n_items;
    SDL_Rect prev_btn, next_btn, reveal_btn, choice_r[LES_MAX_CHOICES];
    bool collapsed;             // N: the narration folded to a strip, the view takes the room
    SDL_Rect collapse_btn, panel;   // the button that folds or unfolds it; the panel as last drawn
    int scroll, scroll_max;     // the narration's text, scrolled up by this many pixels (↑ ↓, the wheel)
    int mouse_x, mouse_y;       // where the pointer is: the wheel scrolls the panel under it
    // the words of the lesson's sentence and of its translations, " w1 w2 … ":
    // a question that quotes one, or a number, is about that sentence
    char quoted[2048];
};

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

LessonMode *lm_new(const char *lessons_dir, const char *models_dir, const LmHost *host) {
    LessonMode *lm = calloc(1, sizeof *lm);
    if (!lm) return NULL;
    lm->host = host;
    lm->lessons_dir = strdup(lessons_dir ? lessons_dir : "lessons");
    lm->models_dir = strdup(models_dir ? models_dir : ".");
    if (!lm->lessons_dir || !lm->models_dir) {
        lm_free(lm);
        return NULL;
    }
    return lm;
}

static void clear_items(LessonMode *lm) {
    for (int i = 0; i < lm->n_items; i++) {
        Item *it = &lm->items[i];
        free(it->path);
        for (int k = 0; k < LES_LANGS; k++) {
            free(it->title[k]);
            free(it->summary[k]);
        }
    }
    lm->n_items = 0;
}

void lm_free(LessonMode *lm) {
    if (!lm) return;
    les_free(lm->l);
    les_problems_deinit(&lm->problems);
    free(lm->own);
    clear_items(lm);
    free(lm->lessons_dir);
    free(lm->models_dir);
    free(lm);
}

bool lm_running(const LessonMode *lm) { return lm->l && !lm->problems.n && !lm->exploring; }
int lm_step(const LessonMode *lm) { return lm->step; }
int lm_step_count(const LessonMode *lm) { return lm->l ? lm->l->n_steps : 0; }
bool lm_revealed(const LessonMode *lm) { return lm->revealed; }
bool lm_picker_open(const LessonMode *lm) { return lm->picker; }

int lm_picked(const LessonMode *lm) { return lm->pick; }
bool lm_panel_collapsed(const LessonMode *lm) { return lm->collapsed && !(lm->show_problems && lm->problems.n); }

void lm_set_collapsed(LessonMode *lm, bool collapsed) { lm->collapsed = collapsed; }

bool lm_panel_shown(const LessonMode *lm) { return lm_running(lm) || (lm->show_problems && lm->problems.n); }

const char *lm_problem(const LessonMode *lm) {
    if (lm->problems.n) return lm->problems.msgs[0];
    return lm->why;
}

// Keeps a word a question may quote: not a special token, punctuation or a
// short English word such as "the", which a general question uses too.
static void keep_word(LessonMode *lm, const char *w, size_t n) {
    static const char *const common[] = {"the", "and", "for", "are", "was", "its", "has", "with", "this", "that", "you"};
    if (n == 0 || w[0] == '<' || n >= 64) return;
    bool ascii = true, letters = false;
    for (size_t i = 0; i < n; i++) {
        ascii = ascii && !((unsigned char)w[i] & 0x80);
        letters = letters || isalnum((unsigned char)w[i]) || ((unsigned char)w[i] & 0x80);
    }
    if (!letters || (ascii && n < 3)) return;
    if ((unsigned char)w[0] == 0xE3 && (unsigned char)w[1] == 0x80) return;  // 。、「」 …: CJK punctuation
    for (size_t i = 0; ascii && i < sizeof common / sizeof *common; i++)
        if (strlen(common[i]) == n && !strncasecmp(w, common[i], n)) return;
    char word[70];
    snprintf(word, sizeof word, " %.*s ", (int)n, w);
    size_t have = strlen(lm->quoted);
    if (!strstr(lm->quoted, word) && have + strlen(word) < sizeof lm->quoted)
        snprintf(lm->quoted + have, sizeof lm->quoted - have, "%s", have ? word + 1 : word);
}

// The lesson's sentence and what the model made of it, for question_not_for_this_sentence.
static void keep_words(LessonMode *lm, const char *sentence, const Trace *t) {
    for (const char *p = sentence; p && *p;) {
        size_t n = strcspn(p, " ");
        keep_word(lm, p, n);
        p += n + (p[n] == ' ');
    }
    for (int d = 1; d <= trace_count(t); d++) {
        const char *out = view_produced_at(t, d);
        if (!out) break;
        keep_word(lm, out, strlen(out));
    }
}

// Whether a number at c is one read off the lesson's sentence: a value with
// decimals ("0.92") or a shape ("3 × 7"). Whole numbers alone are most often
// the model's sizes ("√d_k = 4", "64 numbers"), the same for any sentence.
static bool sentence_number(const char *c) {
    if (!isdigit((unsigned char)*c)) return false;
    while (isdigit((unsigned char)*c)) c++;
    if (*c == '.' && isdigit((unsigned char)c[1])) return true;
    while (*c == ' ') c++;
    return !strncmp(c, "\xC3\x97", 2) || *c == 'x';  // ×
}

// Whether text quotes a number of the lesson's sentence or one of its words
// (a whole English word, any Chinese one).
static bool quotes_sentence(const LessonMode *lm, const char *text) {
    if (!text) return false;
    for (const char *c = text; *c; c++)
        if ((c == text || !isdigit((unsigned char)c[-1])) && sentence_number(c)) return true;
    for (const char *w = lm->quoted + (lm->quoted[0] == ' '); *w;) {
        size_t n = strcspn(w, " ");
        char word[70];
        snprintf(word, sizeof word, "%.*s", (int)n, w);
        for (const char *at = strstr(text, word); at; at = strstr(at + 1, word)) {
            bool ascii = !((unsigned char)word[0] & 0x80);
            bool whole = !ascii || ((at == text || !isalnum((unsigned char)at[-1])) && !isalnum((unsigned char)at[n]));
            if (whole) return true;
        }
        w += n + (w[n] == ' ');
    }
    return false;
}

// A question answered from the lesson's own sentence: on another sentence it
// does not apply. The question and its choices tell; the answer may quote
// the lesson's numbers to explain a general point ("√32 ≈ 5.66").
static bool question_not_for_this_sentence(const LessonMode *lm, const LesStep *s) {
    if (!lm->own || !s->ask[LES_EN]) return false;
    for (int li = 0; li < LES_LANGS; li++) {
        if (quotes_sentence(lm, s->ask[li])) return true;
        for (int i = 0; i < s->n_choices; i++)
            if (quotes_sentence(lm, s->choices[li][i])) return true;
    }
    return false;
}

bool lm_question_not_here(const LessonMode *lm) { return lm->l && lm->not_here; }

// Puts the current step on show: the lesson's model, a trace with the step's
// settings (re-run only when they differ), its stage and its view.
static void apply(LessonMode *lm, App *a) {
    const Lesson *l = lm->l;
    lm->why[0] = '\0';
    lm->revealed = lm->not_here = false;
    lm->chosen = 0;
    lm->scroll = 0;
    LesRun r = les_run_for_step(l, lm->step, lm->own);
    char model[4096];
    if (!les_model_path(l, r.model, lm->models_dir, model, sizeof model)) {  // the parser refuses such a name first
        snprintf(lm->why, sizeof lm->why, "model \"%.200s\": not a shipped model or a file beside the lesson", r.model ? r.model : "");
        return;
    }
    if (strcmp(lm->host->model_path(a), model)) {
        if (lm->host->set_model(a, model)) {
            snprintf(lm->why, sizeof lm->why, "%s", lm->host->status(a));
            return;
        }
        lm->have_set = false;
    }
    if (!lm->have_set || !les_run_equal(&r, &lm->have)) {
        Error err;
        Trace *t = les_trace(lm->host->model(a), &r, lm->own != NULL, &err);
        if (!t) {
            snprintf(lm->why, sizeof lm->why, "%s", err.msg);
            lm->have_set = false;
            return;
        }
        DecodeOptions d = les_decode_options(&r);
        if (!lm->own) keep_words(lm, r.sentence, t);
        lm->host->show_trace(a, t, r.sentence, &d);
        lm->have = r;
        lm->have_set = true;
    }
    const LesStep *s = &l->steps[lm->step];
    lm->not_here = question_not_for_this_sentence(lm, s);  // once a step: drawing reads it several times a frame
    int idx = les_bind(l, lm->step, lm->host->trace(a), lm->why, sizeof lm->why);
    ViewOptions v = {.heads_grid = s->grid, .lines = s->lines, .no_side_by_side = s->alone, .no_gold = s->no_gold,
                     .kv_cache = s->kv_cache, .hide_shape = s->ask[LES_EN] != NULL && !lm->not_here};
    // the cells the narration points at are the lesson's sentence's: on another sentence, none
    for (int i = 0; i < s->n_cells && v.n_highlight < 16 && !lm->own; i++) {
        v.highlight[v.n_highlight].row = s->cells[i].row;
        v.highlight[v.n_highlight++].col = s->cells[i].col;
    }
    _Static_assert((int)LES_GIVEN_MAX == (int)VIEW_GIVEN_MAX && (int)LES_GIVEN_LABEL < (int)VIEW_GIVEN_LABEL && (int)LES_GIVEN_TITLE < (int)VIEW_GIVEN_TITLE && (int)LES_CODE < (int)VIEW_CODE,
                   "a lesson's given matrix and code line fit the view's copies");
    if (s->code) snprintf(v.code, sizeof v.code, "%s", s->code);
    const LesGiven *gv = &s->given;
    if (gv->rows > 0) {  // copied: the view never points into the lesson
        ViewGiven *to = &v.given;
        to->rows = gv->rows;
        to->cols = gv->cols;
        memcpy(to->values, gv->values, (size_t)(gv->rows * gv->cols) * sizeof *to->values);
        for (int i = 0; i < gv->n_row_labels && gv->row_labels[i]; i++) snprintf(to->row_labels[i], sizeof to->row_labels[i], "%s", gv->row_labels[i]);
        for (int i = 0; i < gv->n_col_labels && gv->col_labels[i]; i++) snprintf(to->col_labels[i], sizeof to->col_labels[i], "%s", gv->col_labels[i]);
        for (int lang = 0; lang < 2; lang++)
            snprintf(to->title[lang], sizeof to->title[lang], "%s", gv->title[lang == 0 ? LES_EN : LES_ZH] ? gv->title[lang == 0 ? LES_EN : LES_ZH] : "");
    }
    const LesTable *tb = &s->table;
    if (tb->rows > 0) {
        _Static_assert((int)LES_TABLE_ROWS == (int)VIEW_TABLE_ROWS && (int)LES_TABLE_COLS == (int)VIEW_TABLE_COLS &&
                           (int)LES_TABLE_CELL < (int)VIEW_TABLE_CELL,
                       "a lesson's table fits the view's copy");
        v.table.rows = tb->rows;
        v.table.cols = tb->cols;
        for (int lang = 0; lang < 2; lang++) {
            int from = lang == 0 ? LES_EN : LES_ZH;
            for (int r = 0; r < tb->rows; r++)
                for (int c = 0; c < tb->cols; c++) {
                    const char *cell = tb->cells[from][r * LES_TABLE_COLS + c];
                    snprintf(v.table.cells[lang][r][c], sizeof v.table.cells[lang][r][c], "%s", cell ? cell : "");
                }
            snprintf(v.table.title[lang], sizeof v.table.title[lang], "%s", tb->title[from] ? tb->title[from] : "");
        }
    }
    lm->host->set_view(a, &v);
    lm->host->set_step(a, idx >= 0 ? idx : 0);
    char other[4096];  // compare: the step's page of two models (lint checked the model)
    lm->host->compare(a, s->compare && les_model_path(l, s->compare, lm->models_dir, other, sizeof other) ? other : NULL);
    lm->host->history(a, s->history);
    lm->host->show_status(a, "%s", "");  // the status line then says where the lesson is, in the window's language
    snprintf(lm->shown, sizeof lm->shown, "%s", lm->host->sentence(a));
}

void lm_go(LessonMode *lm, App *a, int step) {
    if (!lm->l || !lm->l->n_steps) return;
    lm->step = step < 0 ? 0 : step >= lm->l->n_steps ? lm->l->n_steps - 1 : step;
    lm->exploring = false;
    apply(lm, a);
}

int lm_open(LessonMode *lm, App *a, const char *path) {
    les_free(lm->l);
    les_problems_deinit(&lm->problems);
    free(lm->own);
    lm->own = NULL;
    lm->have_set = false;
    lm->picker = false;
    lm->exploring = lm->not_here = false;
    lm->quoted[0] = '\0';
    lm->l = les_load(path, &lm->problems);
    if (lm->l && !lm->problems.n) {
        lm->step = 0;
        apply(lm, a);
        return 0;
    }
    // it does not run: say why, and explore its sentence if it has a usable one
    lm->show_problems = true;
    if (lm->l && lm->l->model && lm->l->run.sentence) {
        char model[4096];
        if (les_model_path(lm->l, lm->l->model, lm->models_dir, model, sizeof model) &&
            (strcmp(lm->host->model_path(a), model) == 0 || lm->host->set_model(a, model) == 0))
            lm->host->set_sentence(a, lm->l->run.sentence);
    }
    lm->host->show_status(a, "%s", lm->problems.n ? lm->problems.msgs[0] : "");
    return -1;
}

const char *lm_status(const LessonMode *lm, Lang lang, char *buf, size_t size) {
    buf[0] = '\0';
    if (!lm->l || lm->problems.n) return buf;
    char step[64];
    snprintf(step, sizeof step, i18n(lang, S_L_STEP), lm->step + 1, lm->l->n_steps);
    if (lm->exploring) snprintf(buf, size, i18n(lang, S_L_EXPLORING), lm->step + 1);
    else snprintf(buf, size, "%s \xC2\xB7 %s", lm->l->title[lang == LANG_ZH_TW ? LES_ZH : LES_EN], step);  // ·
    return buf;
}

// ---- the picker ----

static int compare_names(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

static void scan(LessonMode *lm) {
    clear_items(lm);
    DIR *d = opendir(lm->lessons_dir);
    if (!d) return;
    char *names[MAX_ITEMS];
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) && n < MAX_ITEMS;) {
        size_t len = strlen(e->d_name);
        if (len > 7 && !strcmp(e->d_name + len - 7, ".lesson") && e->d_name[0] != '.') names[n] = strdup(e->d_name), n += names[n] != NULL;
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, compare_names);
    for (int i = 0; i < n; i++) {
        Item *it = &lm->items[lm->n_items];
        size_t size = strlen(lm->lessons_dir) + strlen(names[i]) + 2;
        it->path = malloc(size);
        if (it->path) {
            snprintf(it->path, size, "%s/%s", lm->lessons_dir, names[i]);
            LesProblems pr = {0};
            Lesson *l = les_load(it->path, &pr);
            for (int k = 0; l && k < LES_LANGS; k++) {
                it->title[k] = dup_or_null(l->title[k]);
                it->summary[k] = dup_or_null(l->summary[k]);
            }
            it->n_steps = l ? l->n_steps : 0;
            it->n_problems = pr.n;
            les_free(l);
            les_problems_deinit(&pr);
            lm->n_items++;
        }
        free(names[i]);
    }
}

void lm_show_picker(LessonMode *lm, bool on) {
    lm->picker = on;
    if (on) {
        scan(lm);
        if (lm->pick >= lm->n_items) lm->pick = 0;
    }
}

static bool in_rect(SDL_Rect r, int x, int y) { return x >= r.x && y >= r.y && x < r.x + r.w && y < r.y + r.h; }

// moved: the pointer really moved (a motion event may come with the pointer at rest)
static bool picker_event(LessonMode *lm, App *a, const SDL_Event *e, bool moved) {
    if (e->type == SDL_KEYDOWN) {
        if (e->key.keysym.mod & (KMOD_CTRL | KMOD_ALT)) return false;  // quit, fullscreen… still work
        switch (e->key.keysym.sym) {
        case SDLK_UP: lm->pick = lm->pick > 0 ? lm->pick - 1 : 0; return true;
        case SDLK_DOWN: lm->pick = lm->pick + 1 < lm->n_items ? lm->pick + 1 : lm->pick; return true;
        case SDLK_HOME: lm->pick = 0; return true;
        case SDLK_END: lm->pick = lm->n_items ? lm->n_items - 1 : 0; return true;
        case SDLK_RETURN:
        case SDLK_KP_ENTER:
            if (lm->pick < lm->n_items) lm_open(lm, a, lm->items[lm->pick].path);
            return true;
        case SDLK_ESCAPE: lm->picker = false; return true;
        case SDLK_F11: case SDLK_F2: return false;
        default: return true;
        }
    }
    if (e->type == SDL_MOUSEMOTION && !moved) return true;  // a resting pointer leaves the keys' choice alone
    if (e->type == SDL_MOUSEMOTION || e->type == SDL_MOUSEBUTTONDOWN) {
        int x = e->type == SDL_MOUSEMOTION ? e->motion.x : e->button.x, y = e->type == SDL_MOUSEMOTION ? e->motion.y : e->button.y;
        for (int i = 0; i < lm->n_items; i++)
            if (in_rect(lm->items[i].r, x, y)) {
                lm->pick = i;
                if (e->type == SDL_MOUSEBUTTONDOWN && e->button.button == SDL_BUTTON_LEFT) lm_open(lm, a, lm->items[i].path);
            }
        return true;
    }
    if (e->type == SDL_MOUSEWHEEL && lm->n_items) {  // the wheel moves the choice, and the list with it
        lm->pick += e->wheel.y > 0 ? -1 : e->wheel.y < 0 ? 1 : 0;
        lm->pick = lm->pick < 0 ? 0 : lm->pick >= lm->n_items ? lm->n_items - 1 : lm->pick;
        return true;
    }
    return e->type == SDL_TEXTINPUT;
}

// ---- the lesson's own keys and buttons ----

static void next(LessonMode *lm, App *a, int delta) {
    int to = lm->step + delta;
    if (to < 0 || to >= lm->l->n_steps) {
        lm->host->show_status(a, "%s", i18n(lm->host->lang(a), to < 0 ? S_L_FIRST : S_L_LAST));
        return;
    }
    lm_go(lm, a, to);
}

// Shows or hides the answer, and with it the shape line the question may be about.
static void reveal(LessonMode *lm, App *a) {
    const LesStep *s = &lm->l->steps[lm->step];
    if (!s->ask[LES_EN] || lm->not_here) return;
    lm->revealed = !lm->revealed;
    if (lm->revealed) lm->scroll = INT_MAX / 2;  // down to the answer (the panel keeps it in range)
    ViewOptions v = *lm->host->view(a);
    v.hide_shape = !lm->revealed;
    lm->host->set_view(a, &v);
}

bool lm_event(LessonMode *lm, App *a, const SDL_Event *e) {
    bool moved = e->type == SDL_MOUSEMOTION && (e->motion.x != lm->mouse_x || e->motion.y != lm->mouse_y);
    if (e->type == SDL_MOUSEMOTION) {
        lm->mouse_x = e->motion.x;
        lm->mouse_y = e->motion.y;
    }
    if (lm->picker) return picker_event(lm, a, e, moved);
    if (lm->host->busy(a)) return false;  // typing, help or settings: theirs
    if (e->type == SDL_KEYDOWN) {
        SDL_Keycode sym = e->key.keysym.sym;
        Uint16 mod = e->key.keysym.mod;
        if (mod & (KMOD_CTRL | KMOD_ALT | KMOD_GUI)) return false;
        if (sym == SDLK_o) {
            lm_show_picker(lm, true);
            return true;
        }
        if (lm->show_problems && lm->problems.n) {
            if (sym == SDLK_ESCAPE) lm->show_problems = false;
            return sym == SDLK_ESCAPE;
        }
        if (!lm->l || lm->problems.n) return false;
        if (lm->exploring) {
            if (sym != SDLK_ESCAPE) return false;
            lm_go(lm, a, lm->step);  // back where the lesson was, as it was
            return true;
        }
        if (mod & KMOD_SHIFT) return false;  // Shift+arrows: the computation's stages, as always
        const LesStep *s = &lm->l->steps[lm->step];
        switch (sym) {
        case SDLK_n: lm->collapsed = !lm->collapsed; return true;
        case SDLK_UP: case SDLK_DOWN:
            lm->scroll += (sym == SDLK_UP ? -1 : 1) * lm->panel.h / 4;
            return true;
        case SDLK_RIGHT: case SDLK_PAGEDOWN: case SDLK_SPACE: next(lm, a, 1); return true;
        case SDLK_LEFT: case SDLK_PAGEUP: case SDLK_BACKSPACE: next(lm, a, -1); return true;
        case SDLK_HOME: lm_go(lm, a, 0); return true;
        case SDLK_END: lm_go(lm, a, lm->l->n_steps - 1); return true;
        case SDLK_RETURN: case SDLK_KP_ENTER: reveal(lm, a); return true;
        case SDLK_ESCAPE:
            lm->exploring = true;
            lm->host->show_status(a, i18n(lm->host->lang(a), S_L_EXPLORING), lm->step + 1);
            return true;
        case SDLK_r:
            if (!lm->own) return false;
            free(lm->own);
            lm->own = NULL;
            lm->have_set = false;
            apply(lm, a);
            return true;
        default:
            if (sym >= SDLK_1 && sym < SDLK_1 + s->n_choices && !lm->revealed && !lm->not_here) {
                lm->chosen = (int)(sym - SDLK_1) + 1;
                return true;
            }
            return false;
        }
    }
    if (e->type == SDL_MOUSEBUTTONDOWN && e->button.button == SDL_BUTTON_LEFT && lm_running(lm)) {
        int x = e->button.x, y = e->button.y;
        if (in_rect(lm->collapse_btn, x, y)) lm->collapsed = !lm->collapsed;
        else if (in_rect(lm->prev_btn, x, y)) next(lm, a, -1);
        else if (in_rect(lm->next_btn, x, y)) next(lm, a, 1);
        else if (in_rect(lm->reveal_btn, x, y)) reveal(lm, a);
        else {
            for (int i = 0; i < lm->l->steps[lm->step].n_choices; i++)
                if (in_rect(lm->choice_r[i], x, y) && !lm->revealed) {
                    lm->chosen = i + 1;
                    return true;
                }
            return false;
        }
        return true;
    }
    if (e->type == SDL_MOUSEWHEEL && lm_running(lm) && !lm->collapsed && in_rect(lm->panel, lm->mouse_x, lm->mouse_y)) {
        lm->scroll -= e->wheel.y * lm->panel.h / 8;
        return true;
    }
    return false;
}

void lm_after_event(LessonMode *lm, App *a) {
    if (!lm_running(lm) || !strcmp(lm->host->sentence(a), lm->shown)) return;
    // the teacher ran a sentence of their own: every step re-binds to it
    free(lm->own);
    lm->own = strcmp(lm->host->sentence(a), lm->l->run.sentence) ? strdup(lm->host->sentence(a)) : NULL;
    lm->have_set = false;
    apply(lm, a);
}

// ---- drawing ----

static int lang_index(Lang lang) { return lang == LANG_ZH_TW ? LES_ZH : LES_EN; }

// A button with a label; returns its rectangle.
static SDL_Rect button(Gfx *g, int x, int y, const char *label, int px, const Theme *th, bool on) {
    int pad = gfx_px(g, 8);
    SDL_Rect r = {x, y, gfx_text_width(g, label, px) + 2 * pad, gfx_line_height(g, px) + pad};
    gfx_fill(g, r, on ? th->accent : th->background);
    gfx_frame(g, r, 1, th->panel_edge);
    gfx_text(g, x + pad, y + pad / 2, label, px, on ? th->accent_text : th->text, GFX_LEFT);
    return r;
}

static void draw_problems(LessonMode *lm, Gfx *g, SDL_Rect area, const Theme *th, Lang lang) {
    int pad = gfx_px(g, 14), px = gfx_px(g, 18), small = gfx_px(g, 15), w = area.w - 2 * pad, y = area.y + pad;
    y += gfx_text_wrap(g, area.x + pad, y, w, i18n(lang, S_L_PROBLEMS), px, th->chosen, true) + pad / 2;
    for (int i = 0; i < lm->problems.n && y < area.y + area.h - 3 * pad; i++)
        y += gfx_text_wrap(g, area.x + pad, y, w, lm->problems.msgs[i], small, th->text, true) + pad / 3;
    gfx_text_wrap(g, area.x + pad, area.y + area.h - pad - 2 * gfx_line_height(g, small), w, i18n(lang, S_L_PROBLEMS_HINT), small, th->text_dim,
                  true);
}

// The step's text from y down: what does not apply, the narration, the
// question, its choices and the answer. Returns the height used; with draw
// false it only measures (the panel picks the largest size that fits).
static int draw_body(LessonMode *lm, Gfx *g, int x, int y, int w, const Theme *th, Lang lang, int px, bool draw) {
    const Lesson *l = lm->l;
    const LesStep *s = &l->steps[lm->step];
    // the question, its choices and the answer at the narration's size; labels no smaller than the smallest text
    int li = lang_index(lang), top = y, pad = gfx_px(g, 14), small = SDL_max(px * 3 / 4, gfx_px(g, 14)), choice_px = px;
    char buf[1200];
    if (lm->why[0]) {
        snprintf(buf, sizeof buf, i18n(lang, S_L_NOT_APPLY), lm->why);
        y += gfx_text_wrap(g, x, y, w, buf, small, th->chosen, draw) + pad / 2;
    }
    if (lm->own) {  // a banner first: the words below are about another sentence than the one shown
        snprintf(buf, sizeof buf, i18n(lang, S_L_OWN_SENTENCE), l->run.sentence);
        int h = gfx_text_wrap(g, x + pad / 2, y + pad / 3, w - pad, buf, small, th->accent_text, false) + 2 * (pad / 3);
        if (draw) {
            gfx_fill(g, (SDL_Rect){x, y, w, h}, th->chosen);
            gfx_text_wrap(g, x + pad / 2, y + pad / 3, w - pad, buf, small, th->accent_text, true);
        }
        y += h + pad / 2;
    }
    y += gfx_math_wrap(g, x, y, w, s->say[li], px, th->text, draw) + pad;
    if (!s->ask[li]) return y - top;
    if (draw) gfx_fill(g, (SDL_Rect){x, y, w, gfx_px(g, 2)}, th->panel_edge);
    y += pad / 2;
    if (draw) gfx_text(g, x, y, i18n(lang, S_L_QUESTION), small, th->accent, GFX_LEFT);
    y += gfx_line_height(g, small);
    bool not_here = lm->not_here;
    y += gfx_math_wrap(g, x, y, w, s->ask[li], px, not_here ? th->text_dim : th->text, draw) + pad / 2;
    if (not_here) {  // its answer is about the lesson's sentence: no choices, no answer to reveal
        y += gfx_text_wrap(g, x, y, w, i18n(lang, S_L_QUESTION_NOT_HERE), small, th->chosen, draw) + pad / 2;
        return y - top;
    }
    for (int i = 0; i < s->n_choices; i++) {
        snprintf(buf, sizeof buf, "%d   %s", i + 1, s->choices[li][i]);
        int h = gfx_math_wrap(g, x + pad, y, w - 2 * pad, buf, choice_px, th->text, false) + pad / 3;
        SDL_Rect r = {x, y - pad / 6, w, h};
        bool right = lm->revealed && i + 1 == s->answer, picked = i + 1 == lm->chosen;
        if (draw) {
            if (right) gfx_fill(g, r, th->accent);
            gfx_frame(g, r, picked ? gfx_px(g, 3) : 1, picked ? th->chosen : th->panel_edge);
            gfx_math_wrap(g, x + pad, y, w - 2 * pad, buf, choice_px, right ? th->accent_text : th->text, true);
            lm->choice_r[i] = r;
        }
        y += h + pad / 4;
    }
    if (lm->revealed) {
        if (s->n_choices && lm->chosen) {
            if (draw) gfx_text(g, x, y, i18n(lang, lm->chosen == s->answer ? S_L_RIGHT : S_L_WRONG), choice_px, th->chosen, GFX_LEFT);
            y += gfx_line_height(g, choice_px);
        }
        if (draw) gfx_text(g, x, y, i18n(lang, S_L_ANSWER), small, th->accent, GFX_LEFT);
        y += gfx_line_height(g, small);
        y += gfx_math_wrap(g, x, y, w, s->reveal[li], px, th->text, draw) + pad / 2;
    } else {
        if (draw) lm->reveal_btn = button(g, x, y + pad / 3, i18n(lang, S_L_REVEAL_HINT), small, th, true);
        y += gfx_line_height(g, small) + gfx_px(g, 8) + pad / 3;
    }
    return y - top;
}

// The narration folded to a strip: a button that unfolds it, and its name read upwards.
static void draw_strip(LessonMode *lm, Gfx *g, SDL_Rect area, const Theme *th, Lang lang) {
    int pad = gfx_px(g, 6), small = gfx_px(g, 15);
    lm->collapse_btn = button(g, area.x + pad, area.y + pad, "\xE2\x97\x80", small, th, false);  // ◀
    lm->collapse_btn.w = SDL_min(lm->collapse_btn.w, area.w - 2 * pad);
    int top = lm->collapse_btn.y + lm->collapse_btn.h + pad, lh = gfx_line_height(g, small);
    gfx_text_up(g, area.x + (area.w - lh) / 2, area.y + area.h - pad, area.h - (top - area.y) - 2 * pad, i18n(lang, S_L_NARRATION), small,
                th->text_dim);
}

int lm_strip_width(Gfx *g) { return gfx_px(g, 15) + 2 * gfx_px(g, 8) + 2 * gfx_px(g, 6); }

void lm_draw_panel(LessonMode *lm, Gfx *g, SDL_Rect area, const Theme *th, Lang lang) {
    lm->panel = area;
    lm->collapse_btn = (SDL_Rect){0, 0, 0, 0};
    gfx_fill(g, area, th->panel);
    gfx_clip(g, &area);
    if (lm->show_problems && lm->problems.n) {
        draw_problems(lm, g, area, th, lang);
        gfx_clip(g, NULL);
        gfx_frame(g, area, 1, th->panel_edge);
        return;
    }
    if (lm->collapsed) {
        draw_strip(lm, g, area, th, lang);
        gfx_clip(g, NULL);
        gfx_frame(g, area, 1, th->panel_edge);
        return;
    }
    const Lesson *l = lm->l;
    int li = lang_index(lang);
    int pad = gfx_px(g, 14), small = gfx_px(g, 15), w = area.w - 2 * pad;
    int x = area.x + pad, y = area.y + pad, slh = gfx_line_height(g, small);
    // which lesson, which step, and how far along; the button that folds the narration away
    int fold_w = gfx_text_width(g, "\xE2\x96\xB6", small) + 2 * gfx_px(g, 8);
    lm->collapse_btn = button(g, x + w - fold_w, y, "\xE2\x96\xB6", small, th, false);  // ▶
    y += gfx_text_wrap(g, x, y, w - fold_w - pad / 2, l->title[li], small, th->text_dim, true);  // a long title wraps
    char buf[64];
    snprintf(buf, sizeof buf, i18n(lang, S_L_STEP), lm->step + 1, l->n_steps);
    gfx_text_fit(g, x, y, w - fold_w - pad / 2, buf, gfx_px(g, 17), th->text, GFX_LEFT);
    y = SDL_max(y + gfx_line_height(g, gfx_px(g, 17)), lm->collapse_btn.y + lm->collapse_btn.h) + pad / 3;
    int seg = w / l->n_steps, gap = seg > 6 ? gfx_px(g, 2) : 0;
    for (int i = 0; i < l->n_steps; i++)
        gfx_fill(g, (SDL_Rect){x + i * w / l->n_steps, y, seg - gap > 1 ? seg - gap : 1, gfx_px(g, 6)}, i <= lm->step ? th->accent : th->panel_edge);
    y += gfx_px(g, 6) + pad;
    // the way on, at the bottom: buttons, and the keys beside them on up to two lines
    int hint_w = w - 2 * gfx_px(g, 40) - pad;
    int hint_h = gfx_text_wrap(g, 0, 0, hint_w, i18n(lang, S_L_KEYS), small, th->text_dim, false);
    int bottom_h = hint_h > slh + gfx_px(g, 8) ? hint_h : slh + gfx_px(g, 8);
    int by = area.y + area.h - pad - bottom_h;
    // the body at the largest size that fits above them; at the smallest, it scrolls
    static const int sizes[] = {21, 19, 17, 15};
    int px = 0, total = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        px = gfx_px(g, (float)sizes[i]);
        total = draw_body(lm, g, x, y, w, th, lang, px, false);
        if (y + total <= by - pad / 2) break;
    }
    lm->reveal_btn = (SDL_Rect){0, 0, 0, 0};
    for (int i = 0; i < LES_MAX_CHOICES; i++) lm->choice_r[i] = (SDL_Rect){0, 0, 0, 0};
    SDL_Rect body = {area.x, y, area.w, by - pad / 2 - y};
    lm->scroll_max = SDL_max(0, total - body.h);
    if (lm->scroll_max > 0) {  // a line under the text says there is more
        body.h -= slh;
        lm->scroll_max = total - body.h;
    }
    lm->scroll = SDL_max(0, SDL_min(lm->scroll, lm->scroll_max));
    // the clip reaches a little above the first line, into the gap over it: a
    // raised exponent on that line (e to the −∞) is whole, not dropped
    int raise = SDL_min(px / 2, pad - 1), text_y = y;
    if (lm->scroll > 0) {  // scrolled down (to a revealed answer): a line over the text says it began above
        gfx_text_fit(g, x, y, w, i18n(lang, S_L_SCROLL_ABOVE), small, th->accent, GFX_LEFT);
        body.y += slh + raise;
        body.h -= slh + raise;
        text_y += slh + raise;
        bool at_end = lm->scroll >= lm->scroll_max;  // a revealed answer stays wholly in view
        lm->scroll_max = total - body.h;
        lm->scroll = at_end ? lm->scroll_max : SDL_min(lm->scroll, lm->scroll_max);
    }
    if (body.h > 0) {
        SDL_Rect clip = {body.x, body.y - raise, body.w, body.h + raise};
        gfx_clip(g, &clip);
        gfx_clip_whole_text(g, true);  // no half lines at the edges
        draw_body(lm, g, x, text_y - lm->scroll, w, th, lang, px, true);
        gfx_clip_whole_text(g, false);
    }
    gfx_clip(g, &area);
    if (lm->scroll < lm->scroll_max) gfx_text_fit(g, x, body.y + body.h, w, i18n(lang, S_L_SCROLL_MORE), small, th->accent, GFX_LEFT);
    lm->prev_btn = button(g, x, by, "\xE2\x97\x80", small, th, false);  // ◀
    lm->next_btn = button(g, x + lm->prev_btn.w + pad / 2, by, "\xE2\x96\xB6", small, th, false);  // ▶
    int kx = lm->next_btn.x + lm->next_btn.w + pad;
    gfx_text_wrap(g, kx, by, area.x + area.w - pad - kx, i18n(lang, S_L_KEYS), small, th->text_dim, true);
    gfx_clip(g, NULL);
    gfx_frame(g, area, 1, th->panel_edge);
}

// Whether lessons top … last, of heights hs, fit in room with the lines
// that say what lies above and below them.
static bool picker_fits(const LessonMode *lm, const int *hs, int top, int last, int room, int more_h, int pad) {
    int used = top > 0 ? more_h : 0;
    for (int i = top; i <= last && i < lm->n_items; i++) used += hs[i] + pad / 2;
    if (last < lm->n_items - 1) used += more_h;
    return used <= room;
}

void lm_draw_picker(LessonMode *lm, Gfx *g, const Theme *th, Lang lang) {
    if (!lm->picker) return;
    int W = gfx_width(g), H = gfx_height(g), pad = gfx_px(g, 16);
    gfx_fill(g, (SDL_Rect){0, 0, W, H}, (th->background & 0x00FFFFFF) | 0xD0000000);
    SDL_Rect box = {W / 8, H / 12, W * 3 / 4, H * 5 / 6};
    gfx_fill(g, box, th->panel);
    gfx_frame(g, box, 2, th->accent);
    gfx_clip(g, &box);
    int x = box.x + pad, y = box.y + pad, w = box.w - 2 * pad, tpx = gfx_px(g, 28), px = gfx_px(g, 20), small = gfx_px(g, 16);
    gfx_text(g, x, y, i18n(lang, S_L_PICKER_TITLE), tpx, th->text, GFX_LEFT);
    y += gfx_line_height(g, tpx) + pad / 2;
    int li = lang_index(lang);
    char buf[512];
    if (!lm->n_items) {
        snprintf(buf, sizeof buf, i18n(lang, S_L_NONE), lm->lessons_dir);
        gfx_text_wrap(g, x, y, w, buf, px, th->text_dim, true);
    }
    int bottom = box.y + box.h - pad - gfx_line_height(g, small) - pad, more_h = gfx_line_height(g, small) + pad / 4;
    // each lesson's height, then the first shown: the chosen one must be in view
    int hs[MAX_ITEMS];
    for (int i = 0; i < lm->n_items; i++) {
        const Item *it = &lm->items[i];
        hs[i] = gfx_line_height(g, px) + pad / 2 + pad / 2;
        if (it->summary[li]) hs[i] += gfx_text_wrap(g, x + pad, y, w - 2 * pad, it->summary[li], small, th->text_dim, false);
    }
    if (lm->pick_top > lm->pick) lm->pick_top = lm->pick;
    while (lm->pick_top < lm->pick && !picker_fits(lm, hs, lm->pick_top, lm->pick, bottom - y, more_h, pad)) lm->pick_top++;
    // room below the last lesson (a taller window): show more of those above
    while (lm->pick_top > 0 && picker_fits(lm, hs, lm->pick_top - 1, lm->n_items - 1, bottom - y, more_h, pad)) lm->pick_top--;
    if (lm->pick_top > 0) {
        snprintf(buf, sizeof buf, i18n(lang, S_L_MORE_ABOVE), lm->pick_top);
        gfx_text(g, x + pad, y, buf, small, th->text_dim, GFX_LEFT);
        y += more_h;
    }
    int shown = lm->pick_top;
    for (int i = 0; i < lm->n_items; i++) {
        Item *it = &lm->items[i];
        it->r = (SDL_Rect){0, 0, 0, 0};  // not shown: not clickable
        bool last = i == lm->n_items - 1;
        if (i < lm->pick_top || i != shown || y + hs[i] + (last ? 0 : more_h) > bottom) continue;
        const char *title = it->title[li] ? it->title[li] : it->path;
        it->r = (SDL_Rect){x, y, w, hs[i]};
        if (i == lm->pick) gfx_fill(g, it->r, th->background);
        gfx_frame(g, it->r, i == lm->pick ? gfx_px(g, 3) : 1, i == lm->pick ? th->accent : th->panel_edge);
        gfx_text_fit(g, x + pad, y + pad / 4, w * 3 / 4, title, px, th->text, GFX_LEFT);
        if (it->n_problems) snprintf(buf, sizeof buf, "%s", i18n(lang, S_L_BROKEN));
        else snprintf(buf, sizeof buf, i18n(lang, S_L_STEPS), it->n_steps);
        gfx_text(g, x + w - pad, y + pad / 4, buf, small, it->n_problems ? th->chosen : th->text_dim, GFX_RIGHT);
        if (it->summary[li]) gfx_text_wrap(g, x + pad, y + gfx_line_height(g, px) + pad / 4, w - 2 * pad, it->summary[li], small, th->text_dim, true);
        y += hs[i] + pad / 2;
        shown++;
    }
    if (shown < lm->n_items) {
        snprintf(buf, sizeof buf, i18n(lang, S_L_MORE_BELOW), lm->n_items - shown);
        gfx_text(g, x + pad, y, buf, small, th->text_dim, GFX_LEFT);
    }
    gfx_text_fit(g, x, box.y + box.h - pad - gfx_line_height(g, small), w, i18n(lang, S_L_PICKER_HINT), small, th->text_dim, GFX_LEFT);
    gfx_clip(g, NULL);
}
