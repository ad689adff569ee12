// How it works: a sentence is first drawn as a small tree (a Clause). The
// English realiser writes its words and notes where each part landed (Spans);
// the Chinese and French realisers then write theirs, linking every target
// word to the spans of the English words it translates. The grammar and its
// conventions are described in docs/CORPUS.md; toygen_corpus.c assembles the
// corpus files from the sentences drawn here.
#include "toygen.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "toygen_private.h"

// ---- The lexicon ----------------------------------------------------------

// Noun classes, for the verbs' choice of subjects and objects.
enum { C_ANIMAL = 1, C_PERSON = 2, C_FOOD = 4, C_READ = 8, C_THING = 16, C_PLACE = 32, C_FIELD = 64 };
#define C_CONCRETE (C_ANIMAL | C_PERSON | C_FOOD | C_READ | C_THING)

enum { PR_ON, PR_UNDER, PR_IN, PR_BEHIND, PR_FRONT, PR_COUNT };

typedef struct {
    const char *en[3];      // one to three English words
    int en_n;
    const char *zh;         // the locative after the noun: 墊子 上
    const char *fr;
} Prep;

static const Prep preps[PR_COUNT] = {
    {{"on"}, 1, "上", "sur"},
    {{"under"}, 1, "下", "sous"},
    {{"in"}, 1, "裡", "dans"},
    {{"behind"}, 1, "後面", "derrière"},
    {{"in", "front", "of"}, 3, "前面", "devant"},
};

#define PB(p) (1u << (p))

typedef struct {
    const char *en, *en_pl;
    const char *zh, *measure;   // noun and its measure word: 一 隻 貓
    const char *fr, *fr_pl;
    bool fem;                   // French gender
    unsigned cls;
    unsigned preps;             // prepositions it takes as a location (PB bits)
} Noun;

static const Noun nouns[N_COUNT] = {
    {"cat", "cats", "貓", "隻", "chat", "chats", false, C_ANIMAL, 0},
    {"dog", "dogs", "狗", "隻", "chien", "chiens", false, C_ANIMAL, 0},
    {"mouse", "mice", "老鼠", "隻", "souris", "souris", true, C_ANIMAL, 0},
    {"horse", "horses", "馬", "匹", "cheval", "chevaux", false, C_ANIMAL, 0},
    {"girl", "girls", "女孩", "個", "fille", "filles", true, C_PERSON, 0},
    {"boy", "boys", "男孩", "個", "garçon", "garçons", false, C_PERSON, 0},
    {"teacher", "teachers", "老師", "位", "professeur", "professeurs", false, C_PERSON, 0},
    {"apple", "apples", "蘋果", "個", "pomme", "pommes", true, C_FOOD, 0},
    {"cake", "cakes", "蛋糕", "塊", "gâteau", "gâteaux", false, C_FOOD, 0},
    {"banana", "bananas", "香蕉", "根", "banane", "bananes", true, C_FOOD, 0},
    {"book", "books", "書", "本", "livre", "livres", false, C_READ, 0},
    {"letter", "letters", "信", "封", "lettre", "lettres", true, C_READ, 0},
    {"ball", "balls", "球", "顆", "balle", "balles", true, C_THING, 0},
    {"box", "boxes", "盒子", "個", "boîte", "boîtes", true, C_THING | C_PLACE, PB(PR_ON) | PB(PR_IN)},
    {"car", "cars", "車", "輛", "voiture", "voitures", true, C_THING | C_PLACE,
     PB(PR_IN) | PB(PR_UNDER) | PB(PR_BEHIND) | PB(PR_FRONT)},
    {"mat", "mats", "墊子", "張", "tapis", "tapis", false, C_THING | C_PLACE, PB(PR_ON)},
    {"table", "tables", "桌子", "張", "table", "tables", true, C_THING | C_PLACE,
     PB(PR_ON) | PB(PR_UNDER) | PB(PR_BEHIND) | PB(PR_FRONT)},
    {"chair", "chairs", "椅子", "把", "chaise", "chaises", true, C_THING | C_PLACE,
     PB(PR_ON) | PB(PR_UNDER) | PB(PR_BEHIND) | PB(PR_FRONT)},
    {"bed", "beds", "床", "張", "lit", "lits", false, C_THING | C_PLACE, PB(PR_ON) | PB(PR_UNDER)},
    {"house", "houses", "房子", "間", "maison", "maisons", true, C_THING | C_PLACE,
     PB(PR_IN) | PB(PR_BEHIND) | PB(PR_FRONT)},
    // fields of study: no article, number or adjective in English
    {"nlp", NULL, NULL, NULL, NULL, NULL, false, C_FIELD, 0},
    {"natural language processing", NULL, NULL, NULL, NULL, NULL, false, C_FIELD, 0},
};

