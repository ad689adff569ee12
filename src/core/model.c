#include "model.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pages.h"
#include "rng.h"
#include "safetensors.h"

#define MAX_LAYERS 64

int mdl_check_config(const Config *c, Error *err) {
    if (c->d_model <= 0 || c->d_model > 65536) return err_set(err, "d_model is %d, expected 1 to 65536", c->d_model);
    if (c->nhead <= 0 || c->nhead > c->d_model) return err_set(err, "nhead is %d, expected 1 to d_model (%d)", c->nhead, c->d_model);
    if (c->d_model % c->nhead) return err_set(err, "d_model (%d) is not divisible by nhead (%d)", c->d_model, c->nhead);
    if (c->n_enc <= 0 || c->n_enc > MAX_LAYERS) return err_set(err, "num_encoder_layers is %d, expected 1 to %d", c->n_enc, MAX_LAYERS);
    if (c->n_dec <= 0 || c->n_dec > MAX_LAYERS) return err_set(err, "num_decoder_layers is %d, expected 1 to %d", c->n_dec, MAX_LAYERS);
    if (c->d_ff <= 0 || c->d_ff > 1 << 20) return err_set(err, "dim_feedforward is %d, expected 1 to %d", c->d_ff, 1 << 20);
    if (!(c->eps > 0.0f) || !isfinite(c->eps)) return err_set(err, "layer_norm_eps is %g, expected a positive number", (double)c->eps);
    if (c->max_len <= 0 || c->max_len > 4096) return err_set(err, "max_len is %d, expected 1 to 4096", c->max_len);
    if (c->src_vocab <= 0 || c->tgt_vocab <= 0) return err_set(err, "empty vocabulary");
    if (mdl_param_count(c) > 2000000000L) return err_set(err, "the model has more than 2e9 parameters");
    return 0;
}

long mdl_param_count(const Config *c) {
    long E = c->d_model, F = c->d_ff, Vs = c->src_vocab, Vt = c->tgt_vocab;
    long attn = 3 * E * E + 3 * E + E * E + E;
    long ffn = F * E + F + E * F + E;
    long enc = attn + ffn + 4 * E, dec = 2 * attn + ffn + 6 * E;
    return Vs * E + Vt * E + c->n_enc * enc + c->n_dec * dec + 4 * E + (c->tied ? 0 : Vt * E) + Vt;
}

// prefix then suffix in buf (NAME_BYTES), cut to fit: the names are built
// with memcpy, not snprintf, which was a tenth of `translate` (a model is
// loaded on every run)
enum { NAME_BYTES = 96 };
static const char *join(char *buf, const char *prefix, const char *suffix) {
    size_t a = strlen(prefix), b = strlen(suffix);
    if (a > NAME_BYTES - 1) a = NAME_BYTES - 1;
    if (b > NAME_BYTES - 1 - a) b = NAME_BYTES - 1 - a;
    memcpy(buf, prefix, a);
    memcpy(buf + a, suffix, b);
    buf[a + b] = '\0';
    return buf;
}

_Static_assert(sizeof ((Param *)0)->name == NAME_BYTES, "Param.name holds what join() writes");

static void set_param(Param *p, const char *name, float *data, int64_t d0, int64_t d1) {
    join(p->name, name, "");  // cut to fit, as snprintf did
    p->ndim = d1 ? 2 : 1;
    p->shape[0] = d0;
    p->shape[1] = d1;
    p->data = data;
}

static int attn_params(Param *ps, int n, const char *prefix, AttnWeights *a, int64_t E) {
    char name[NAME_BYTES];
    if (ps) {
        set_param(&ps[n], join(name, prefix, "in_proj_weight"), a->in_proj_w, 3 * E, E);
        set_param(&ps[n + 1], join(name, prefix, "in_proj_bias"), a->in_proj_b, 3 * E, 0);
        set_param(&ps[n + 2], join(name, prefix, "out_proj.weight"), a->out_proj_w, E, E);
        set_param(&ps[n + 3], join(name, prefix, "out_proj.bias"), a->out_proj_b, E, 0);
    }
    return n + 4;
}

