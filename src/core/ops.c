#include "ops.h"

#include <math.h>
#include <string.h>
#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

// Dot product with eight partial sums: the compiler can keep them in vector
// registers, and the order of the additions is fixed, so results repeat exactly.
#ifdef __wasm_simd128__
// The same sums in two WebAssembly vectors (lanes 0-3 and 4-7), for the
// browser's build with SIMD: its compiler does not find them by itself.
static float dot(const float *a, const float *b, int n) {
    v128_t lo = wasm_f32x4_splat(0.0f), hi = lo;
    int p = 0;
    for (; p + 8 <= n; p += 8) {
        lo = wasm_f32x4_add(lo, wasm_f32x4_mul(wasm_v128_load(a + p), wasm_v128_load(b + p)));
        hi = wasm_f32x4_add(hi, wasm_f32x4_mul(wasm_v128_load(a + p + 4), wasm_v128_load(b + p + 4)));
    }
    v128_t v = wasm_f32x4_add(lo, hi);  // acc[q] + acc[q + 4]
    float s = (wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 1)) +
              (wasm_f32x4_extract_lane(v, 2) + wasm_f32x4_extract_lane(v, 3));
    for (; p < n; p++) s += a[p] * b[p];
    return s;
}
#else
static float dot(const float *a, const float *b, int n) {
    float acc[8] = {0};
    int p = 0;
    for (; p + 8 <= n; p += 8)
        for (int q = 0; q < 8; q++) acc[q] += a[p + q] * b[p + q];
    float s = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
    for (; p < n; p++) s += a[p] * b[p];
    return s;
}
#endif

void op_linear(float *out, const float *x, const float *w, const float *b, int n, int k, int d) {
    for (int i = 0; i < n; i++) {
        const float *xi = x + (size_t)i * k;
        float *oi = out + (size_t)i * d;
        for (int j = 0; j < d; j++) oi[j] = (b ? b[j] : 0.0f) + dot(xi, w + (size_t)j * k, k);
    }
}

void op_matmul_nt(float *out, const float *a, const float *b, int n, int k, int m, float scale) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) out[(size_t)i * m + j] = dot(a + (size_t)i * k, b + (size_t)j * k, k) * scale;
}

void op_matmul_nn(float *out, const float *a, const float *b, int n, int k, int m) {
    for (int i = 0; i < n; i++) {
        float *oi = out + (size_t)i * m;
        for (int j = 0; j < m; j++) oi[j] = 0.0f;
        for (int p = 0; p < k; p++) {
            float aip = a[(size_t)i * k + p];
            const float *bp = b + (size_t)p * m;
            for (int j = 0; j < m; j++) oi[j] += aip * bp[j];
        }
    }
}

void op_softmax_rows(float *out, const float *in, int rows, int cols) {
    for (int r = 0; r < rows; r++) {
        const float *x = in + (size_t)r * cols;
        float *y = out + (size_t)r * cols;
        float mx = -INFINITY;
        for (int c = 0; c < cols; c++) mx = fmaxf(mx, x[c]);
        if (mx == -INFINITY) {  // nothing to attend to: all weights 0, not NaN
            for (int c = 0; c < cols; c++) y[c] = 0.0f;
            continue;
        }
        // subtract the max so exp never overflows; exp(-inf) is exactly 0
        double sum = 0.0;
        for (int c = 0; c < cols; c++) {
            y[c] = expf(x[c] - mx);
            sum += y[c];
        }
        float inv = (float)(1.0 / sum);
        for (int c = 0; c < cols; c++) y[c] *= inv;
    }
}

void op_layernorm(float *out, const float *x, const float *gamma, const float *beta, int rows, int cols, float eps) {
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * cols;
        float *yr = out + (size_t)r * cols;
        double mean = 0.0, var = 0.0;
        for (int c = 0; c < cols; c++) mean += xr[c];
        mean /= cols;
        for (int c = 0; c < cols; c++) var += (xr[c] - mean) * (xr[c] - mean);
        var /= cols;  // biased, as torch.nn.LayerNorm
        float rstd = (float)(1.0 / sqrt(var + eps));
        for (int c = 0; c < cols; c++) yr[c] = ((float)(xr[c] - mean)) * rstd * gamma[c] + beta[c];
    }
}

