// The corpus assembly: held-out word pairs for the test split, the set of
// sentences already drawn, the splits and vocabularies, and writing the files.
// The sentences themselves come from the grammar in toygen.c.
#include "toygen.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fileio.h"
#include "toygen_private.h"

// ---- Held-out combinations ------------------------------------------------

// Lemmas as one number: nouns, then adjectives, then verbs.
#define LN(i) (i)
#define LA(i) (100 + (i))
#define LV(i) (200 + (i))

// Pairs of words that never occur in the same train or valid sentence. The
// test split holds sentences where such a pair is in a direct relation:
// adjective + noun, verb + object, or subject + verb.
static const int held_out[][2] = {
    {LA(A_WHITE), LN(N_HORSE)}, {LA(A_BLACK), LN(N_DOG)}, {LA(A_RED), LN(N_BALL)},
    {LA(A_BIG), LN(N_CAT)}, {LA(A_SMALL), LN(N_CAR)},
    {LV(V_CHASE), LN(N_MOUSE)}, {LV(V_EAT), LN(N_BANANA)}, {LV(V_READ), LN(N_LETTER)},
    {LV(V_BUY), LN(N_HOUSE)},
    {LN(N_HORSE), LV(V_SLEEP)}, {LN(N_TEACHER), LV(V_PLAY)}, {LN(N_DOG), LV(V_SIT)},
};
#define N_HELD_OUT ((int)(sizeof held_out / sizeof held_out[0]))

typedef struct {
    int lemmas[16], n_lemmas;
    int rel[8][2], n_rel;   // related lemma pairs
} Lemmas;

static void add_np_lemmas(Lemmas *l, const SimpleNP *np) {
    l->lemmas[l->n_lemmas++] = LN(np->noun);
    if (np->adj >= 0) {
        l->lemmas[l->n_lemmas++] = LA(np->adj);
        l->rel[l->n_rel][0] = LA(np->adj);
        l->rel[l->n_rel++][1] = LN(np->noun);
    }
}

static void clause_lemmas(const Clause *c, Lemmas *l) {
    memset(l, 0, sizeof *l);
    if (c->kind == K_NP || c->pron < 0) {
        add_np_lemmas(l, &c->subj.head);
        if (c->subj.prep >= 0) add_np_lemmas(l, &c->subj.loc);
    }
    if (c->kind == K_NP) return;
    l->lemmas[l->n_lemmas++] = LV(c->verb);
    if (c->pron < 0) {
        l->rel[l->n_rel][0] = LN(c->subj.head.noun);
        l->rel[l->n_rel++][1] = LV(c->verb);
    }
    if (c->kind != K_INTRANS) {
        add_np_lemmas(l, &c->obj);
        l->rel[l->n_rel][0] = LV(c->verb);
        l->rel[l->n_rel++][1] = LN(c->obj.noun);
    }
    if (c->loc_prep >= 0) add_np_lemmas(l, &c->loc);
}

static bool has_lemma(const Lemmas *l, int lemma) {
    for (int i = 0; i < l->n_lemmas; i++)
        if (l->lemmas[i] == lemma) return true;
    return false;
}

// "the cat chases the cat", "the box on the box": one noun twice reads badly.
static bool repeats_noun(const Clause *c) {
    Lemmas l;
    clause_lemmas(c, &l);
    for (int i = 0; i < l.n_lemmas; i++)
        for (int j = i + 1; j < l.n_lemmas; j++)
            if (l.lemmas[i] == l.lemmas[j] && l.lemmas[i] < LA(0)) return true;
    return false;
}

#define HOLD_NONE (-1)
#define HOLD_LOOSE (-2)

