// The toy corpus generator and the corpus reader.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "corpus.h"
#include "fileio.h"
#include "gold.h"
#include "toygen.h"
#include "vocab.h"

static const char *const split_names[] = {"train.tsv", "valid.tsv", "test.tsv"};
static const char *const file_names[] = {"train.tsv", "valid.tsv", "test.tsv", "src.vocab", "tgt.vocab"};

// ---- helpers -----------------------------------------------------------------

static char *make_temp_dir(void) {
    char tmpl[] = "/tmp/tt_corpus_XXXXXX";
    char *dir = mkdtemp(tmpl);
    assert_non_null(dir);
    char *copy = strdup(dir);
    assert_non_null(copy);
    return copy;
}

static void remove_dir(char *dir) {
    DIR *d = opendir(dir);
    if (d) {
        char path[1024];
        for (struct dirent *e; (e = readdir(d));) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
    free(dir);
}

static char *path_in(const char *dir, const char *name) {
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

static void generate(const char *pair, uint64_t seed, const char *dir) {
    Error err = {{0}};
    if (tg_generate(pair, seed, dir, &err) != 0) fail_msg("tg_generate %s: %s", pair, err.msg);
}

static Corpus *read_ok(const char *path) {
    Error err = {{0}};
    Corpus *c = corpus_read(path, false, &err);
    if (!c) fail_msg("corpus_read: %s", err.msg);
    return c;
}

static char *slurp(const char *path, size_t *len) {
    char *data;
    Error err;
    if (fio_read_all(path, (size_t)1 << 30, &data, len, &err) != 0) fail_msg("%s", err.msg);
    return data;
}

// Sorted array of strings, for membership tests.
typedef struct {
    char **items;
    size_t n, cap;
} StrList;

static void list_add(StrList *l, const char *s) {
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 1024;
        l->items = realloc(l->items, l->cap * sizeof *l->items);
        assert_non_null(l->items);
    }
    l->items[l->n] = strdup(s);
    assert_non_null(l->items[l->n]);
    l->n++;
}

static int compare_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void list_sort(StrList *l) {
    qsort(l->items, l->n, sizeof *l->items, compare_str);
}

static bool list_has(const StrList *l, const char *s) {
    return bsearch(&s, l->items, l->n, sizeof *l->items, compare_str) != NULL;
}

static void list_free(StrList *l) {
    for (size_t i = 0; i < l->n; i++) free(l->items[i]);
    free(l->items);
}

// ---- the generated corpora, made once ----------------------------------------

typedef struct {
    const char *pair;
    char *dir;
    Corpus *split[3];   // train, valid, test
} Generated;

static Generated generated[2] = {{.pair = "en-zh"}, {.pair = "en-fr"}};

static int setup_generated(void **state) {
    (void)state;
    for (int g = 0; g < 2; g++) {
        generated[g].dir = make_temp_dir();
        generate(generated[g].pair, 1, generated[g].dir);
        for (int s = 0; s < 3; s++) generated[g].split[s] = read_ok(path_in(generated[g].dir, split_names[s]));
    }
    return 0;
}

static int teardown_generated(void **state) {
    (void)state;
    for (int g = 0; g < 2; g++) {
        for (int s = 0; s < 3; s++) corpus_free(generated[g].split[s]);
        remove_dir(generated[g].dir);
    }
    return 0;
}

static const CorpusPair *find_source(const Corpus *c, const char *source) {
    for (int i = 0; i < corpus_size(c); i++)
        if (strcmp(corpus_pair(c, i)->src_text, source) == 0) return corpus_pair(c, i);
    return NULL;
}

static void format_alignment(const CorpusPair *p, char *buf, size_t size) {
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < p->n_links; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%d-%d", i ? " " : "", p->links[i].src, p->links[i].tgt);
}

// ---- the generator -----------------------------------------------------------

static void test_same_seed_same_bytes(void **state) {
    (void)state;
    const char *pairs[] = {"en-zh", "en-fr"};
    for (int g = 0; g < 2; g++) {
        char *a = make_temp_dir(), *b = make_temp_dir();
        generate(pairs[g], 1, a);
        generate(pairs[g], 1, b);
        for (size_t f = 0; f < sizeof file_names / sizeof *file_names; f++) {
            size_t len_a, len_b;
            char *da = slurp(path_in(a, file_names[f]), &len_a);
            char *db = slurp(path_in(b, file_names[f]), &len_b);
            if (len_a != len_b || memcmp(da, db, len_a) != 0)
                fail_msg("%s %s: expected: identical files, got: %zu and %zu bytes that differ", pairs[g],
                         file_names[f], len_a, len_b);
            free(da);
            free(db);
        }
        // another seed gives another corpus
        generate(pairs[g], 2, b);
        size_t len_a, len_b;
        char *da = slurp(path_in(a, "train.tsv"), &len_a), *db = slurp(path_in(b, "train.tsv"), &len_b);
        assert_false(len_a == len_b && memcmp(da, db, len_a) == 0);
        free(da);
        free(db);
        remove_dir(a);
        remove_dir(b);
    }
}

static void test_unknown_pair(void **state) {
    (void)state;
    Error err = {{0}};
    assert_int_equal(tg_generate("en-de", 1, "/tmp", &err), -1);
    assert_non_null(strstr(err.msg, "unknown language pair \"en-de\""));
    assert_false(tg_pair_known("en-de"));
    assert_true(tg_pair_known("en-zh") && tg_pair_known("en-fr"));
    assert_int_equal(tg_example_count("en-de"), 0);
}

static void test_split_sizes_and_disjoint(void **state) {
    (void)state;
    const int want[3] = {TG_TRAIN_SIZE, TG_VALID_SIZE, TG_TEST_SIZE};
    for (int g = 0; g < 2; g++) {
        StrList sources = {0};
        for (int s = 0; s < 3; s++) {
            const Corpus *c = generated[g].split[s];
            if (corpus_size(c) != want[s])
                fail_msg("%s %s: expected: %d pairs, got: %d", generated[g].pair, split_names[s], want[s], corpus_size(c));
            for (int i = 0; i < corpus_size(c); i++) {
                const CorpusPair *p = corpus_pair(c, i);
                list_add(&sources, p->src_text);
                assert_true(p->has_align && p->n_links > 0);
                if (p->n_src < 3 || p->n_src > 12 || p->n_tgt < 2 || p->n_tgt > 12)
                    fail_msg("%s: expected: 3-12 source and 2-12 target tokens, got: %d and %d in \"%s\"",
                             generated[g].pair, p->n_src, p->n_tgt, p->src_text);
            }
        }
        list_sort(&sources);
        for (size_t i = 1; i < sources.n; i++)
            if (strcmp(sources.items[i - 1], sources.items[i]) == 0)
                fail_msg("%s: expected: no repeated source, got: \"%s\" twice", generated[g].pair, sources.items[i]);
        list_free(&sources);
    }
}

// A seed gives the same English sentences, in the same order, in both pairs.
static void test_same_english_in_both_pairs(void **state) {
    (void)state;
    for (int s = 0; s < 3; s++) {
        const Corpus *zh = generated[0].split[s], *fr = generated[1].split[s];
        assert_int_equal(corpus_size(zh), corpus_size(fr));
        for (int i = 0; i < corpus_size(zh); i++)
            if (strcmp(corpus_pair(zh, i)->src_text, corpus_pair(fr, i)->src_text) != 0)
                fail_msg("%s line %d: expected: \"%s\", got: \"%s\"", split_names[s], i + 1,
                         corpus_pair(zh, i)->src_text, corpus_pair(fr, i)->src_text);
    }
}

// Reads a vocabulary file into a sorted list, checking the special tokens come first.
static void read_vocab(const char *path, StrList *out) {
    size_t len;
    char *data = slurp(path, &len);
    const char *specials[] = {"<pad>", "<bos>", "<eos>", "<unk>"};
    int i = 0;
    for (char *save = NULL, *tok = strtok_r(data, "\n", &save); tok; tok = strtok_r(NULL, "\n", &save), i++) {
        if (i < 4 && strcmp(tok, specials[i]) != 0) fail_msg("%s line %d: expected: %s, got: %s", path, i + 1, specials[i], tok);
        list_add(out, tok);
    }
    free(data);
    list_sort(out);
    for (size_t k = 1; k < out->n; k++)
        if (strcmp(out->items[k - 1], out->items[k]) == 0) fail_msg("%s: expected: no repeated token, got: %s", path, out->items[k]);
}

static void test_every_word_seen_in_train(void **state) {
    (void)state;
    for (int g = 0; g < 2; g++) {
        StrList train_words[2] = {{0}, {0}}, vocab[2] = {{0}, {0}};
        read_vocab(path_in(generated[g].dir, "src.vocab"), &vocab[0]);
        read_vocab(path_in(generated[g].dir, "tgt.vocab"), &vocab[1]);
        const Corpus *train = generated[g].split[0];
        for (int i = 0; i < corpus_size(train); i++) {
            const CorpusPair *p = corpus_pair(train, i);
            for (int k = 0; k < p->n_src; k++) list_add(&train_words[0], p->src[k]);
            for (int k = 0; k < p->n_tgt; k++) list_add(&train_words[1], p->tgt[k]);
        }
        for (int side = 0; side < 2; side++) list_sort(&train_words[side]);
        for (int s = 1; s < 3; s++) {
            const Corpus *c = generated[g].split[s];
            for (int i = 0; i < corpus_size(c); i++) {
                const CorpusPair *p = corpus_pair(c, i);
                for (int side = 0; side < 2; side++)
                    for (int k = 0; k < (side ? p->n_tgt : p->n_src); k++) {
                        const char *w = side ? p->tgt[k] : p->src[k];
                        if (!list_has(&train_words[side], w) || !list_has(&vocab[side], w))
                            fail_msg("%s %s: expected: \"%s\" in train and the vocabulary", generated[g].pair,
                                     split_names[s], w);
                    }
            }
        }
        // the vocabularies stay small enough for a tiny model
        print_message("%s: %zu source and %zu target vocabulary entries\n", generated[g].pair, vocab[0].n, vocab[1].n);
        assert_in_range(vocab[0].n, 60, 160);
        assert_in_range(vocab[1].n, 60, 160);
        for (int side = 0; side < 2; side++) {
            list_free(&train_words[side]);
            list_free(&vocab[side]);
        }
    }
}

// "an" before a vowel sound, "a" before anything else (except in "a lot of").
// Every word in the grammar's tables sounds as it is spelt, so the first
// letter decides. "an" is linked like "a": to 一 and the measure word, or to
// un/une.
static void test_indefinite_article(void **state) {
    (void)state;
    for (int g = 0; g < 2; g++) {
        int an = 0, an_apple = 0;
        for (int s = 0; s < 3; s++) {
            const Corpus *c = generated[g].split[s];
            for (int i = 0; i < corpus_size(c); i++) {
                const CorpusPair *p = corpus_pair(c, i);
                for (int k = 0; k < p->n_src; k++) {
                    bool is_a = strcmp(p->src[k], "a") == 0, is_an = strcmp(p->src[k], "an") == 0;
                    if (!is_a && !is_an) continue;
                    if (k + 1 == p->n_src) fail_msg("%s: expected: a word after \"%s\" in \"%s\"", generated[g].pair, p->src[k], p->src_text);
                    const char *next = p->src[k + 1];
                    bool vowel = next[0] && strchr("aeiou", next[0]) != NULL;
                    if (is_a && vowel) fail_msg("%s: expected: \"an %s\", got: \"a %s\" in \"%s\"", generated[g].pair, next, next, p->src_text);
                    if (is_an && !vowel) fail_msg("%s: expected: \"a %s\", got: \"an %s\" in \"%s\"", generated[g].pair, next, next, p->src_text);
                    if (!is_an) continue;
                    an++;
                    an_apple += strcmp(next, "apple") == 0;
                    const char *want[2][2] = {{"一", "一"}, {"une", "un"}};
                    int links = 0;
                    for (int l = 0; l < p->n_links; l++) {
                        if (p->links[l].src != k) continue;
                        const char *t = p->tgt[p->links[l].tgt];
                        if (links == 0 && strcmp(t, want[g][0]) != 0 && strcmp(t, want[g][1]) != 0)
                            fail_msg("%s: expected: \"an\" linked to %s first, got: %s in \"%s\"", generated[g].pair, want[g][0], t, p->src_text);
                        links++;
                    }
                    if (links != (g == 0 ? 2 : 1))
                        fail_msg("%s: expected: \"an\" linked to %d words, got: %d in \"%s\"", generated[g].pair, g == 0 ? 2 : 1, links, p->src_text);
                }
            }
        }
        print_message("%s: \"an\" %d times, %d of them before \"apple\"\n", generated[g].pair, an, an_apple);
        if (an == 0) fail_msg("%s: expected: \"an\" in the corpus, got: none", generated[g].pair);
    }
}

static Vocab *load_vocab(const char *path) {
    size_t len;
    char *data = slurp(path, &len);
    const char *toks[512];
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(data, "\n", &save); tok && n < 512; tok = strtok_r(NULL, "\n", &save))
        toks[n++] = tok;
    Error err = {{0}};
    Vocab *v = voc_new(toks, n, &err);
    if (!v) fail_msg("%s: %s", path, err.msg);
    free(data);
    return v;
}