// A layer's parameter after its attention: its name after the layer's prefix, where it is, its shape.
typedef struct {
    const char *suffix;
    float *data;
    int64_t d0, d1;
} LayerParam;

int mdl_params(Model *m, Param *ps) {
    const Config *c = &m->cfg;
    Weights *w = &m->w;
    int64_t E = c->d_model, F = c->d_ff;
    int n = 0;
    char name[NAME_BYTES], pre[48];
#define ADD(nm, ptr, d0, d1) do { if (ps) set_param(&ps[n], nm, ptr, d0, d1); n++; } while (0)
    ADD("src_embed.weight", w->src_embed, c->src_vocab, E);
    ADD("tgt_embed.weight", w->tgt_embed, c->tgt_vocab, E);
    for (int l = 0; l < c->n_enc; l++) {
        EncLayer *L = &w->enc[l];
        snprintf(pre, sizeof pre, "encoder.layers.%d.", l);
        n = attn_params(ps, n, join(name, pre, "self_attn."), &L->self_attn, E);
        const LayerParam rest[] = {{"linear1.weight", L->lin1_w, F, E}, {"linear1.bias", L->lin1_b, F, 0}, {"linear2.weight", L->lin2_w, E, F},
                                   {"linear2.bias", L->lin2_b, E, 0},   {"norm1.weight", L->norm1_w, E, 0}, {"norm1.bias", L->norm1_b, E, 0},
                                   {"norm2.weight", L->norm2_w, E, 0},  {"norm2.bias", L->norm2_b, E, 0}};
        for (size_t i = 0; i < sizeof rest / sizeof *rest; i++) ADD(join(name, pre, rest[i].suffix), rest[i].data, rest[i].d0, rest[i].d1);
    }
    ADD("encoder.norm.weight", w->enc_norm_w, E, 0);
    ADD("encoder.norm.bias", w->enc_norm_b, E, 0);
    for (int l = 0; l < c->n_dec; l++) {
        DecLayer *L = &w->dec[l];
        snprintf(pre, sizeof pre, "decoder.layers.%d.", l);
        n = attn_params(ps, n, join(name, pre, "self_attn."), &L->self_attn, E);
        n = attn_params(ps, n, join(name, pre, "multihead_attn."), &L->cross_attn, E);
        const LayerParam rest[] = {{"linear1.weight", L->lin1_w, F, E}, {"linear1.bias", L->lin1_b, F, 0}, {"linear2.weight", L->lin2_w, E, F},
                                   {"linear2.bias", L->lin2_b, E, 0},   {"norm1.weight", L->norm1_w, E, 0}, {"norm1.bias", L->norm1_b, E, 0},
                                   {"norm2.weight", L->norm2_w, E, 0},  {"norm2.bias", L->norm2_b, E, 0},   {"norm3.weight", L->norm3_w, E, 0},
                                   {"norm3.bias", L->norm3_b, E, 0}};
        for (size_t i = 0; i < sizeof rest / sizeof *rest; i++) ADD(join(name, pre, rest[i].suffix), rest[i].data, rest[i].d0, rest[i].d1);
    }
    ADD("decoder.norm.weight", w->dec_norm_w, E, 0);
    ADD("decoder.norm.bias", w->dec_norm_b, E, 0);
    if (!c->tied) ADD("generator.weight", w->gen_w, c->tgt_vocab, E);
    ADD("generator.bias", w->gen_b, c->tgt_vocab, 0);
#undef ADD
    return n;
}

