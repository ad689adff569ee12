// Training: the gradient against finite differences for every tensor, the
// padding masks, the loss against PyTorch, determinism, and a falling loss.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "rng.h"
#include "train.h"

static Model *tiny_model(bool tied) {
    const char *src[] = {"<pad>", "<bos>", "<eos>", "<unk>", "a", "b", "c", "d"};
    const char *tgt[] = {"<pad>", "<bos>", "<eos>", "<unk>", "x", "y", "z", "w", "v"};
    Error err;
    Config c = {.d_model = 8, .nhead = 2, .n_enc = 2, .n_dec = 2, .d_ff = 12, .eps = 1e-5f, .max_len = 8, .tied = tied};
    Model *m = mdl_new(&c, voc_new(src, 8, &err), voc_new(tgt, 9, &err), &err);
    if (!m) fail_msg("%s", err.msg);
    mdl_init_random(m, 11);
    // LayerNorm away from 1 and 0, so that their gradients are exercised
    Rng r;
    rng_init(&r, 3);
    int n = mdl_params(m, NULL);
    Param *ps = calloc((size_t)n, sizeof *ps);
    mdl_params(m, ps);
    for (int i = 0; i < n; i++)
        if (strstr(ps[i].name, "norm") || strstr(ps[i].name, "_attn.in_proj_bias"))
            for (int k = 0; k < ps[i].shape[0]; k++) ps[i].data[k] += 0.2f * rng_normal(&r);
    free(ps);
    return m;
}

// Three sentences of different lengths, padded: sources 4, 2, 3 tokens; targets 3, 1, 2 tokens.
static const int src3[] = {4, 5, 6, 7, 5, 4, 0, 0, 6, 6, 4, 0};
static const int in3[] = {1, 4, 5, 6, 1, 7, 0, 0, 1, 8, 4, 0};
static const int out3[] = {4, 5, 6, 2, 7, 2, 0, 0, 8, 4, 2, 0};

// A gold alignment for the supervised head: (3, T=4, S=4).
static float align3[3 * 4 * 4];

static Batch batch3(bool with_align) {
    memset(align3, 0, sizeof align3);
    // sentence 0: target i aligns to source i; sentence 2: both targets to source 1
    for (int i = 0; i < 3; i++) align3[(0 * 4 + i) * 4 + i] = 1.0f;
    align3[(2 * 4 + 0) * 4 + 1] = 0.5f;
    align3[(2 * 4 + 0) * 4 + 2] = 0.5f;
    align3[(2 * 4 + 1) * 4 + 1] = 1.0f;
    return (Batch){.size = 3, .src_len = 4, .tgt_len = 4, .src = src3, .tgt_in = in3, .tgt_out = out3, .align = with_align ? align3 : NULL};
}

static TrainConfig config(int threads, bool align) {
    return (TrainConfig){.lr = 1e-2f, .warmup = 10, .beta1 = 0.9f, .beta2 = 0.98f, .adam_eps = 1e-9f, .label_smoothing = 0.1f,
                         .align_layer = align ? 2 : 0, .align_head = align ? 2 : 0, .align_weight = 0.5f, .threads = threads};
}

static Trainer *trainer(Model *m, TrainConfig tc) {
    Error err;
    Trainer *t = trn_new(m, &tc, 8, 8, &err);
    if (!t) fail_msg("%s", err.msg);
    return t;
}