// The program's tokenizer splits every sentence into exactly the corpus's
// tokens (e.g. it keeps "j'aime" whole), with nothing unknown.
static void test_tokenizer_agrees(void **state) {
    (void)state;
    for (int g = 0; g < 2; g++) {
        Vocab *vocab[2] = {load_vocab(path_in(generated[g].dir, "src.vocab")),
                           load_vocab(path_in(generated[g].dir, "tgt.vocab"))};
        for (int s = 0; s < 3; s++) {
            const Corpus *c = generated[g].split[s];
            for (int i = 0; i < corpus_size(c); i++) {
                const CorpusPair *p = corpus_pair(c, i);
                for (int side = 0; side < 2; side++) {
                    const char *text = side ? p->tgt_text : p->src_text;
                    const char *const *want = side ? p->tgt : p->src;
                    int n = side ? p->n_tgt : p->n_src;
                    Tokens t;
                    Error err = {{0}};
                    if (voc_tokenize(vocab[side], text, &t, &err) != 0) fail_msg("\"%s\": %s", text, err.msg);
                    bool same = t.n == n && t.n_unknown == 0;
                    for (int k = 0; same && k < n; k++) same = strcmp(t.pieces[k], want[k]) == 0;
                    if (!same) fail_msg("%s: expected: \"%s\" to tokenize into its %d words, got: %d pieces, %d unknown",
                                        generated[g].pair, text, n, t.n, t.n_unknown);
                    voc_tokens_deinit(&t);
                }
            }
        }
        voc_free(vocab[0]);
        voc_free(vocab[1]);
    }
}