// Carves a parameter block into the Weights pointers.
static void carve(const Config *c, float *block, Weights *w) {
    long E = c->d_model, F = c->d_ff;
    float *p = block;
#define TAKE(ptr, count) do { ptr = p; p += (count); } while (0)
    TAKE(w->src_embed, c->src_vocab * E);
    TAKE(w->tgt_embed, c->tgt_vocab * E);
    AttnWeights *attns[2];
    for (int l = 0; l < c->n_enc + c->n_dec; l++) {
        bool is_dec = l >= c->n_enc;
        EncLayer *el = is_dec ? NULL : &w->enc[l];
        DecLayer *dl = is_dec ? &w->dec[l - c->n_enc] : NULL;
        attns[0] = is_dec ? &dl->self_attn : &el->self_attn;
        attns[1] = is_dec ? &dl->cross_attn : NULL;
        for (int a = 0; a < 2 && attns[a]; a++) {
            TAKE(attns[a]->in_proj_w, 3 * E * E);
            TAKE(attns[a]->in_proj_b, 3 * E);
            TAKE(attns[a]->out_proj_w, E * E);
            TAKE(attns[a]->out_proj_b, E);
        }
        float **f[10];
        if (is_dec) {
            float **tmp[10] = {&dl->lin1_w, &dl->lin1_b, &dl->lin2_w, &dl->lin2_b, &dl->norm1_w, &dl->norm1_b,
                               &dl->norm2_w, &dl->norm2_b, &dl->norm3_w, &dl->norm3_b};
            memcpy(f, tmp, sizeof f);
        } else {
            float **tmp[10] = {&el->lin1_w, &el->lin1_b, &el->lin2_w, &el->lin2_b, &el->norm1_w, &el->norm1_b,
                               &el->norm2_w, &el->norm2_b, NULL, NULL};
            memcpy(f, tmp, sizeof f);
        }
        long sizes[10] = {F * E, F, E * F, E, E, E, E, E, E, E};
        for (int i = 0; i < 10 && f[i]; i++) TAKE(*f[i], sizes[i]);
        if (l == c->n_enc - 1) {
            TAKE(w->enc_norm_w, E);
            TAKE(w->enc_norm_b, E);
        }
    }
    TAKE(w->dec_norm_w, E);
    TAKE(w->dec_norm_b, E);
    if (c->tied) w->gen_w = w->tgt_embed;
    else TAKE(w->gen_w, c->tgt_vocab * E);
    TAKE(w->gen_b, c->tgt_vocab);
#undef TAKE
}

Model *mdl_new(const Config *cfg, Vocab *src, Vocab *tgt, Error *err) {
    Model *m = calloc(1, sizeof *m);
    if (!m) {
        voc_free(src);
        voc_free(tgt);
        err_set(err, "out of memory");
        return NULL;
    }
    m->src = src;
    m->tgt = tgt;
    m->cfg = *cfg;
    m->cfg.src_vocab = voc_size(src);
    m->cfg.tgt_vocab = voc_size(tgt);
    if (mdl_check_config(&m->cfg, err)) goto fail;
    m->n_params = mdl_param_count(&m->cfg);
    m->block = pg_alloc((size_t)m->n_params * sizeof(float));  // filled whole at once: one go, not page by page
    m->w.enc = calloc((size_t)m->cfg.n_enc, sizeof *m->w.enc);
    m->w.dec = calloc((size_t)m->cfg.n_dec, sizeof *m->w.dec);
    m->name = strdup("");
    m->path = strdup("");
    m->training_step = -1;
    if (!m->block || !m->w.enc || !m->w.dec || !m->name || !m->path) {
        err_set(err, "out of memory for %ld parameters", m->n_params);
        goto fail;
    }
    carve(&m->cfg, m->block, &m->w);
    return m;
fail:
    mdl_free(m);
    return NULL;
}

int mdl_weights_bind(const Config *c, float *block, Weights *w) {
    memset(w, 0, sizeof *w);
    w->enc = calloc((size_t)c->n_enc, sizeof *w->enc);
    w->dec = calloc((size_t)c->n_dec, sizeof *w->dec);
    if (!w->enc || !w->dec) {
        mdl_weights_unbind(w);
        return -1;
    }
    carve(c, block, w);
    return 0;
}

void mdl_weights_unbind(Weights *w) {
    free(w->enc);
    free(w->dec);
    memset(w, 0, sizeof *w);
}

void mdl_free(Model *m) {
    if (!m) return;
    voc_free(m->src);
    voc_free(m->tgt);
    pg_free(m->block, (size_t)m->n_params * sizeof(float));
    free(m->w.enc);
    free(m->w.dec);
    free(m->name);
    free(m->path);
    free(m);
}