// Whether a sentence holds a held-out pair: in a direct relation (returns the
// pair's index: a test sentence), only side by side (HOLD_LOOSE: used
// nowhere), or not at all (HOLD_NONE: train or valid).
static int holding(const Clause *c) {
    Lemmas l;
    clause_lemmas(c, &l);
    int h = HOLD_NONE;
    for (int k = 0; k < N_HELD_OUT; k++) {
        if (!has_lemma(&l, held_out[k][0]) || !has_lemma(&l, held_out[k][1])) continue;
        for (int i = 0; i < l.n_rel; i++)
            if (l.rel[i][0] == held_out[k][0] && l.rel[i][1] == held_out[k][1]) return k;
        h = HOLD_LOOSE;
    }
    return h;
}

// ---- A set of strings (open addressing) ------------------------------------

typedef struct {
    char **slots;
    size_t cap, count;
} StrSet;

static uint64_t hash_str(const char *s) {
    uint64_t h = 1469598103934665603ull;  // FNV-1a
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static void set_deinit(StrSet *s) {
    for (size_t i = 0; i < s->cap; i++) free(s->slots[i]);
    free(s->slots);
    memset(s, 0, sizeof *s);
}

static bool set_has(const StrSet *s, const char *key) {
    if (!s->cap) return false;
    for (size_t i = hash_str(key) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        if (!s->slots[i]) return false;
        if (strcmp(s->slots[i], key) == 0) return true;
    }
}

// Adds a copy of key. Returns 1 if added, 0 if it was there, -1 on OOM.
static int set_add(StrSet *s, const char *key) {
    if (set_has(s, key)) return 0;
    if (2 * (s->count + 1) > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 1024;
        char **slots = calloc(cap, sizeof *slots);
        if (!slots) return -1;
        for (size_t i = 0; i < s->cap; i++) {
            if (!s->slots[i]) continue;
            size_t j = hash_str(s->slots[i]) & (cap - 1);
            while (slots[j]) j = (j + 1) & (cap - 1);
            slots[j] = s->slots[i];
        }
        free(s->slots);
        s->slots = slots;
        s->cap = cap;
    }
    char *copy = strdup(key);
    if (!copy) return -1;
    size_t i = hash_str(key) & (s->cap - 1);
    while (s->slots[i]) i = (i + 1) & (s->cap - 1);
    s->slots[i] = copy;
    s->count++;
    return 1;
}

// ---- Generation -----------------------------------------------------------

// A list of lines: a split's "source\ttarget\talignment", or a vocabulary's
// words in order of first appearance.
typedef struct {
    char **lines;
    int n, cap;
} Split;

static int split_add(Split *s, const char *line) {
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 1024;
        char **lines = realloc(s->lines, (size_t)cap * sizeof *lines);
        if (!lines) return -1;
        s->lines = lines;
        s->cap = cap;
    }
    if (!(s->lines[s->n] = strdup(line))) return -1;
    s->n++;
    return 0;
}

static void split_deinit(Split *s) {
    for (int i = 0; i < s->n; i++) free(s->lines[i]);
    free(s->lines);
    memset(s, 0, sizeof *s);
}

#define LINE_MAX_BYTES 2048

// The source without a final " .": a sentence and its period-less twin
// count as one, so they never land in different splits.
static void sentence_key(char *key, size_t size, const Pair *p) {
    int n = p->n_src;
    if (n > 1 && strcmp(p->src[n - 1], ".") == 0) n--;
    tg_join(key, size, p->src, n);
}

static void format_line(char *line, size_t size, const Pair *p) {
    char src[LINE_MAX_BYTES / 4], tgt[LINE_MAX_BYTES / 4], links[LINE_MAX_BYTES / 2];
    tg_join(src, sizeof src, p->src, p->n_src);
    tg_join(tgt, sizeof tgt, p->tgt, p->n_tgt);
    tg_format_links(links, sizeof links, p);
    snprintf(line, size, "%s\t%s\t%s", src, tgt, links);
}

static bool length_ok(const Pair *p) {
    return !p->overflow && p->n_src >= 3 && p->n_src <= 12 && p->n_tgt >= 2 && p->n_tgt <= 12;
}

