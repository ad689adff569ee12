// The App's input: keys, the mouse, the wheel, and which part of the window
// an event goes to (the text box, the settings panel, lesson mode first).
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_private.h"
#include "export.h"
#include "help.h"
#include "nav.h"
#include "run.h"

// ---- events ----------------------------------------------------------------

// The text box's event; Enter runs its sentence, and typing stops when it ran.
static bool text_box_event(App *a, const SDL_Event *e) {
    TbResult r = tb_event(&a->tb, e, a->m->src, a->sentence, a->lang);
    if (r == TB_RUN && app_set_sentence(a, tb_text(&a->tb)) == 0) tb_stop(&a->tb);  // on failure the text stays for fixing
    return r != TB_IGNORED;
}

// The settings panel's event; a change it asks for runs here.
static bool settings_event(App *a, const SDL_Event *e) {
    SpState st = app_sp_state(a);
    SpChange c;
    bool taken = sp_event(&a->sp, e, &st, &c);
    if (c.what == SP_MODEL) app_set_model(a, c.model);
    else if (c.what == SP_DECODE) app_set_decode(a, &c.decode);
    return taken;
}

// The experiment: silences a head of the sub-layer of the step shown (head 0:
// the whole sub-layer), or lets it speak again; the sentence runs again.
static bool silence(App *a, int head) {
    const Step *s = trace_step(a->t, a->step);
    AblPart part;
    if (!s || !xp_part_of(s, &part)) return false;
    if (part == ABL_ENC_FFN || part == ABL_DEC_FFN) head = 0;  // a feed-forward sub-layer has no heads
    DecodeOptions d = a->decode;
    if (abl_toggle(&d.ablate, (AblItem){(uint8_t)part, (uint8_t)s->layer, (uint16_t)head})) {
        status_set(&a->status, "%s", i18n(a->lang, S_XP_FULL));
        return true;
    }
    app_set_decode(a, &d);
    return true;
}

static bool toggle_experiment(App *a) {
    bool open = !a->experiment;
    if (open && (a->twin_page || a->history_page)) app_set_twin_page(a, false);  // one page at a time
    a->experiment = open;
    if (a->experiment) xp_update(&a->xp, a->m, a->model_path, a->t);
    else xp_clear(&a->xp);
    return true;
}

// Shift+P: the step as large as the window allows, for a projector, and back.
static void toggle_presenter(App *a) {
    a->presenter = !a->presenter;
    if (a->presenter) {
        a->before_map_mode = a->map_mode;
        a->before_map_chosen = a->map_chosen;
        a->before_collapsed = a->lesson && lm_panel_collapsed(a->lesson);
        a->map_mode = AMAP_HIDDEN;
        a->map_chosen = true;
    } else {
        a->map_mode = a->before_map_mode;
        a->map_chosen = a->before_map_chosen;
    }
    if (a->lesson) lm_set_collapsed(a->lesson, a->presenter || a->before_collapsed);
    status_set(&a->status, "%s", i18n(a->lang, a->presenter ? S_PRESENTER_ON : S_PRESENTER_OFF));
}