// Reads an integer metadata value; returns 0 or -1 with err set.
static int meta_int(const StFile *f, const char *key, int *out, Error *err) {
    const char *s = st_meta(f, key);
    if (!s) return err_set(err, "metadata has no \"%s\"", key);
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < -2147483647L || v > 2147483647L)
        return err_set(err, "metadata \"%s\" is \"%s\", expected an integer", key, ERR_QUOTE(s, 40));
    *out = (int)v;
    return 0;
}

static int meta_bool(const StFile *f, const char *key, bool dflt, bool *out, Error *err) {
    const char *s = st_meta(f, key);
    if (!s) { *out = dflt; return 0; }
    if (!strcmp(s, "true")) { *out = true; return 0; }
    if (!strcmp(s, "false")) { *out = false; return 0; }
    return err_set(err, "metadata \"%s\" is \"%s\", expected true or false", key, ERR_QUOTE(s, 40));
}

static Vocab *meta_vocab(const StFile *f, const char *key, Error *err) {
    const char *s = st_meta(f, key);
    if (!s) {
        err_set(err, "metadata has no \"%s\" (the vocabulary, a JSON array of tokens)", key);
        return NULL;
    }
    Vocab *v = voc_from_json(s, err);
    if (!v) err_prefix(err, "metadata \"%s\"", key);
    return v;
}

// The format entry names the format and its version (docs/MODEL_FORMAT.md).
static int check_format(const StFile *f, Error *err) {
    static const char want[] = "transformer-tracer-model/1";
    const char *s = st_meta(f, "format");
    if (!s) return err_set(err, "metadata has no \"format\"; this program reads \"%s\" models", want);
    if (!strcmp(s, want)) return 0;
    const char *shown = ERR_QUOTE(s, 40);
    size_t family = sizeof want - 2;  // "transformer-tracer-model/"
    if (!strncmp(s, want, family))
        return err_set(err, "format is \"%s\", a version this program does not know; it reads \"%s\"", shown, want);
    return err_set(err, "format is \"%s\", not a transformer-tracer model; this program reads \"%s\"", shown, want);
}

