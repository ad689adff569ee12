#include "textbox.h"

#include <stdlib.h>
#include <string.h>

#include "gold.h"

void tb_init(TextBox *tb, Gfx *g, StatusLine *status) {
    memset(tb, 0, sizeof *tb);
    tb->g = g;
    tb->status = status;
    tb->suggest_sel = -1;
}

void tb_deinit(TextBox *tb) {
    free(tb->counts);
    free(tb->next_counts);
    free(tb->corpus_of);
    memset(tb, 0, sizeof *tb);
}

void tb_set_corpus(TextBox *tb, const char *model_path) {
    free(tb->counts);
    free(tb->next_counts);
    free(tb->corpus_of);
    tb->counts = tb->next_counts = NULL;
    tb->n_counts = 0;
    tb->counted = false;
    tb->corpus_of = model_path ? strdup(model_path) : NULL;  // a failed strdup only leaves the order alphabetical
    tb->analysed = false;
}

void tb_set_text(TextBox *tb, const char *text) {
    snprintf(tb->edit, sizeof tb->edit, "%s", text);
    tb->cursor = tb->anchor = strlen(tb->edit);
    tb->analysed = false;
}

const char *tb_text(const TextBox *tb) { return tb->edit; }
bool tb_editing(const TextBox *tb) { return tb->editing; }
void tb_stale(TextBox *tb) { tb->analysed = false; }

void tb_start(TextBox *tb) {
    tb->editing = true;
    tb->cursor = strlen(tb->edit);
    tb->anchor = 0;  // the whole sentence selected: typing replaces it, an arrow keeps it
    tb->analysed = false;
    tb->suggest_closed = false;
    SDL_StartTextInput();
}

void tb_stop(TextBox *tb) {
    tb->editing = false;
    tb->composition[0] = '\0';
    tb->analysed = false;
    SDL_StopTextInput();
}

// Removes the selected text, if any; true when there was some.
static bool delete_selection(TextBox *tb) {
    if (tb->anchor == tb->cursor) return false;
    size_t a = tb->anchor < tb->cursor ? tb->anchor : tb->cursor, b = tb->anchor < tb->cursor ? tb->cursor : tb->anchor;
    memmove(tb->edit + a, tb->edit + b, strlen(tb->edit) - b + 1);
    tb->cursor = tb->anchor = a;
    tb->text_changed = true;
    return true;
}