typedef struct {
    const char *en, *zh;
    const char *fr[4];      // masculine, feminine, masculine plural, feminine plural
    bool fr_before;         // grand, petit go before the French noun
    unsigned cls;           // nouns it describes
} Adj;

static const Adj adjs[A_COUNT] = {
    {"big", "大", {"grand", "grande", "grands", "grandes"}, true, C_CONCRETE},
    {"small", "小", {"petit", "petite", "petits", "petites"}, true, C_CONCRETE},
    {"red", "紅", {"rouge", "rouge", "rouges", "rouges"}, false, C_CONCRETE & ~C_PERSON},
    {"black", "黑", {"noir", "noire", "noirs", "noires"}, false, C_CONCRETE & ~C_PERSON},
    {"white", "白", {"blanc", "blanche", "blancs", "blanches"}, false, C_CONCRETE & ~C_PERSON},
};

// Grammatical person for conjugation: je, il/elle, nous, ils.
enum { P1S, P3S, P1P, P3P };

typedef struct {
    const char *en, *zh, *fr;
    int person;
    bool fem;
} Pronoun;

enum { PN_I, PN_HE, PN_SHE, PN_WE, PN_THEY, PN_COUNT };

static const Pronoun pronouns[PN_COUNT] = {
    {"i", "我", "je", P1S, false},
    {"he", "他", "il", P3S, false},
    {"she", "她", "elle", P3S, true},
    {"we", "我們", "nous", P1P, false},
    {"they", "他們", "ils", P3P, false},
};

typedef struct {
    const char *en, *en3;       // base form, third person singular
    const char *zh;
    const char *fr[4];          // je (elided with it: j'aime), il, nous, ils
    const char *fr_inf;
    unsigned subj, obj;         // noun classes
    bool negatable;             // French form starts with a consonant: ne mange pas
    bool future;                // takes "is going to"
    bool located;               // takes a location adverbial
} Verb;

static const Verb verbs[V_COUNT] = {
    {"love", "loves", "愛", {"j'aime", "aime", "aimons", "aiment"}, "aimer",
     C_ANIMAL | C_PERSON, C_ANIMAL | C_PERSON | C_FOOD | C_FIELD, false, false, false},
    {"see", "sees", "看", {"vois", "voit", "voyons", "voient"}, "voir",
     C_ANIMAL | C_PERSON, C_CONCRETE, true, true, false},
    {"eat", "eats", "吃", {"mange", "mange", "mangeons", "mangent"}, "manger",
     C_ANIMAL | C_PERSON, C_FOOD, true, true, true},
    {"read", "reads", "讀", {"lis", "lit", "lisons", "lisent"}, "lire",
     C_PERSON, C_READ, true, true, true},
    {"have", "has", "有", {"j'ai", "a", "avons", "ont"}, "avoir",
     C_PERSON, C_ANIMAL | C_FOOD | C_READ | C_THING, false, false, false},
    {"chase", "chases", "追", {"chasse", "chasse", "chassons", "chassent"}, "chasser",
     C_ANIMAL | C_PERSON, C_ANIMAL | C_PERSON, true, true, false},
    {"buy", "buys", "買", {"j'achète", "achète", "achetons", "achètent"}, "acheter",
     C_PERSON, C_FOOD | C_READ | C_THING, false, true, false},
    {"learn", "learns", "學習", {"j'apprends", "apprend", "apprenons", "apprennent"}, "apprendre",
     C_PERSON, C_FIELD, false, true, true},
    {"sit", "sits", "坐", {"suis", "est", "sommes", "sont"}, NULL,   // être assis
     C_ANIMAL | C_PERSON, 0, false, false, true},
    {"sleep", "sleeps", "睡覺", {"dors", "dort", "dormons", "dorment"}, NULL,
     C_ANIMAL | C_PERSON, 0, false, false, true},
    {"play", "plays", "玩", {"joue", "joue", "jouons", "jouent"}, NULL,
     C_ANIMAL | C_PERSON, 0, false, false, true},
    {"be", "is", "在", {"suis", "est", "sommes", "sont"}, NULL,
     C_CONCRETE, 0, false, false, true},
};