static Model *load_from(const StFile *f, Error *err) {
    if (check_format(f, err)) return NULL;
    Config c = {0};
    if (meta_int(f, "d_model", &c.d_model, err) || meta_int(f, "nhead", &c.nhead, err) ||
        meta_int(f, "num_encoder_layers", &c.n_enc, err) || meta_int(f, "num_decoder_layers", &c.n_dec, err) ||
        meta_int(f, "dim_feedforward", &c.d_ff, err) || meta_int(f, "max_len", &c.max_len, err) ||
        meta_bool(f, "tied_generator", false, &c.tied, err))
        return NULL;
    const char *eps = st_meta(f, "layer_norm_eps");
    if (!eps) {
        err_set(err, "metadata has no \"layer_norm_eps\"");
        return NULL;
    }
    char *end;
    c.eps = strtof(eps, &end);
    if (end == eps || *end) {
        err_set(err, "metadata \"layer_norm_eps\" is \"%s\", expected a number", ERR_QUOTE(eps, 40));
        return NULL;
    }
    bool norm_first;
    if (meta_bool(f, "norm_first", false, &norm_first, err)) return NULL;
    if (norm_first) {
        err_set(err, "norm_first is true (pre-norm); the tracer implements nn.Transformer's default post-norm layers");
        return NULL;
    }
    const char *act = st_meta(f, "activation");
    if (act && strcmp(act, "relu")) {
        err_set(err, "activation is \"%s\"; the tracer implements relu", ERR_QUOTE(act, 40));
        return NULL;
    }
    Vocab *src = meta_vocab(f, "src_vocab", err);
    if (!src) return NULL;
    Vocab *tgt = meta_vocab(f, "tgt_vocab", err);
    if (!tgt) {
        voc_free(src);
        return NULL;
    }
    // a few bytes of metadata must not make us allocate gigabytes: a large
    // config's tensors have to be in the file first (smaller mismatches are
    // named tensor by tensor below)
    Config full = c;
    full.src_vocab = voc_size(src);
    full.tgt_vocab = voc_size(tgt);
    if (mdl_check_config(&full, NULL) == 0) {
        uint64_t held = 0;  // numbers in the file, whatever their dtype (st_open checked that they fit it)
        for (int i = 0; i < st_count(f); i++) {
            const StTensor *t = st_tensor_at(f, i);
            uint64_t numel = 1;
            for (int d = 0; d < t->ndim; d++) numel *= (uint64_t)t->shape[d];
            held += numel;
        }
        if (mdl_param_count(&full) > (1L << 24) && (uint64_t)mdl_param_count(&full) > held) {
            err_set(err, "the config (d_model %d, %d + %d layers, dim_feedforward %d, vocabularies %d and %d) needs %ld parameters, "
                    "but the file's tensors hold only %" PRIu64 " numbers", c.d_model, c.n_enc, c.n_dec, c.d_ff, full.src_vocab,
                    full.tgt_vocab, mdl_param_count(&full), held);
            voc_free(src);
            voc_free(tgt);
            return NULL;
        }
    }
    Model *m = mdl_new(&c, src, tgt, err);
    if (!m) return NULL;
    int n = mdl_params(m, NULL);
    Param *ps = malloc((size_t)n * sizeof *ps);
    if (!ps) {
        err_set(err, "out of memory");
        goto fail;
    }
    mdl_params(m, ps);
    for (int i = 0; i < n; i++) {
        const StTensor *t = st_find(f, ps[i].name);
        if (!t) {
            err_set(err, "tensor '%s' is missing", ps[i].name);
            goto fail;
        }
        bool same = t->ndim == ps[i].ndim;
        for (int d = 0; same && d < t->ndim; d++) same = t->shape[d] == ps[i].shape[d];
        if (!same) {
            char got[96] = "", want[64];
            for (int d = 0; d < t->ndim && strlen(got) < 80; d++)
                snprintf(got + strlen(got), sizeof got - strlen(got), "%s%lld", d ? ", " : "", (long long)t->shape[d]);
            if (ps[i].ndim == 2) snprintf(want, sizeof want, "%lld, %lld", (long long)ps[i].shape[0], (long long)ps[i].shape[1]);
            else snprintf(want, sizeof want, "%lld", (long long)ps[i].shape[0]);
            err_set(err, "tensor '%s' has shape [%s], expected [%s] from the config and vocabularies", ps[i].name, got, want);
            goto fail;
        }
        if (st_read_f32(f, t, ps[i].data, err)) goto fail;
    }
    if (c.tied && st_find(f, "generator.weight")) {
        err_set(err, "tied_generator is true but the file also holds 'generator.weight'");
        goto fail;
    }
    // which cross-attention head, if any, was trained to align ("2,1": layer 2, head 1)
    const char *sup = st_meta(f, "supervised_head");
    if (sup) {
        int l = 0, h = 0;
        char end = 0;
        if (sscanf(sup, "%d,%d%c", &l, &h, &end) != 2 || l < 1 || l > c.n_dec || h < 1 || h > c.nhead) {
            err_set(err, "metadata \"supervised_head\" is \"%s\", expected \"layer,head\" of a decoder layer and head",
                    ERR_QUOTE(sup, 40));
            goto fail;
        }
        m->align_layer = l;
        m->align_head = h;
    }
    const char *name = st_meta(f, "name");
    if (name) {
        free(m->name);
        m->name = strdup(name);
    }
    free(ps);
    return m;
fail:
    free(ps);
    mdl_free(m);
    return NULL;
}

Model *mdl_load(const char *path, Error *err) {
    StFile *f = st_open_lazy(path, err);  // each tensor read straight into the parameters
    if (!f) return NULL;
    Model *m = load_from(f, err);
    st_free(f);
    if (!m) {
        // st_read_f32's messages already start with the path
        size_t n = strlen(path);
        if (err && !(strncmp(err->msg, path, n) == 0 && err->msg[n] == ':')) err_prefix(err, "%s", path);
        return NULL;
    }
    free(m->path);
    m->path = strdup(path);
    if (!m->name || !m->path) {
        mdl_free(m);
        err_set(err, "%s: out of memory", path);
        return NULL;
    }
    return m;
}

