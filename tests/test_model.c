// Loading, saving and initialising models; every broken model file is refused
// with one clear message naming the file and the problem.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model.h"
#include "safetensors.h"

static char dir[] = "/tmp/tt-model-XXXXXX";

static Model *small_model(bool tied) {
    const char *src[] = {"<pad>", "<bos>", "<eos>", "<unk>", "i", "love", "nlp"};
    const char *tgt[] = {"<pad>", "<bos>", "<eos>", "<unk>", "我", "愛", "自然", "語言"};
    Error err;
    Config c = {.d_model = 8, .nhead = 2, .n_enc = 2, .n_dec = 1, .d_ff = 12, .eps = 1e-5f, .max_len = 10, .tied = tied};
    Model *m = mdl_new(&c, voc_new(src, 7, &err), voc_new(tgt, 8, &err), &err);
    if (!m) fail_msg("mdl_new: %s", err.msg);
    mdl_init_random(m, 5);
    return m;
}

static void path_in_dir(char *buf, size_t size, const char *name) { snprintf(buf, size, "%s/%s", dir, name); }

static void test_save_load_round_trip(void **state) {
    (void)state;
    for (int tied = 0; tied < 2; tied++) {
        Model *m = small_model(tied);
        char path[256];
        path_in_dir(path, sizeof path, "round.safetensors");
        Error err;
        if (mdl_save(m, path, &err)) fail_msg("%s", err.msg);
        Model *back = mdl_load(path, &err);
        if (!back) fail_msg("%s", err.msg);
        assert_int_equal(back->n_params, m->n_params);
        assert_int_equal(memcmp(back->block, m->block, (size_t)m->n_params * sizeof(float)), 0);
        assert_int_equal(back->cfg.d_model, 8);
        assert_int_equal(back->cfg.n_enc, 2);
        assert_int_equal(back->cfg.n_dec, 1);
        assert_true(back->cfg.eps == 1e-5f);
        assert_int_equal(back->cfg.tied, tied);
        if (tied) assert_ptr_equal(back->w.gen_w, back->w.tgt_embed);
        assert_string_equal(voc_token(back->tgt, 6), "自然");
        mdl_free(back);
        mdl_free(m);
    }
}

static void test_param_table(void **state) {
    (void)state;
    Model *m = small_model(false);
    int n = mdl_params(m, NULL);
    Param *ps = calloc((size_t)n, sizeof *ps);
    mdl_params(m, ps);
    long total = 0;
    for (int i = 0; i < n; i++) total += ps[i].ndim == 2 ? (long)(ps[i].shape[0] * ps[i].shape[1]) : (long)ps[i].shape[0];
    if (total != m->n_params) fail_msg("parameter table total expected: %ld, got: %ld", m->n_params, total);
    // names as torch.nn.Transformer's state_dict
    assert_string_equal(ps[2].name, "encoder.layers.0.self_attn.in_proj_weight");
    assert_int_equal(ps[2].shape[0], 24);
    bool found = false;
    for (int i = 0; i < n; i++) found |= !strcmp(ps[i].name, "decoder.layers.0.multihead_attn.out_proj.bias");
    assert_true(found);
    // the paper-size model: 6+6 layers, d_model 512, d_ff 2048 (without embeddings: 44.1M)
    Config big = {.d_model = 512, .nhead = 8, .n_enc = 6, .n_dec = 6, .d_ff = 2048, .eps = 1e-5f, .max_len = 64, .src_vocab = 0, .tgt_vocab = 0};
    big.src_vocab = big.tgt_vocab = 1;
    long body = mdl_param_count(&big) - (2 * 512 + 512 + 1);
    assert_int_equal(body, 44140544L);
    free(ps);
    mdl_free(m);
}

static void test_init_is_deterministic(void **state) {
    (void)state;
    Model *a = small_model(false), *b = small_model(false);
    assert_int_equal(memcmp(a->block, b->block, (size_t)a->n_params * sizeof(float)), 0);
    mdl_init_random(b, 6);
    assert_int_not_equal(memcmp(a->block, b->block, (size_t)a->n_params * sizeof(float)), 0);
    // LayerNorm starts at 1 and 0, attention biases at 0
    assert_true(a->w.enc[0].norm1_w[3] == 1.0f && a->w.enc[0].norm1_b[3] == 0.0f);
    assert_true(a->w.dec[0].cross_attn.in_proj_b[5] == 0.0f);
    mdl_free(a);
    mdl_free(b);
}

// A broken variant of a good model: one tensor left out, reshaped or
// poisoned, or one metadata value replaced (value NULL: left out).
typedef struct {
    const char *file;
    const char *skip;            // tensor to leave out
    const char *reshape;         // tensor to write with a wrong shape
    const char *poison;          // tensor that gets a NaN
    const char *meta_key, *meta_value;
    bool drop_meta;
    const char *expect;          // part of the message
} Variant;

