#!/usr/bin/env python3
"""Independent PyTorch reference for the C transformer core.

Writes, under tests/data/reference/ (relative to the repository root, derived
from this file's location):

  ref_model.safetensors, ref_tied.safetensors   model files (docs/MODEL_FORMAT.md)
  ref_model.json, ref_tied.json                 forward-pass reference values

Needs only torch (tested with 1.13), numpy and the standard library. The
output is deterministic: rerunning produces byte-identical files.

Run from the repository root:  python3 tests/reference/make_reference.py
"""

import copy
import json
import math
import struct
from pathlib import Path

import sys

try:
    import numpy as np
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError as e:  # pragma: no cover
    sys.exit(f"make_reference.py needs a Python with torch and numpy "
             f"(e.g. Debian's python3-torch): {e}")

REPO_ROOT = Path(__file__).resolve().parents[2]
OUT_DIR = REPO_ROOT / "tests" / "data" / "reference"

FORMAT = "transformer-tracer-model/1"

SPECIALS = ["<pad>", "<bos>", "<eos>", "<unk>"]
SRC_VOCAB = SPECIALS + [
    "i", "love", "natural", "language", "processing", "nlp", "the", "cat",
    "sits", "on", "mat", "dog", "a", "red", "big", ".", ",", "is", "and",
    "runs",
]
# Ordered so the target ids of the teacher-forcing sentence differ from the
# source ids of the source sentence (catches src/tgt vocabulary mix-ups).
TGT_VOCAB = SPECIALS + [
    "貓", "狗", "坐", "在", "墊子", "上", "的", "一", "隻", "紅色",
    "大", "。", "我", "愛", "自然", "語言", "處理", "是", "和", "，",
]
PAD, BOS, EOS, UNK = 0, 1, 2, 3

SRC_SENTENCE = "i love natural language processing"
TF_TARGET = "我 愛 自然 語言 處理"   # followed by <eos> as the last label
GREEDY_STEPS = 8

# Seeds picked (by trying a few) so that greedy decoding does not collapse to
# a single repeated token and every step's argmax wins by a clear margin
# ("min_greedy_margin" in the JSON), far above float32 rounding.
MODELS = [
    dict(name="ref_model", seed=52, d_model=16, nhead=4,
         num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=40,
         layer_norm_eps=1e-4, max_len=16, tied=False),
    dict(name="ref_tied", seed=24, d_model=12, nhead=3,
         num_encoder_layers=1, num_decoder_layers=2, dim_feedforward=24,
         layer_norm_eps=1e-5, max_len=16, tied=True),
]

# Layer-by-layer vs. torch.nn.Transformer modules (same dtype): the only
# difference is how nn.MultiheadAttention scales q when need_weights is
# False, so this can be tight.
TOL32 = dict(rtol=1e-5, atol=1e-5)
TOL64 = dict(rtol=1e-12, atol=1e-12)


# --------------------------------------------------------------------------
# Model


class Seq2Seq(nn.Module):
    def __init__(self, cfg, src_vocab, tgt_vocab):
        super().__init__()
        E = cfg["d_model"]
        self.cfg = cfg
        self.transformer = nn.Transformer(
            d_model=E, nhead=cfg["nhead"],
            num_encoder_layers=cfg["num_encoder_layers"],
            num_decoder_layers=cfg["num_decoder_layers"],
            dim_feedforward=cfg["dim_feedforward"], dropout=0.0,
            activation="relu", layer_norm_eps=cfg["layer_norm_eps"],
            batch_first=True, norm_first=False)
        self.src_embed = nn.Embedding(len(src_vocab), E)
        self.tgt_embed = nn.Embedding(len(tgt_vocab), E)
        self.generator = nn.Linear(E, len(tgt_vocab))
        if cfg["tied"]:
            self.generator.weight = self.tgt_embed.weight


def build_model(cfg):
    torch.manual_seed(cfg["seed"])
    model = Seq2Seq(cfg, SRC_VOCAB, TGT_VOCAB)
    # Move every LayerNorm away from the identity so a loader that ignores
    # (or swaps) them gets caught.
    with torch.no_grad():
        for mod in model.transformer.modules():
            if isinstance(mod, nn.LayerNorm):
                mod.weight.copy_(1.0 + 0.1 * torch.randn_like(mod.weight))
                mod.bias.copy_(0.1 * torch.randn_like(mod.bias))
    model.eval()
    return model


def model_tensors(model):
    """name -> float32 numpy array, in the file's naming."""
    out = {}
    for k, v in model.transformer.state_dict().items():
        out[k] = v.detach().float().cpu().numpy()
    out["src_embed.weight"] = model.src_embed.weight.detach().float().numpy()
    out["tgt_embed.weight"] = model.tgt_embed.weight.detach().float().numpy()
    if not model.cfg["tied"]:
        out["generator.weight"] = model.generator.weight.detach().float().numpy()
    out["generator.bias"] = model.generator.bias.detach().float().numpy()
    return out