// Each tensor is checked along two directions d: its own gradient and a random
// one. The analytic derivative g·d must match (L(θ + h·d) − L(θ − h·d)) / 2h.
// Whole-tensor directions keep the float32 rounding of the loss far below the
// signal, which single entries of small gradients do not.
static void check_gradient(bool tied, bool align, int threads) {
    Model *m = tiny_model(tied);
    Trainer *t = trainer(m, config(threads, align));
    Batch b = batch3(align);
    trn_loss_grad(t, &b, NULL);
    float *grad = malloc((size_t)m->n_params * sizeof *grad);
    memcpy(grad, trn_grad(t), (size_t)m->n_params * sizeof *grad);
    int n = mdl_params(m, NULL);
    Param *ps = calloc((size_t)n, sizeof *ps);
    mdl_params(m, ps);
    Rng r;
    rng_init(&r, 99);
    double worst = 0.0;
    const char *worst_name = "";
    for (int i = 0; i < n; i++) {
        long count = ps[i].ndim == 2 ? (long)(ps[i].shape[0] * ps[i].shape[1]) : (long)ps[i].shape[0];
        const float *g = grad + (ps[i].data - m->block);
        float *dir = malloc((size_t)count * sizeof *dir), *old = malloc((size_t)count * sizeof *old);
        memcpy(old, ps[i].data, (size_t)count * sizeof *old);
        double gnorm = 0.0;
        for (long k = 0; k < count; k++) gnorm += (double)g[k] * g[k];
        gnorm = sqrt(gnorm);
        for (int pass = 0; pass < 2; pass++) {
            double dnorm = 0.0, an = 0.0;
            for (long k = 0; k < count; k++) {
                dir[k] = pass == 0 ? g[k] : rng_normal(&r);
                dnorm += (double)dir[k] * dir[k];
            }
            dnorm = sqrt(dnorm);
            if (dnorm == 0.0) continue;
            for (long k = 0; k < count; k++) {
                dir[k] = (float)(dir[k] / dnorm);
                an += (double)g[k] * dir[k];
            }
            const float h = 1e-3f;  // small against the curvature of ReLU kinks, large against rounding
            for (long k = 0; k < count; k++) ps[i].data[k] = old[k] + h * dir[k];
            double up = trn_loss_grad(t, &b, NULL);
            for (long k = 0; k < count; k++) ps[i].data[k] = old[k] - h * dir[k];
            double down = trn_loss_grad(t, &b, NULL);
            memcpy(ps[i].data, old, (size_t)count * sizeof *old);
            double fd = (up - down) / (2.0 * h), rel = fabs(fd - an) / (gnorm + 1e-4);
            if (rel > worst) {
                worst = rel;
                worst_name = ps[i].name;
            }
            if (rel > 1e-2)
                fail_msg("%s (%s direction): expected (finite differences): %.6g, got (backprop): %.6g, |g| %.3g", ps[i].name,
                         pass ? "random" : "gradient", fd, an, gnorm);
        }
        free(dir);
        free(old);
    }
    print_message("tied=%d align=%d threads=%d: worst error %.3g of |g| (%s) over %d tensors\n", tied, align, threads, worst, worst_name, n);
    free(ps);
    free(grad);
    trn_free(t);
    mdl_free(m);
}

static void test_gradient_matches_finite_differences(void **state) {
    (void)state;
    check_gradient(false, false, 1);
    check_gradient(true, false, 2);
    check_gradient(false, true, 2);
}

// A padded batch gives the same loss and gradient as its sentences alone.
static void test_padding_is_masked(void **state) {
    (void)state;
    Model *m = tiny_model(false);
    Trainer *t = trainer(m, config(1, false));
    Batch b = batch3(false);
    StepStats all;
    trn_loss_grad(t, &b, &all);
    float *grad = malloc((size_t)m->n_params * sizeof *grad);
    memcpy(grad, trn_grad(t), (size_t)m->n_params * sizeof *grad);
    float *sum = calloc((size_t)m->n_params, sizeof *sum);
    int slen[] = {4, 2, 3}, tlen[] = {4, 2, 3};
    double loss = 0.0;
    int tokens = 0;
    for (int s = 0; s < 3; s++) {
        int src[8], in[8], out[8];
        for (int k = 0; k < slen[s]; k++) src[k] = src3[s * 4 + k];
        for (int k = 0; k < tlen[s]; k++) {
            in[k] = in3[s * 4 + k];
            out[k] = out3[s * 4 + k];
        }
        Batch one = {.size = 1, .src_len = slen[s], .tgt_len = tlen[s], .src = src, .tgt_in = in, .tgt_out = out};
        StepStats st;
        trn_loss_grad(t, &one, &st);
        loss += st.loss * st.tokens;
        tokens += st.tokens;
        // the batch's gradient is a mean over all its tokens
        for (long k = 0; k < m->n_params; k++) sum[k] += trn_grad(t)[k] * (float)st.tokens;
    }
    assert_int_equal(tokens, all.tokens);
    if (fabs(loss / tokens - all.loss) > 1e-5) fail_msg("loss expected: %.7g, got: %.7g", loss / tokens, all.loss);
    double maxdiff = 0.0;
    for (long k = 0; k < m->n_params; k++) maxdiff = fmax(maxdiff, fabs(sum[k] / tokens - grad[k]));
    print_message("padding: maxdiff of gradients %.3g\n", maxdiff);
    if (maxdiff > 1e-5) fail_msg("gradient of the padded batch: maxdiff %.3g", maxdiff);
    free(sum);
    free(grad);
    trn_free(t);
    mdl_free(m);
}