static const char *const en_numbers[] = {"two", "three", "four", "five"};
static const char *const zh_numbers[] = {"兩", "三", "四", "五"};
static const char *const fr_numbers[] = {"deux", "trois", "quatre", "cinq"};
static const char *const fr_aller[4] = {"vais", "va", "allons", "vont"};
static const char *const fr_assis[4] = {"assis", "assise", "assis", "assises"};

// ---- Realisation: tokens and links ----------------------------------------

typedef struct {
    int at, n;
} Span;

// Where a simple noun phrase's parts landed in the English sentence.
typedef struct {
    Span det, adj, noun;
} NPSpans;

typedef struct {
    NPSpans head;
    Span prep;
    NPSpans loc;
} FullNPSpans;

static uint64_t mask_of(Span s) {
    uint64_t m = 0;
    for (int i = 0; i < s.n; i++) m |= 1ull << (s.at + i);
    return m;
}

static uint64_t mask_at(int i) {
    return 1ull << i;
}

static Span src_push(Pair *p, const char *word) {
    Span s = {p->n_src, 1};
    if (p->n_src == MAX_TOK) {
        p->overflow = true;
        return (Span){p->n_src - 1, 0};
    }
    p->src[p->n_src++] = word;
    return s;
}

static Span src_push_words(Pair *p, const char *const *words, int n) {
    Span s = {p->n_src, 0};
    for (int i = 0; i < n; i++) s.n += src_push(p, words[i]).n;
    return s;
}

static void tgt_push(Pair *p, const char *word, uint64_t links) {
    if (p->n_tgt == MAX_TOK) {
        p->overflow = true;
        return;
    }
    p->tgt[p->n_tgt] = word;
    p->links[p->n_tgt++] = links;
}

// English person of a subject, for agreement.
static int subject_person(const Clause *c) {
    if (c->pron >= 0) return pronouns[c->pron].person;
    return c->subj.head.plural ? P3P : P3S;
}

static bool subject_fem(const Clause *c) {
    if (c->pron >= 0) return pronouns[c->pron].fem;
    return nouns[c->subj.head.noun].fem;
}

static const char *const field_words[] = {"natural", "language", "processing"};

// "an" before a vowel sound. Spelling decides it here: no word in the tables
// is an exception such as "hour" or "one"; of them, only "apple" starts with a vowel.
static const char *en_indefinite(const char *next_word) {
    return next_word[0] && strchr("aeiou", next_word[0]) ? "an" : "a";  // (strchr finds the string's own end for "")
}

static NPSpans en_simple_np(Pair *p, const SimpleNP *np) {
    NPSpans s = {{p->n_src, 0}, {p->n_src, 0}, {p->n_src, 0}};
    const Noun *n = &nouns[np->noun];
    if (np->noun == N_NLP_FULL) {
        s.noun = src_push_words(p, field_words, 3);
        return s;
    }
    static const char *const lot[] = {"a", "lot", "of"};
    const char *noun = np->plural ? n->en_pl : n->en;
    const char *adj = np->adj >= 0 ? adjs[np->adj].en : NULL;
    switch (np->det) {
    case DET_NONE: break;
    case DET_THE: s.det = src_push(p, "the"); break;
    case DET_A: s.det = src_push(p, en_indefinite(adj ? adj : noun)); break;  // links as "a" did
    case DET_MY: s.det = src_push(p, "my"); break;
    case DET_NUM: s.det = src_push(p, en_numbers[np->num]); break;
    case DET_LOT: s.det = src_push_words(p, lot, 3); break;
    }
    if (adj) s.adj = src_push(p, adj);
    s.noun = src_push(p, noun);
    return s;
}

static FullNPSpans en_np(Pair *p, const NP *np) {
    FullNPSpans s;
    memset(&s, 0, sizeof s);
    s.head = en_simple_np(p, &np->head);
    if (np->prep >= 0) {
        s.prep = src_push_words(p, preps[np->prep].en, preps[np->prep].en_n);
        s.loc = en_simple_np(p, &np->loc);
    }
    return s;
}