def model_metadata(cfg):
    def vocab_str(v):
        return json.dumps(v, ensure_ascii=False, separators=(",", ":"))
    return {
        "format": FORMAT,
        "name": cfg["name"],
        "d_model": str(cfg["d_model"]),
        "nhead": str(cfg["nhead"]),
        "num_encoder_layers": str(cfg["num_encoder_layers"]),
        "num_decoder_layers": str(cfg["num_decoder_layers"]),
        "dim_feedforward": str(cfg["dim_feedforward"]),
        "layer_norm_eps": repr(float(cfg["layer_norm_eps"])),
        "max_len": str(cfg["max_len"]),
        "src_vocab": vocab_str(SRC_VOCAB),
        "tgt_vocab": vocab_str(TGT_VOCAB),
        "tied_generator": "true" if cfg["tied"] else "false",
        "activation": "relu",
        "norm_first": "false",
    }


# --------------------------------------------------------------------------
# safetensors, by hand


def write_safetensors(path, tensors, metadata):
    header = {"__metadata__": dict(metadata)}
    chunks = []
    offset = 0
    for name in sorted(tensors):
        arr = np.ascontiguousarray(tensors[name], dtype="<f4")
        data = arr.tobytes()
        header[name] = {"dtype": "F32", "shape": list(arr.shape),
                        "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    hbytes = json.dumps(header, ensure_ascii=False, sort_keys=True,
                        separators=(",", ":")).encode("utf-8")
    hbytes += b" " * ((-(8 + len(hbytes))) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(hbytes)))
        f.write(hbytes)
        for c in chunks:
            f.write(c)


def read_safetensors(path):
    raw = Path(path).read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    assert (8 + n) % 8 == 0
    header = json.loads(raw[8:8 + n].decode("utf-8"))
    meta = header.pop("__metadata__")
    buf = raw[8 + n:]
    spans = sorted(tuple(h["data_offsets"]) for h in header.values())
    pos = 0
    for b, e in spans:
        assert b == pos, "hole or overlap in data buffer"
        pos = e
    assert pos == len(buf), "data buffer not fully covered"
    tensors = {}
    for name, h in header.items():
        assert h["dtype"] == "F32"
        b, e = h["data_offsets"]
        arr = np.frombuffer(buf[b:e], dtype="<f4").reshape(h["shape"])
        tensors[name] = arr
    return meta, tensors


def load_model_from_file(path):
    """Rebuild a Seq2Seq from a model file (round-trip check)."""
    meta, t = read_safetensors(path)
    assert meta["format"] == FORMAT
    cfg = dict(name=meta["name"], seed=0, d_model=int(meta["d_model"]),
               nhead=int(meta["nhead"]),
               num_encoder_layers=int(meta["num_encoder_layers"]),
               num_decoder_layers=int(meta["num_decoder_layers"]),
               dim_feedforward=int(meta["dim_feedforward"]),
               layer_norm_eps=float(meta["layer_norm_eps"]),
               max_len=int(meta["max_len"]),
               tied=meta["tied_generator"] == "true")
    model = Seq2Seq(cfg, json.loads(meta["src_vocab"]),
                    json.loads(meta["tgt_vocab"]))
    sd = {k: torch.from_numpy(v.copy()) for k, v in t.items()
          if not k.startswith(("src_embed.", "tgt_embed.", "generator."))}
    model.transformer.load_state_dict(sd, strict=True)
    with torch.no_grad():
        model.src_embed.weight.copy_(torch.from_numpy(t["src_embed.weight"].copy()))
        model.tgt_embed.weight.copy_(torch.from_numpy(t["tgt_embed.weight"].copy()))
        if not cfg["tied"]:
            model.generator.weight.copy_(torch.from_numpy(t["generator.weight"].copy()))
        else:
            assert "generator.weight" not in t
        model.generator.bias.copy_(torch.from_numpy(t["generator.bias"].copy()))
    model.eval()
    return model, meta


# --------------------------------------------------------------------------
# Forward pass


def positional_encoding(max_len, E):
    """float64 table: PE[pos, 2i] = sin(pos / 10000^(2i/E)), PE[pos, 2i+1] = cos(...)."""
    pe = np.zeros((max_len, E), dtype=np.float64)
    for pos in range(max_len):
        for j in range(0, E, 2):
            angle = pos / (10000.0 ** (j / E))
            pe[pos, j] = math.sin(angle)
            if j + 1 < E:
                pe[pos, j + 1] = math.cos(angle)
    return pe


