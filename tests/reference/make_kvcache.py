#!/usr/bin/env python3
"""PyTorch reference for what a KV cache saves (docs/TRACE.md, "The KV cache").

Counts the multiply-adds of the matrix products PyTorch actually runs while
translating, by watching every matrix product at PyTorch's dispatcher
(mm, addmm, bmm, baddbmm: m x k x n multiply-adds each):

  without_kv_cache  the encoder once, then at each step nn.Transformer's own
                    decoder over the whole prefix again, and the generator
                    on the last position (as a decoder that keeps nothing)
  with_kv_cache     the encoder once, then at each step a decoder written out
                    with the same modules' weights that computes only the
                    new position's row, keeping each layer's K and V and the
                    memory's K and V from step 1; its output is checked
                    against nn.Transformer's at every step

for a few models and lengths, and writes tests/data/reference/ref_kvcache.json,
which tests/test_kvcache.c compares kv_cost against. The weights are random:
the counts depend on the shapes alone. Needs only torch (tested with 1.13) and
the standard library. Run from the repository root:

    python3 tests/reference/make_kvcache.py
"""

import json
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode

OUT = Path(__file__).resolve().parents[1] / "data" / "reference" / "ref_kvcache.json"

# (name, d_model, nhead, encoder layers, decoder layers, d_ff, target vocabulary, source length, decoding steps)
CASES = [
    ("small", 16, 4, 2, 2, 40, 23, 5, 6),
    ("toy", 64, 4, 2, 2, 128, 217, 7, 7),
    ("one step", 12, 3, 1, 2, 24, 11, 3, 1),
    ("paper base", 512, 8, 6, 6, 2048, 37000, 7, 7),
]

aten = torch.ops.aten


class MatmulCount(TorchDispatchMode):
    """Adds up m * k * n over every matrix product run inside it."""

    def __init__(self):
        super().__init__()
        self.macs = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        packet = func._overloadpacket
        if packet in (aten.mm, aten.addmm):
            a, b = (args[1], args[2]) if packet is aten.addmm else (args[0], args[1])
            self.macs += a.shape[0] * a.shape[1] * b.shape[1]
        elif packet in (aten.bmm, aten.baddbmm):
            a, b = (args[1], args[2]) if packet is aten.baddbmm else (args[0], args[1])
            self.macs += a.shape[0] * a.shape[1] * a.shape[2] * b.shape[2]
        elif packet in (aten.matmul, aten.dot, aten.mv, aten.addmv, aten.einsum):
            raise RuntimeError(f"uncounted product {packet}")
        return func(*args, **kwargs)


def attention_row(x, w, b, keys, values, nhead):
    """One query row against kept keys and values: (1, E) -> (1, E) before out_proj."""
    E = x.shape[-1]
    dk = E // nhead
    q = F.linear(x, w, b).view(nhead, 1, dk) / dk ** 0.5
    weights = torch.softmax(torch.bmm(q, keys.transpose(1, 2)), dim=-1)
    return torch.bmm(weights, values).reshape(1, E)


def split_heads(t, nhead):
    n, E = t.shape
    return t.view(n, nhead, E // nhead).transpose(0, 1)


def cached_step(layers, x, cache, memory, nhead):
    """The decoder for the new position only; cache holds each layer's K, V
    (heads, positions, d_k) and the memory's K, V."""
    E = x.shape[-1]
    for i, layer in enumerate(layers):
        sa, ca = layer.self_attn, layer.multihead_attn
        kv = F.linear(x, sa.in_proj_weight[E:], sa.in_proj_bias[E:])
        k, v = split_heads(kv[:, :E], nhead), split_heads(kv[:, E:], nhead)
        c = cache[i]
        c["k"] = k if c.get("k") is None else torch.cat([c["k"], k], dim=1)
        c["v"] = v if c.get("v") is None else torch.cat([c["v"], v], dim=1)
        h = attention_row(x, sa.in_proj_weight[:E], sa.in_proj_bias[:E], c["k"], c["v"], nhead)
        x = layer.norm1(x + sa.out_proj(h))
        if c.get("mk") is None:  # the memory's K and V: once, at step 1
            mkv = F.linear(memory, ca.in_proj_weight[E:], ca.in_proj_bias[E:])
            c["mk"], c["mv"] = split_heads(mkv[:, :E], nhead), split_heads(mkv[:, E:], nhead)
        h = attention_row(x, ca.in_proj_weight[:E], ca.in_proj_bias[:E], c["mk"], c["mv"], nhead)
        x = layer.norm2(x + ca.out_proj(h))
        x = layer.norm3(x + layer.linear2(F.relu(layer.linear1(x))))
    return x


def count(case):
    name, E, H, n_enc, n_dec, d_ff, V, S, T = case
    torch.manual_seed(7)
    tr = nn.Transformer(d_model=E, nhead=H, num_encoder_layers=n_enc, num_decoder_layers=n_dec,
                        dim_feedforward=d_ff, dropout=0.0, batch_first=True, norm_first=False)
    tr.encoder.norm = None  # no final norms: LayerNorm has no matrix product either way
    tr.decoder.norm = None
    generator = nn.Linear(E, V)
    tr.eval()  # gradients stay on: nn.Transformer's fused path would hide the products
    src = torch.randn(1, S, E)
    tgt = torch.randn(1, T, E)  # the decoder's inputs, one a step (the embeddings multiply nothing)
    counts = {}
    for cached in (False, True):
        with MatmulCount() as mc:
            memory = tr.encoder(src)
            cache = [dict() for _ in range(n_dec)]
            for t in range(1, T + 1):
                full = tr.decoder(tgt[:, :t], memory, tgt_mask=nn.Transformer.generate_square_subsequent_mask(t)) \
                    if not cached else None
                if cached:
                    last = cached_step(tr.decoder.layers, tgt[0, t - 1:t], cache, memory[0], H)
                else:
                    last = full[0, t - 1:t]
                generator(last)
        counts["with_kv_cache" if cached else "without_kv_cache"] = mc.macs
    # the cached decoder is the same decoder: its row equals nn.Transformer's at every step
    with torch.no_grad():
        memory = tr.encoder(src)
        cache = [dict() for _ in range(n_dec)]
        for t in range(1, T + 1):
            full = tr.decoder(tgt[:, :t], memory, tgt_mask=nn.Transformer.generate_square_subsequent_mask(t))
            last = cached_step(tr.decoder.layers, tgt[0, t - 1:t], cache, memory[0], H)
            torch.testing.assert_close(last, full[0, t - 1:t], rtol=1e-4, atol=1e-4)
    return dict(name=name, d_model=E, nhead=H, num_encoder_layers=n_enc, num_decoder_layers=n_dec,
                dim_feedforward=d_ff, tgt_vocab_size=V, source_length=S, decoding_steps=T, **counts)


def main():
    cases = [count(c) for c in CASES]
    OUT.write_text(json.dumps({"format": "transformer-tracer-kvcache-reference/1",
                               "made_by": "tests/reference/make_kvcache.py", "cases": cases}, indent=1) + "\n")
    for c in cases:
        print(f"{c['name']}: {c['with_kv_cache']} with a KV cache, {c['without_kv_cache']} without")


if __name__ == "__main__":
    main()