static bool key_down(App *a, const SDL_Event *e) {
    const SDL_KeyboardEvent *k = &e->key;
    bool ctrl = k->keysym.mod & KMOD_CTRL, shift = k->keysym.mod & KMOD_SHIFT, alt = k->keysym.mod & KMOD_ALT;
    SDL_Keycode sym = k->keysym.sym;
    bool arrow = sym == SDLK_LEFT || sym == SDLK_RIGHT;
    if (tb_editing(&a->tb)) {
        if (text_box_event(a, e)) return true;
        // while typing, plain keys are text: only Ctrl, Alt + arrows and F keys act as shortcuts
        if (!ctrl && !(alt && arrow) && !(sym >= SDLK_F1 && sym <= SDLK_F12)) return false;
    } else if (settings_event(a, e)) {
        return true;
    }
    const Step *s = trace_step(a->t, a->step);
    switch (sym) {
    case SDLK_RIGHT:
        if (alt) app_list_go(a, 1);
        else shift ? app_go_stop(a, 1) : app_set_step(a, a->step + 1);
        return true;
    case SDLK_LEFT:
        if (alt) app_list_go(a, -1);
        else shift ? app_go_stop(a, -1) : app_set_step(a, a->step - 1);
        return true;
    case SDLK_HOME: app_set_step(a, 0); return true;
    case SDLK_END: app_set_step(a, trace_count(a->t) - 1); return true;
    case SDLK_SPACE: app_toggle_playing(a); return true;
    case SDLK_LEFTBRACKET: a->speed_ms = a->speed_ms * 3 / 2 > 5000 ? 5000 : a->speed_ms * 3 / 2; return true;
    case SDLK_RIGHTBRACKET: a->speed_ms = a->speed_ms * 2 / 3 < 50 ? 50 : a->speed_ms * 2 / 3; return true;
    case SDLK_PAGEUP:
        if (ctrl) app_list_go(a, -1);  // as tabs in a browser
        else if (s->layer > 1) app_jump_to(a, s->layer - 1, s->head);
        return true;
    case SDLK_PAGEDOWN:
        if (ctrl) app_list_go(a, 1);
        else app_jump_to(a, s->layer + 1, s->head);
        return true;
    case SDLK_d:
    case SDLK_COMMA: {  // D, or Ctrl+, as elsewhere
        bool settings_key = sym == SDLK_COMMA ? ctrl : !ctrl;
        if (settings_key) a->sp.open = !a->sp.open;
        return settings_key;
    }
    case SDLK_F11:
        a->fullscreen = !a->fullscreen;
        a->fullscreen_changed = true;
        return true;
    case SDLK_F2:  // a message already said stays in its language: gone, the line says where we are in the new one
        a->lang = (Lang)((a->lang + 1) % LANG_COUNT);
        status_clear(&a->status);
        return true;
    case SDLK_e: return !ctrl && toggle_experiment(a);
    case SDLK_b:
        if (ctrl) return false;
        app_set_twin_page(a, !a->twin_page);
        return true;
    case SDLK_h:
        if (ctrl) return false;
        app_set_history_page(a, !a->history_page);
        return true;
    case SDLK_x:
        if (ctrl) return false;
        if (e->key.keysym.mod & KMOD_SHIFT) {  // silence nothing
            DecodeOptions d = a->decode;
            d.ablate = (Ablation){0};
            app_set_decode(a, &d);
            return true;
        }
        return silence(a, trace_step(a->t, a->step)->head);
    case SDLK_F1: a->help = !a->help; return true;
    case SDLK_ESCAPE:
        if (a->help) a->help = false;
        else a->sp.open = false;
        return true;
    case SDLK_q:
        if (ctrl) a->quit = true;
        return ctrl;
    case SDLK_l:
        if (ctrl) tb_start(&a->tb);
        return ctrl;
    case SDLK_t:
        if (!ctrl) a->dark = !a->dark;
        return !ctrl;
    case SDLK_c:
        if (ctrl) return false;
        if (shift) {  // heads and steps compared on one scale
            a->view.shared_scale = !a->view.shared_scale;
            status_set(&a->status, "%s", i18n(a->lang, a->view.shared_scale ? S_SHARED_SCALE_ON : S_SHARED_SCALE_OFF));
            return true;
        }
        a->cmap = (Colormap)((a->cmap + 1) % CMAP_COUNT);
        status_set(&a->status, i18n(a->lang, S_CMAP), cmap_name(a->cmap));  // the change is seen and named
        return true;
    case SDLK_p:
        if (ctrl) return false;
        if (shift) {
            toggle_presenter(a);
            return true;
        }
        AmapMode shown = app_map_mode(a);
        a->map_mode = (AmapMode)(((shown == AMAP_STRIP ? AMAP_SMALL : shown) + 1) % AMAP_CHOICES);
        a->map_chosen = true;
        if (a->map_mode == AMAP_FULL && app_map_mode(a) != AMAP_FULL) a->map_mode = AMAP_SMALL;  // no room for it full: small
        status_set(&a->status, "%s", i18n(a->lang, a->map_mode == AMAP_FULL ? S_MAP_SHOWN : a->map_mode == AMAP_SMALL ? S_MAP_SMALL : S_MAP_HIDDEN));
        return true;
    case SDLK_m:
    case SDLK_g:
    case SDLK_v:
    case SDLK_a:
    case SDLK_k: return !ctrl && bars_toggle_view(&a->view, sym);
    case SDLK_0:
    case SDLK_EQUALS:
    case SDLK_PLUS:
    case SDLK_KP_PLUS:
    case SDLK_MINUS:
    case SDLK_KP_MINUS:
        if (!ctrl) return false;
        app_apply_zoom(a, sym == SDLK_0 ? 1.0f : sym == SDLK_MINUS || sym == SDLK_KP_MINUS ? a->zoom / 1.15f : a->zoom * 1.15f);
        if (a->zoom > 1.0f) status_set(&a->status, i18n(a->lang, S_ZOOMED), (int)lroundf(100.0f * a->zoom));
        else a->status.text[0] = '\0';
        return ctrl;
    case SDLK_s:
        if (ctrl) app_save(a, shift);
        return ctrl;
    default:
        if (sym >= SDLK_1 && sym <= SDLK_9 && s->head > 0) {
            app_jump_to(a, s->layer, (int)(sym - SDLK_1) + 1);
            return true;
        }
        return false;
    }
}

