#include "snapshots.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "safetensors.h"
#include "vocab.h"

#define FORMAT "transformer-tracer-snapshots/1"

int snap_schedule(int n, int steps, int *out) {
    int count = 0;
    if (n < 2) n = 2;
    if (n > SNAP_MAX) n = SNAP_MAX;
    for (int k = 0; k < n; k++) {
        double f = (double)k / (n - 1);
        int s = (int)lround(steps * f * f);  // quadratic: close together early
        if (count == 0 || s > out[count - 1]) out[count++] = s;
    }
    return count;
}

char *snap_path_for(const char *model_path, char *buf, size_t size) {
    static const char ext[] = ".safetensors";
    size_t n = strlen(model_path), e = sizeof ext - 1;
    if (n > e && !strcmp(model_path + n - e, ext)) snprintf(buf, size, "%.*s.snapshots%s", (int)(n - e), model_path, ext);
    else snprintf(buf, size, "%s.snapshots%s", model_path, ext);
    return buf;
}

bool snap_is_history_name(const char *name) {
    static const char ext[] = ".snapshots.safetensors";
    size_t n = strlen(name), e = sizeof ext - 1;
    return n >= e && !strcmp(name + n - e, ext);
}

// ---- writing ----

struct SnapWriter {
    int n, steps[SNAP_MAX];
    float *weights[SNAP_MAX];  // a copy of the parameter block at each
    long n_params;
    int n_curve, cap_curve;
    int *curve_steps;
    float *curve_loss;
};

SnapWriter *snap_writer_new(const Model *m) {
    SnapWriter *w = calloc(1, sizeof *w);
    if (w) w->n_params = m->n_params;
    return w;
}

void snap_writer_free(SnapWriter *w) {
    if (!w) return;
    for (int i = 0; i < w->n; i++) free(w->weights[i]);
    free(w->curve_steps);
    free(w->curve_loss);
    free(w);
}

int snap_writer_add(SnapWriter *w, const Model *m, int step) {
    if (w->n == SNAP_MAX || m->n_params != w->n_params) return -1;
    float *copy = malloc((size_t)m->n_params * sizeof *copy);
    if (!copy) return -1;
    memcpy(copy, m->block, (size_t)m->n_params * sizeof *copy);
    w->steps[w->n] = step;
    w->weights[w->n++] = copy;
    return 0;
}

int snap_writer_loss(SnapWriter *w, int step, float loss) {
    if (w->n_curve == w->cap_curve) {
        int cap = w->cap_curve ? 2 * w->cap_curve : 256;
        int *s = realloc(w->curve_steps, (size_t)cap * sizeof *s);
        if (!s) return -1;
        w->curve_steps = s;
        float *l = realloc(w->curve_loss, (size_t)cap * sizeof *l);
        if (!l) return -1;
        w->curve_loss = l;
        w->cap_curve = cap;
    }
    w->curve_steps[w->n_curve] = step;
    w->curve_loss[w->n_curve++] = loss;
    return 0;
}

// The configuration's whole numbers, under their metadata keys (as in the model's own file).
enum { CONFIG_INTS = 6 };
static void config_ints(const Config *c, const char *keys[CONFIG_INTS], int values[CONFIG_INTS]) {
    static const char *const names[CONFIG_INTS] = {"d_model", "nhead", "num_encoder_layers", "num_decoder_layers", "dim_feedforward", "max_len"};
    const int v[CONFIG_INTS] = {c->d_model, c->nhead, c->n_enc, c->n_dec, c->d_ff, c->max_len};
    for (int i = 0; i < CONFIG_INTS; i++) keys[i] = names[i], values[i] = v[i];
}

static void config_meta(StWriter *st, const Model *m) {
    const char *keys[CONFIG_INTS];
    int values[CONFIG_INTS];
    char buf[32];
    config_ints(&m->cfg, keys, values);
    for (int i = 0; i < CONFIG_INTS; i++) {
        snprintf(buf, sizeof buf, "%d", values[i]);
        st_writer_meta(st, keys[i], buf);
    }
    st_writer_meta(st, "tied_generator", m->cfg.tied ? "true" : "false");
}

