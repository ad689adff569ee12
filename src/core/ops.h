// Small numeric kernels, output first. Matrices are row-major float32.
#ifndef TT_OPS_H
#define TT_OPS_H

// out (n, d) = x (n, k) @ w^T + b, with w (d, k) as in torch.nn.Linear; b may be NULL.
void op_linear(float *out, const float *x, const float *w, const float *b, int n, int k, int d);
// out (n, m) = a (n, k) @ b^T for b (m, k), times scale.
void op_matmul_nt(float *out, const float *a, const float *b, int n, int k, int m, float scale);
// out (n, m) = a (n, k) @ b (k, m).
void op_matmul_nn(float *out, const float *a, const float *b, int n, int k, int m);
// Row-wise softmax. Rows may hold -INFINITY (those entries become exactly 0);
// a row of only -INFINITY becomes all 0.
void op_softmax_rows(float *out, const float *in, int rows, int cols);
// Row-wise LayerNorm over cols with biased variance, as torch.nn.LayerNorm.
void op_layernorm(float *out, const float *x, const float *gamma, const float *beta, int rows, int cols, float eps);
void op_relu(float *out, const float *x, int n);
// out = a + b, n elements.
void op_add(float *out, const float *a, const float *b, int n);
// Sinusoidal positional encoding (n, d): PE(p, 2i) = sin(p / 10000^(2i/d)),
// PE(p, 2i+1) = cos(p / 10000^(2i/d)).
void op_positional_encoding(float *out, int n, int d);
// Look-ahead mask (t, t): 0 on and below the diagonal, -INFINITY above.
void op_look_ahead_mask(float *out, int t);
// Copies columns [col0, col0 + w) of x (n, stride) into out (n, w).
void op_slice_cols(float *out, const float *x, int n, int stride, int col0, int w);
// Writes a (n, w) into columns [col0, col0 + w) of out (n, stride).
void op_put_cols(float *out, const float *a, int n, int stride, int col0, int w);


// ---- for training ----
// Backward of op_linear: dx (n, k) += dy·w, dw (d, k) += dyᵀ·x, db (d) += Σ_rows dy.
// dx, dw and db may each be NULL.
void op_linear_backward(float *dx, float *dw, float *db, const float *dy, const float *x, const float *w, int n, int k, int d);
// LayerNorm that also keeps x̂ = (x − μ)/σ (rows × cols) and 1/σ (rows) for the backward pass.
void op_layernorm_cached(float *out, float *xhat, float *rstd, const float *x, const float *gamma, const float *beta, int rows,
                         int cols, float eps);
// Backward of LayerNorm: dx = (1/σ)·(dx̂ − mean(dx̂) − x̂·mean(dx̂·x̂)) with dx̂ = dy·γ, written
// (not added) to dx; dgamma and dbeta are accumulated.
void op_layernorm_backward(float *dx, float *dgamma, float *dbeta, const float *dy, const float *xhat, const float *rstd,
                           const float *gamma, int rows, int cols);
// Backward of a row softmax y: dx = y·(dy − Σ dy·y), written to dx (may alias dy).
void op_softmax_backward(float *dx, const float *dy, const float *y, int rows, int cols);

#endif