void op_relu(float *out, const float *x, int n) {
    for (int i = 0; i < n; i++) out[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

void op_add(float *out, const float *a, const float *b, int n) {
    for (int i = 0; i < n; i++) out[i] = a[i] + b[i];
}

void op_positional_encoding(float *out, int n, int d) {
    for (int p = 0; p < n; p++)
        for (int i = 0; i < d; i += 2) {
            // computed in double, as the reference does, then rounded once
            double angle = p / pow(10000.0, (double)i / d);
            out[(size_t)p * d + i] = (float)sin(angle);
            if (i + 1 < d) out[(size_t)p * d + i + 1] = (float)cos(angle);
        }
}

void op_look_ahead_mask(float *out, int t) {
    for (int i = 0; i < t; i++)
        for (int j = 0; j < t; j++) out[(size_t)i * t + j] = j > i ? -INFINITY : 0.0f;
}

void op_slice_cols(float *out, const float *x, int n, int stride, int col0, int w) {
    for (int i = 0; i < n; i++) memcpy(out + (size_t)i * w, x + (size_t)i * stride + col0, (size_t)w * sizeof *out);
}

void op_put_cols(float *out, const float *a, int n, int stride, int col0, int w) {
    for (int i = 0; i < n; i++) memcpy(out + (size_t)i * stride + col0, a + (size_t)i * w, (size_t)w * sizeof *out);
}

// Both products run four rows at a time, so each output row is loaded and
// stored once per four updates instead of once per update.
void op_linear_backward(float *dx, float *dw, float *db, const float *dy, const float *x, const float *w, int n, int k, int d) {
    if (dx)
        for (int i = 0; i < n; i++) {
            const float *dyi = dy + (size_t)i * d;
            float *dxi = dx + (size_t)i * k;
            int j = 0;
            for (; j + 4 <= d; j += 4) {
                float g0 = dyi[j], g1 = dyi[j + 1], g2 = dyi[j + 2], g3 = dyi[j + 3];
                const float *w0 = w + (size_t)j * k, *w1 = w0 + k, *w2 = w1 + k, *w3 = w2 + k;
                for (int p = 0; p < k; p++) dxi[p] += g0 * w0[p] + g1 * w1[p] + g2 * w2[p] + g3 * w3[p];
            }
            for (; j < d; j++)
                for (int p = 0; p < k; p++) dxi[p] += dyi[j] * w[(size_t)j * k + p];
        }
    if (dw)
        for (int j = 0; j < d; j++) {
            float *dwj = dw + (size_t)j * k;
            int i = 0;
            for (; i + 4 <= n; i += 4) {
                float g0 = dy[(size_t)i * d + j], g1 = dy[(size_t)(i + 1) * d + j];
                float g2 = dy[(size_t)(i + 2) * d + j], g3 = dy[(size_t)(i + 3) * d + j];
                const float *x0 = x + (size_t)i * k, *x1 = x0 + k, *x2 = x1 + k, *x3 = x2 + k;
                for (int p = 0; p < k; p++) dwj[p] += g0 * x0[p] + g1 * x1[p] + g2 * x2[p] + g3 * x3[p];
            }
            for (; i < n; i++)
                for (int p = 0; p < k; p++) dwj[p] += dy[(size_t)i * d + j] * x[(size_t)i * k + p];
        }
    if (db)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < d; j++) db[j] += dy[(size_t)i * d + j];
}

void op_layernorm_cached(float *out, float *xhat, float *rstd, const float *x, const float *gamma, const float *beta, int rows,
                         int cols, float eps) {
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * cols;
        double mean = 0.0, var = 0.0;
        for (int c = 0; c < cols; c++) mean += xr[c];
        mean /= cols;
        for (int c = 0; c < cols; c++) var += (xr[c] - mean) * (xr[c] - mean);
        var /= cols;
        float rs = (float)(1.0 / sqrt(var + eps));
        rstd[r] = rs;
        float *hr = xhat + (size_t)r * cols, *yr = out + (size_t)r * cols;
        for (int c = 0; c < cols; c++) {
            hr[c] = (float)(xr[c] - mean) * rs;
            yr[c] = hr[c] * gamma[c] + beta[c];
        }
    }
}

void op_layernorm_backward(float *dx, float *dgamma, float *dbeta, const float *dy, const float *xhat, const float *rstd,
                           const float *gamma, int rows, int cols) {
    for (int r = 0; r < rows; r++) {
        const float *dyr = dy + (size_t)r * cols, *hr = xhat + (size_t)r * cols;
        float *dxr = dx + (size_t)r * cols;
        double mean_d = 0.0, mean_dh = 0.0;
        for (int c = 0; c < cols; c++) {
            float dh = dyr[c] * gamma[c];
            mean_d += dh;
            mean_dh += dh * hr[c];
            dgamma[c] += dyr[c] * hr[c];
            dbeta[c] += dyr[c];
        }
        mean_d /= cols;
        mean_dh /= cols;
        for (int c = 0; c < cols; c++) dxr[c] = rstd[r] * (dyr[c] * gamma[c] - (float)mean_d - hr[c] * (float)mean_dh);
    }
}

void op_softmax_backward(float *dx, const float *dy, const float *y, int rows, int cols) {
    for (int r = 0; r < rows; r++) {
        const float *dyr = dy + (size_t)r * cols, *yr = y + (size_t)r * cols;
        double dot = 0.0;
        for (int c = 0; c < cols; c++) dot += dyr[c] * yr[c];
        float *dxr = dx + (size_t)r * cols;
        for (int c = 0; c < cols; c++) dxr[c] = yr[c] * (dyr[c] - (float)dot);
    }
}