// Unordered pairs of distinct source words in the same sentence, as "a b".
static void add_cooccurrences(const CorpusPair *p, StrList *out) {
    char buf[256];
    for (int i = 0; i < p->n_src; i++)
        for (int j = 0; j < p->n_src; j++) {
            if (strcmp(p->src[i], p->src[j]) >= 0) continue;
            snprintf(buf, sizeof buf, "%s %s", p->src[i], p->src[j]);
            list_add(out, buf);
        }
}

static void test_held_out_combinations(void **state) {
    (void)state;
    for (int g = 0; g < 2; g++) {
        StrList seen = {0};
        const Corpus *train = generated[g].split[0], *test = generated[g].split[2];
        for (int i = 0; i < corpus_size(train); i++) add_cooccurrences(corpus_pair(train, i), &seen);
        list_sort(&seen);
        // every test sentence holds two words that no train sentence holds together
        int novel_sentences = 0;
        for (int i = 0; i < corpus_size(test); i++) {
            StrList here = {0};
            add_cooccurrences(corpus_pair(test, i), &here);
            bool novel = false;
            for (size_t k = 0; k < here.n && !novel; k++) novel = !list_has(&seen, here.items[k]);
            novel_sentences += novel;
            list_free(&here);
        }
        if (novel_sentences != corpus_size(test))
            fail_msg("%s: expected: %d test sentences with an unseen word pair, got: %d", generated[g].pair,
                     corpus_size(test), novel_sentences);
        // some of the held-out pairs by name
        const char *held[][2] = {{"white", "horse"}, {"chases", "mouse"}, {"eats", "banana"}, {"horse", "sleeps"}};
        for (size_t h = 0; h < sizeof held / sizeof *held; h++) {
            char key[64];
            bool a_first = strcmp(held[h][0], held[h][1]) < 0;
            snprintf(key, sizeof key, "%s %s", a_first ? held[h][0] : held[h][1], a_first ? held[h][1] : held[h][0]);
            if (list_has(&seen, key)) fail_msg("%s: expected: \"%s\" never together in train", generated[g].pair, key);
            bool in_test = false;
            for (int i = 0; i < corpus_size(test) && !in_test; i++) {
                StrList here = {0};
                add_cooccurrences(corpus_pair(test, i), &here);
                list_sort(&here);
                in_test = list_has(&here, key);
                list_free(&here);
            }
            if (!in_test) fail_msg("%s: expected: \"%s\" together in some test sentence", generated[g].pair, key);
        }
        list_free(&seen);
    }
}

