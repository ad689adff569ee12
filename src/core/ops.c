#include "ops.h"

#include <math.h>
#include <string.h>

void op_linear(float *out, const float *x, const float *w, const float *b, int n, int k, int d) {
    for (int i = 0; i < n; i++) {
        const float *xi = x + (size_t)i * k;
        float *oi = out + (size_t)i * d;
        for (int j = 0; j < d; j++) {
            const float *wj = w + (size_t)j * k;
            float acc = b ? b[j] : 0.0f;
            for (int p = 0; p < k; p++) acc += xi[p] * wj[p];
            oi[j] = acc;
        }
    }
}

void op_matmul_nt(float *out, const float *a, const float *b, int n, int k, int m, float scale) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            float acc = 0.0f;
            for (int p = 0; p < k; p++) acc += a[(size_t)i * k + p] * b[(size_t)j * k + p];
            out[(size_t)i * m + j] = acc * scale;
        }
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

void op_linear_backward(float *dx, float *dw, float *db, const float *dy, const float *x, const float *w, int n, int k, int d) {
    for (int i = 0; i < n; i++) {
        const float *dyi = dy + (size_t)i * d, *xi = x + (size_t)i * k;
        float *dxi = dx ? dx + (size_t)i * k : NULL;
        for (int j = 0; j < d; j++) {
            float g = dyi[j];
            if (g == 0.0f) continue;
            if (dxi) {
                const float *wj = w + (size_t)j * k;
                for (int p = 0; p < k; p++) dxi[p] += g * wj[p];
            }
            if (dw) {
                float *dwj = dw + (size_t)j * k;
                for (int p = 0; p < k; p++) dwj[p] += g * xi[p];
            }
            if (db) db[j] += g;
        }
    }
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