static void write_variant(const Model *m, const Variant *v, const char *path) {
    StWriter *w = st_writer_new();
    const char *keys[] = {"d_model", "nhead", "num_encoder_layers", "num_decoder_layers", "dim_feedforward", "layer_norm_eps",
                          "max_len", "src_vocab", "tgt_vocab", "tied_generator", "norm_first", "activation", "format"};
    char *src = voc_to_json(m->src), *tgt = voc_to_json(m->tgt);
    char vals[12][64];
    const Config *c = &m->cfg;
    snprintf(vals[0], 64, "%d", c->d_model);
    snprintf(vals[1], 64, "%d", c->nhead);
    snprintf(vals[2], 64, "%d", c->n_enc);
    snprintf(vals[3], 64, "%d", c->n_dec);
    snprintf(vals[4], 64, "%d", c->d_ff);
    snprintf(vals[5], 64, "%g", (double)c->eps);
    snprintf(vals[6], 64, "%d", c->max_len);
    const char *values[13] = {vals[0], vals[1], vals[2], vals[3], vals[4], vals[5], vals[6], src, tgt, c->tied ? "true" : "false", "false", "relu",
                              "transformer-tracer-model/1"};
    for (int i = 0; i < 13; i++) {
        bool hit = v->meta_key && !strcmp(keys[i], v->meta_key);
        if (hit && v->drop_meta) continue;
        st_writer_meta(w, keys[i], hit ? v->meta_value : values[i]);
    }
    if (v->meta_key && !v->drop_meta) {
        bool known = false;
        for (int i = 0; i < 13; i++) known |= !strcmp(keys[i], v->meta_key);
        if (!known) st_writer_meta(w, v->meta_key, v->meta_value);
    }
    int n = mdl_params((Model *)m, NULL);
    Param *ps = calloc((size_t)n, sizeof *ps);
    mdl_params((Model *)m, ps);
    float *poisoned = NULL;
    for (int i = 0; i < n; i++) {
        if (v->skip && !strcmp(ps[i].name, v->skip)) continue;
        if (v->reshape && !strcmp(ps[i].name, v->reshape)) {
            int64_t shape[2] = {ps[i].shape[0] * (ps[i].ndim == 2 ? ps[i].shape[1] : 1), 0};
            st_writer_add_f32(w, ps[i].name, ps[i].data, 1, shape);
            continue;
        }
        const float *data = ps[i].data;
        if (v->poison && !strcmp(ps[i].name, v->poison)) {
            size_t count = (size_t)(ps[i].shape[0] * (ps[i].ndim == 2 ? ps[i].shape[1] : 1));
            poisoned = malloc(count * sizeof *poisoned);
            memcpy(poisoned, data, count * sizeof *poisoned);
            poisoned[count / 2] = NAN;
            data = poisoned;
        }
        st_writer_add_f32(w, ps[i].name, data, ps[i].ndim, ps[i].shape);
    }
    Error err;
    if (st_writer_save(w, path, &err)) fail_msg("%s", err.msg);
    st_writer_free(w);
    free(poisoned);
    free(ps);
    free(src);
    free(tgt);
}