typedef struct {
    const char *pair, *source, *target, *alignment;
} Expected;

// Worked out by hand from the grammar in docs/CORPUS.md.
static const Expected expected[] = {
    {"en-zh", "i love nlp", "我 愛 自然 語言 處理", "0-0 1-1 2-2 2-3 2-4"},
    {"en-zh", "i love natural language processing", "我 愛 自然 語言 處理", "0-0 1-1 2-2 3-3 4-4"},
    {"en-zh", "the cat sits on the mat .", "貓 坐 在 墊子 上 。", "1-0 2-1 3-2 3-4 5-3 6-5"},
    {"en-zh", "the cat sits on the mat", "貓 坐 在 墊子 上", "1-0 2-1 3-2 3-4 5-3"},
    {"en-zh", "the cat on the mat", "墊子 上 的 貓", "1-3 2-1 2-2 4-0"},
    {"en-zh", "i have two cats", "我 有 兩 隻 貓", "0-0 1-1 2-2 2-3 3-4"},
    {"en-zh", "she has a lot of books .", "她 有 很多 書 。", "0-0 1-1 2-2 3-2 4-2 5-3 6-4"},
    {"en-zh", "the girl is going to read a book .", "女孩 要 讀 一 本 書 。", "1-0 2-1 3-1 4-1 5-2 6-3 6-4 7-5 8-6"},
    {"en-fr", "i love nlp", "j'aime le tal", "0-0 1-0 2-1 2-2"},
    {"en-fr", "i love natural language processing", "j'aime le traitement du langage naturel",
     "0-0 1-0 2-5 3-3 3-4 4-1 4-2"},
    {"en-fr", "the cat sits on the mat .", "le chat est assis sur le tapis .", "0-0 1-1 2-2 2-3 3-4 4-5 5-6 6-7"},
    {"en-fr", "the cat sits on the mat", "le chat est assis sur le tapis", "0-0 1-1 2-2 2-3 3-4 4-5 5-6"},
    {"en-fr", "the red cat", "le chat rouge", "0-0 1-2 2-1"},
    {"en-fr", "i have two cats", "j'ai deux chats", "0-0 1-0 2-1 3-2"},
    {"en-fr", "the small mouse is under the table .", "la petite souris est sous la table .",
     "0-0 1-1 2-2 3-3 4-4 5-5 6-6 7-7"},
    {"en-fr", "the dog does not eat the cake .", "le chien ne mange pas le gâteau .",
     "0-0 1-1 2-2 2-4 3-2 3-4 4-3 5-5 6-6 7-7"},
};

static void check_in_train(const Generated *g, const char *source, const char *target, const char *alignment) {
    const CorpusPair *p = find_source(g->split[0], source);
    if (!p) fail_msg("%s: expected: \"%s\" in train", g->pair, source);
    char got[512];
    format_alignment(p, got, sizeof got);
    if (strcmp(p->tgt_text, target) != 0)
        fail_msg("%s \"%s\": expected: \"%s\", got: \"%s\"", g->pair, source, target, p->tgt_text);
    if (strcmp(got, alignment) != 0)
        fail_msg("%s \"%s\": expected alignment: %s, got: %s", g->pair, source, alignment, got);
}

