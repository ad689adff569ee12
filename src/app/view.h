// Views: each kind of trace step drawn into a rectangle of the canvas. The
// views read the trace and compute nothing of the model themselves.
#ifndef TT_VIEW_H
#define TT_VIEW_H

#include <stdbool.h>

#include "corpus.h"
#include "error.h"
#include "gfx.h"
#include "i18n.h"
#include "model.h"
#include "theme.h"
#include "trace.h"

// A lessons' small matrix given in the lesson itself (docs/LESSONS.md,
// given:), drawn beside the model's own: the course's worked examples. Copied
// in, so that it never points into a lesson that is gone.
enum { VIEW_GIVEN_MAX = 8, VIEW_GIVEN_LABEL = 24, VIEW_GIVEN_TITLE = 128, VIEW_CODE = 128 };
typedef struct {
    int rows, cols;                                   // 0: none
    float values[VIEW_GIVEN_MAX * VIEW_GIVEN_MAX];    // rows × cols, row-major; −∞ drawn hatched
    char row_labels[VIEW_GIVEN_MAX][VIEW_GIVEN_LABEL];  // "": rows numbered from 1
    char col_labels[VIEW_GIVEN_MAX][VIEW_GIVEN_LABEL];
    char title[2][VIEW_GIVEN_TITLE];                  // English, 繁體中文
} ViewGiven;

// A lesson's table of text (table:), drawn where a given matrix would be;
// row 0 is the header. Copied in, as ViewGiven.
enum { VIEW_TABLE_ROWS = 10, VIEW_TABLE_COLS = 5, VIEW_TABLE_CELL = 32 };
typedef struct {
    int rows, cols;                                                    // 0: none
    char cells[2][VIEW_TABLE_ROWS][VIEW_TABLE_COLS][VIEW_TABLE_CELL];  // English, 繁體中文
    char title[2][VIEW_GIVEN_TITLE];
} ViewTable;

// Which composite views are on (keys m, g, v, a in the window). All false,
// as a zeroed struct, is the default.
typedef struct {
    bool no_side_by_side;   // m: decoder self-attention steps alone, not beside mask, scores, masked scores, weights
    bool heads_grid;        // g: attention weights of every head of the layer, and their average
    bool lines;             // v: attention weights as lines between the tokens
    bool no_gold;           // a: hide the gold alignment over cross-attention
    bool kv_cache;          // k: a decoder stage at step t beside step t − 1 (on K and V: every layer's cache)
    bool shared_scale;      // Shift+C: one colour scale for a stage over every head of its layer and every decoding step
    bool hide_shape;        // lessons: a question is open, and the page's shape line would answer it
    int n_highlight;        // lessons: cells outlined in heatmaps
    struct {
        int row, col;       // from 1; 0 = the whole row or column
    } highlight[16];
    char code[VIEW_CODE];   // lessons: one line of the course's code, under the formula ("": none)
    ViewGiven given;        // lessons: a small matrix beside the step's own
    ViewTable table;        // lessons: or a small table of text there
} ViewOptions;

// What the views show beyond the trace itself, worked out once per trace so
// that drawing only reads: the gold alignment of the sentence and each
// attention-weights step's average over the heads.
typedef struct ViewData ViewData;

typedef struct {
    const Model *model;
    const Trace *trace;
    const ViewData *data;   // of this trace (view_data_new); NULL: the views that need it say it is missing
    int step;               // index of the step shown
    const Theme *theme;
    Colormap cmap;
    int hover_row, hover_col;  // the cell under the mouse, or -1
    int font_px;            // label size, already scaled
    ViewOptions opt;
    Lang lang;              // of the words drawn inside the view
} ViewState;

// The lesson's given matrix (vs->opt.given) as a heatmap with its title, in area.
void view_given(Gfx *g, SDL_Rect area, const ViewState *vs);
// The lesson's table (vs->opt.table) with its title, in area, in the view's language.
void view_table(Gfx *g, SDL_Rect area, const ViewState *vs);
// The narrowest the table can be with nothing cut (its cells wrapped).
int view_table_least_width(Gfx *g, const ViewState *vs);

