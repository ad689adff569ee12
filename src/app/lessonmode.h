// Lesson mode: a lesson (src/lesson) driving the window, one lesson step at a
// time: its model, sentence, settings, stage and view; the narration panel;
// the question and its reveal; the lesson picker. The App owns one and hands
// it events before its own handling.
//
// Dependencies go one way: the App includes this header and gives lesson
// mode an LmHost, the few things it may ask of the window; lesson mode never
// includes app.h, and the App is an opaque handle to it.
#ifndef TT_LESSONMODE_H
#define TT_LESSONMODE_H

#include <SDL.h>
#include <stdbool.h>

#include "gfx.h"
#include "i18n.h"
#include "model.h"
#include "theme.h"
#include "trace.h"
#include "view.h"

typedef struct App App;
typedef struct LessonMode LessonMode;

// What lesson mode asks of the window (app.c fills it with the App's own
// functions, whose contracts app.h gives).
typedef struct {
    const char *(*model_path)(const App *a);
    int (*set_model)(App *a, const char *path);        // 0, or -1 with the reason in status
    const Model *(*model)(const App *a);
    const char *(*status)(const App *a);
    void (*show_status)(App *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
    // shows t (owned from then on), of sentence run with d
    void (*show_trace)(App *a, Trace *t, const char *sentence, const DecodeOptions *d);
    const Trace *(*trace)(const App *a);
    int (*set_sentence)(App *a, const char *text);     // runs it: 0, or -1 with the reason in status
    const char *(*sentence)(const App *a);
    void (*set_step)(App *a, int step);
    const ViewOptions *(*view)(const App *a);
    void (*set_view)(App *a, const ViewOptions *v);
    Lang (*lang)(const App *a);
    bool (*busy)(const App *a);                        // the text box, help or settings have the keys
    // a step's compare: the page of two models with this second model; NULL: close it if a step opened it
    void (*compare)(App *a, const char *model_path);
    // a step's history: the training history page at that training step; -1: close it if a step opened it
    void (*history)(App *a, int training_step);
} LmHost;

// lessons_dir: the picker's folder; models_dir: where a lesson's model names
// point; host: the window's functions, which must outlive lesson mode.
LessonMode *lm_new(const char *lessons_dir, const char *models_dir, const LmHost *host);
void lm_free(LessonMode *lm);

// Opens a lesson file. A lesson with problems does not run: the panel lists
// them, and its sentence is opened for free exploration when it can be.
// Returns 0 when the lesson runs.
int lm_open(LessonMode *lm, App *a, const char *path);
void lm_show_picker(LessonMode *lm, bool on);
bool lm_picker_open(const LessonMode *lm);
int lm_picked(const LessonMode *lm);  // the lesson chosen in the picker, from 0 (tests)

// Takes the event if it is the lesson's (next, previous, reveal, explore…);
// false lets the App handle it.
bool lm_event(LessonMode *lm, App *a, const SDL_Event *e);
// After the App handled an event: a sentence the user ran re-binds the lesson.
void lm_after_event(LessonMode *lm, App *a);

// True when the narration panel takes the window's right side.
bool lm_panel_shown(const LessonMode *lm);
// True when the teacher folded the narration to a strip (N, or its button).
bool lm_panel_collapsed(const LessonMode *lm);
// On one's own sentence, whether the step's question quotes the lesson's
// sentence (its words, its translation or a number) and so does not apply.
bool lm_question_not_here(const LessonMode *lm);
// Folds it (the presenter view) or unfolds it.
void lm_set_collapsed(LessonMode *lm, bool collapsed);
// The folded strip's width on g.
int lm_strip_width(Gfx *g);
void lm_draw_panel(LessonMode *lm, Gfx *g, SDL_Rect area, const Theme *th, Lang lang);
// The picker, over the whole window, when open.
void lm_draw_picker(LessonMode *lm, Gfx *g, const Theme *th, Lang lang);

// What the status line says when nothing else is to be said: the lesson and
// its step, or that the lesson waits while the user explores. Returns buf.
const char *lm_status(const LessonMode *lm, Lang lang, char *buf, size_t size);

// For tests and scripts.
bool lm_running(const LessonMode *lm);      // a lesson is open and shown (not exploring)
int lm_step(const LessonMode *lm);
int lm_step_count(const LessonMode *lm);
bool lm_revealed(const LessonMode *lm);
const char *lm_problem(const LessonMode *lm);  // why the step does not apply, or the lesson's first problem; "" if none
void lm_go(LessonMode *lm, App *a, int step);

#endif