static void test_course_sentences_in_train(void **state) {
    (void)state;
    for (size_t e = 0; e < sizeof expected / sizeof *expected; e++) {
        const Generated *g = strcmp(expected[e].pair, "en-zh") == 0 ? &generated[0] : &generated[1];
        check_in_train(g, expected[e].source, expected[e].target, expected[e].alignment);
    }
    // and every example the generator lists
    for (int g = 0; g < 2; g++) {
        int n = tg_example_count(generated[g].pair);
        assert_true(n >= 4);
        for (int i = 0; i < n; i++) {
            TgExample ex;
            assert_int_equal(tg_example(generated[g].pair, i, &ex), 0);
            assert_non_null(ex.shows);
            check_in_train(&generated[g], ex.source, ex.target, ex.alignment);
        }
        TgExample ex;
        assert_int_equal(tg_example(generated[g].pair, n, &ex), -1);
    }
}

typedef struct {
    long crossing;          // pairs of links that cross (reordering)
    long reordered;         // sentences with at least one crossing
    long one_to_many;       // source tokens linked to 2+ target tokens
    long many_to_one;       // target tokens linked to 2+ source tokens
    long unaligned_src, unaligned_tgt;
    long links, diagonal;   // links with src == tgt
} Phenomena;

static void count_phenomena(const Corpus *c, Phenomena *ph) {
    memset(ph, 0, sizeof *ph);
    for (int i = 0; i < corpus_size(c); i++) {
        const CorpusPair *p = corpus_pair(c, i);
        int per_src[64] = {0}, per_tgt[64] = {0};
        long crossing = 0;
        for (int a = 0; a < p->n_links; a++) {
            per_src[p->links[a].src]++;
            per_tgt[p->links[a].tgt]++;
            ph->diagonal += p->links[a].src == p->links[a].tgt;
            for (int b = 0; b < p->n_links; b++)
                crossing += p->links[a].src < p->links[b].src && p->links[a].tgt > p->links[b].tgt;
        }
        ph->links += p->n_links;
        ph->crossing += crossing;
        ph->reordered += crossing > 0;
        for (int k = 0; k < p->n_src; k++) {
            ph->one_to_many += per_src[k] >= 2;
            ph->unaligned_src += per_src[k] == 0;
        }
        for (int k = 0; k < p->n_tgt; k++) {
            ph->many_to_one += per_tgt[k] >= 2;
            ph->unaligned_tgt += per_tgt[k] == 0;
        }
    }
}

static void test_alignments_not_diagonal(void **state) {
    (void)state;
    for (int g = 0; g < 2; g++) {
        Phenomena ph;
        count_phenomena(generated[g].split[0], &ph);
        print_message("%s train: %ld links (%ld diagonal), %ld sentences reordered (%ld crossing link pairs), "
                      "%ld one-to-many source words, %ld many-to-one target words, %ld unaligned source words, "
                      "%ld unaligned target words\n",
                      generated[g].pair, ph.links, ph.diagonal, ph.reordered, ph.crossing, ph.one_to_many,
                      ph.many_to_one, ph.unaligned_src, ph.unaligned_tgt);
        assert_true(ph.reordered > 1000);
        assert_true(ph.one_to_many > 1000);
        assert_true(ph.many_to_one > 1000);
        assert_true(ph.diagonal < ph.links);
    }
    // the Chinese side drops "the": unaligned source words
    Phenomena zh;
    count_phenomena(generated[0].split[0], &zh);
    assert_true(zh.unaligned_src > 1000);
}

// ---- the reader --------------------------------------------------------------

static char *write_temp(const char *dir, const char *name, const char *data, size_t len) {
    char *path = path_in(dir, name);
    Error err;
    if (fio_write_atomic(path, data, len, &err) != 0) fail_msg("%s", err.msg);
    return path;
}

typedef struct {
    const char *what, *data;
    int line;               // 0: a message for the whole file
    const char *reason;
} BadFile;

static const BadFile bad_files[] = {
    {"no tab", "a b\tc d\t0-0\nhello world\n", 2, "no tab"},
    {"four columns", "a\tb\t0-0\tx\n", 1, "more than 3 tab-separated columns"},
    {"empty source", "a\tb\n\tc d\t0-0\n", 2, "empty source sentence"},
    {"blank source", "   \tc d\n", 1, "empty source sentence"},
    {"empty target", "a b\t\t0-0\n", 1, "empty target sentence"},
    {"invalid UTF-8", "a\tb\nx \xff y\tz\n", 2, "invalid UTF-8 (byte 0xFF at column 3)"},
    {"truncated UTF-8", "a\t\xe8\xb2\n", 1, "invalid UTF-8 (byte 0xE8 at column 3)"},
    {"control character", "a\x01 b\tc\n", 1, "control character U+0001 at column 2"},
    {"C1 control character", "a\tb \xc2\x85\n", 1, "control character U+0085 at column 5"},
    {"stray CR", "a\rb\tc\r\n", 1, "control character U+000D at column 2"},
    {"line separator", "a\tb \xe2\x80\xa8\n", 1, "control character U+2028 at column 5"},
    {"bidi override", "\xe2\x80\xae" "a\tb\n", 1, "control character U+202E at column 1"},
    {"link 0-", "a b\tc d\t0-\n", 1, "alignment link \"0-\" is not of the form i-j"},
    {"link a-b", "a b\tc d\t0-0 a-b\n", 1, "alignment link \"a-b\" is not of the form i-j"},
    {"link -1", "a b\tc d\t-1\n", 1, "alignment link \"-1\" is not of the form i-j"},
    {"link 0", "a b\tc d\t0\n", 1, "alignment link \"0\" is not of the form i-j"},
    {"link 1-2-3", "a b\tc d\t1-2-3\n", 1, "alignment link \"1-2-3\" is not of the form i-j"},
    {"source out of range", "a b\tc d\t0-0 2-1\n", 1,
     "alignment link \"2-1\": source index 2 is out of range (the source has 2 tokens)"},
    {"target out of range", "a b\tc d e\t0-3\n", 1,
     "alignment link \"0-3\": target index 3 is out of range (the target has 3 tokens)"},
    {"huge index", "a b\tc d\t99999999999999999999-0\n", 1,
     "alignment link \"99999999999999999999-0\": source index 99999999999999999999 is out of range"},
    {"empty file", "", 0, "no sentence pairs"},
    {"only empty lines", "\n\r\n\n", 0, "no sentence pairs"},
};