// The English sentence and the spans the translations link to.
typedef struct {
    int pron_at;            // subject pronoun, or -1
    FullNPSpans subj;
    Span aux;               // "is going to", "does not"
    Span verb;
    NPSpans obj;
    Span loc_prep;
    NPSpans loc;
    Span period;
} ClauseSpans;

static void en_clause(Pair *p, const Clause *c, ClauseSpans *s) {
    memset(s, 0, sizeof *s);
    s->pron_at = -1;
    if (c->kind == K_NP) {
        s->subj = en_np(p, &c->subj);
        return;
    }
    if (c->pron >= 0)
        s->pron_at = src_push(p, pronouns[c->pron].en).at;
    else
        s->subj = en_np(p, &c->subj);
    int person = subject_person(c);
    const Verb *v = &verbs[c->verb];
    static const char *const be[4] = {"am", "is", "are", "are"};
    if (c->kind == K_FUTURE) {
        const char *aux[3] = {be[person], "going", "to"};
        s->aux = src_push_words(p, aux, 3);
        s->verb = src_push(p, v->en);
    } else if (c->kind == K_NEG) {
        const char *aux[2] = {person == P3S ? "does" : "do", "not"};
        s->aux = src_push_words(p, aux, 2);
        s->verb = src_push(p, v->en);
    } else if (c->verb == V_BE) {
        s->verb = src_push(p, be[person]);
    } else {
        s->verb = src_push(p, person == P3S ? v->en3 : v->en);
    }
    if (c->kind != K_INTRANS) s->obj = en_simple_np(p, &c->obj);
    if (c->loc_prep >= 0) {
        s->loc_prep = src_push_words(p, preps[c->loc_prep].en, preps[c->loc_prep].en_n);
        s->loc = en_simple_np(p, &c->loc);
    }
    if (c->period) s->period = src_push(p, ".");
}

// -- Chinese

static const char *const zh_field[] = {"自然", "語言", "處理"};

static void zh_simple_np(Pair *p, const SimpleNP *np, const NPSpans *s) {
    const Noun *n = &nouns[np->noun];
    uint64_t det = mask_of(s->det);
    if (np->noun == N_NLP) {
        // one-to-many: nlp → 自然 語言 處理
        for (int i = 0; i < 3; i++) tgt_push(p, zh_field[i], mask_of(s->noun));
        return;
    }
    if (np->noun == N_NLP_FULL) {
        for (int i = 0; i < 3; i++) tgt_push(p, zh_field[i], mask_at(s->noun.at + i));
        return;
    }
    switch (np->det) {
    case DET_NONE:
    case DET_THE: break;  // no article in Chinese: "the" stays unaligned
    case DET_A: tgt_push(p, "一", det); tgt_push(p, n->measure, det); break;
    case DET_NUM: tgt_push(p, zh_numbers[np->num], det); tgt_push(p, n->measure, det); break;
    case DET_MY: tgt_push(p, "我", det); tgt_push(p, "的", det); break;
    case DET_LOT: tgt_push(p, "很多", det); break;  // many-to-one: a lot of → 很多
    }
    if (np->adj >= 0) tgt_push(p, adjs[np->adj].zh, mask_of(s->adj));
    tgt_push(p, n->zh, mask_of(s->noun));
}

// "the cat on the mat" → 墊子 上 的 貓: the location comes first.
static void zh_np(Pair *p, const NP *np, const FullNPSpans *s) {
    if (np->prep >= 0) {
        zh_simple_np(p, &np->loc, &s->loc);
        tgt_push(p, preps[np->prep].zh, mask_of(s->prep));
        tgt_push(p, "的", mask_of(s->prep));
    }
    zh_simple_np(p, &np->head, &s->head);
}

// 在 墊子 上: the preposition becomes 在 before the noun and a locative after it.
static void zh_location(Pair *p, const Clause *c, const ClauseSpans *s, uint64_t zai_links) {
    tgt_push(p, "在", zai_links);
    zh_simple_np(p, &c->loc, &s->loc);
    tgt_push(p, preps[c->loc_prep].zh, mask_of(s->loc_prep));
}