// A list of numbers as text: "0,25,99" or "1:4.3;10:4.1".
static char *join(const int *steps, const float *loss, int n) {
    size_t cap = (size_t)n * 24 + 1, len = 0;
    char *s = malloc(cap);
    if (!s) return NULL;
    s[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (loss) len += (size_t)snprintf(s + len, cap - len, "%s%d:%.4g", i ? ";" : "", steps[i], (double)loss[i]);
        else len += (size_t)snprintf(s + len, cap - len, "%s%d", i ? "," : "", steps[i]);
    }
    return s;
}

int snap_writer_save(const SnapWriter *w, const Model *m, const char *path, Error *err) {
    StWriter *st = st_writer_new();
    char *src = voc_to_json(m->src), *tgt = voc_to_json(m->tgt), *steps = join(w->steps, NULL, w->n),
         *curve = join(w->curve_steps, w->curve_loss, w->n_curve);
    int n = mdl_params((Model *)m, NULL), rc = -1;
    Param *ps = malloc((size_t)n * sizeof *ps);
    if (!st || !src || !tgt || !steps || !curve || !ps) {
        err_set(err, "%s: out of memory", path);
        goto done;
    }
    st_writer_meta(st, "format", FORMAT);
    st_writer_meta(st, "name", m->name);
    config_meta(st, m);
    st_writer_meta(st, "src_vocab", src);
    st_writer_meta(st, "tgt_vocab", tgt);
    st_writer_meta(st, "steps", steps);
    st_writer_meta(st, "loss_curve", curve);
    mdl_params((Model *)m, ps);
    for (int k = 0; k < w->n; k++)
        for (int i = 0; i < n; i++) {
            char name[160];
            snprintf(name, sizeof name, "step%d/%s", w->steps[k], ps[i].name);
            // the parameter's place in the block is the same in the copy
            const float *data = w->weights[k] + (ps[i].data - m->block);
            if (st_writer_add_f16(st, name, data, ps[i].ndim, ps[i].shape)) {
                err_set(err, "%s: out of memory", path);
                goto done;
            }
        }
    rc = st_writer_save(st, path, err);
done:
    free(ps);
    free(src);
    free(tgt);
    free(steps);
    free(curve);
    st_writer_free(st);
    return rc;
}

// ---- reading ----

struct Snapshots {
    StFile *f;
    const Model *like;       // borrowed: its configuration, vocabularies, name and path
    int n, steps[SNAP_MAX];
    int n_curve;
    int *curve_steps;
    float *curve_loss;
};

void snap_free(Snapshots *s) {
    if (!s) return;
    st_free(s->f);
    free(s->curve_steps);
    free(s->curve_loss);
    free(s);
}

// Whether the file's metadata describe model m: the same configuration and vocabularies.
static bool same_model(const StFile *f, const Model *m, char *why, size_t size) {
    const char *keys[CONFIG_INTS];
    int values[CONFIG_INTS];
    config_ints(&m->cfg, keys, values);
    for (int i = 0; i < CONFIG_INTS; i++) {
        const char *v = st_meta(f, keys[i]);
        if (!v || atoi(v) != values[i]) {
            snprintf(why, size, "%s %s, the model %d", keys[i], v ? v : "missing", values[i]);
            return false;
        }
    }
    char *src = voc_to_json(m->src), *tgt = voc_to_json(m->tgt);
    const char *fs = st_meta(f, "src_vocab"), *ft = st_meta(f, "tgt_vocab");
    bool same = src && tgt && fs && ft && !strcmp(src, fs) && !strcmp(tgt, ft);
    if (!same) snprintf(why, size, "another vocabulary");
    free(src);
    free(tgt);
    return same;
}