static void hover(App *a, int x, int y) {
    ViewState vs = app_view_state(a, false);
    int r, c;
    SDL_Point p = {x, y};
    // a page in the step's place shows other traces: no cell of the step is under the pointer
    if (app_page_open(a) || !SDL_PointInRect(&p, &a->lay.parts.view) || !view_hit(a->g, a->view_zoomed, &vs, x, y, &r, &c)) {
        a->hover_row = a->hover_col = -1;
        return;
    }
    a->hover_row = r;
    a->hover_col = c;
    status_cell(&a->status, trace_step(a->t, a->step), r, c, a->lang);
}

// The step under x on the timeline.
static int timeline_index(const App *a, int x) { return bars_timeline_step(&a->lay, a->t, x); }

static void timeline_to(App *a, int x) { app_set_step(a, timeline_index(a, x)); }

static bool mouse_down(App *a, const SDL_Event *e) {
    SDL_Point p = {e->button.x, e->button.y};
    // what is drawn on top first: the settings panel, the suggestions under the text box
    if (settings_event(a, e) || text_box_event(a, e)) return true;
    if (SDL_PointInRect(&p, &a->lay.settings_button)) {
        a->sp.open = !a->sp.open;
        return true;
    }
    if (SDL_PointInRect(&p, &a->lay.help_button)) {
        a->help = !a->help;
        return true;
    }
    if (SDL_PointInRect(&p, &a->lay.play_button)) {
        app_toggle_playing(a);
        return true;
    }
    if (a->list && (SDL_PointInRect(&p, &a->lay.list_prev) || SDL_PointInRect(&p, &a->lay.list_next))) {
        app_list_go(a, SDL_PointInRect(&p, &a->lay.list_next) ? 1 : -1);
        return true;
    }
    if (SDL_PointInRect(&p, &a->lay.timeline)) {
        a->dragging = true;
        timeline_to(a, p.x);
        return true;
    }
    if (SDL_PointInRect(&p, &a->lay.map)) {  // a box of the map: its value at this decoding step
        int to = amap_click(a->g, a->lay.map, a->t, a->step, a->last_head, a->map_drawn, p.x, p.y);
        if (to >= 0) app_set_step(a, to);
        return to >= 0;
    }
    const Step *s = trace_step(a->t, a->step);
    BarsClick c = bars_click(&a->bars, p.x, p.y);
    if (c.what == BARS_SWITCH) return bars_toggle_view(&a->view, bars_switch_keys[c.index]);
    if (c.what == BARS_LAYER) app_jump_to(a, c.index, s->head);
    if (c.what == BARS_HEAD && (SDL_GetModState() & KMOD_ALT)) return silence(a, c.index);  // Alt+click: silence that head
    if (c.what == BARS_HEAD) app_jump_to(a, s->layer, c.index);
    return c.what != BARS_NONE;
}