int mdl_save(const Model *m, const char *path, Error *err) {
    StWriter *w = st_writer_new();
    char *src = voc_to_json(m->src), *tgt = voc_to_json(m->tgt);
    int n = mdl_params((Model *)m, NULL), rc = -1;
    Param *ps = malloc((size_t)n * sizeof *ps);
    if (!w || !src || !tgt || !ps) {
        err_set(err, "%s: out of memory", path);
        goto done;
    }
    const Config *c = &m->cfg;
    char buf[64];
    struct { const char *key; int value; } ints[] = {
        {"d_model", c->d_model}, {"nhead", c->nhead}, {"num_encoder_layers", c->n_enc},
        {"num_decoder_layers", c->n_dec}, {"dim_feedforward", c->d_ff}, {"max_len", c->max_len},
    };
    st_writer_meta(w, "format", "transformer-tracer-model/1");
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        snprintf(buf, sizeof buf, "%d", ints[i].value);
        st_writer_meta(w, ints[i].key, buf);
    }
    snprintf(buf, sizeof buf, "%.9g", (double)c->eps);
    st_writer_meta(w, "layer_norm_eps", buf);
    st_writer_meta(w, "tied_generator", c->tied ? "true" : "false");
    st_writer_meta(w, "activation", "relu");
    st_writer_meta(w, "norm_first", "false");
    st_writer_meta(w, "name", m->name);
    if (m->align_layer > 0) {
        snprintf(buf, sizeof buf, "%d,%d", m->align_layer, m->align_head);
        st_writer_meta(w, "supervised_head", buf);
    }
    st_writer_meta(w, "src_vocab", src);
    st_writer_meta(w, "tgt_vocab", tgt);
    mdl_params((Model *)m, ps);
    for (int i = 0; i < n; i++) st_writer_add_f32(w, ps[i].name, ps[i].data, ps[i].ndim, ps[i].shape);
    rc = st_writer_save(w, path, err);
done:
    free(ps);
    free(src);
    free(tgt);
    st_writer_free(w);
    return rc;
}

static void fill_uniform(Rng *r, float *x, long n, float bound) {
    for (long i = 0; i < n; i++) x[i] = (2.0f * rng_uniform(r) - 1.0f) * bound;
}

void mdl_init_random(Model *m, uint64_t seed) {
    Rng r;
    rng_init(&r, seed);
    int n = mdl_params(m, NULL);
    Param *ps = malloc((size_t)n * sizeof *ps);
    if (!ps) return;
    mdl_params(m, ps);
    float E = (float)m->cfg.d_model;
    for (int i = 0; i < n; i++) {
        Param *p = &ps[i];
        long count = p->ndim == 2 ? (long)(p->shape[0] * p->shape[1]) : (long)p->shape[0];
        const char *nm = p->name;
        if (strstr(nm, "_embed.")) {
            for (long k = 0; k < count; k++) p->data[k] = rng_normal(&r) / sqrtf(E);
        } else if (!strncmp(nm, "generator.", 10)) {
            fill_uniform(&r, p->data, count, 1.0f / sqrtf(E));
        } else if (strstr(nm, "norm")) {
            for (long k = 0; k < count; k++) p->data[k] = strstr(nm, ".weight") ? 1.0f : 0.0f;
        } else if (p->ndim == 2) {
            // Xavier-uniform: bound sqrt(6 / (fan_in + fan_out))
            fill_uniform(&r, p->data, count, sqrtf(6.0f / (float)(p->shape[0] + p->shape[1])));
        } else if (strstr(nm, "_attn.")) {
            memset(p->data, 0, (size_t)count * sizeof(float));
        } else {
            // a Linear bias: U(±1/√fan_in), fan_in from the matrix just before it
            fill_uniform(&r, p->data, count, 1.0f / sqrtf((float)ps[i - 1].shape[1]));
        }
    }
    free(ps);
}
