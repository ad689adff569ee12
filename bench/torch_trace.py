#!/usr/bin/python3
"""The bench's trace measurement in PyTorch eager, for comparison.

Builds the same "whole trace" as build/bench/bench does: a 12-token source,
12 greedy decoding steps with <eos> ignored, each step re-running the decoder
on the whole prefix (no key/value cache, as a tracer does), every layer run
step by step and every intermediate tensor kept, attention weights per head
(need_weights=True, average_attn_weights=False).

Cases: the default toy model (read from the safetensors file by hand) and a
paper-size model (d_model 512, 8 heads, 6+6 layers, d_ff 2048, 1000 + 1000
tokens, random weights). Each is timed with 1 thread, with torch's default
thread count and with one thread per CPU. Needs only torch and numpy (Debian: python3-torch).

usage: /usr/bin/python3 bench/torch_trace.py [--reps N] [--paper-reps N]
           [--model FILE] [--only toy|paper]
"""

import argparse
import json
import math
import os
import statistics
import struct
import sys
import time

import numpy as np
import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_MODEL = os.path.join(HERE, "..", "assets", "models", "en-zh-random.safetensors")
SENTENCE = "the big red cat sits on the small mat . i love"
SENTENCE_TOKENS = 12
DECODE_STEPS = 12
SHOW_TOP = 5
PAPER_VOCAB = 1000


def read_safetensors(path):
    """Returns (tensors: name -> float32 torch.Tensor, metadata: dict)."""
    with open(path, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n].decode("utf-8"))
    meta = header.pop("__metadata__", {})
    data = memoryview(blob)[8 + n:]
    tensors = {}
    for name, info in header.items():
        assert info["dtype"] == "F32", f"{name}: dtype {info['dtype']}, expected F32"
        begin, end = info["data_offsets"]
        arr = np.frombuffer(data[begin:end], dtype="<f4").reshape(info["shape"])
        tensors[name] = torch.from_numpy(arr.copy())
    return tensors, meta


def positional_encoding(n, d):
    """PE(p, 2i) = sin(p / 10000^(2i/d)), cos for 2i+1; in double, rounded once."""
    pe = np.zeros((n, d), dtype=np.float64)
    for p in range(n):
        for i in range(0, d, 2):
            angle = p / math.pow(10000.0, i / d)
            pe[p, i] = math.sin(angle)
            if i + 1 < d:
                pe[p, i + 1] = math.cos(angle)
    return torch.from_numpy(pe.astype(np.float32))


class Seq2Seq(nn.Module):
    def __init__(self, d_model, nhead, n_enc, n_dec, d_ff, eps, src_vocab, tgt_vocab, max_len):
        super().__init__()
        self.transformer = nn.Transformer(d_model, nhead, n_enc, n_dec, d_ff, dropout=0.0,
                                          layer_norm_eps=eps, batch_first=True)
        self.src_embed = nn.Embedding(src_vocab, d_model)
        self.tgt_embed = nn.Embedding(tgt_vocab, d_model)
        self.generator = nn.Linear(d_model, tgt_vocab)
        self.scale = float(np.float32(math.sqrt(d_model)))
        self.register_buffer("pe", positional_encoding(max_len + 1, d_model))


def load_toy(path):
    tensors, meta = read_safetensors(path)
    model = Seq2Seq(int(meta["d_model"]), int(meta["nhead"]), int(meta["num_encoder_layers"]),
                    int(meta["num_decoder_layers"]), int(meta["dim_feedforward"]),
                    float(meta["layer_norm_eps"]), len(json.loads(meta["src_vocab"])),
                    len(json.loads(meta["tgt_vocab"])), int(meta["max_len"]))
    model.src_embed.weight.data.copy_(tensors.pop("src_embed.weight"))
    model.tgt_embed.weight.data.copy_(tensors.pop("tgt_embed.weight"))
    if meta.get("tied_generator") == "true":
        model.generator.weight = model.tgt_embed.weight
    else:
        model.generator.weight.data.copy_(tensors.pop("generator.weight"))
    model.generator.bias.data.copy_(tensors.pop("generator.bias"))
    model.transformer.load_state_dict(tensors, strict=True)
    return model.eval(), json.loads(meta["src_vocab"]), json.loads(meta["tgt_vocab"])


def tokenize(vocab, text):
    ids = [vocab.index(w) for w in text.split()]
    assert len(ids) == SENTENCE_TOKENS, f"expected {SENTENCE_TOKENS} tokens, got {len(ids)}"
    return ids