static void test_broken_models(void **state) {
    (void)state;
    Model *m = small_model(false);
    const Variant cases[] = {
        {"missing.st", .skip = "decoder.layers.0.norm3.bias", .expect = "tensor 'decoder.layers.0.norm3.bias' is missing"},
        {"shape.st", .reshape = "encoder.layers.1.linear1.weight", .expect = "tensor 'encoder.layers.1.linear1.weight' has shape [96], expected [12, 8]"},
        {"nan.st", .poison = "tgt_embed.weight", .expect = "tgt_embed.weight"},
        {"heads.st", .meta_key = "nhead", .meta_value = "3", .expect = "d_model (8) is not divisible by nhead (3)"},
        {"nohead.st", .meta_key = "nhead", .drop_meta = true, .expect = "metadata has no \"nhead\""},
        {"notint.st", .meta_key = "d_model", .meta_value = "eight", .expect = "\"d_model\" is \"eight\", expected an integer"},
        {"novocab.st", .meta_key = "tgt_vocab", .drop_meta = true, .expect = "metadata has no \"tgt_vocab\""},
        {"badvocab.st", .meta_key = "src_vocab", .meta_value = "[\"<pad>\", \"i\"", .expect = "metadata \"src_vocab\""},
        {"nounk.st", .meta_key = "src_vocab", .meta_value = "[\"<pad>\",\"<bos>\",\"<eos>\",\"i\",\"love\",\"nlp\",\"x\"]", .expect = "no <unk>"},
        {"vocabsize.st", .meta_key = "src_vocab", .meta_value = "[\"<pad>\",\"<bos>\",\"<eos>\",\"<unk>\"]", .expect = "src_embed.weight' has shape [7, 8], expected [4, 8]"},
        {"prenorm.st", .meta_key = "norm_first", .meta_value = "true", .expect = "post-norm"},
        {"gelu.st", .meta_key = "activation", .meta_value = "gelu", .expect = "activation is \"gelu\""},
        {"eps.st", .meta_key = "layer_norm_eps", .meta_value = "-1", .expect = "layer_norm_eps"},
        {"zero.st", .meta_key = "num_decoder_layers", .meta_value = "0", .expect = "num_decoder_layers is 0"},
        {"tiedboth.st", .meta_key = "tied_generator", .meta_value = "true", .expect = "also holds 'generator.weight'"},
        {"tiedbad.st", .meta_key = "tied_generator", .meta_value = "yes", .expect = "expected true or false"},
        // the format entry names the format and its version
        {"noformat.st", .meta_key = "format", .drop_meta = true,
         .expect = "metadata has no \"format\"; this program reads \"transformer-tracer-model/1\" models"},
        {"otherformat.st", .meta_key = "format", .meta_value = "gguf",
         .expect = "format is \"gguf\", not a transformer-tracer model; this program reads \"transformer-tracer-model/1\""},
        {"version2.st", .meta_key = "format", .meta_value = "transformer-tracer-model/2",
         .expect = "format is \"transformer-tracer-model/2\", a version this program does not know; it reads \"transformer-tracer-model/1\""},
        {"version10.st", .meta_key = "format", .meta_value = "transformer-tracer-model/10", .expect = "a version this program does not know"},
        {"newline.st", .meta_key = "format", .meta_value = "transformer-tracer-model/1\nx", .expect = "format is \"transformer-tracer-model/1U+000Ax\""},
        // values from the file are quoted: a message never holds a control character
        {"escint.st", .meta_key = "d_model", .meta_value = "12\n\x1b[31mx", .expect = "\"d_model\" is \"12U+000AU+001B[31mx\", expected an integer"},
        {"escbool.st", .meta_key = "tied_generator", .meta_value = "\x1b[31m", .expect = "\"tied_generator\" is \"U+001B[31m\""},
        {"esceps.st", .meta_key = "layer_norm_eps", .meta_value = "1e-5\r", .expect = "\"layer_norm_eps\" is \"1e-5U+000D\""},
        {"escact.st", .meta_key = "activation", .meta_value = "relu\xc2\x9b", .expect = "activation is \"reluU+009B\""},
        {"eschead.st", .meta_key = "supervised_head", .meta_value = "1,1\n", .expect = "\"supervised_head\" is \"1,1U+000A\""},
        {"longformat.st", .meta_key = "format", .meta_value = "0123456789012345678901234567890123456789012345",
         .expect = "format is \"0123456789012345678901234567890123456789\xE2\x80\xA6\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char path[256];
        path_in_dir(path, sizeof path, cases[i].file);
        write_variant(m, &cases[i], path);
        Error err = {{0}};
        Model *bad = mdl_load(path, &err);
        if (bad) fail_msg("%s: expected a refusal", cases[i].file);
        if (strncmp(err.msg, path, strlen(path))) fail_msg("message should start with the path, got: %s", err.msg);
        if (!strstr(err.msg, cases[i].expect)) fail_msg("expected message containing: %s, got: %s", cases[i].expect, err.msg);
        for (const char *p = err.msg; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f) fail_msg("%s: expected: one line without control characters, got: %s", cases[i].file, err.msg);
    }
    mdl_free(m);
}

static void test_truncated_and_missing_files(void **state) {
    (void)state;
    Model *m = small_model(false);
    char path[256], cut[256];
    path_in_dir(path, sizeof path, "whole.safetensors");
    path_in_dir(cut, sizeof cut, "cut.safetensors");
    Error err;
    if (mdl_save(m, path, &err)) fail_msg("%s", err.msg);
    FILE *fp = fopen(path, "rb");
    fseek(fp, 0, SEEK_END);
    long size = ftell(fp);
    rewind(fp);
    char *bytes = malloc((size_t)size);
    assert_int_equal(fread(bytes, 1, (size_t)size, fp), (size_t)size);
    fclose(fp);
    // cut anywhere: in the length, in the header, in the data
    long cuts[] = {0, 4, 8, 20, size / 3, size - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof *cuts; i++) {
        fp = fopen(cut, "wb");
        fwrite(bytes, 1, (size_t)cuts[i], fp);
        fclose(fp);
        err.msg[0] = '\0';
        if (mdl_load(cut, &err)) fail_msg("file cut at %ld bytes: expected a refusal", cuts[i]);
        if (!strstr(err.msg, cut)) fail_msg("message should name the file, got: %s", err.msg);
    }
    assert_null(mdl_load("/nonexistent/model.safetensors", &err));
    assert_non_null(strstr(err.msg, "/nonexistent/model.safetensors"));
    free(bytes);
    mdl_free(m);
}

static int make_dir(void **state) {
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state) {
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_save_load_round_trip),
        cmocka_unit_test(test_param_table),
        cmocka_unit_test(test_init_is_deterministic),
        cmocka_unit_test(test_broken_models),
        cmocka_unit_test(test_truncated_and_missing_files),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