// The training forward pass gives PyTorch's teacher-forcing loss.
static void test_loss_matches_pytorch(void **state) {
    (void)state;
    Error err;
    const char *names[] = {"ref_model", "ref_tied"};
    const double want[] = {3.7316291332244873, 8.648555755615234};
    for (int i = 0; i < 2; i++) {
        char path[512];
        snprintf(path, sizeof path, TT_TEST_DATA "/reference/%s.safetensors", names[i]);
        Model *m = mdl_load(path, &err);
        if (!m) fail_msg("%s", err.msg);
        int src[] = {4, 5, 6, 7, 8}, in[] = {1, 16, 17, 18, 19, 20}, out[] = {16, 17, 18, 19, 20, 2};
        TrainConfig tc = config(1, false);
        tc.label_smoothing = 0.0f;
        Trainer *t = trn_new(m, &tc, 1, 8, &err);
        Batch b = {.size = 1, .src_len = 5, .tgt_len = 6, .src = src, .tgt_in = in, .tgt_out = out};
        double loss = trn_loss_grad(t, &b, NULL);
        if (fabs(loss - want[i]) > 1e-5 * want[i]) fail_msg("%s: loss expected: %.7g, got: %.7g", names[i], want[i], loss);
        trn_free(t);
        mdl_free(m);
    }
}

static void train_steps(Model *m, TrainConfig tc, int steps, double *first, double *last) {
    Trainer *t = trainer(m, tc);
    Batch b = batch3(tc.align_layer > 0);
    for (int s = 0; s < steps; s++) {
        double loss = trn_step(t, &b, NULL);
        if (s == 0 && first) *first = loss;
        if (last) *last = loss;
    }
    trn_free(t);
}

static void test_deterministic(void **state) {
    (void)state;
    for (int threads = 1; threads <= 2; threads++) {
        Model *a = tiny_model(false), *b = tiny_model(false);
        train_steps(a, config(threads, true), 20, NULL, NULL);
        train_steps(b, config(threads, true), 20, NULL, NULL);
        if (memcmp(a->block, b->block, (size_t)a->n_params * sizeof(float)))
            fail_msg("two runs with %d thread(s) differ", threads);
        mdl_free(a);
        mdl_free(b);
    }
}

static void test_loss_falls(void **state) {
    (void)state;
    Model *m = tiny_model(false);
    double first = 0, last = 0;
    TrainConfig tc = config(2, true);
    tc.clip_norm = 1.0f;
    train_steps(m, tc, 150, &first, &last);
    print_message("loss: first step %.4f, after 150 steps %.4f\n", first, last);
    if (!(last < 0.5 * first)) fail_msg("loss expected to fall below half of %.4f, got: %.4f", first, last);
    mdl_free(m);
}

static void test_learning_rate_schedule(void **state) {
    (void)state;
    TrainConfig tc = {.lr = 1e-3f, .warmup = 100};
    assert_true(fabsf(trn_lr(&tc, 1) - 1e-5f) < 1e-9f);
    assert_true(fabsf(trn_lr(&tc, 100) - 1e-3f) < 1e-9f);
    assert_true(fabsf(trn_lr(&tc, 400) - 5e-4f) < 1e-9f);
}

static void test_bad_config(void **state) {
    (void)state;
    Model *m = tiny_model(false);
    Error err;
    TrainConfig tc = config(1, true);
    tc.align_head = 5;
    assert_null(trn_new(m, &tc, 4, 8, &err));
    assert_non_null(strstr(err.msg, "does not exist"));
    tc = config(1, false);
    assert_null(trn_new(m, &tc, 4, 99, &err));
    assert_non_null(strstr(err.msg, "max_len"));
    mdl_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gradient_matches_finite_differences),
        cmocka_unit_test(test_padding_is_masked),
        cmocka_unit_test(test_loss_matches_pytorch),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_loss_falls),
        cmocka_unit_test(test_learning_rate_schedule),
        cmocka_unit_test(test_bad_config),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
