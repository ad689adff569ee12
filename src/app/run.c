#include "run.h"

#include <stdlib.h>
#include <string.h>

#include "settings.h"

// Appends " \"word\"" for each token read as <unk> to words.
static void unknown_words(const Vocab *v, const Tokens *tok, char *words, size_t size) {
    for (int i = 0; i < tok->n; i++)
        if (tok->ids[i] == voc_unk(v) && strlen(words) + strlen(tok->pieces[i]) + 4 < size) {
            strcat(words, " \"");
            strcat(words, tok->pieces[i]);
            strcat(words, "\"");
        }
}

Trace *run_text(const Model *m, DecodeOptions d, const Tokens *target, const char *text, Lang lang, StatusLine *status, char *unknown,
               size_t size) {
    Tokens tok;
    Error err;
    if (voc_tokenize(m->src, text, &tok, &err)) {
        status_set(status, "%s", err.msg);
        return NULL;
    }
    Trace *t = NULL;
    if (tok.n_unknown == tok.n) {
        status_set(status, "%s", i18n(lang, S_NO_KNOWN_WORD));
    } else if (tok.n > m->cfg.max_len) {
        status_set(status, i18n(lang, S_TOO_LONG), tok.n, m->cfg.max_len);
    } else {
        d.target = d.mode == DECODE_TEACHER ? target->ids : NULL;
        d.target_len = d.mode == DECODE_TEACHER ? target->n : 0;
        t = trace_run(m, tok.ids, tok.n, &d, &err);
        if (!t) status_set(status, "%s", err.msg);
    }
    unknown[0] = '\0';
    if (t) unknown_words(m->src, &tok, unknown, size);
    voc_tokens_deinit(&tok);
    return t;
}

int run_tokenize_target(const char *text, const Model *m, Tokens *out, Error *err) {
    memset(out, 0, sizeof *out);
    if (!text) return 0;
    if (voc_tokenize(m->tgt, text, out, err)) {
        err_prefix(err, "target sentence");
        return -1;
    }
    return 0;
}

int run_target_from_ids(const Vocab *tgt, const int *ids, int n, Tokens *t, char **text, Error *err) {
    memset(t, 0, sizeof *t);
    t->ids = malloc((size_t)n * sizeof *t->ids);
    t->pieces = calloc((size_t)n, sizeof *t->pieces);
    size_t size = 1;
    for (int i = 0; i < n; i++) size += strlen(voc_token(tgt, ids[i])) + 1;
    *text = calloc(1, size);
    if (!t->ids || !t->pieces || !*text) return err_set(err, "out of memory");
    for (int i = 0; i < n; i++) {
        const char *tok = voc_token(tgt, ids[i]);
        if (!(t->pieces[i] = strdup(tok))) return err_set(err, "out of memory");
        t->ids[i] = ids[i];
        t->n = i + 1;
        if (i) strcat(*text, " ");
        strcat(*text, tok);
    }
    return 0;
}

const char *run_check_decode(const DecodeOptions *d, bool has_target) {
    if (d->mode < DECODE_GREEDY || d->mode > DECODE_TEACHER) return "unknown decoding strategy";
    if (d->mode == DECODE_TEACHER && !has_target) return "teacher forcing needs a target sentence (--target)";
    // the command line's and lessons' bounds (settings.h); 0 is "the default" here
    if (d->beam_width && !setting_in_bounds(SETTING_BEAM, d->beam_width)) return "the beam width must be 1 to 64";
    if (d->temperature != 0.0f && !setting_in_bounds(SETTING_TEMPERATURE, d->temperature))
        return "the temperature must be from 0.01 to 100";
    if (!setting_in_bounds(SETTING_TOP_K, d->top_k)) return "top-k must be 0 (all) to 1000000";
    if (d->top_p != 0.0f && !setting_in_bounds(SETTING_TOP_P, d->top_p)) return "top-p must be in (0, 1]";
    if ((d->max_steps && !setting_in_bounds(SETTING_MAX_STEPS, d->max_steps)) || d->show_top < 0 || d->show_top > 64 ||
        d->pad_to < 0 || d->pad_to > 4096)
        return "a step count is out of range";
    return NULL;
}