def embed(model, table, ids, keep):
    tok = torch.tensor([ids])
    emb = table(tok) * model.scale
    pe = model.pe[: len(ids)].unsqueeze(0)
    x = emb + pe
    keep += [tok, emb, pe, x]
    return x


def attention(mha, q, kv, mask, keep):
    out, weights = mha(q, kv, kv, attn_mask=mask, need_weights=True, average_attn_weights=False)
    keep += [out, weights]  # weights: (1, heads, rows, cols)
    return out


def trace(model, src_ids, bos):
    """Every intermediate tensor of one whole trace, in computation order."""
    tr = model.transformer
    keep = []
    x = embed(model, model.src_embed, src_ids, keep)
    for layer in tr.encoder.layers:
        att = attention(layer.self_attn, x, x, None, keep)
        res1 = x + att
        x = layer.norm1(res1)
        hidden = torch.relu(layer.linear1(x))
        ffn = layer.linear2(hidden)
        res2 = x + ffn
        x = layer.norm2(res2)
        keep += [res1, hidden, ffn, res2, x]
    mem = tr.encoder.norm(x)
    keep.append(mem)
    seq = [bos]
    for t in range(1, DECODE_STEPS + 1):
        y = embed(model, model.tgt_embed, seq, keep)
        mask = torch.triu(torch.full((t, t), float("-inf")), diagonal=1)
        keep.append(mask)
        for layer in tr.decoder.layers:
            att = attention(layer.self_attn, y, y, mask, keep)
            res1 = y + att
            y = layer.norm1(res1)
            cross = attention(layer.multihead_attn, y, mem, None, keep)
            res2 = y + cross
            y = layer.norm2(res2)
            hidden = torch.relu(layer.linear1(y))
            ffn = layer.linear2(hidden)
            res3 = y + ffn
            y = layer.norm3(res3)
            keep += [res1, res2, hidden, ffn, res3, y]
        out = tr.decoder.norm(y)
        logits = model.generator(out[0, -1])
        probs = torch.softmax(logits, dim=-1)
        top = torch.topk(probs, SHOW_TOP)
        nxt = int(torch.argmax(probs))  # <eos> ignored: always DECODE_STEPS steps
        keep += [out, logits, probs, top.values, top.indices]
        seq.append(nxt)
    return seq[1:], keep


def time_case(name, model, src_ids, bos, reps, threads):
    torch.set_num_threads(threads)
    with torch.inference_mode():
        out, keep = trace(model, src_ids, bos)
        n_bytes = sum(t.numel() * t.element_size() for t in keep)
        for _ in range(max(1, min(20, reps // 10))):
            trace(model, src_ids, bos)
        ms = []
        for _ in range(reps):
            t0 = time.perf_counter()
            trace(model, src_ids, bos)
            ms.append((time.perf_counter() - t0) * 1e3)
    ms.sort()
    p90 = ms[math.ceil(0.9 * len(ms)) - 1]
    print(f"torch: {name} threads={threads} median_ms={statistics.median(ms):.3f} min_ms={ms[0]:.3f} "
          f"p90_ms={p90:.3f} reps={reps} tensors={len(keep)} tensor_bytes={n_bytes} "
          f"out_tokens={len(out)}", flush=True)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=200, help="timed repetitions, toy (default 200)")
    ap.add_argument("--paper-reps", type=int, default=3, help="timed repetitions, paper size (default 3)")
    ap.add_argument("--model", default=DEFAULT_MODEL, help="the toy model file")
    ap.add_argument("--only", choices=["toy", "paper"])
    a = ap.parse_args()

    default_threads = torch.get_num_threads()
    thread_counts = sorted({1, default_threads, os.cpu_count() or 1})
    print(f"torch {torch.__version__}, default threads {default_threads}, cpus {os.cpu_count()}", flush=True)
    torch.manual_seed(1)

    if a.only in (None, "toy"):
        model, src_vocab, tgt_vocab = load_toy(a.model)
        src_ids = tokenize(src_vocab, SENTENCE)
        for th in thread_counts:
            out = time_case("toy", model, src_ids, tgt_vocab.index("<bos>"), a.reps, th)
        print("torch: toy output ids " + " ".join(str(i) for i in out), flush=True)

    if a.only in (None, "paper"):
        model = Seq2Seq(512, 8, 6, 6, 2048, 1e-5, PAPER_VOCAB, PAPER_VOCAB, 64).eval()
        src_ids = [4 + (i * 83) % (PAPER_VOCAB - 4) for i in range(SENTENCE_TOKENS)]
        for th in thread_counts:
            time_case("paper", model, src_ids, 1, a.paper_reps, th)
    torch.set_num_threads(default_threads)
    return 0


if __name__ == "__main__":
    sys.exit(main())