// The human name of step s in lang, from the stage table: "Decoder layer 2 ·
// cross-attention · weights · head 1 · step 3, producing 在" (「解碼器第 2 層・
// 交叉注意力・權重・第 1 頭・第 3 步，產生「在」」). Returns buf.
const char *view_step_name(const Trace *t, const Step *s, Lang lang, char *buf, size_t size);
// The same in less detail, for a title with no room: detail 2 is all of it,
// 1 without the token being produced, 0 without the decoding step either (the
// chips row and the timeline say them), -1 without the head (its chip says it).
const char *view_step_name_at(const Trace *t, const Step *s, Lang lang, int detail, char *buf, size_t size);
// The token decoding step d produced, or NULL (teacher forcing; beam search
// until its end).
const char *view_produced_at(const Trace *t, int d);
// The last decoding step trace t records (0: none).
int view_last_dstep(const Trace *t);
// The stage table's language for the interface's.
StageLang view_stage_lang(Lang lang);
// Where step s is, for the step counter: "Decoding step 3 of 7, producing 在",
// or its part's name ("Encoder layer 1", "Source"). Returns buf.
const char *view_step_place(const Trace *t, const Step *s, Lang lang, char *buf, size_t size);

// The size of labels inside a view: four fifths of the type size, at least 8.
int view_small_px(const ViewState *vs);

// The step of a teacher-forced trace t (of a model with `layers` decoder
// layers) that shows what step s of another trace shows: the same stage,
// layer and head; a decoding step's choice, which t does not have, gives way
// to the last layer's cross-attention (*instead true). -1: none.
int view_forced_step(const Trace *t, const Step *s, int layers, bool *instead);

// A page's title line, in large type at the top of area; returns the y under it.
int view_page_title(Gfx *g, SDL_Rect area, const ViewState *vs, const char *title);
// A page that has nothing to show: its title, and why under it.
void view_page_says_why(Gfx *g, SDL_Rect area, const ViewState *vs, const char *title, const char *why);
// The output of trace t as one line of model m's tokens, into buf.
const char *view_output_text(const Model *m, const Trace *t, char *buf, size_t size);
// On a page of other models (two side by side, the training history): the
// step of teacher-forced trace t, of model m with its data, that shows what
// step vs->step shows (view_forced_step), its name on a line, the view below
// it in area; a model with no such step says so.
void view_draw_forced(Gfx *g, SDL_Rect area, const ViewState *vs, const Model *m, const Trace *t, const ViewData *data);

// Draws the step vs->step into area: as one view, or with the options as
// several panels side by side or in a grid.
void view_draw(Gfx *g, SDL_Rect area, const ViewState *vs);

// The matrix cell at canvas point (x, y) of the view drawn in area, if any:
// in a composite view, the same cell of the panel under the point; in a line
// view, the line under the point or a token's strongest line.
bool view_hit(Gfx *g, SDL_Rect area, const ViewState *vs, int x, int y, int *row, int *col);

// The size of a heatmap cell of the step shown (in a composite view, of its
// own panel), for tests of the layout; false when it is not shown as a heatmap.
bool view_cell_size(Gfx *g, SDL_Rect area, const ViewState *vs, int *w, int *h);

// The view switches that change how step vs->step is shown (keys G, V, M, A, K).
typedef struct {
    bool heads_grid, lines;     // attention weights
    bool side_by_side;          // the decoder's masking steps
    bool gold;                  // cross-attention weights with a gold alignment in the corpus
    bool kv_cache;              // a decoder stage from decoding step 2 (not in teacher forcing)
} ViewSwitches;
ViewSwitches view_switches(const ViewState *vs);

// Builds the view data of trace t of model m. step ≥ 0: only what that step
// can show (one export: the corpus is searched only for a step that can show
// a gold alignment); −1: every step (the window). NULL with err when memory
// runs out.
ViewData *view_data_new(const Model *m, const Trace *t, int step, Error *err);
void view_data_free(ViewData *d);
// The gold alignment of the trace's sentence and output, or NULL; *file (if
// not NULL) names the corpus file it is in.
const CorpusPair *view_data_gold(const ViewData *d, const char **file);
// The average over the heads of step i's attention weights, as a step of
// head 0 (a display aid, not part of the model), or NULL: step i is not a
// head's attention weights, the data was built for another step, or d is NULL.
const Step *view_data_average(const ViewData *d, int i);
// Widens [*lo, *hi] to the lowest and highest finite value of step s's
// stage in its layer over the whole trace (Shift+C's shared colour scale);
// false when d holds no such ranges (it was built for one step, or is NULL).
bool view_data_shared_range(const ViewData *d, const Step *s, float *lo, float *hi);

// Draws one step as a heatmap (used by composite views too): title above it
// when title is not NULL.
void view_heatmap(Gfx *g, SDL_Rect area, const ViewState *vs, const Step *s, const char *title);

#endif