static void zh_clause(Pair *p, const Clause *c, const ClauseSpans *s) {
    if (c->kind == K_NP) {
        zh_np(p, &c->subj, &s->subj);
        return;
    }
    if (c->pron >= 0)
        tgt_push(p, pronouns[c->pron].zh, mask_at(s->pron_at));
    else
        zh_np(p, &c->subj, &s->subj);
    const Verb *v = &verbs[c->verb];
    uint64_t verb = mask_of(s->verb), prep = mask_of(s->loc_prep);
    switch (c->kind) {
    case K_FUTURE: tgt_push(p, "要", mask_of(s->aux)); break;  // is going to → 要
    case K_NEG: tgt_push(p, "不", mask_of(s->aux)); break;     // does not → 不
    default: break;
    }
    if (c->verb == V_SIT) {
        // after the verb: 坐 在 墊子 上
        tgt_push(p, v->zh, verb);
        zh_location(p, c, s, prep);
    } else if (c->verb == V_BE) {
        zh_location(p, c, s, verb);  // is → 在
    } else {
        // before the verb: 在 房子 裡 讀 書
        if (c->loc_prep >= 0) zh_location(p, c, s, prep);
        tgt_push(p, v->zh, verb);
        if (c->kind != K_INTRANS) zh_simple_np(p, &c->obj, &s->obj);
    }
    if (c->period) tgt_push(p, "。", mask_of(s->period));
}

// -- French

static void fr_simple_np(Pair *p, const SimpleNP *np, const NPSpans *s) {
    const Noun *n = &nouns[np->noun];
    uint64_t det = mask_of(s->det);
    if (np->noun == N_NLP) {
        tgt_push(p, "le", mask_of(s->noun));
        tgt_push(p, "tal", mask_of(s->noun));
        return;
    }
    if (np->noun == N_NLP_FULL) {
        // natural language processing → le traitement du langage naturel
        uint64_t natural = mask_at(s->noun.at), language = mask_at(s->noun.at + 1),
                 processing = mask_at(s->noun.at + 2);
        tgt_push(p, "le", processing);
        tgt_push(p, "traitement", processing);
        tgt_push(p, "du", language);
        tgt_push(p, "langage", language);
        tgt_push(p, "naturel", natural);
        return;
    }
    bool pl = np->plural, fem = n->fem;
    switch (np->det) {
    case DET_NONE: break;
    case DET_THE: tgt_push(p, pl ? "les" : fem ? "la" : "le", det); break;
    case DET_A: tgt_push(p, fem ? "une" : "un", det); break;
    case DET_MY: tgt_push(p, pl ? "mes" : fem ? "ma" : "mon", det); break;
    case DET_NUM: tgt_push(p, fr_numbers[np->num], det); break;
    case DET_LOT:
        // a lot → beaucoup, of → de
        tgt_push(p, "beaucoup", mask_at(s->det.at) | mask_at(s->det.at + 1));
        tgt_push(p, "de", mask_at(s->det.at + 2));
        break;
    }
    const char *adj = np->adj >= 0 ? adjs[np->adj].fr[(fem ? 1 : 0) + (pl ? 2 : 0)] : NULL;
    if (adj && adjs[np->adj].fr_before) tgt_push(p, adj, mask_of(s->adj));
    tgt_push(p, pl ? n->fr_pl : n->fr, mask_of(s->noun));
    if (adj && !adjs[np->adj].fr_before) tgt_push(p, adj, mask_of(s->adj));  // le chat rouge
}

static void fr_np(Pair *p, const NP *np, const FullNPSpans *s) {
    fr_simple_np(p, &np->head, &s->head);
    if (np->prep >= 0) {
        tgt_push(p, preps[np->prep].fr, mask_of(s->prep));
        fr_simple_np(p, &np->loc, &s->loc);
    }
}

