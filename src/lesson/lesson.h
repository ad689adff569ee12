// Lessons: the plain-text lesson format (docs/LESSONS.md), its parser, and
// the binding of a lesson's steps to a trace. No SDL; the window and the
// lint command both use it.
#ifndef TT_LESSON_H
#define TT_LESSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "model.h"
#include "trace.h"

enum { LES_EN, LES_ZH, LES_LANGS };
enum { LES_MAX_CHOICES = 6, LES_MAX_STEPS = 200, LES_MAX_BYTES = 1 << 20 };

// Problems found in a lesson, each "file:line: problem".
typedef struct {
    char **msgs;
    int n, cap;
} LesProblems;

void les_problems_deinit(LesProblems *p);
// Adds one problem (printf-style, already prefixed by the caller or not).
void les_problem(LesProblems *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// How a step runs the model. Unset fields leave the lesson's setting (or the
// program's default) in place.
typedef struct {
    const char *model;      // a shipped model's name or a file beside the lesson; NULL: not set
    const char *sentence;   // NULL: not set
    const char *target;     // NULL: not set
    bool target_off;        // "target: none"
    int mode;               // DecodeMode, or -1
    int beam, top_k, max_steps;  // -1: not set
    float temperature, top_p;    // < 0: not set
    int look_ahead_mask;    // 1 on, 0 off (the experiment), -1 not set
    bool ablate_set;        // ablate given ("none" too): the experiment's silenced parts
    Ablation ablate;
    int ablate_line;        // of ablate:, where a part the model lacks is reported; 0 not set
    bool seed_set;
    uint64_t seed;
    int allow_special;      // decoding may choose <pad>, <bos>, <unk>: 1 yes, 0 no, -1 not set
    int pad_to;             // the source padded to this length and the pads masked (--pad-to); 0 off, -1 not set
} LesRun;

typedef struct {
    int row, col;           // from 1; 0 = the whole row or column ("*")
} LesCell;

// A small matrix a step draws beside the model's own (given:), e.g. the
// course's 4 × 4 example; rows and columns at most LES_GIVEN_MAX.
enum { LES_GIVEN_MAX = 8, LES_GIVEN_LABEL = 23, LES_GIVEN_TITLE = 127, LES_CODE = 127 };
typedef struct {
    int rows, cols;                             // 0: none
    float values[LES_GIVEN_MAX * LES_GIVEN_MAX];  // row-major; −∞ allowed, nothing else infinite
    const char *row_labels[LES_GIVEN_MAX];      // NULL: numbered
    const char *col_labels[LES_GIVEN_MAX];
    int n_row_labels, n_col_labels;
    const char *title[LES_LANGS];
    int line;                                   // of given:
} LesGiven;

// A small table of text a step draws beside the model's view (table:,
// table.zh:), e.g. the course's dimension table; its first row is the header.
enum { LES_TABLE_ROWS = 10, LES_TABLE_COLS = 5, LES_TABLE_CELL = 31 };
typedef struct {
    int rows, cols;                                              // 0: none
    const char *cells[LES_LANGS][LES_TABLE_ROWS * LES_TABLE_COLS];  // row-major
    int shape[LES_LANGS][2];                                     // each language's rows and columns, for lint
    bool seen[LES_LANGS];                                        // its key was there (parsed or not)
    const char *title[LES_LANGS];
    int line;                                                    // of table:
} LesTable;

typedef struct {
    int line;                       // where its [step] is
    const char *stage;              // stage id, e.g. "dec.L1.cross_attn.weights"
    int head;                       // from 1; 0 = not given
    int dstep;                      // decoding step from 1; 0 = not given; -1 = last
    LesRun run;                     // this step's own settings
    bool grid, lines, alone, no_gold, kv_cache;
    LesCell *cells;
    int n_cells;
    const char *say[LES_LANGS];     // paragraphs separated by "\n"
    const char *ask[LES_LANGS];     // NULL: no question
    const char *choices[LES_LANGS][LES_MAX_CHOICES];
    int n_choices;
    int answer;                     // from 1; 0 = open question
    const char *reveal[LES_LANGS];
    LesGiven given;
    LesTable table;
    const char *code;               // one line of the course's code, shown under the formula; NULL: none
    // lines of some keys, for lint's messages
    int stage_line, head_line, step_line, highlight_line, view_line;
    const char *compare;            // compare: a second model beside the step's (its page of two models), or NULL
    int compare_line;
    int history;                    // history: the training step whose snapshot the step shows (the training history page); -1 none
    int history_line;
} LesStep;

typedef struct {
    const char *path;
    const char *title[LES_LANGS];
    const char *summary[LES_LANGS];
    const char *chapter;
    const char *model;              // a shipped model's name or a file relative to the lesson
    int model_line;
    LesRun run;
    int run_line;                   // the sentence's line
    LesStep *steps;
    int n_steps;
} Lesson;

// Parses a lesson from len bytes of text. Always returns a lesson (possibly
// with fewer steps) unless memory runs out; everything wrong is added to
// problems as "path:line: problem".
Lesson *les_parse(const char *text, size_t len, const char *path, LesProblems *problems);
// Reads and parses a file; a file that cannot be read is one problem and NULL.
Lesson *les_load(const char *path, LesProblems *problems);
void les_free(Lesson *l);

// Whether a lesson may name this model: a shipped model's name, or a path
// relative to the lesson's folder; never an absolute path or one with "..".
bool les_model_name_ok(const char *model);
// The file of a model named in the lesson (the lesson's, or a step's run's):
// a shipped model (models_dir/NAME.safetensors) or a path relative to the
// lesson file. Returns buf, or NULL for a name les_model_name_ok refuses.
char *les_model_path(const Lesson *l, const char *model, const char *models_dir, char *buf, size_t size);

// The settings step i runs with: the lesson's, then the step's own, then the
// sentence override (a teacher's own sentence; NULL for the lesson's).
LesRun les_run_for_step(const Lesson *l, int i, const char *sentence_override);
// Two steps with equal settings share one trace.
bool les_run_equal(const LesRun *a, const LesRun *b);

// The decoding options r stands for (without a target).
DecodeOptions les_decode_options(const LesRun *r);

// Runs the model as r says. With a sentence override and a target, the target
// is the model's own greedy translation of the sentence (the lesson's target
// belongs to its sentence). NULL and err on a sentence that cannot run.
Trace *les_trace(const Model *m, const LesRun *r, bool own_sentence, Error *err);

// The index in t of step i's stage, head and decoding step, or -1 with why
// (e.g. "this translation has only 4 decoding steps").
int les_bind(const Lesson *l, int i, const Trace *t, char *why, size_t size);

// Checks everything docs/LESSONS.md lists: the text, the model, the sentence,
// and that every step binds to its trace. Returns the number of problems.
int les_lint(const char *path, const char *models_dir, LesProblems *problems);

#endif