static void expect_message(const Error *err, const char *path, int line, const char *reason) {
    char want[1024];
    if (line)
        snprintf(want, sizeof want, "%s:%d: %s", path, line, reason);
    else
        snprintf(want, sizeof want, "%s: %s", path, reason);
    if (strncmp(err->msg, want, strlen(want)) != 0) fail_msg("expected: %s, got: %s", want, err->msg);
}

static void test_reader_rejects_bad_lines(void **state) {
    (void)state;
    char *dir = make_temp_dir();
    for (size_t i = 0; i < sizeof bad_files / sizeof *bad_files; i++) {
        const BadFile *b = &bad_files[i];
        char path[1024];
        snprintf(path, sizeof path, "%s", write_temp(dir, "bad.tsv", b->data, strlen(b->data)));
        Error err = {{0}};
        Corpus *c = corpus_read(path, false, &err);
        if (c) fail_msg("%s: expected: an error, got: %d pairs", b->what, corpus_size(c));
        expect_message(&err, path, b->line, b->reason);
    }
    remove_dir(dir);
}

static void test_reader_limits(void **state) {
    (void)state;
    char *dir = make_temp_dir();
    // a line just over 1 MB, after a good one
    size_t n = (size_t)CORPUS_MAX_LINE_BYTES + 16;
    char *data = malloc(n + 1);
    assert_non_null(data);
    memcpy(data, "a\tb\n", 4);
    memset(data + 4, 'x', n - 4);
    data[n / 2] = '\t';
    data[n - 1] = '\n';
    data[n] = '\0';
    char path[1024];
    snprintf(path, sizeof path, "%s", write_temp(dir, "long.tsv", data, n));
    free(data);
    Error err = {{0}};
    assert_null(corpus_read(path, false, &err));
    expect_message(&err, path, 2, "line is 1048587 bytes, longer than the limit of 1048576 bytes");

    // a file over 256 MB (sparse: no disk space used)
    snprintf(path, sizeof path, "%s", path_in(dir, "huge.tsv"));
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(ftruncate(fileno(fp), (off_t)CORPUS_MAX_FILE_BYTES + 1), 0);
    fclose(fp);
    assert_null(corpus_read(path, true, &err));
    expect_message(&err, path, 0, "file is 268435457 bytes, larger than the limit of 268435456 bytes");

    // a missing file
    snprintf(path, sizeof path, "%s", path_in(dir, "missing.tsv"));
    assert_null(corpus_read(path, false, &err));
    expect_message(&err, path, 0, "cannot open");
    remove_dir(dir);
}

static void test_reader_good_lines(void **state) {
    (void)state;
    char *dir = make_temp_dir();
    // byte order mark, CRLF, an empty line, extra spaces, two columns, a
    // repeated and unsorted alignment
    const char data[] = "\xEF\xBB\xBFthe cat sits\t貓 坐\t2-1 1-0 1-0\r\n"
                        "\n"
                        "i  love nlp \t我 愛 自然 語言 處理\n"
                        "a b\tc\t\n"
                        "x\ty";
    char path[1024];
    snprintf(path, sizeof path, "%s", write_temp(dir, "good.tsv", data, sizeof data - 1));
    Corpus *c = read_ok(path);
    assert_int_equal(corpus_size(c), 4);
    assert_int_equal(corpus_skipped(c), 0);
    assert_string_equal(corpus_first_skip(c), "");

    const CorpusPair *p = corpus_pair(c, 0);
    assert_string_equal(p->src_text, "the cat sits");
    assert_string_equal(p->tgt_text, "貓 坐");
    assert_int_equal(p->n_src, 3);
    assert_string_equal(p->src[2], "sits");
    assert_int_equal(p->n_tgt, 2);
    assert_string_equal(p->tgt[1], "坐");
    assert_true(p->has_align);
    assert_int_equal(p->n_links, 2);  // the repeat counts once, sorted
    assert_int_equal(p->links[0].src, 1);
    assert_int_equal(p->links[0].tgt, 0);
    assert_int_equal(p->links[1].src, 2);
    assert_int_equal(p->links[1].tgt, 1);
    assert_int_equal(p->line, 1);

    p = corpus_pair(c, 1);
    assert_int_equal(p->line, 3);
    assert_int_equal(p->n_src, 3);  // runs of spaces separate once
    assert_string_equal(p->src[1], "love");
    assert_string_equal(p->src[2], "nlp");
    assert_int_equal(p->n_tgt, 5);
    assert_false(p->has_align);
    assert_int_equal(p->n_links, 0);

    p = corpus_pair(c, 2);
    assert_false(p->has_align);  // an empty third column: no gold alignment
    assert_string_equal(p->tgt_text, "c");

    p = corpus_pair(c, 3);  // no final line end
    assert_string_equal(p->src_text, "x");
    assert_string_equal(p->tgt_text, "y");
    assert_null(corpus_pair(c, 4));
    corpus_free(c);
    corpus_free(NULL);
    remove_dir(dir);
}

