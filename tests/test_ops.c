// The kernels, each alone, against hand-computed values.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "ops.h"

static void expect_close(const float *got, const float *want, int n, float tol) {
    float maxdiff = 0.0f;
    int at = 0;
    for (int i = 0; i < n; i++) {
        float d = fabsf(got[i] - want[i]);
        if (!(d <= maxdiff)) { maxdiff = d; at = i; }
    }
    if (!(maxdiff <= tol)) fail_msg("maxdiff %g at %d (expected: %g, got: %g), tolerance %g", (double)maxdiff, at, (double)want[at], (double)got[at], (double)tol);
}

static void test_linear(void **state) {
    (void)state;
    float x[2 * 3] = {1, 2, 3, 4, 5, 6};
    float w[2 * 3] = {1, 0, -1, 0.5f, 0.5f, 0.5f};  // (d=2, k=3) as torch.nn.Linear
    float b[2] = {10, -1};
    float out[4], want[4] = {1 - 3 + 10, 3 - 1, 4 - 6 + 10, 7.5f - 1};
    op_linear(out, x, w, b, 2, 3, 2);
    expect_close(out, want, 4, 0);
    op_linear(out, x, w, NULL, 2, 3, 2);
    float want_nob[4] = {-2, 3, -2, 7.5f};
    expect_close(out, want_nob, 4, 0);
}

static void test_matmul(void **state) {
    (void)state;
    float a[2 * 2] = {1, 2, 3, 4}, b[2 * 2] = {5, 6, 7, 8};
    float out[4];
    op_matmul_nn(out, a, b, 2, 2, 2);
    float want_nn[4] = {19, 22, 43, 50};
    expect_close(out, want_nn, 4, 0);
    op_matmul_nt(out, a, b, 2, 2, 2, 0.5f);  // a·bᵀ/2
    float want_nt[4] = {8.5f, 11.5f, 19.5f, 26.5f};
    expect_close(out, want_nt, 4, 0);
}

static void test_softmax(void **state) {
    (void)state;
    float in[3 * 3] = {1, 2, 3, 1000, 1000, -INFINITY, -INFINITY, -INFINITY, -INFINITY};
    float out[9];
    op_softmax_rows(out, in, 3, 3);
    double z = exp(1) + exp(2) + exp(3);
    float want[9] = {(float)(exp(1) / z), (float)(exp(2) / z), (float)(exp(3) / z), 0.5f, 0.5f, 0, 0, 0, 0};
    expect_close(out, want, 9, 1e-7f);
    assert_true(out[5] == 0.0f);  // masked entries are exactly 0
    for (int i = 6; i < 9; i++) assert_false(isnan(out[i]));  // a fully masked row is 0, not NaN
}

// The course's worked example (CH07-05 Q7): 4×4 scores, the look-ahead mask,
// softmax. The course prints rounded illustrative weights; these are exact.
static void test_course_masked_softmax(void **state) {
    (void)state;
    float S[16] = {2.1f, 3.5f, 1.8f, 2.9f, 1.2f, 4.3f, 2.1f, 3.7f, 0.8f, 1.5f, 3.2f, 2.4f, 2.3f, 1.9f, 2.7f, 4.1f};
    float M[16], masked[16], A[16];
    op_look_ahead_mask(M, 4);
    op_add(masked, S, M, 16);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            if (j > i) assert_true(isinf(masked[i * 4 + j]) && masked[i * 4 + j] < 0);
            else assert_true(masked[i * 4 + j] == S[i * 4 + j]);
        }
    op_softmax_rows(A, masked, 4, 4);
    float want[16] = {1, 0, 0, 0,
                      0.043107f, 0.956893f, 0, 0,
                      0.071241f, 0.143461f, 0.785298f, 0,
                      0.108557f, 0.072768f, 0.161947f, 0.656729f};
    expect_close(A, want, 16, 1e-6f);
    for (int i = 0; i < 4; i++) {
        double sum = 0;
        for (int j = 0; j < 4; j++) {
            sum += A[i * 4 + j];
            if (j > i && A[i * 4 + j] != 0.0f) fail_msg("A[%d][%d] expected: exactly 0, got: %g", i, j, (double)A[i * 4 + j]);
        }
        if (fabs(sum - 1.0) > 1e-6) fail_msg("row %d sum expected: 1, got: %.9g", i, sum);
    }
}

static void test_layernorm(void **state) {
    (void)state;
    float x[2 * 4] = {1, 2, 3, 4, -1, -1, -1, -1};
    float g[4] = {1, 2, 1, 1}, b[4] = {0, 0, 0, 1};
    float out[8];
    op_layernorm(out, x, g, b, 2, 4, 1e-5f);
    // mean 2.5, biased variance 1.25
    float s = 1.0f / sqrtf(1.25f + 1e-5f);
    float want[8] = {-1.5f * s, -0.5f * s * 2, 0.5f * s, 1.5f * s + 1, 0, 0, 0, 1};
    expect_close(out, want, 8, 1e-6f);
}

static void test_relu_add(void **state) {
    (void)state;
    float x[4] = {-2, 0, 3, -0.5f}, y[4] = {1, 1, 1, 1}, out[4];
    op_relu(out, x, 4);
    float want[4] = {0, 0, 3, 0};
    expect_close(out, want, 4, 0);
    op_add(out, x, y, 4);
    float want_add[4] = {-1, 1, 4, 0.5f};
    expect_close(out, want_add, 4, 0);
}

static void test_positional_encoding(void **state) {
    (void)state;
    float pe[3 * 4];
    op_positional_encoding(pe, 3, 4);
    // d = 4: angles pos/10000^(0/4) = pos and pos/10000^(2/4) = pos/100
    float want[12] = {0, 1, 0, 1,
                      (float)sin(1.0), (float)cos(1.0), (float)sin(0.01), (float)cos(0.01),
                      (float)sin(2.0), (float)cos(2.0), (float)sin(0.02), (float)cos(0.02)};
    expect_close(pe, want, 12, 0);
    float odd[2 * 3];  // odd d_model: the last column is a sine
    op_positional_encoding(odd, 2, 3);
    assert_true(odd[3 + 2] == (float)sin(1.0 / pow(10000.0, 2.0 / 3.0)));
}

static void test_look_ahead_mask(void **state) {
    (void)state;
    float m[9];
    op_look_ahead_mask(m, 3);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            float v = m[i * 3 + j];
            if (j <= i && v != 0.0f) fail_msg("M[%d][%d] expected: 0, got: %g", i, j, (double)v);
            if (j > i && !(isinf(v) && v < 0)) fail_msg("M[%d][%d] expected: -inf, got: %g", i, j, (double)v);
        }
}

static void test_slice_put(void **state) {
    (void)state;
    float x[2 * 4] = {1, 2, 3, 4, 5, 6, 7, 8}, part[4], back[8] = {0};
    op_slice_cols(part, x, 2, 4, 2, 2);
    float want[4] = {3, 4, 7, 8};
    expect_close(part, want, 4, 0);
    op_put_cols(back, part, 2, 4, 2, 2);
    float want_back[8] = {0, 0, 3, 4, 0, 0, 7, 8};
    expect_close(back, want_back, 8, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_linear),
        cmocka_unit_test(test_matmul),
        cmocka_unit_test(test_softmax),
        cmocka_unit_test(test_course_masked_softmax),
        cmocka_unit_test(test_layernorm),
        cmocka_unit_test(test_relu_add),
        cmocka_unit_test(test_positional_encoding),
        cmocka_unit_test(test_look_ahead_mask),
        cmocka_unit_test(test_slice_put),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