// The snapshots of a model's training end with the model: the last one must
// be m's own weights as F16 stores them (another model of the same
// configuration and vocabularies, such as its untrained twin, is refused).
// 0 when it is; -1 with err when it is not, or cannot be read.
static int check_last(const Snapshots *s, const Model *m, Error *err) {
    const char *path = st_path(s->f), *who = m->path && *m->path ? m->path : m->name;
    int n = mdl_params((Model *)m, NULL), rc = 0;
    Param *ps = malloc((size_t)n * sizeof *ps);
    float *buf = NULL;
    if (!ps) return err_set(err, "%s: out of memory", path);
    mdl_params((Model *)m, ps);
    for (int i = 0; !rc && i < n; i++) {
        char name[160];
        snprintf(name, sizeof name, "step%d/%s", s->steps[s->n - 1], ps[i].name);
        const StTensor *t = st_find(s->f, name);
        size_t count = (size_t)(ps[i].ndim == 2 ? ps[i].shape[0] * ps[i].shape[1] : ps[i].shape[0]);
        float *grown = realloc(buf, count * sizeof *buf);
        if (!grown) rc = err_set(err, "%s: out of memory", path);
        else if (buf = grown, !t) rc = err_set(err, "%s: no tensor %s", path, name);
        else if ((t->end - t->begin) != count * 2 && !strcmp(t->dtype, "F16")) rc = err_set(err, "%s: %s has the wrong shape", path, name);
        else if (st_read_f16(s->f, t, buf, err)) rc = -1;
        for (size_t k = 0; !rc && k < count; k++)
            if (buf[k] != st_float_from_half(st_half_from_float(ps[i].data[k])))
                rc = err_set(err, "%s: the snapshots of another model than %s (its last snapshot is not this model's weights)", path, who);
    }
    free(buf);
    free(ps);
    return rc;
}

static int parse_steps(Snapshots *s, const char *text, Error *err, const char *path) {
    for (const char *p = text; p && *p;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 0 || v > 100000000 || s->n == SNAP_MAX || (s->n && v <= s->steps[s->n - 1]))
            return err_set(err, "%s: the list of steps \"%.40s\" is not increasing whole numbers (at most %d)", path, text, SNAP_MAX);
        s->steps[s->n++] = (int)v;
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') return err_set(err, "%s: the list of steps \"%.40s\" is not numbers and commas", path, text);
    }
    return s->n ? 0 : err_set(err, "%s: no snapshot steps", path);
}

static int parse_curve(Snapshots *s, const char *text) {
    int cap = 1;
    for (const char *p = text; *p; p++) cap += *p == ';';
    s->curve_steps = malloc((size_t)cap * sizeof *s->curve_steps);
    s->curve_loss = malloc((size_t)cap * sizeof *s->curve_loss);
    if (!s->curve_steps || !s->curve_loss) return -1;
    for (const char *p = text; *p;) {
        char *end;
        long step = strtol(p, &end, 10);
        if (*end != ':') return -1;
        double loss = strtod(end + 1, &end);
        if (!isfinite(loss) || (*end && *end != ';') || s->n_curve == cap) return -1;
        s->curve_steps[s->n_curve] = (int)step;
        s->curve_loss[s->n_curve++] = (float)loss;
        p = *end ? end + 1 : end;
    }
    return 0;
}

