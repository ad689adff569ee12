// Lesson mode: a lesson (src/lesson) driving the window, one lesson step at a
// time: its model, sentence, settings, stage and view; the narration panel;
// the question and its reveal; the lesson picker. The App owns one and hands
// it events before its own handling.
#ifndef TT_LESSONMODE_H
#define TT_LESSONMODE_H

#include <SDL.h>
#include <stdbool.h>

#include "gfx.h"
#include "i18n.h"
#include "theme.h"

typedef struct App App;
typedef struct LessonMode LessonMode;

// lessons_dir: the picker's folder; models_dir: where a lesson's model names point.
LessonMode *lm_new(const char *lessons_dir, const char *models_dir);
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
