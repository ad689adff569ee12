// Every string the window shows, in English and Traditional Chinese.
#ifndef TT_I18N_H
#define TT_I18N_H

typedef enum { LANG_EN, LANG_ZH_TW, LANG_COUNT } Lang;

typedef enum {
    S_STEP,             // "Step %d of %d"
    S_LAYER,
    S_HEAD,
    S_DECODING_STEP,
    S_ALL_HEADS,
    S_SHAPE,
    S_SOURCE,
    S_HELP_TITLE,
    S_HELP_KEYS,        // the shortcut list, one per line
    S_SAVED,            // "Saved %s"
    S_TYPE_SENTENCE,
    S_UNKNOWN_WORDS,    // "Not in the vocabulary, read as <unk>: %s"
    S_PLAYING,
    S_ENCODER,
    S_DECODER,
    S_COUNT
} StringId;

const char *i18n(Lang lang, StringId id);
const char *i18n_lang_name(Lang lang);

#endif