static void test_reader_skip_bad(void **state) {
    (void)state;
    char *dir = make_temp_dir();
    const char data[] = "a\tb\t0-0\n"
                        "no tab here\n"
                        "c d\te\t0-0 1-0\n"
                        "f\tg\t0-5\n"
                        "h\t\xff\n"
                        "i\tj\n";
    char path[1024];
    snprintf(path, sizeof path, "%s", write_temp(dir, "mixed.tsv", data, sizeof data - 1));
    Error err = {{0}};
    assert_null(corpus_read(path, false, &err));
    expect_message(&err, path, 2, "no tab");

    Corpus *c = corpus_read(path, true, &err);
    if (!c) fail_msg("%s", err.msg);
    assert_int_equal(corpus_size(c), 3);
    assert_int_equal(corpus_skipped(c), 3);
    assert_int_equal(corpus_pair(c, 1)->line, 3);
    assert_int_equal(corpus_pair(c, 2)->line, 6);
    Error first;
    snprintf(first.msg, sizeof first.msg, "%s", corpus_first_skip(c));
    expect_message(&first, path, 2, "no tab");
    corpus_free(c);

    // every line bad: still an error, saying how many were skipped
    const char all_bad[] = "x\n\ty\n";
    snprintf(path, sizeof path, "%s", write_temp(dir, "bad.tsv", all_bad, sizeof all_bad - 1));
    assert_null(corpus_read(path, true, &err));
    expect_message(&err, path, 0, "no sentence pairs (2 bad lines skipped; the first: ");
    remove_dir(dir);
}

// A shipped model's layout under root: root/corpus/en-zh for its corpus, and
// root/models, which the model's path goes through (the model itself need not be there).
static void make_model_corpus(const char *root, char corpus[256], char pair[512], char model[512]) {
    snprintf(corpus, 256, "%s/corpus", root);
    snprintf(pair, 512, "%s/en-zh", corpus);
    snprintf(model, 512, "%s/models/en-zh.safetensors", root);
    assert_int_equal(mkdir(corpus, 0700), 0);
    assert_int_equal(mkdir(path_in(root, "models"), 0700), 0);
    assert_int_equal(mkdir(pair, 0700), 0);
}

// ---- word counts for the text box's suggestions -------------------------------

// The source words of a corpus with broken lines around good ones: a line
// without a tab, invalid UTF-8, an unknown word, a NUL, CR line ends, no last
// newline. Only the good lines' known words are counted, nothing crashes.
static void test_word_counts(void **state) {
    (void)state;
    char *root = make_temp_dir();
    char corpus[256], pair[512], model[512];
    make_model_corpus(root, corpus, pair, model);
    static const char text[] = "the cat\t貓\n"
                               "cat cat cake no tab here\n"
                               "the \xff\xfe cake\tx\r\n"
                               "dog cat\tx\n"
                               "\t\n"
                               "cake \0 cat\tx\n"
                               "cake cake\tx";
    Error err = {{0}};
    if (fio_write_atomic(path_in(pair, "train.tsv"), text, sizeof text - 1, &err)) fail_msg("%s", err.msg);
    const char *toks[] = {VOC_PAD, VOC_BOS, VOC_EOS, VOC_UNK, "the", "cat", "cake"};
    Vocab *v = voc_new(toks, 7, &err);
    assert_non_null(v);
    int *next = NULL, *counts = gold_word_counts(model, v, &next);
    assert_non_null(counts);
    assert_int_equal(counts[4], 2);  // "the": lines 1 and 3
    assert_int_equal(counts[5], 2);  // "cat": lines 1 and 4 (line 2 has no tab)
    assert_int_equal(counts[6], 3);  // "cake": line 3, twice on the last (line 6 is cut at its NUL: no tab)
    assert_int_equal(counts[3], 0);
    // what follows what, V = 7, row 7 the start of a sentence; a word not in v breaks the chain
    assert_non_null(next);
    assert_int_equal(next[7 * 7 + 4], 2);  // the start, then "the": lines 1 and 3
    assert_int_equal(next[4 * 7 + 5], 1);  // "the cat"
    assert_int_equal(next[4 * 7 + 6], 0);  // "the \xff\xfe cake": not after "the"
    assert_int_equal(next[7 * 7 + 6], 1);  // the last line starts with "cake"
    assert_int_equal(next[6 * 7 + 6], 1);  // "cake cake"
    assert_int_equal(next[7 * 7 + 5], 0);  // "dog cat": dog is not in v, so cat follows nothing counted
    free(counts);
    free(next);
    // no corpus beside the model, or a model that has none: NULL, alphabetical order then
    assert_null(gold_word_counts("nowhere/models/en-zh.safetensors", v, NULL));
    assert_null(gold_word_counts(model, NULL, NULL));
    snprintf(model, sizeof model, "%s/models/mine.safetensors", root);
    assert_null(gold_word_counts(model, v, NULL));
    voc_free(v);
    unlink(path_in(pair, "train.tsv"));
    rmdir(pair);
    rmdir(corpus);
    rmdir(path_in(root, "models"));
    remove_dir(root);
}