Snapshots *snap_load(const char *path, const Model *m, Error *err) {
    Snapshots *s = calloc(1, sizeof *s);
    if (!s) {
        err_set(err, "%s: out of memory", path);
        return NULL;
    }
    s->like = m;
    char why[160];
    if (!(s->f = st_open(path, err))) goto fail;
    const char *format = st_meta(s->f, "format");
    if (!format || strcmp(format, FORMAT)) {
        err_set(err, "%s: not a snapshots file (format \"%.40s\", expected %s)", path, format ? format : "", FORMAT);
        goto fail;
    }
    if (!same_model(s->f, m, why, sizeof why)) {
        err_set(err, "%s: the snapshots of another model than %s (%s)", path, m->path && *m->path ? m->path : m->name, why);
        goto fail;
    }
    const char *steps = st_meta(s->f, "steps"), *curve = st_meta(s->f, "loss_curve");
    if (!steps || parse_steps(s, steps, err, path)) {
        if (!steps) err_set(err, "%s: no list of steps", path);
        goto fail;
    }
    if (curve && parse_curve(s, curve)) {
        err_set(err, "%s: the loss curve is not step:loss pairs separated by ';'", path);
        goto fail;
    }
    if (check_last(s, m, err)) goto fail;
    return s;
fail:
    snap_free(s);
    return NULL;
}

int snap_count(const Snapshots *s) { return s->n; }
int snap_step(const Snapshots *s, int k) { return k >= 0 && k < s->n ? s->steps[k] : -1; }

int snap_find(const Snapshots *s, int step) {
    for (int k = 0; k < s->n; k++)
        if (s->steps[k] == step) return k;
    return -1;
}

int snap_curve(const Snapshots *s, const int **steps, const float **loss) {
    *steps = s->curve_steps;
    *loss = s->curve_loss;
    return s->n_curve;
}

char *snap_steps_text(const Snapshots *s, char *buf, size_t size) {
    size_t len = 0;
    buf[0] = '\0';
    for (int k = 0; k < s->n && len + 1 < size; k++) len += (size_t)snprintf(buf + len, size - len, "%s%d", k ? ", " : "", s->steps[k]);
    return buf;
}

Model *snap_model(const Snapshots *s, int k, Error *err) {
    const Model *like = s->like;
    const char *path = st_path(s->f);
    if (k < 0 || k >= s->n) {
        err_set(err, "%s: no snapshot %d", path, k);
        return NULL;
    }
    Vocab *src = voc_from_json(st_meta(s->f, "src_vocab"), err), *tgt = src ? voc_from_json(st_meta(s->f, "tgt_vocab"), err) : NULL;
    if (!src || !tgt) {
        voc_free(src);
        return NULL;
    }
    Model *m = mdl_new(&like->cfg, src, tgt, err);
    if (!m) return NULL;
    int n = mdl_params(m, NULL);
    Param *ps = malloc((size_t)n * sizeof *ps);
    char *name = malloc(strlen(like->name) + 48), *mpath = strdup(like->path ? like->path : "");
    if (!ps || !name || !mpath) {
        err_set(err, "%s: out of memory", path);
        goto fail;
    }
    snprintf(name, strlen(like->name) + 48, "%s \xC2\xB7 training step %d", like->name, s->steps[k]);
    free(m->name);
    m->name = name;
    name = NULL;
    free(m->path);  // the model's own path: its corpus is the snapshot's too
    m->path = mpath;
    mpath = NULL;
    m->align_layer = like->align_layer;
    m->align_head = like->align_head;
    m->training_step = s->steps[k];
    mdl_params(m, ps);
    for (int i = 0; i < n; i++) {
        char tname[160];
        snprintf(tname, sizeof tname, "step%d/%s", s->steps[k], ps[i].name);
        const StTensor *t = st_find(s->f, tname);
        int64_t numel = ps[i].ndim == 2 ? ps[i].shape[0] * ps[i].shape[1] : ps[i].shape[0], have = 1;
        for (int d = 0; t && d < t->ndim; d++) have *= t->shape[d];
        if (!t || have != numel) {
            err_set(err, "%s: %s %s", path, t ? "wrong shape of" : "no tensor", tname);
            goto fail;
        }
        if (st_read_f16(s->f, t, ps[i].data, err)) goto fail;
    }
    free(ps);
    return m;
fail:
    free(ps);
    free(name);
    free(mpath);
    mdl_free(m);
    return NULL;
}
