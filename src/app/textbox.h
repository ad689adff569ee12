// The sentence box: editing, the input method's composition, sideways
// scrolling, the words the model does not know (underlined) and the
// vocabulary's words offered for the one at the cursor. The App owns one,
// hands it events while typing and runs the sentence when it asks.
#ifndef TT_TEXTBOX_H
#define TT_TEXTBOX_H

#include <SDL.h>
#include <stdbool.h>
#include <stddef.h>

#include "gfx.h"
#include "i18n.h"
#include "status.h"
#include "theme.h"
#include "vocab.h"

#define TB_MAX 16384        // bytes of text, with its terminator
#define TB_MAX_SPANS 64     // unknown words underlined
#define TB_MAX_SUGGEST 8    // words offered under the box

typedef struct {
    Gfx *g;
    StatusLine *status;         // the App's: unknown words while typing, a paste cut short
    char edit[TB_MAX];
    size_t cursor;              // byte offset in edit
    size_t anchor;              // the selection's other end (anchor == cursor: none); typing replaces it
    int scroll;                 // pixels of the text scrolled off to the left, keeping the cursor in view
    int text_x, text_px;        // where the last frame drew the text (before scrolling), and its size
    char composition[256];      // IME text being composed, drawn in place
    bool editing;
    // the words, worked out again when stale: unknown ones underlined, suggestions for the one at the cursor
    bool analysed, text_changed, keep_status;
    int n_spans, span_start[TB_MAX_SPANS], span_end[TB_MAX_SPANS];
    int n_suggest, suggest_sel;
    bool suggest_closed;
    const char *suggest[TB_MAX_SUGGEST];  // into the source vocabulary
    int *counts, n_counts;                // the words' corpus counts, ranking the suggestions (NULL: alphabetical)
    int *next_counts;                     // how often each follows each (gold_word_counts), ranking them first
    int suggest_after;                    // the word before the one at the cursor: an id, n_counts at the start, -1 unknown
    char *corpus_of;                      // the model whose corpus they are counted in (tb_set_corpus)
    bool counted;                         // counts worked out (at the first suggestion)
    size_t word_start, word_end;          // the word at the cursor, as bytes of edit
    SDL_Rect box, suggest_rects[TB_MAX_SUGGEST];
} TextBox;

// What an event asks of the App.
typedef enum {
    TB_IGNORED,  // not the box's: the App's shortcuts may have it
    TB_TAKEN,
    TB_RUN,      // Enter: run tb_text(); tb_stop() when it ran
} TbResult;

void tb_init(TextBox *tb, Gfx *g, StatusLine *status);
void tb_deinit(TextBox *tb);

// The text in the box, the cursor at its end.
void tb_set_text(TextBox *tb, const char *text);
const char *tb_text(const TextBox *tb);
bool tb_editing(const TextBox *tb);
void tb_start(TextBox *tb);
void tb_stop(TextBox *tb);
// The model whose corpus ranks the suggestions (gold_word_counts: by how
// often each word follows the word before it, then how often it occurs, then
// alphabetically; alphabetically when it has no corpus). Counted when a word
// is first completed, not here.
void tb_set_corpus(TextBox *tb, const char *model_path);
// The words are to be worked out again (another sentence or vocabulary).
void tb_stale(TextBox *tb);

// Works out, when stale, the unknown words of the text shown (the box's while
// editing, else sentence) in src, and the suggestions for the word at the
// cursor; while typing, the status line names the unknown words.
void tb_analyse(TextBox *tb, const Vocab *src, const char *sentence, Lang lang);

// From the last tb_analyse: the unknown words as byte ranges of the text
// shown, and the words offered for the one at the cursor. Return counts.
int tb_unknown_spans(const TextBox *tb, int *start, int *end, int max);
int tb_suggestions(const TextBox *tb, const char **words, int max);

// Keys while editing, typed and composed text, clicks on the box and on the
// suggestions.
TbResult tb_event(TextBox *tb, const SDL_Event *e, const Vocab *src, const char *sentence, Lang lang);

// Draws the box at box with the text shown (the box's while editing, else
// sentence), its underlines and the cursor. Call tb_analyse first.
void tb_draw(TextBox *tb, SDL_Rect box, const Theme *th, Lang lang, const char *sentence);
// The suggestions under the box, over what is drawn after it.
void tb_draw_suggestions(TextBox *tb, const Theme *th, Lang lang);

#endif