static void fr_clause(Pair *p, const Clause *c, const ClauseSpans *s) {
    if (c->kind == K_NP) {
        fr_np(p, &c->subj, &s->subj);
        return;
    }
    const Verb *v = &verbs[c->verb];
    int person = subject_person(c);
    uint64_t verb = mask_of(s->verb), subj = 0;
    const char *form = v->fr[person];
    // je + aime → j'aime: one French word for two English ones
    bool elided = c->kind == K_TRANS && strncmp(form, "j'", 2) == 0;
    if (c->pron >= 0) {
        subj = mask_at(s->pron_at);
        if (!elided) tgt_push(p, pronouns[c->pron].fr, subj);
    } else {
        fr_np(p, &c->subj, &s->subj);
    }
    switch (c->kind) {
    case K_FUTURE:
        tgt_push(p, fr_aller[person], mask_of(s->aux));  // is going to → va
        tgt_push(p, v->fr_inf, verb);
        break;
    case K_NEG:
        tgt_push(p, "ne", mask_of(s->aux));  // does not → ne … pas
        tgt_push(p, form, verb);
        tgt_push(p, "pas", mask_of(s->aux));
        break;
    default:
        tgt_push(p, form, elided ? verb | subj : verb);
        if (c->verb == V_SIT)  // sits → est assis
            tgt_push(p, fr_assis[(subject_fem(c) ? 1 : 0) + (person >= P1P ? 2 : 0)], verb);
        break;
    }
    if (c->kind != K_INTRANS) fr_simple_np(p, &c->obj, &s->obj);
    if (c->loc_prep >= 0) {
        tgt_push(p, preps[c->loc_prep].fr, mask_of(s->loc_prep));
        fr_simple_np(p, &c->loc, &s->loc);
    }
    if (c->period) tgt_push(p, ".", mask_of(s->period));
}

void tg_realize(const Clause *c, Lang lang, Pair *p) {
    memset(p, 0, sizeof *p);
    ClauseSpans s;
    en_clause(p, c, &s);
    if (lang == LANG_ZH)
        zh_clause(p, c, &s);
    else
        fr_clause(p, c, &s);
}

// ---- Sampling -------------------------------------------------------------

static bool chance(Rng *r, int percent) {
    return tg_pick(r, 100) < percent;
}

// A uniformly chosen noun of one of the classes in cls (and taking the
// preposition prep as a location, if prep >= 0).
static int pick_noun(Rng *r, unsigned cls, int prep) {
    int candidates[N_COUNT], n = 0;
    for (int i = 0; i < N_COUNT; i++)
        if ((nouns[i].cls & cls) && (prep < 0 || (nouns[i].preps & PB(prep)))) candidates[n++] = i;
    assert(n > 0);
    return candidates[tg_pick(r, n)];
}

static int pick_adj(Rng *r, int noun) {
    int candidates[A_COUNT], n = 0;
    for (int i = 0; i < A_COUNT; i++)
        if (adjs[i].cls & nouns[noun].cls) candidates[n++] = i;
    return n ? candidates[tg_pick(r, n)] : -1;
}

// Determiner, number and adjective for a chosen noun.
static void dress_np(Rng *r, SimpleNP *np, bool definite_only) {
    np->adj = -1;
    np->plural = false;
    np->num = 0;
    if (nouns[np->noun].cls & C_FIELD) {
        np->det = DET_NONE;
        return;
    }
    int roll = tg_pick(r, 100);
    if (definite_only)
        np->det = roll < 70 ? DET_THE : DET_MY;
    else
        np->det = roll < 40 ? DET_THE : roll < 60 ? DET_A : roll < 70 ? DET_MY : roll < 88 ? DET_NUM : DET_LOT;
    switch (np->det) {
    case DET_THE:
    case DET_MY: np->plural = chance(r, 30); break;
    case DET_NUM: np->plural = true; np->num = tg_pick(r, 4); break;
    case DET_LOT: np->plural = true; break;
    default: break;
    }
    if (chance(r, 25)) np->adj = pick_adj(r, np->noun);
}

static void sample_np(Rng *r, SimpleNP *np, unsigned cls, bool definite_only) {
    np->noun = pick_noun(r, cls, -1);
    dress_np(r, np, definite_only);
}

// A location: "on the mat", "in front of a big house".
static void sample_location(Rng *r, int *prep, SimpleNP *loc) {
    *prep = tg_pick(r, PR_COUNT);
    loc->noun = pick_noun(r, C_PLACE, *prep);
    loc->plural = false;
    loc->num = 0;
    int roll = tg_pick(r, 100);
    loc->det = roll < 75 ? DET_THE : roll < 90 ? DET_A : DET_MY;
    loc->adj = chance(r, 15) ? pick_adj(r, loc->noun) : -1;
}

// "the cat on the mat": a definite head with a location.
static void sample_located_np(Rng *r, NP *np, unsigned cls) {
    np->head.noun = pick_noun(r, cls, -1);
    dress_np(r, &np->head, false);
    np->head.det = DET_THE;
    np->head.num = 0;
    sample_location(r, &np->prep, &np->loc);
}