static void insert_text(TextBox *tb, const char *text, Lang lang) {
    delete_selection(tb);
    size_t len = strlen(tb->edit), add = strlen(text);
    if (len + add >= TB_MAX) {
        add = TB_MAX - 1 - len;
        while (add > 0 && ((unsigned char)text[add] & 0xC0) == 0x80) add--;  // keep whole characters
        status_set(tb->status, i18n(lang, S_PASTE_CUT), TB_MAX - 1);
    }
    memmove(tb->edit + tb->cursor + add, tb->edit + tb->cursor, len - tb->cursor + 1);
    memcpy(tb->edit + tb->cursor, text, add);
    tb->cursor += add;
    tb->anchor = tb->cursor;
    tb->keep_status = add < strlen(text);
    tb->suggest_closed = false;  // the message that text was left out stays over the unknown words
    tb->text_changed = true;
    tb->analysed = false;
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

// The width of the first n bytes of s at the box's size.
static int prefix_width(TextBox *tb, const char *s, size_t n, int px) {
    static char head[TB_MAX];
    snprintf(head, sizeof head, "%.*s", (int)n, s);
    return gfx_text_width(tb->g, head, px);
}

// The character boundary of the text nearest to window x: a binary search,
// as the width of a prefix grows with its length (a click in 16 KB of text
// measures some 30 prefixes, not thousands).
static size_t char_at_x(TextBox *tb, int x) {
    int want = x - (tb->text_x - tb->scroll);
    size_t len = strlen(tb->edit), lo = 0, hi = len;  // lo: a boundary left of want (or 0), hi: one right of it (or len)
    while (next_char(tb->edit, lo) < hi) {
        size_t mid = lo + (hi - lo) / 2;
        while (mid > lo && ((unsigned char)tb->edit[mid] & 0xC0) == 0x80) mid--;  // a character's first byte
        if (mid == lo) mid = next_char(tb->edit, lo);
        if (prefix_width(tb, tb->edit, mid, tb->text_px) <= want) lo = mid;
        else hi = mid;
    }
    // the nearer of the two boundaries
    int w_lo = prefix_width(tb, tb->edit, lo, tb->text_px), w_hi = prefix_width(tb, tb->edit, hi, tb->text_px);
    return want - w_lo <= w_hi - want ? lo : hi;
}

// A byte that belongs to a word (as the tokenizer splits them): not ASCII
// space or punctuation, except an apostrophe or hyphen inside a word.
static bool word_byte(const char *s, size_t i) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x80 || (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')) return true;
    return (c == '\'' || c == '-') && i > 0 && word_byte(s, i - 1) && s[i + 1] && word_byte(s, i + 1);
}

// Lower-cases as the tokenizer does (ASCII and Latin-1 capitals), byte for byte.
static void lower_copy(char *out, const char *in) {
    size_t i = 0;
    for (; in[i]; i++) {
        unsigned char c = (unsigned char)in[i];
        out[i] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
        if (c == 0xC3 && in[i + 1]) {
            unsigned char d = (unsigned char)in[i + 1];
            out[++i] = (char)(d >= 0x80 && d <= 0x9E && d != 0x97 ? d + 0x20 : d);
        }
    }
    out[i] = '\0';
}

// Whether some word of the vocabulary starts with prefix.
static bool starts_a_word(const Vocab *v, const char *prefix) {
    size_t n = strlen(prefix);
    for (int id = 0; id < voc_size(v); id++)
        if (!strncmp(voc_token(v, id), prefix, n)) return true;
    return false;
}

// Word a (id ia) before word b: more often in the corpus, then alphabetically.
// Suggestions: the words the corpus has most often after the word before
// ("the c" → cat), then the most frequent, then alphabetically.
static bool ranks_before(const TextBox *tb, const char *a, int ia, const char *b, int ib) {
    int V = tb->n_counts, p = tb->suggest_after;
    if (tb->next_counts && p >= 0 && p <= V && ia < V && ib < V) {
        int na = tb->next_counts[(size_t)p * (size_t)V + (size_t)ia], nb = tb->next_counts[(size_t)p * (size_t)V + (size_t)ib];
        if (na != nb) return na > nb;
    }
    int ca = ia < V ? tb->counts[ia] : 0, cb = ib < V ? tb->counts[ib] : 0;
    return ca != cb ? ca > cb : strcmp(a, b) < 0;
}

// The unknown words of text (lower-cased in low) as spans, named in words.
static void find_unknown(TextBox *tb, const Vocab *src, const char *text, const char *low, char *words, size_t size) {
    Tokens tok;
    Error err;
    if (!*text || voc_tokenize(src, text, &tok, &err)) return;
    // each piece is the next occurrence of its lower-cased text
    size_t at = 0;
    for (int i = 0; i < tok.n; i++) {
        const char *p = strstr(low + at, tok.pieces[i]);
        if (!p) break;
        at = (size_t)(p - low) + strlen(tok.pieces[i]);
        if (tok.ids[i] != voc_unk(src)) continue;
        if (tb->editing && at == tb->cursor && starts_a_word(src, tok.pieces[i])) continue;  // still being typed
        if (tb->n_spans < TB_MAX_SPANS) {
            tb->span_start[tb->n_spans] = (int)(p - low);
            tb->span_end[tb->n_spans++] = (int)at;
        }
        if (strlen(words) + strlen(tok.pieces[i]) + 8 < size) {
            strcat(words, " \"");
            strcat(words, tok.pieces[i]);
            strcat(words, "\"");
        } else if (!strstr(words, " \xE2\x80\xA6")) {
            strcat(words, " \xE2\x80\xA6");  // …
        }
    }
    voc_tokens_deinit(&tok);
}

// While typing, the status line names the unknown words (a hint), and says
// nothing once they are fixed.
static void say_unknown(TextBox *tb, const char *words, Lang lang) {
    if (!tb->editing || !tb->text_changed) return;
    tb->text_changed = false;
    if (*words && !tb->keep_status) {
        status_set(tb->status, i18n(lang, S_UNKNOWN_TYPING), words);
        tb->status->hint = true;
    } else if (!*words && tb->status->hint) {
        status_clear(tb->status);
    }
    tb->keep_status = false;
}

static void analyse(TextBox *tb, const Vocab *src, const char *sentence, Lang lang) {
    if (tb->analysed) return;
    tb->analysed = true;
    tb->n_spans = tb->n_suggest = 0;
    const char *text = tb->editing ? tb->edit : sentence;
    static char low[TB_MAX];
    lower_copy(low, text);
    char words[512] = "";
    find_unknown(tb, src, text, low, words, sizeof words);
    say_unknown(tb, words, lang);
    // the word at the cursor: suggestions for it, unless composing or closed with Esc
    if (!tb->editing || tb->composition[0] || tb->suggest_closed) return;
    size_t b = tb->cursor, e = tb->cursor;
    while (b > 0 && word_byte(tb->edit, b - 1)) b--;
    while (tb->edit[e] && word_byte(tb->edit, e)) e++;
    size_t plen = tb->cursor - b;
    if (!plen) return;
    tb->word_start = b;
    tb->word_end = e;
    // the corpus is read at the first word to complete, not at start-up
    if (!tb->counted) {
        tb->counts = gold_word_counts(tb->corpus_of, src, &tb->next_counts);
        tb->n_counts = tb->counts ? voc_size(src) : 0;
        tb->counted = true;
    }
    // the word before it (lower-cased in low), or the start of the sentence
    size_t pe = b;
    while (pe > 0 && !word_byte(tb->edit, pe - 1)) pe--;
    size_t pb = pe;
    while (pb > 0 && word_byte(tb->edit, pb - 1)) pb--;
    tb->suggest_after = tb->n_counts;
    if (pe > pb) {
        char prev[128];
        snprintf(prev, sizeof prev, "%.*s", (int)(pe - pb), low + pb);
        tb->suggest_after = voc_id(src, prev);
    }
    // the best TB_MAX_SUGGEST of all the words with the prefix, kept in order as they come
    const char *found[TB_MAX_SUGGEST];
    int found_id[TB_MAX_SUGGEST], n = 0;
    for (int id = 0; id < voc_size(src); id++) {
        const char *w = voc_token(src, id);
        if (w[0] == '<' || strncmp(w, low + b, plen)) continue;  // special tokens are never typed
        int at = n < TB_MAX_SUGGEST ? n : TB_MAX_SUGGEST;
        while (at > 0 && ranks_before(tb, w, id, found[at - 1], found_id[at - 1])) at--;
        if (at < TB_MAX_SUGGEST) {
            int last = n < TB_MAX_SUGGEST ? n : TB_MAX_SUGGEST - 1;
            memmove(found + at + 1, found + at, (size_t)(last - at) * sizeof *found);
            memmove(found_id + at + 1, found_id + at, (size_t)(last - at) * sizeof *found_id);
            found[at] = w;
            found_id[at] = id;
        }
        n++;
    }
    // the word already typed in full, and nothing longer: nothing to offer
    if (n == 1 && strlen(found[0]) == e - b && !strncmp(found[0], low + b, e - b)) n = 0;
    tb->n_suggest = n < TB_MAX_SUGGEST ? n : TB_MAX_SUGGEST;
    memcpy(tb->suggest, found, (size_t)tb->n_suggest * sizeof *found);
    if (tb->suggest_sel >= tb->n_suggest) tb->suggest_sel = -1;
}

void tb_analyse(TextBox *tb, const Vocab *src, const char *sentence, Lang lang) { analyse(tb, src, sentence, lang); }

int tb_unknown_spans(const TextBox *tb, int *start, int *end, int max) {
    for (int i = 0; i < tb->n_spans && i < max; i++) {
        start[i] = tb->span_start[i];
        end[i] = tb->span_end[i];
    }
    return tb->n_spans;
}

int tb_suggestions(const TextBox *tb, const char **words, int max) {
    for (int i = 0; i < tb->n_suggest && i < max; i++) words[i] = tb->suggest[i];
    return tb->n_suggest;
}

// Puts suggestion i in place of the word at the cursor, with a space after it.
static void accept_suggestion(TextBox *tb, int i) {
    const char *w = tb->suggest[i];
    size_t wl = strlen(w), tail = strlen(tb->edit + tb->word_end);
    bool space = tb->edit[tb->word_end] != ' ';
    if (tb->word_start + wl + space + tail >= TB_MAX) return;
    memmove(tb->edit + tb->word_start + wl + space, tb->edit + tb->word_end, tail + 1);
    memcpy(tb->edit + tb->word_start, w, wl);
    if (space) tb->edit[tb->word_start + wl] = ' ';
    tb->cursor = tb->anchor = tb->word_start + wl + 1;
    tb->suggest_sel = -1;
    tb->text_changed = true;
    tb->analysed = false;
}

// The suggestions under the box take Tab, ↓ ↑, Enter once one is chosen, and Esc.
static bool suggestion_key(TextBox *tb, SDL_Keycode sym) {
    switch (sym) {
    case SDLK_TAB: accept_suggestion(tb, tb->suggest_sel >= 0 ? tb->suggest_sel : 0); return true;
    case SDLK_DOWN: tb->suggest_sel = (tb->suggest_sel + 1) % tb->n_suggest; return true;
    case SDLK_UP: tb->suggest_sel = tb->suggest_sel <= 0 ? tb->n_suggest - 1 : tb->suggest_sel - 1; return true;
    case SDLK_RETURN:
    case SDLK_KP_ENTER:
        if (tb->suggest_sel < 0) return false;
        accept_suggestion(tb, tb->suggest_sel);
        return true;
    case SDLK_ESCAPE:
        tb->suggest_closed = true;
        tb->analysed = false;
        return true;
    default: return false;
    }
}

static TbResult edit_key(TextBox *tb, const SDL_KeyboardEvent *k, Lang lang) {
    SDL_Keycode sym = k->keysym.sym;
    if (tb->n_suggest && suggestion_key(tb, sym)) return TB_TAKEN;
    if (sym != SDLK_RETURN && sym != SDLK_KP_ENTER && sym != SDLK_ESCAPE && sym != SDLK_TAB) {
        tb->analysed = false;  // the cursor or the text may move: the word at the cursor with it
        tb->suggest_sel = -1;
    }
    switch (sym) {
    case SDLK_TAB: return TB_TAKEN;  // never a shortcut while typing
    case SDLK_RETURN:
    case SDLK_KP_ENTER: return TB_RUN;  // on failure the text stays for fixing
    case SDLK_ESCAPE: tb_stop(tb); return TB_TAKEN;
    case SDLK_BACKSPACE:
        tb->text_changed = true;
        tb->suggest_closed = false;
        if (delete_selection(tb)) return TB_TAKEN;
        if (tb->cursor > 0) {
            size_t p = prev_char(tb->edit, tb->cursor);
            memmove(tb->edit + p, tb->edit + tb->cursor, strlen(tb->edit) - tb->cursor + 1);
            tb->cursor = tb->anchor = p;
        }
        return TB_TAKEN;
    case SDLK_DELETE:
        tb->text_changed = true;
        if (delete_selection(tb)) return TB_TAKEN;
        if (tb->edit[tb->cursor]) {
            size_t q = next_char(tb->edit, tb->cursor);
            memmove(tb->edit + tb->cursor, tb->edit + q, strlen(tb->edit) - q + 1);
        }
        return TB_TAKEN;
    case SDLK_LEFT:
    case SDLK_RIGHT:
    case SDLK_HOME:
    case SDLK_END: {
        bool shift = k->keysym.mod & KMOD_SHIFT;  // Shift selects as the cursor moves
        size_t lo = tb->anchor < tb->cursor ? tb->anchor : tb->cursor, hi = tb->anchor < tb->cursor ? tb->cursor : tb->anchor;
        if (!shift && lo != hi && (sym == SDLK_LEFT || sym == SDLK_RIGHT)) tb->cursor = sym == SDLK_LEFT ? lo : hi;  // to the selection's end
        else if (sym == SDLK_LEFT) tb->cursor = prev_char(tb->edit, tb->cursor);
        else if (sym == SDLK_RIGHT) tb->cursor = next_char(tb->edit, tb->cursor);
        else tb->cursor = sym == SDLK_HOME ? 0 : strlen(tb->edit);
        if (!shift) tb->anchor = tb->cursor;
        return TB_TAKEN;
    }
    case SDLK_a:  // Ctrl+A: all
        if (!(k->keysym.mod & KMOD_CTRL)) return TB_IGNORED;
        tb->anchor = 0;
        tb->cursor = strlen(tb->edit);
        return TB_TAKEN;
    case SDLK_v:
        if (k->keysym.mod & KMOD_CTRL) {
            char *clip = SDL_GetClipboardText();
            if (clip) {
                for (char *c = clip; *c; c++)
                    if (*c == '\n' || *c == '\r' || *c == '\t') *c = ' ';
                insert_text(tb, clip, lang);
                SDL_free(clip);
            }
        }
        return TB_TAKEN;
    default: return TB_IGNORED;
    }
}

TbResult tb_event(TextBox *tb, const SDL_Event *e, const Vocab *src, const char *sentence, Lang lang) {
    switch (e->type) {
    case SDL_KEYDOWN:
        if (!tb->editing) return TB_IGNORED;
        if (e->key.keysym.mod & KMOD_ALT && (e->key.keysym.sym == SDLK_LEFT || e->key.keysym.sym == SDLK_RIGHT)) return TB_IGNORED;  // the sentence list
        analyse(tb, src, sentence, lang);
        return edit_key(tb, &e->key, lang);
    case SDL_TEXTINPUT:
        if (!tb->editing) return TB_IGNORED;
        insert_text(tb, e->text.text, lang);
        tb->composition[0] = '\0';
        return TB_TAKEN;
    case SDL_TEXTEDITING:
        snprintf(tb->composition, sizeof tb->composition, "%s", e->edit.text);
        tb->analysed = false;  // no suggestions over a composition
        return TB_TAKEN;
    case SDL_MOUSEBUTTONDOWN: {
        if (e->button.button != SDL_BUTTON_LEFT) return TB_IGNORED;
        SDL_Point p = {e->button.x, e->button.y};
        for (int i = 0; tb->editing && i < tb->n_suggest; i++)
            if (SDL_PointInRect(&p, &tb->suggest_rects[i])) {
                accept_suggestion(tb, i);
                return TB_TAKEN;
            }
        if (!SDL_PointInRect(&p, &tb->box)) return TB_IGNORED;
        if (tb->editing) tb->cursor = tb->anchor = char_at_x(tb, p.x);
        else tb_start(tb);  // a click into the box selects the sentence, as Ctrl+L
        tb->analysed = false;
        return TB_TAKEN;
    }
    default: return TB_IGNORED;
    }
}

// ---- drawing ----------------------------------------------------------------

static Color error_color(const Theme *th) { return th->dark ? 0xFFFF6B6B : 0xFFD32F2F; }

// A wavy red line under x0..x1, as spelling checkers draw it.
static void squiggle(Gfx *g, int x0, int x1, int y, Color c) {
    float step = (float)gfx_px(g, 3), amp = (float)gfx_px(g, 2), w = (float)gfx_px(g, 1) + 0.5f;
    for (float x = (float)x0; x < (float)x1; x += step) {
        float xe = x + step > (float)x1 ? (float)x1 : x + step;
        bool up = (int)((x - (float)x0) / step) % 2 == 0;
        gfx_line(g, x, (float)y + (up ? amp : 0.0f), xe, (float)y + (up ? 0.0f : amp), w, c);
    }
}

// A text longer than the box scrolls sideways so that the cursor and the
// IME's text stay in view, with a margin; otherwise it starts at the left.
static void scroll_to_cursor(TextBox *tb, int px, int pad) {
    if (!tb->editing) {
        tb->scroll = 0;
        return;
    }
    Gfx *g = tb->g;
    int at = prefix_width(tb, tb->edit, tb->cursor, px) + gfx_text_width(g, tb->composition, px);
    int view = tb->box.w - pad, margin = SDL_min(gfx_px(g, 40), view / 4);
    int end = gfx_text_width(g, tb->edit, px) + gfx_text_width(g, tb->composition, px);
    if (at - tb->scroll > view - margin) tb->scroll = at - view + margin;
    if (at - tb->scroll < margin) tb->scroll = at - margin;
    if (end - tb->scroll < view - margin) tb->scroll = end - view + margin;  // no empty room at the right while there is text to the left
    if (tb->scroll < 0) tb->scroll = 0;
}

void tb_draw(TextBox *tb, SDL_Rect box, const Theme *th, Lang lang, const char *sentence) {
    Gfx *g = tb->g;
    int px = gfx_px(g, 18), lh = gfx_line_height(g, px), pad = gfx_px(g, 12);
    tb->box = box;
    gfx_fill(g, box, th->panel);
    gfx_frame(g, box, tb->editing ? 2 : 1, tb->editing ? th->accent : th->panel_edge);
    const char *shown = tb->editing ? tb->edit : sentence;
    scroll_to_cursor(tb, px, pad);
    tb->text_x = box.x + pad / 2;
    tb->text_px = px;
    int tx = tb->text_x - tb->scroll, ty = box.y + pad / 2;
    gfx_clip(g, &tb->box);
    if (tb->editing && tb->anchor != tb->cursor) {  // the selection, behind its text
        size_t a = tb->anchor < tb->cursor ? tb->anchor : tb->cursor, b = tb->anchor < tb->cursor ? tb->cursor : tb->anchor;
        int xa = tx + prefix_width(tb, tb->edit, a, px), xb = tx + prefix_width(tb, tb->edit, b, px);
        gfx_fill(g, (SDL_Rect){xa, ty, xb - xa, lh}, (th->accent & 0x00FFFFFFu) | 0x50000000u);
    }
    gfx_text(g, tx, ty, shown, px, th->text, GFX_LEFT);
    if (!*shown && tb->editing) gfx_text(g, tx, ty, i18n(lang, S_TYPE_SENTENCE), px, th->text_dim, GFX_LEFT);
    for (int i = 0; i < tb->n_spans; i++) {  // words the model does not know, underlined in red
        int x0 = tx + prefix_width(tb, shown, (size_t)tb->span_start[i], px);
        if (x0 > box.x + box.w) break;
        int w = prefix_width(tb, shown + tb->span_start[i], (size_t)(tb->span_end[i] - tb->span_start[i]), px);
        squiggle(g, x0, x0 + w, ty + lh - gfx_px(g, 3), error_color(th));
    }
    if (tb->editing) {
        int cx = tx + prefix_width(tb, tb->edit, tb->cursor, px);
        if (tb->composition[0]) {  // the IME's text, underlined, at the cursor
            int cw = gfx_text(g, cx, ty, tb->composition, px, th->accent, GFX_LEFT);
            gfx_fill(g, (SDL_Rect){cx, ty + lh - 2, cw, 2}, th->accent);
            cx += cw;
        }
        gfx_fill(g, (SDL_Rect){cx, ty, 2, lh}, th->accent);
        SDL_Rect ime = {cx, ty, 1, lh};
        SDL_SetTextInputRect(&ime);
    }
    gfx_clip(g, NULL);
}

void tb_draw_suggestions(TextBox *tb, const Theme *th, Lang lang) {
    memset(tb->suggest_rects, 0, sizeof tb->suggest_rects);
    if (!tb->editing || !tb->n_suggest) return;
    Gfx *g = tb->g;
    int px = gfx_px(g, 18), small = gfx_px(g, 14), pad = gfx_px(g, 8), row = gfx_line_height(g, px) + pad / 2;
    const char *hint = i18n(lang, S_SUGGEST_HINT);
    int w = gfx_text_width(g, hint, small);
    for (int i = 0; i < tb->n_suggest; i++) {
        int ww = gfx_text_width(g, tb->suggest[i], px);
        w = ww > w ? ww : w;
    }
    w += 2 * pad;
    int x = tb->text_x - tb->scroll + prefix_width(tb, tb->edit, tb->word_start, px) - pad, W = gfx_width(g);
    if (x + w > W) x = W - w;
    if (x < 0) x = 0;
    SDL_Rect box = {x, tb->box.y + tb->box.h, w, tb->n_suggest * row + gfx_line_height(g, small) + pad};
    gfx_fill(g, box, th->panel);
    gfx_frame(g, box, 1, th->accent);
    for (int i = 0; i < tb->n_suggest; i++) {
        SDL_Rect r = {x + 1, box.y + pad / 2 + i * row, w - 2, row};
        bool on = i == tb->suggest_sel;
        if (on) gfx_fill(g, r, th->accent);
        gfx_text(g, x + pad, r.y + pad / 4, tb->suggest[i], px, on ? th->accent_text : th->text, GFX_LEFT);
        tb->suggest_rects[i] = r;
    }
    gfx_text(g, x + pad, box.y + pad / 2 + tb->n_suggest * row, hint, small, th->text_dim, GFX_LEFT);
}
