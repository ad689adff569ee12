// What the grammar (toygen.c) and the corpus assembly (toygen_corpus.c)
// share: the lexicon's indices, sentences as trees and their realisation.
#ifndef TT_TOYGEN_PRIVATE_H
#define TT_TOYGEN_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rng.h"

// ---- The lexicon's indices (the word tables are in toygen.c) ------------

enum {
    N_CAT, N_DOG, N_MOUSE, N_HORSE, N_GIRL, N_BOY, N_TEACHER, N_APPLE, N_CAKE, N_BANANA,
    N_BOOK, N_LETTER, N_BALL, N_BOX, N_CAR, N_MAT, N_TABLE, N_CHAIR, N_BED, N_HOUSE,
    N_NLP, N_NLP_FULL, N_COUNT
};

enum { A_BIG, A_SMALL, A_RED, A_BLACK, A_WHITE, A_COUNT };

enum {
    V_LOVE, V_SEE, V_EAT, V_READ, V_HAVE, V_CHASE, V_BUY, V_LEARN,  // transitive
    V_SIT, V_SLEEP, V_PLAY, V_BE,                                    // intransitive
    V_COUNT
};
#define V_FIRST_INTRANS V_SIT

// ---- Sentences as trees ---------------------------------------------------

typedef enum { DET_NONE, DET_THE, DET_A, DET_MY, DET_NUM, DET_LOT } Det;

typedef struct {
    int noun;
    Det det;
    int num;        // DET_NUM: index into the number words (0 = two)
    bool plural;
    int adj;        // -1 = none
} SimpleNP;

// A noun phrase, optionally with a location: "the cat on the mat".
typedef struct {
    SimpleNP head;
    int prep;       // -1 = none
    SimpleNP loc;
} NP;

typedef enum { K_TRANS, K_FUTURE, K_NEG, K_INTRANS, K_NP } Kind;

typedef struct {
    Kind kind;
    int pron;           // subject pronoun, or -1 for the noun phrase subj
    NP subj;            // K_NP: the whole sentence
    int verb;
    SimpleNP obj;       // K_TRANS, K_FUTURE, K_NEG
    int loc_prep;       // location adverbial ("in the house"), -1 = none
    SimpleNP loc;
    bool period;
} Clause;

// ---- Realisation: tokens and links ----------------------------------------

#define MAX_TOK 48

typedef struct {
    const char *src[MAX_TOK];
    int n_src;
    const char *tgt[MAX_TOK];
    uint64_t links[MAX_TOK];    // per target token: bit i = linked to source token i
    int n_tgt;
    bool overflow;
} Pair;

typedef enum { LANG_ZH, LANG_FR } Lang;

// A random index below n.
static inline int tg_pick(Rng *r, int n) {
    return (int)(rng_u32(r) % (uint32_t)n);
}

// Draws a random sentence.
void tg_sample_clause(Rng *r, Clause *c);
// The course's example i (from 0 to tg_example_count - 1).
void tg_example_clause(int i, Clause *c);
// Writes the English sentence and its translation into p, with the links.
void tg_realize(const Clause *c, Lang lang, Pair *p);
// LANG_ZH or LANG_FR for a pair's name, or -1.
int tg_pair_lang(const char *pair);
// n words joined by spaces.
void tg_join(char *out, size_t size, const char *const *words, int n);
// The links in Pharaoh format, ordered by source index, then target index.
void tg_format_links(char *out, size_t size, const Pair *p);

#endif