def embed(table, ids, pe, E):
    """table[ids] * sqrt(E) + pe[:n], in table's dtype, batch of one."""
    x = table[torch.tensor(ids)] * math.sqrt(E)
    return (x + pe[:len(ids)]).unsqueeze(0)


def causal_mask(n, dtype):
    return nn.Transformer.generate_square_subsequent_mask(n).to(dtype)


def encoder_by_layers(tr, x):
    """Post-norm TransformerEncoderLayer, spelled out. Returns (memory, weights)."""
    weights = []
    for layer in tr.encoder.layers:
        sa, w = layer.self_attn(x, x, x, need_weights=True,
                                average_attn_weights=False)
        weights.append(w[0])                                  # [H, n, n]
        x = layer.norm1(x + sa)
        ff = layer.linear2(F.relu(layer.linear1(x)))
        x = layer.norm2(x + ff)
    x = tr.encoder.norm(x)
    return x, weights


def decoder_by_layers(tr, y, mem, mask):
    """Post-norm TransformerDecoderLayer, spelled out. Returns (out, self_w, cross_w)."""
    self_w, cross_w = [], []
    for layer in tr.decoder.layers:
        sa, w1 = layer.self_attn(y, y, y, attn_mask=mask, need_weights=True,
                                 average_attn_weights=False)
        self_w.append(w1[0])                                  # [H, t, t]
        y = layer.norm1(y + sa)
        ca, w2 = layer.multihead_attn(y, mem, mem, need_weights=True,
                                      average_attn_weights=False)
        cross_w.append(w2[0])                                 # [H, t, n]
        y = layer.norm2(y + ca)
        ff = layer.linear2(F.relu(layer.linear1(y)))
        y = layer.norm3(y + ff)
    y = tr.decoder.norm(y)
    return y, self_w, cross_w


class Runner:
    """Runs one model in one dtype, checking against the torch modules."""

    def __init__(self, model, pe64, dtype):
        self.model = model
        self.E = model.cfg["d_model"]
        self.dtype = dtype
        # float32: PE computed in float64 then rounded; float64: exact table.
        self.pe = torch.from_numpy(pe64).to(dtype)
        self.tol = TOL32 if dtype == torch.float32 else TOL64
        self.max_dev = 0.0

    def check(self, mine, ref):
        torch.testing.assert_close(mine, ref, **self.tol)
        self.max_dev = max(self.max_dev, (mine - ref).abs().max().item())

    def encode(self, src_ids):
        m, tr = self.model, self.model.transformer
        src_x = embed(m.src_embed.weight, src_ids, self.pe, self.E)
        mem, enc_w = encoder_by_layers(tr, src_x)
        self.check(mem, tr.encoder(src_x))
        return src_x, mem, enc_w

    def decode(self, src_x, mem, tgt_ids):
        m, tr = self.model, self.model.transformer
        tgt_x = embed(m.tgt_embed.weight, tgt_ids, self.pe, self.E)
        mask = causal_mask(len(tgt_ids), self.dtype)
        out, self_w, cross_w = decoder_by_layers(tr, tgt_x, mem, mask)
        logits = m.generator(out)
        # Against the real modules: the decoder on our memory, and the whole
        # nn.Transformer from the embeddings.
        self.check(out, tr.decoder(tgt_x, mem, tgt_mask=mask))
        full = tr(src_x, tgt_x, tgt_mask=mask)
        self.check(out, full)
        self.check(logits, m.generator(full))
        return logits[0], self_w, cross_w


def tolist(t):
    return t.detach().cpu().tolist()


def stack_list(ws):
    return [tolist(w) for w in ws]


