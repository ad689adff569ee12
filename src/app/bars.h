// The bars around the step page: the top row beside the text box,
// the chips row (layer and head chips, the view switches that apply, the
// step's number, teacher forcing's target) and the timeline with play /
// pause. Drawn where the layout says, with the click areas they leave.
#ifndef TT_BARS_H
#define TT_BARS_H

#include <SDL.h>
#include <stdbool.h>
#include <stddef.h>

#include "gfx.h"
#include "i18n.h"
#include "layout.h"
#include "model.h"
#include "theme.h"
#include "trace.h"

enum { BARS_SWITCHES = 5 };  // grid, lines, side by side, gold, KV cache
#include "view.h"

typedef struct {
    SDL_Rect chips[2][16];   // [0] layers, [1] heads
    int n_chips[2];
    SDL_Rect switches[BARS_SWITCHES];  // as bars_switch_keys; w 0: not shown
} Bars;

// What a click on the bars is on.
typedef struct {
    enum { BARS_NONE, BARS_LAYER, BARS_HEAD, BARS_SWITCH } what;
    int index;               // a layer or head from 1, or a switch from 0
} BarsClick;

// The view switches' keys, in the order of Bars.switches: grid, lines, side by side, gold.
extern const SDL_Keycode bars_switch_keys[BARS_SWITCHES];

// The class list's counter: "n/N", or "–/N" for a sentence not from it (at -1). Returns buf.
const char *bars_counter(int at, int count, char *buf, size_t size);
// The top row beside the text box: the class list's ◀ n/N ▶ (counter NULL:
// none), the model and strategy, ? and the settings button, lit when open.
void bars_draw_top(Gfx *g, const Layout *lay, const Theme *th, Lang lang, const char *counter, const char *info, bool help, bool settings);
// A view switch, by its key: M the masking steps side by side, G every head,
// V lines, A the gold alignment. Returns false for another key.
bool bars_toggle_view(ViewOptions *v, SDL_Keycode key);
// The top row's model and strategy, as the trace on show was run. Returns buf.
const char *bars_info(const Model *m, const Trace *t, Lang lang, char *buf, size_t size);
// The chips row for step of t at lay->chips_y.
void bars_draw_chips(Bars *b, Gfx *g, const Layout *lay, const ViewState *vs);
// Play / pause and the timeline: the encoder and each decoding step in turn, the step marked.
// The step under x on the timeline.
int bars_timeline_step(const Layout *lay, const Trace *t, int x);
void bars_draw_timeline(Gfx *g, const Layout *lay, const Theme *th, const Trace *t, int step, bool playing, Lang lang);
// The status line: what was said, after ▶ while playing.
void bars_draw_status(Gfx *g, const Layout *lay, const Theme *th, const char *said, bool playing);
BarsClick bars_click(const Bars *b, int x, int y);

#endif
