// What the App, views and window tests share: the fixture (an App on a
// canvas), events as SDL sends them, checks of the state, and images
// (PNG reading, golden comparison). See test_app.c, test_views.c and
// test_window.c.
#ifndef TT_APP_FIXTURE_H
#define TT_APP_FIXTURE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


#include "app.h"
#include "fileio.h"
#include "image.h"
#include "theme.h"
#include "vocab.h"
#include "window.h"

#define MODEL_PATH TT_TEST_DATA "/../../assets/models/en-zh.safetensors"
#define SCRIPTS TT_TEST_DATA "/scripts/"
#define SENTENCE "the cat sits on the mat ."
#define TARGET "貓 坐 在 墊子 上 。"
#define W 1280
#define H 800

typedef struct Golden Golden;

typedef struct {
    Gfx *g;
    App *a;
    char tmp[64];          // a scratch folder, removed in teardown
    const Golden *golden;  // the golden image tests: which one
} Fixture;

typedef struct {
    int w, h;
    uint8_t *rgb;  // w × h × 3
} Image;

extern const char *font;  // found once, in fixture_main
extern Model *model;      // for tokenizing targets and the headless export
extern Tokens target;     // TARGET in the model's target vocabulary

#define expect_int(what, got, want)                                                                         \
    do {                                                                                                    \
        long got_ = (long)(got), want_ = (long)(want);                                                      \
        if (got_ != want_) fail_msg("%s: expected: %ld, got: %ld", what, want_, got_);                    \
    } while (0)
#define expect_str(what, got, want)                                                                         \
    do {                                                                                                    \
        const char *got_ = (got), *want_ = (want);                                                          \
        if (strcmp(got_, want_)) fail_msg("%s: expected: \"%s\", got: \"%s\"", what, want_, got_);         \
    } while (0)
#define expect_contains(what, got, part)                                                                    \
    do {                                                                                                    \
        const char *got_ = (got), *part_ = (part);                                                          \
        if (!strstr(got_, part_)) fail_msg("%s: expected to contain \"%s\", got: \"%s\"", what, part_, got_); \
    } while (0)

Fixture *fixture_new(const AppOptions *o);
int setup(void **state);
void remove_tree(const char *dir);
int teardown(void **state);
bool key(App *a, SDL_Keycode sym, Uint16 mod);
void keys(App *a, SDL_Keycode sym, int times);
bool type(App *a, const char *text);
void compose(App *a, const char *text);
bool mouse(App *a, Uint32 type, int x, int y);
void edit_afresh_of(App *a, int chars);
void edit_afresh(App *a);
const char *stage(const App *a, char *buf, size_t size);
int head(const App *a);
void expect_stage(const App *a, const char *id, int want_head);
void go_to(App *a, const char *id, int h, int dstep);
bool png_read(const char *path, Image *im, char *why, size_t size);
Uint32 surface_pixel(SDL_Surface *s, int x, int y);
// A pixel of the canvas (gfx_pixels), and an SDL surface's pixels seen as a canvas's.
Uint32 canvas_pixel(const GfxPixels *p, int x, int y);
GfxPixels pixels_of(SDL_Surface *s);
void image_pixel(const Image *im, int x, int y, int rgb[3]);
SDL_Surface *surface_of(const Image *im);
void save_rgb(const char *path, const Image *im);
bool golden_matches(const GfxPixels *s, const char *name, char *message, size_t message_size);

// Starts SDL (offscreen video, for the clipboard), finds the font, loads the
// model, runs the tests and cleans up. Returns how many failed.
int fixture_main(const struct CMUnitTest *tests, size_t n);

#endif