def run_reference(model):
    cfg = model.cfg
    E = cfg["d_model"]
    pe64 = positional_encoding(cfg["max_len"], E)
    src_ids = [SRC_VOCAB.index(w) for w in SRC_SENTENCE.split()]
    n = len(src_ids)

    r32 = Runner(model, pe64, torch.float32)
    model64 = copy.deepcopy(model).double()
    r64 = Runner(model64, pe64, torch.float64)

    src_x, mem, enc_w = r32.encode(src_ids)
    src_x64, mem64, _ = r64.encode(src_ids)

    steps = []
    tgt = [BOS]
    min_margin = 1.0
    max_prob_diff = 0.0
    max_logit_diff = 0.0
    for t in range(1, GREEDY_STEPS + 1):
        logits, self_w, cross_w = r32.decode(src_x, mem, tgt)
        last = logits[-1]
        probs = torch.softmax(last, dim=-1)
        nxt = int(torch.argmax(probs).item())
        top2 = torch.topk(probs, 2).values
        min_margin = min(min_margin, float((top2[0] - top2[1]).item()))
        # float64 on the same (float32-chosen) prefix
        logits64, _, _ = r64.decode(src_x64, mem64, tgt)
        last64 = logits64[-1]
        probs64 = torch.softmax(last64, dim=-1)
        max_prob_diff = max(max_prob_diff,
                            (probs.double() - probs64).abs().max().item())
        max_logit_diff = max(max_logit_diff,
                             (last.double() - last64).abs().max().item())
        steps.append({
            "t": t,
            "tgt_in_ids": list(tgt),
            "logits": tolist(last),
            "probs": tolist(probs),
            "logits64": tolist(last64),
            "probs64": tolist(probs64),
            "next_id": nxt,
            "dec_self_weights": stack_list(self_w),
            "cross_weights": stack_list(cross_w),
        })
        tgt.append(nxt)
    greedy = tgt[1:]

    # Teacher forcing
    tf_out = [TGT_VOCAB.index(w) for w in TF_TARGET.split()] + [EOS]
    tf_in = [BOS] + tf_out[:-1]
    tf_logits, _, _ = r32.decode(src_x, mem, tf_in)
    tf_loss = F.cross_entropy(tf_logits, torch.tensor(tf_out), reduction="none")
    tf_logits64, _, _ = r64.decode(src_x64, mem64, tf_in)
    tf_loss64 = F.cross_entropy(tf_logits64, torch.tensor(tf_out), reduction="none")

    # Causal-mask sanity check: row k-1 of the all-positions run equals the
    # last row of a run on the first k inputs only.
    for k in range(1, len(tf_in) + 1):
        part, _, _ = r32.decode(src_x, mem, tf_in[:k])
        torch.testing.assert_close(part[-1], tf_logits[k - 1], **TOL32)

    data = {
        "name": cfg["name"],
        "model_file": cfg["name"] + ".safetensors",
        "d_model": E,
        "nhead": cfg["nhead"],
        "num_encoder_layers": cfg["num_encoder_layers"],
        "num_decoder_layers": cfg["num_decoder_layers"],
        "layer_norm_eps": cfg["layer_norm_eps"],
        "src_tokens": SRC_SENTENCE.split(),
        "src_ids": src_ids,
        "pe": tolist(r32.pe[:n]),
        "src_x": tolist(src_x[0]),
        "enc_weights": stack_list(enc_w),
        "memory": tolist(mem[0]),
        "steps": steps,
        "greedy_ids": greedy,
        "greedy_tokens": [TGT_VOCAB[i] for i in greedy],
        "tf_tgt_in_ids": tf_in,
        "tf_tgt_out_ids": tf_out,
        "tf_logits": tolist(tf_logits),
        "tf_loss": tolist(tf_loss),
        "tf_mean_loss": float(tf_loss.mean().item()),
        "tf_logits64": tolist(tf_logits64),
        "tf_loss64": tolist(tf_loss64),
        "tf_mean_loss64": float(tf_loss64.mean().item()),
        "min_greedy_margin": min_margin,
        "max_abs_probs_f32_vs_f64": max_prob_diff,
        "max_abs_logits_f32_vs_f64": max_logit_diff,
    }
    stats = dict(dev32=r32.max_dev, dev64=r64.max_dev,
                 prob_diff=max_prob_diff, logit_diff=max_logit_diff)
    return data, stats


# --------------------------------------------------------------------------


def main():
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    for cfg in MODELS:
        model = build_model(cfg)
        st_path = OUT_DIR / (cfg["name"] + ".safetensors")
        write_safetensors(st_path, model_tensors(model), model_metadata(cfg))

        # Round trip: the file alone must reproduce the model's outputs.
        reloaded, _ = load_model_from_file(st_path)
        reloaded.cfg["seed"] = cfg["seed"]
        reloaded.cfg["name"] = cfg["name"]

        data, stats = run_reference(model)
        data_rt, _ = run_reference(reloaded)
        assert data_rt == data, "file round trip changed the outputs"

        js_path = OUT_DIR / (cfg["name"] + ".json")
        with open(js_path, "w", encoding="utf-8", newline="\n") as f:
            json.dump(data, f, ensure_ascii=False, sort_keys=True,
                      separators=(",", ":"), allow_nan=False)
            f.write("\n")
        print(f"{cfg['name']}: src_ids={data['src_ids']} "
              f"greedy_ids={data['greedy_ids']} {''.join(data['greedy_tokens'])} "
              f"tf_mean_loss={data['tf_mean_loss']:.6f}")
        print(f"  layer-by-layer vs nn modules: f32 {stats['dev32']:.3g}, "
              f"f64 {stats['dev64']:.3g}; |f32-f64| probs {stats['prob_diff']:.3g}, "
              f"logits {stats['logit_diff']:.3g}")
        print(f"  wrote {st_path.relative_to(REPO_ROOT)} "
              f"({st_path.stat().st_size} bytes), "
              f"{js_path.relative_to(REPO_ROOT)} ({js_path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