// The wheel over a zoomed view pans it (Shift, or a sideways wheel: across).
static bool pan(App *a, const SDL_Event *e) {
    SDL_Point p = {a->mouse_x, a->mouse_y};
    const SDL_Rect *r = app_page_open(a) ? &a->lay.page : &a->lay.parts.view;
    if (!SDL_PointInRect(&p, r) || (a->view_zoomed.w <= r->w && a->view_zoomed.h <= r->h)) return false;
    int step = gfx_px(a->g, 60), dx = e->wheel.x, dy = e->wheel.y;
    if (SDL_GetModState() & KMOD_SHIFT) {
        dx = dy ? -dy : dx;
        dy = 0;
    }
    a->pan_x += dx * step;
    a->pan_y -= dy * step;
    return true;  // kept in range at the next frame
}

static bool free_event(App *a, const SDL_Event *e) {
    switch (e->type) {
    case SDL_QUIT: a->quit = true; return false;
    case SDL_KEYDOWN:
        if (e->key.keysym.sym == SDLK_SLASH && (e->key.keysym.mod & KMOD_SHIFT) && !tb_editing(&a->tb)) {
            a->help = !a->help;
            return true;
        }
        if (a->history_page && !app_busy(a) && hist_event(&a->hist, e)) return true;  // its arrows go through the snapshots
        return key_down(a, e);
    case SDL_TEXTINPUT:
    case SDL_TEXTEDITING: return text_box_event(a, e);
    case SDL_MOUSEBUTTONDOWN:
        if (a->history_page && !app_busy(a) && hist_event(&a->hist, e)) return true;
        return e->button.button == SDL_BUTTON_LEFT && mouse_down(a, e);
    case SDL_MOUSEBUTTONUP:
        a->dragging = false;
        return settings_event(a, e);  // a slider let go
    case SDL_MOUSEWHEEL: return pan(a, e);
    case SDL_MOUSEMOTION:
        if (a->sp.dragging) return settings_event(a, e);  // a slider's knob: the sentence runs again at each value
        a->mouse_x = e->motion.x;
        a->mouse_y = e->motion.y;
        if (a->dragging) timeline_to(a, e->motion.x);
        else hover(a, e->motion.x, e->motion.y);
        if (SDL_PointInRect(&(SDL_Point){e->motion.x, e->motion.y}, &a->lay.timeline)) {  // the timeline names the step under the pointer
            char name[512];
            const Step *under = trace_step(a->t, timeline_index(a, e->motion.x));
            status_set(&a->status, "%s", view_step_name(a->t, under, a->lang, name, sizeof name));
        } else if (SDL_PointInRect(&(SDL_Point){e->motion.x, e->motion.y}, &a->lay.map)) {  // and the map the box under it (the small one has no words)
            int to = amap_click(a->g, a->lay.map, a->t, a->step, a->last_head, a->map_drawn, e->motion.x, e->motion.y);
            char name[512];
            if (to >= 0) status_set(&a->status, "%s", view_step_name(a->t, trace_step(a->t, to), a->lang, name, sizeof name));
        }
        return true;
    case SDL_WINDOWEVENT: return true;
    default: return false;
    }
}

// A lesson sees each event first; a sentence the user ran re-binds it.
bool app_event(App *a, const SDL_Event *e) {
    if (a->lesson && lm_event(a->lesson, a, e)) return true;
    bool redraw = free_event(a, e);
    if (a->lesson) lm_after_event(a->lesson, a);
    return redraw;
}