// gold_find reads the splits a block at a time: a pair is found wherever its
// line falls (across a block's end, on the last line with no newline, in the
// second split after a line longer than a block), with its line number, and a
// line that only starts like the key, or a key found inside another line, is no match.
static void test_gold_find_in_blocks(void **state) {
    (void)state;
    char *root = make_temp_dir();
    char corpus[256], pair[512], model[512];
    make_model_corpus(root, corpus, pair, model);
    // about 3 blocks of 64 KB of other lines, each 30 bytes, with the pairs sought among them
    size_t cap = 300000, n = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    int line = 0, at_block_end = 0;
    while (n < 200000) {
        line++;
        if (n < 65536 && n + 60 > 65536 && !at_block_end) {  // this line runs past the first block's end
            n += (size_t)snprintf(text + n, cap - n, "the big cat sits on the mat\t大 貓 坐 在 墊子 上\t1-1 2-0\n");
            at_block_end = line;
            continue;
        }
        n += (size_t)snprintf(text + n, cap - n, "x the cat sits\t貓 %06d\t0-0\n", line);
    }
    line++;
    n += (size_t)snprintf(text + n, cap - n, "the dog\t狗\t1-0");  // the last line, no newline
    Error err = {{0}};
    if (fio_write_atomic(path_in(pair, "train.tsv"), text, n, &err)) fail_msg("%s", err.msg);
    // valid.tsv: first a line longer than a block (passed over), then the pairs
    static const char valid[] = "the cat sits\t貓 坐 在 那裡\t0-0\na cat\t一 隻 貓\t1-2\n";
    size_t long_line = 70000;
    char *v = malloc(long_line + sizeof valid);
    assert_non_null(v);
    memset(v, 'x', long_line - 1);
    v[long_line - 1] = '\n';
    memcpy(v + long_line, valid, sizeof valid - 1);
    if (fio_write_atomic(path_in(pair, "valid.tsv"), v, long_line + sizeof valid - 1, &err)) fail_msg("%s", err.msg);
    free(v);
    const char *big[] = {"the", "big", "cat", "sits", "on", "the", "mat"}, *big_zh[] = {"大", "貓", "坐", "在", "墊子", "上"};
    GoldAlignment *g = NULL;
    assert_int_equal(gold_find(model, big, 7, big_zh, 6, &g, &err), 0);
    if (!g) fail_msg("the pair across the first block's end was not found");
    assert_string_equal(gold_file(g), "train.tsv");
    assert_int_equal(gold_pair(g)->line, at_block_end);
    assert_int_equal(gold_pair(g)->n_links, 2);
    gold_free(g);
    const char *dog[] = {"the", "dog"}, *dog_zh[] = {"狗"};
    assert_int_equal(gold_find(model, dog, 2, dog_zh, 1, &g, &err), 0);
    if (!g) fail_msg("the last line, with no newline, was not found");
    assert_int_equal(gold_pair(g)->line, line);
    gold_free(g);
    // "the cat sits" is inside every other line of train.tsv, and starts one line of valid.tsv
    const char *cat[] = {"the", "cat", "sits"}, *cat_zh[] = {"貓", "坐", "在", "那裡"};
    assert_int_equal(gold_find(model, cat, 3, cat_zh, 4, &g, &err), 0);
    if (!g) fail_msg("the pair in valid.tsv was not found");
    assert_string_equal(gold_file(g), "valid.tsv");
    assert_int_equal(gold_pair(g)->line, 2);
    gold_free(g);
    const char *cat_short[] = {"貓", "坐"};  // a target that only starts the line's target
    assert_int_equal(gold_find(model, cat, 3, cat_short, 2, &g, &err), 0);
    assert_null(g);
    free(text);
    unlink(path_in(pair, "train.tsv"));
    unlink(path_in(pair, "valid.tsv"));
    rmdir(pair);
    rmdir(corpus);
    rmdir(path_in(root, "models"));
    remove_dir(root);
}

int main(void) {
    const struct CMUnitTest generated_tests[] = {
        cmocka_unit_test(test_split_sizes_and_disjoint),
        cmocka_unit_test(test_same_english_in_both_pairs),
        cmocka_unit_test(test_every_word_seen_in_train),
        cmocka_unit_test(test_indefinite_article),
        cmocka_unit_test(test_tokenizer_agrees),
        cmocka_unit_test(test_held_out_combinations),
        cmocka_unit_test(test_course_sentences_in_train),
        cmocka_unit_test(test_alignments_not_diagonal),
    };
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_seed_same_bytes),
        cmocka_unit_test(test_unknown_pair),
        cmocka_unit_test(test_reader_rejects_bad_lines),
        cmocka_unit_test(test_reader_limits),
        cmocka_unit_test(test_reader_good_lines),
        cmocka_unit_test(test_reader_skip_bad),
        cmocka_unit_test(test_word_counts),
        cmocka_unit_test(test_gold_find_in_blocks),
    };
    int failed = cmocka_run_group_tests_name("corpus generator", generated_tests, setup_generated, teardown_generated);
    failed += cmocka_run_group_tests_name("corpus reader", tests, NULL, NULL);
    return failed;
}