static int mkdir_p(const char *dir, Error *err) {
    char *path = strdup(dir);
    if (!path) return err_set(err, "%s: out of memory", dir);
    for (char *s = path + 1;; s++) {
        if (*s != '/' && *s != '\0') continue;
        char saved = *s;
        *s = '\0';
        if (mkdir(path, 0755) != 0 && errno != EEXIST) {
            err_set(err, "%s: cannot create the folder: %s", path, strerror(errno));
            free(path);
            return -1;
        }
        *s = saved;
        if (!saved) break;
    }
    free(path);
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) return err_set(err, "%s: is not a folder", dir);
    return 0;
}

static char *path_join(const char *dir, const char *name) {
    size_t n = strlen(dir) + strlen(name) + 2;
    char *path = malloc(n);
    if (path) snprintf(path, n, "%s/%s", dir, name);
    return path;
}

// head, then the lines, into dir/name.
static int write_lines(const char *dir, const char *name, const char *head, const Split *s, Error *err) {
    char *path = path_join(dir, name);
    if (!path) return err_set(err, "%s: out of memory", dir);
    AtomicFile af;
    int rc = fio_atomic_open(&af, path, err);
    if (rc == 0) {
        fputs(head, af.fp);
        for (int i = 0; i < s->n; i++) fprintf(af.fp, "%s\n", s->lines[i]);
        rc = fio_atomic_commit(&af, err);
    }
    free(path);
    return rc;
}

// Column col (0 = source, 1 = target) of a line, copied into buf.
static void column(const char *line, int col, char *buf, size_t size) {
    for (int i = 0; i < col; i++) line = strchr(line, '\t') + 1;
    size_t n = strcspn(line, "\t");
    if (n >= size) n = size - 1;
    memcpy(buf, line, n);
    buf[n] = '\0';
}

typedef struct {
    StrSet seen;
    Split order;
} VocabList;

static int vocab_add_line(VocabList *v, const char *text) {
    char buf[LINE_MAX_BYTES];
    snprintf(buf, sizeof buf, "%s", text);
    for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        int added = set_add(&v->seen, tok);
        if (added < 0) return -1;
        if (added && split_add(&v->order, tok) != 0) return -1;
    }
    return 0;
}

static void vocab_deinit(VocabList *v) {
    set_deinit(&v->seen);
    split_deinit(&v->order);
}

// Every token of a valid or test line must be in the train vocabulary.
static int check_covered(const Split *s, const char *name, const VocabList *src, const VocabList *tgt, Error *err) {
    char buf[LINE_MAX_BYTES];
    for (int i = 0; i < s->n; i++)
        for (int col = 0; col < 2; col++) {
            column(s->lines[i], col, buf, sizeof buf);
            const StrSet *seen = col ? &tgt->seen : &src->seen;
            for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
                if (!set_has(seen, tok))
                    return err_set(err, "%s line %d: the word \"%s\" never occurs in train.tsv", name, i + 1, tok);
        }
    return 0;
}

