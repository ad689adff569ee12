// Every string the window shows, in English and Traditional Chinese.
#ifndef TT_I18N_H
#define TT_I18N_H

#include <stddef.h>

typedef enum { LANG_EN, LANG_ZH_TW, LANG_COUNT } Lang;

typedef enum {
    S_HEAD,             // in a step's name: "head %d"
    S_DECODING_STEP,    // "step %d"
    S_PRODUCING,        // "producing %s"
    S_PLACE_DECODING,   // the step counter in the decoder: "Decoding step %d of %d"
    S_PLACE_OF,         // the step counter's index: "%d / %d"
    S_ALL_HEADS,
    S_SHAPE,
    S_SOURCE,
    S_HELP_TITLE,
    S_HELP_KEYS,        // the shortcut list, one per line
    S_HELP_WEB_KEYS,    // in a web page: the keys that stand for the browser's own, one per line
    S_SAVED,            // "Saved %s"
    S_ZOOMED,           // Ctrl++: "Zoom %d%%: …"
    S_CMAP,             // C: "Colour map: %s"
    S_TYPE_SENTENCE,
    S_UNKNOWN_WORDS,    // "Not in the vocabulary, read as <unk>: %s"
    S_PLAYING,
    S_ENCODER,
    S_DECODER,
    // inside the views (view.c)
    S_TEACHER_FORCING,  // the page's title, in place of the decoding step
    S_V_MASK,           // the four panels: mask + raw scores = masked scores → weights
    S_V_RAW_SCORES,
    S_V_MASKED_SCORES,
    S_V_SOFTMAX_WEIGHTS,
    S_V_MASK_NOTE,      // "scores and weights of layer %d, head %d"
    S_V_HEAD_N,         // "head %d"
    S_V_AVERAGE,
    S_V_LINE_NOTE,      // "line width ∝ weight; under %.2f not drawn"
    S_V_GOLD,           // "gold alignment (%s, line %d)"
    S_V_KEYS,           // the line view's column headings
    S_V_QUERIES,
    S_V_SOURCE,
    S_V_PRODUCES,
    S_HOVER,            // the status line over a cell: "row %d %s → column %d %s: %.6g   (row sum %.6g)", from 1
    S_NO_KNOWN_WORD,    // a sentence that cannot run: no word the model knows
    S_TOO_LONG,         // "The sentence has %d tokens; this model takes at most %d"
    S_PASTE_CUT,        // "The text box holds at most %d bytes; …"
    S_TOO_SMALL,        // over a window too small for the layout
    S_SW_GRID,          // the view switches beside the head chips: "all heads (G)"
    S_SW_LINES,
    S_SW_SIDE_BY_SIDE,
    S_SW_GOLD,
    S_SW_KV_CACHE,      // "KV cache (K)"
    S_V_KV_CACHED,      // the KV cache view: "step %d (in the cache)"
    S_V_KV_STEP,        // "step %d"
    S_V_KV_LAYER_K,     // "layer %d · K"
    S_V_KV_LAYER_V,
    S_V_KV_KEPT,        // "rows 1 to %d are step %d's, bit for bit: kept, not computed again; row %d is new"
    S_V_KV_CHANGED,
    S_V_KV_ALL,         // no new row: the memory's K and V     // "%d of %d earlier rows changed: …"
    S_V_KV_LAYERS,      // "every decoder layer's K and V, head %d: the cache grows a row a step"
    S_V_KV_COST,        // "multiply-adds for the whole translation: %s with a KV cache, %s without (%.1f×); …"
    S_V_CHOICE_SAMPLED, // "P = %.3f, random draw u = %.3f"
    S_V_CHOICE_GREEDY,  // "P = %.3f (the largest)"
    S_V_RANK,           // a bar's label below the top ones: "%s (rank %d)"
    S_V_REMOVED,        // "%d tokens removed by top-k / top-p (P = 0)"
    S_V_REMOVED_SPECIAL,  // the same, and <pad> <bos> <unk>, which decoding never chooses
    S_V_SPECIAL,          // only <pad> <bos> <unk>
    S_V_DRAW_STRIP,     // "the draw u = %.3f falls in %s's share of the cumulative P (tokens in the order of the bars)"
    S_V_BEAM_HYPOTHESIS,
    S_V_BEAM_LOGP,
    S_V_BEAM_SCORE,
    S_V_BEAM_KEPT,
    S_V_BEAM_PRUNED,
    S_V_BEAM_DONE,      // a finished hypothesis carried over
    S_V_BEAM_MORE,      // the table's rows that do not fit: "… %d more (%d kept)"
    S_V_BEAM_TREE,      // the tree's heading: "beam tree: steps 1 to %d, width %d"
    S_V_BEAM_PATH,      // the legend: the output's path, kept and pruned branches
    S_V_NO_SUCH_STEP,   // a page of another model: it has no such step
    S_V_FORCED_INSTEAD, // a decoding step's choice is not in a teacher-forced pass
    S_V_NO_MEMORY,      // a view (or its gold alignment) whose data could not be made
    // the text box's suggestions, the sentence list, the settings panel (app.c)
    S_UNKNOWN_TYPING,   // "Not in the model's vocabulary:%s" while typing
    S_SUGGEST_HINT,
    S_NO_LIST,
    S_LIST_FIRST,
    S_LIST_LAST,
    S_LIST_CANNOT_RUN,  // "Sentence %d of %d (line %d) cannot run: %s"
    S_SETTINGS,
    S_SETTINGS_BUTTON,
    S_SETTINGS_HINT,
    S_MODEL,
    S_DECODING,
    S_GREEDY,
    S_BEAM,
    S_SAMPLING,
    S_BEAM_WIDTH,
    S_TEMPERATURE,
    S_TOP_K,
    S_TOP_P,
    S_SEED,
    S_MAX_STEPS,
    S_SPECIAL,          // the settings row: may decoding choose <pad>, <bos>, <unk>
    S_SPECIAL_EXCLUDED,
    S_SPECIAL_ALLOWED,
    S_ALL,              // top-k 0: every token
    S_MODEL_MAX,        // max steps 0: "the model's %d"
    S_MODEL_FAILED,     // "Could not use the model; the current one stays: %s"
    S_MODEL_LOADED,     // "Model: %s"
    S_DECODE_FAILED,    // "Could not run with these settings: %s"
    S_TARGET,           // "target: %s"
    S_EXPORT_SCALE,     // the settings row: Ctrl+S's pixel density
    S_LOOK_AHEAD_MASK,  // the settings row of the experiment without the mask
    S_ON,
    S_OFF,
    S_NO_MASK_MARK,     // the page's title while the experiment runs: "no look-ahead mask"
    S_SILENCED_MARK,    // the page's title while heads are silenced: "silenced: %s"
    S_SILENCED_COUNT,   // the same when the list has no room: "silenced parts: %d"
    S_NO_MASK_SHORT,    // S_NO_MASK_MARK when the title has no room for it: "no mask"
    S_TW_TITLE,         // the page of two models (twinpage.c): "Two models, both teacher-forced on: %s"
    S_TW_TITLE_OWN,     // the same, when each is forced on its own output
    S_TW_TITLE_NONE,
    S_TW_NO_OTHER,
    S_TW_OUTPUT,        // "its own output: %s"
    S_TW_LOSS,          // "mean loss on that target: %.3f"
    S_HIST_TITLE,       // the training history page (history.c): "Training history of %s: step %d of %d (snapshot %d of %d)"
    S_HIST_TITLE_NONE,
    S_HIST_NOTHING,     // an empty output
    S_HIST_FETCHING,    // in a web page: the history's file is being downloaded, "%d" percent of it
    S_HIST_FETCH_FAILED,  // ... and could not be: the file's name, then why ("HTTP 404" or the next)
    S_HIST_NO_CONNECTION,  // why: the network could not be reached
    S_HIST_LOSS,        // "mean loss on the target, %s: %.3f"
    S_HIST_CURVE,
    S_HIST_HINT,
    S_XP_TITLE,         // the experiment page (experiment.c): "Silenced: %s"
    S_XP_NONE,
    S_XP_BEFORE,
    S_XP_AFTER,
    S_XP_OUTPUT,
    S_XP_LOSS_AER,      // "teacher-forced mean loss %.3f · AER %s"
    S_XP_TARGET,
    S_XP_CHOSEN,
    S_XP_LOSS,
    S_XP_EACH_HEAD,     // "Each head silenced alone: … (%.3f with none)"
    S_XP_HINT,
    S_XP_FULL,          // the status line: no room for another silenced part
    S_XP_DROPPED,       // after a model switch: "; this model has no %s, no longer silenced"
    // lessons (lessonmode.c)
    S_L_STEP,
    S_L_FIRST,
    S_L_LAST,
    S_L_NOT_APPLY,
    S_L_OWN_SENTENCE,
    S_L_QUESTION,
    S_L_REVEAL_HINT,
    S_L_ANSWER,
    S_L_RIGHT,
    S_L_WRONG,
    S_L_KEYS,
    S_L_NARRATION,      // the folded narration strip's label
    S_L_SCROLL_MORE,    // the narration goes on below
    S_L_SCROLL_ABOVE,   // and it began above (scrolled down, to a revealed answer)
    S_L_EXPLORING,
    S_L_PROBLEMS,
    S_L_PROBLEMS_HINT,
    S_L_PICKER_TITLE,
    S_L_PICKER_HINT,
    S_L_STEPS,
    S_L_MORE_ABOVE,     // the picker, scrolled: "▲ %d more above"
    S_L_MORE_BELOW,
    S_L_BROKEN,
    S_L_NONE,
    S_L_SHAPE_HIDDEN,   // the page's shape line while a lesson's question is open
    S_CHOICE_HOLDS,     // the choice's shape line: what its three numbers are
    S_CHOICE_WORDS_GREEDY,  // "Step %d chooses %s: …"
    S_CHOICE_WORDS_SAMPLED,
    S_L_QUESTION_NOT_HERE,  // a lesson on one's own sentence: a question about the lesson's
    S_PRESENTER_ON,     // Shift+P
    S_PRESENTER_OFF,
    S_SHARED_SCALE_ON,  // Shift+C
    S_SHARED_SCALE_OFF,
    S_MAP_ENCODER,      // the architecture map's towers
    S_MAP_DECODER,
    S_MAP_LAYER,        // "Layer %d"
    S_MAP_STEP,         // the decoding step under the decoder: "step %d of %d"
    S_MAP_SHOWN,        // the status line after P
    S_MAP_SMALL,
    S_MAP_HIDDEN,
    S_COUNT
} StringId;

const char *i18n(Lang lang, StringId id);
const char *i18n_lang_name(Lang lang);
// A step's formula line (from the trace, in English) in lang: the words
// translated, the mathematics as it is.
const char *i18n_formula(Lang lang, const char *formula);
// A model's name as the interface shows it: in Chinese its known words
// translated ("en→zh-TW (toy corpus)" → 「英文→繁體中文（玩具語料）」), any
// other name as it is. Returns buf, or name itself in English.
const char *i18n_model_name(Lang lang, const char *name, char *buf, size_t size);
// A decoding strategy's name (a DecodeMode) as the settings panel and the top row show it.
const char *i18n_mode_name(Lang lang, int mode);

#endif