static void sample_subject(Rng *r, Clause *c, bool may_locate) {
    const Verb *v = &verbs[c->verb];
    c->subj.prep = -1;
    if ((v->subj & C_PERSON) && chance(r, 35)) {
        c->pron = tg_pick(r, PN_COUNT);
        return;
    }
    c->pron = -1;
    if (may_locate && chance(r, 12)) {
        sample_located_np(r, &c->subj, v->subj);
        return;
    }
    sample_np(r, &c->subj.head, v->subj, false);
}

void tg_sample_clause(Rng *r, Clause *c) {
    memset(c, 0, sizeof *c);
    c->pron = -1;
    c->loc_prep = -1;
    c->subj.prep = -1;
    int roll = tg_pick(r, 100);
    c->kind = roll < 36 ? K_TRANS : roll < 48 ? K_FUTURE : roll < 58 ? K_NEG : roll < 84 ? K_INTRANS : K_NP;
    c->period = chance(r, 50);
    if (c->kind == K_NP) {
        c->period = false;
        if (chance(r, 55))
            sample_located_np(r, &c->subj, C_CONCRETE);
        else
            sample_np(r, &c->subj.head, C_CONCRETE, false);
        return;
    }
    if (c->kind == K_INTRANS) {
        c->verb = V_FIRST_INTRANS + tg_pick(r, V_COUNT - V_FIRST_INTRANS);
        bool located = c->verb != V_SLEEP || chance(r, 60);
        sample_subject(r, c, !located);
        if (located) sample_location(r, &c->loc_prep, &c->loc);
        return;
    }
    do c->verb = tg_pick(r, V_FIRST_INTRANS);
    while ((c->kind == K_FUTURE && !verbs[c->verb].future) || (c->kind == K_NEG && !verbs[c->verb].negatable));
    bool located = c->kind == K_TRANS && verbs[c->verb].located && chance(r, 20);
    sample_subject(r, c, c->kind == K_TRANS && !located);
    sample_np(r, &c->obj, verbs[c->verb].obj, c->kind == K_NEG);
    if (located) sample_location(r, &c->loc_prep, &c->loc);
}

// ---- The course's examples ------------------------------------------------

typedef struct {
    const char *zh, *fr;    // what the example shows in each pair
} Notes;

static const Notes example_notes[] = {
    {"one-to-many: nlp → 自然 語言 處理", "many-to-one: i love → j'aime; nlp → le tal"},
    {"word for word", "reordering: natural language processing → traitement du langage naturel"},
    {"one-to-many, discontiguous: on → 在 … 上; \"the\" unaligned", "one-to-many: sits → est assis"},
    {"the same without the period", "the same without the period"},
    {"reordering: the location first, 墊子 上 的 貓", "word for word"},
    {"measure word: two → 兩 隻", "many-to-one: i have → j'ai"},
    {"adjective before the noun, no article", "reordering: the adjective after the noun"},
    {"many-to-one: a lot of → 很多", "a lot of → beaucoup de"},
    {"many-to-one: is going to → 要", "many-to-one: is going to → va"},
    {"many-to-one: does not → 不", "discontiguous: does not → ne … pas"},
    {"reordering: the location before the verb; in front of → 在 … 前面", "many-to-one: in front of → devant"},
    {"the location after 在", "agreement: la petite souris"},
};
#define N_EXAMPLES ((int)(sizeof example_notes / sizeof example_notes[0]))

static SimpleNP snp(int noun, Det det, bool plural, int adj) {
    return (SimpleNP){noun, det, 0, plural, adj};
}