int tg_generate(const char *pair, uint64_t seed, const char *out_dir, Error *err) {
    int lang = tg_pair_lang(pair);
    if (lang < 0)
        return err_set(err, "unknown language pair \"%s\" (known: %s)", pair ? pair : "(null)", tg_pair_names());
    if (!out_dir || !*out_dir) return err_set(err, "no output folder given");
    if (mkdir_p(out_dir, err) != 0) return -1;

    int rc = -1;
    StrSet keys = {0};
    Split train = {0}, valid = {0}, test = {0};
    VocabList src_vocab = {0}, tgt_vocab = {0};
    char line[LINE_MAX_BYTES], key[LINE_MAX_BYTES];
    Clause c;
    Pair p;

    // The course's examples go to train first, whatever the seed.
    for (int i = 0, n = tg_example_count(pair); i < n; i++) {
        tg_example_clause(i, &c);
        tg_realize(&c, (Lang)lang, &p);
        assert(!p.overflow && holding(&c) == HOLD_NONE && !repeats_noun(&c));
        sentence_key(key, sizeof key, &p);
        format_line(line, sizeof line, &p);
        if (set_add(&keys, key) < 0 || split_add(&train, line) != 0) goto oom;
    }

    Rng rng;
    rng_init(&rng, seed);
    long attempts = 0;
    int test_per_pair[N_HELD_OUT] = {0}, test_quota = (TG_TEST_SIZE + N_HELD_OUT - 1) / N_HELD_OUT;
    while (train.n < TG_TRAIN_SIZE || valid.n < TG_VALID_SIZE || test.n < TG_TEST_SIZE) {
        if (++attempts > 20000000L) {
            err_set(err, "the %s grammar ran out of new sentences (train %d, valid %d, test %d)", pair,
                    train.n, valid.n, test.n);
            goto done;
        }
        tg_sample_clause(&rng, &c);
        if (repeats_noun(&c)) continue;
        int h = holding(&c);
        if (h == HOLD_LOOSE) continue;
        Split *into = NULL;
        if (h >= 0) {
            // spread the test split over the held-out pairs while train fills
            bool others_full = train.n >= TG_TRAIN_SIZE && valid.n >= TG_VALID_SIZE;
            if (test.n < TG_TEST_SIZE && (test_per_pair[h] < test_quota || others_full)) into = &test;
        } else if (valid.n < TG_VALID_SIZE && (train.n >= TG_TRAIN_SIZE || tg_pick(&rng, 40) == 0)) {
            into = &valid;
        } else if (train.n < TG_TRAIN_SIZE) {
            into = &train;
        }
        if (!into) continue;
        // both languages' lengths count, so that a seed gives the same
        // English sentences, in the same order, in every pair
        tg_realize(&c, lang == LANG_ZH ? LANG_FR : LANG_ZH, &p);
        if (!length_ok(&p)) continue;
        tg_realize(&c, (Lang)lang, &p);
        if (!length_ok(&p)) continue;
        sentence_key(key, sizeof key, &p);
        int added = set_add(&keys, key);
        if (added < 0) goto oom;
        if (!added) continue;
        format_line(line, sizeof line, &p);
        if (split_add(into, line) != 0) goto oom;
        if (into == &test) test_per_pair[h]++;
    }

    // Shuffle train so that the examples and the sentence kinds are spread out.
    for (int i = train.n - 1; i > 0; i--) {
        int j = tg_pick(&rng, i + 1);
        char *t = train.lines[i];
        train.lines[i] = train.lines[j];
        train.lines[j] = t;
    }

    for (int i = 0; i < train.n; i++) {
        column(train.lines[i], 0, key, sizeof key);
        if (vocab_add_line(&src_vocab, key) != 0) goto oom;
        column(train.lines[i], 1, key, sizeof key);
        if (vocab_add_line(&tgt_vocab, key) != 0) goto oom;
    }
    if (check_covered(&valid, "valid.tsv", &src_vocab, &tgt_vocab, err) != 0 ||
        check_covered(&test, "test.tsv", &src_vocab, &tgt_vocab, err) != 0)
        goto done;

    const char *specials = "<pad>\n<bos>\n<eos>\n<unk>\n";
    if (write_lines(out_dir, "train.tsv", "", &train, err) != 0 || write_lines(out_dir, "valid.tsv", "", &valid, err) != 0 ||
        write_lines(out_dir, "test.tsv", "", &test, err) != 0 ||
        write_lines(out_dir, "src.vocab", specials, &src_vocab.order, err) != 0 ||
        write_lines(out_dir, "tgt.vocab", specials, &tgt_vocab.order, err) != 0)
        goto done;
    rc = 0;
    goto done;

oom:
    err_set(err, "out of memory generating the %s corpus", pair);
done:
    set_deinit(&keys);
    split_deinit(&train);
    split_deinit(&valid);
    split_deinit(&test);
    vocab_deinit(&src_vocab);
    vocab_deinit(&tgt_vocab);
    return rc;
}