void tg_example_clause(int i, Clause *c) {
    memset(c, 0, sizeof *c);
    c->pron = -1;
    c->loc_prep = -1;
    c->subj.prep = -1;
    SimpleNP the_cat = snp(N_CAT, DET_THE, false, -1), the_mat = snp(N_MAT, DET_THE, false, -1);
    switch (i) {
    case 0:  // i love nlp
    case 1:  // i love natural language processing
        c->kind = K_TRANS;
        c->pron = PN_I;
        c->verb = V_LOVE;
        c->obj = snp(i == 0 ? N_NLP : N_NLP_FULL, DET_NONE, false, -1);
        break;
    case 2:  // the cat sits on the mat .
    case 3:  // the cat sits on the mat
        c->kind = K_INTRANS;
        c->subj.head = the_cat;
        c->verb = V_SIT;
        c->loc_prep = PR_ON;
        c->loc = the_mat;
        c->period = i == 2;
        break;
    case 4:  // the cat on the mat
        c->kind = K_NP;
        c->subj.head = the_cat;
        c->subj.prep = PR_ON;
        c->subj.loc = the_mat;
        break;
    case 5:  // i have two cats
        c->kind = K_TRANS;
        c->pron = PN_I;
        c->verb = V_HAVE;
        c->obj = (SimpleNP){N_CAT, DET_NUM, 0, true, -1};
        break;
    case 6:  // the red cat
        c->kind = K_NP;
        c->subj.head = snp(N_CAT, DET_THE, false, A_RED);
        break;
    case 7:  // she has a lot of books .
        c->kind = K_TRANS;
        c->pron = PN_SHE;
        c->verb = V_HAVE;
        c->obj = snp(N_BOOK, DET_LOT, true, -1);
        c->period = true;
        break;
    case 8:  // the girl is going to read a book .
        c->kind = K_FUTURE;
        c->subj.head = snp(N_GIRL, DET_THE, false, -1);
        c->verb = V_READ;
        c->obj = snp(N_BOOK, DET_A, false, -1);
        c->period = true;
        break;
    case 9:  // the dog does not eat the cake .
        c->kind = K_NEG;
        c->subj.head = snp(N_DOG, DET_THE, false, -1);
        c->verb = V_EAT;
        c->obj = snp(N_CAKE, DET_THE, false, -1);
        c->period = true;
        break;
    case 10:  // the boy sleeps in front of the house .
        c->kind = K_INTRANS;
        c->subj.head = snp(N_BOY, DET_THE, false, -1);
        c->verb = V_SLEEP;
        c->loc_prep = PR_FRONT;
        c->loc = snp(N_HOUSE, DET_THE, false, -1);
        c->period = true;
        break;
    default:  // the small mouse is under the table .
        c->kind = K_INTRANS;
        c->subj.head = snp(N_MOUSE, DET_THE, false, A_SMALL);
        c->verb = V_BE;
        c->loc_prep = PR_UNDER;
        c->loc = snp(N_TABLE, DET_THE, false, -1);
        c->period = true;
        break;
    }
}

int tg_pair_lang(const char *pair) {
    if (!pair) return -1;
    if (strcmp(pair, "en-zh") == 0) return LANG_ZH;
    if (strcmp(pair, "en-fr") == 0) return LANG_FR;
    return -1;
}

bool tg_pair_known(const char *pair) {
    return tg_pair_lang(pair) >= 0;
}

const char *tg_pair_names(void) {
    return "en-zh, en-fr";
}

// ---- Text -----------------------------------------------------------------

void tg_join(char *out, size_t size, const char *const *words, int n) {
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        int k = snprintf(out + used, size - used, "%s%s", i ? " " : "", words[i]);
        assert(k >= 0 && (size_t)k < size - used);
        used += (size_t)k;
    }
}

// Pharaoh format, ordered by source index, then target index.
void tg_format_links(char *out, size_t size, const Pair *p) {
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < p->n_src; i++)
        for (int j = 0; j < p->n_tgt; j++) {
            if (!(p->links[j] & mask_at(i))) continue;
            int k = snprintf(out + used, size - used, "%s%d-%d", used ? " " : "", i, j);
            assert(k >= 0 && (size_t)k < size - used);
            used += (size_t)k;
        }
}

int tg_example_count(const char *pair) {
    return tg_pair_known(pair) ? N_EXAMPLES : 0;
}

int tg_example(const char *pair, int i, TgExample *out) {
    int lang = tg_pair_lang(pair);
    if (lang < 0 || i < 0 || i >= N_EXAMPLES) return -1;
    Clause c;
    Pair p;
    tg_example_clause(i, &c);
    tg_realize(&c, (Lang)lang, &p);
    tg_join(out->source, sizeof out->source, p.src, p.n_src);
    tg_join(out->target, sizeof out->target, p.tgt, p.n_tgt);
    tg_format_links(out->alignment, sizeof out->alignment, &p);
    out->shows = lang == LANG_ZH ? example_notes[i].zh : example_notes[i].fr;
    return 0;
}
