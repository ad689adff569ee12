#!/usr/bin/python3
"""Our trainer's recipe in PyTorch eager, for comparison.

Trains the shipped models' architecture (nn.Transformer, post-norm, ReLU,
d_model 64, 4 heads, 2+2 layers, d_ff 256, no dropout; embeddings times
sqrt(d_model) plus sinusoidal positions; an untied Linear generator) on the
same corpus for the same number of steps, as `transformer-tracer train` does
in tools/train-models.sh:

- batches of 32 sentence pairs, padded to the batch's longest source S and
  longest target + 1 T; source padding masked in the encoder's
  self-attention and in cross-attention, the decoder only causally masked;
- token loss: cross-entropy with label smoothing 0.1 over the non-pad
  targets, plus the alignment loss (Garg et al., 2019) of decoder layer 2's
  cross-attention head 1 against the gold links, weight 1;
- Adam (0.9, 0.98, 1e-9), lr 0.002 with 200 warm-up steps then
  lr * sqrt(200 / step), gradient norm clipped to 1; reshuffled each epoch.

Decoder layer 2's head-1 weights come from running the decoder layer by layer
with need_weights=True, average_attn_weights=False on that layer's
cross-attention; the encoder is the stock module. Needs only torch and numpy
(Debian: python3-torch).

usage: /usr/bin/python3 bench/torch_train.py [--steps N] [--threads N]
           [--corpus FILE] [--pair-limit N] [--seed N]
"""

import argparse
import math
import os
import random
import sys
import time

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CORPUS = os.path.join(HERE, "..", "assets", "corpus", "en-zh", "train.tsv")
SPECIALS = ["<pad>", "<bos>", "<eos>", "<unk>"]
PAD, BOS, EOS = 0, 1, 2

D_MODEL, NHEAD, LAYERS, D_FF, MAX_LEN, LN_EPS = 64, 4, 2, 256, 24, 1e-5
BATCH, LR, WARMUP, BETAS, ADAM_EPS = 32, 0.002, 200, (0.9, 0.98), 1e-9
LABEL_SMOOTHING, CLIP = 0.1, 1.0
ALIGN_LAYER, ALIGN_HEAD, ALIGN_WEIGHT = 1, 0, 1.0  # decoder layer 2, head 1 (from 0 here)


def read_corpus(path, limit):
    """Returns [(src tokens, tgt tokens, [(src i, tgt j), ...])] as the C reader splits them."""
    pairs = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n").rstrip("\r")
            if not line:
                continue
            cols = line.split("\t")
            src = [t for t in cols[0].split(" ") if t]
            tgt = [t for t in cols[1].split(" ") if t]
            links = set()
            if len(cols) > 2:
                for link in cols[2].split(" "):
                    if link:
                        i, j = link.split("-")
                        links.add((int(i), int(j)))
            pairs.append((src, tgt, sorted(links)))
            if limit and len(pairs) == limit:
                break
    return pairs


def make_vocab(sentences):
    """The 4 specials, then every token in byte order."""
    toks = sorted({t for s in sentences for t in s} - set(SPECIALS), key=lambda t: t.encode("utf-8"))
    return {t: i for i, t in enumerate(SPECIALS + toks)}


def blas_in_use():
    """The BLAS library this process has loaded (Linux), to tell the reference BLAS from OpenBLAS."""
    try:
        with open("/proc/self/maps") as f:
            libs = {line.split()[-1] for line in f if "blas" in line.rsplit("/", 1)[-1]}
    except OSError:
        return "unknown"
    return ", ".join(sorted(os.path.basename(os.path.dirname(l)) + "/" + os.path.basename(l) for l in libs)) or "none"


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
    def __init__(self, src_vocab, tgt_vocab):
        super().__init__()
        # nn.Transformer initialises its matrices Xavier-uniform, as mdl_init_random does
        self.transformer = nn.Transformer(D_MODEL, NHEAD, LAYERS, LAYERS, D_FF, dropout=0.0,
                                          layer_norm_eps=LN_EPS, batch_first=True)
        self.src_embed = nn.Embedding(src_vocab, D_MODEL)
        self.tgt_embed = nn.Embedding(tgt_vocab, D_MODEL)
        self.generator = nn.Linear(D_MODEL, tgt_vocab)
        # embeddings N(0, 1/d_model), as mdl_init_random
        nn.init.normal_(self.src_embed.weight, std=1.0 / math.sqrt(D_MODEL))
        nn.init.normal_(self.tgt_embed.weight, std=1.0 / math.sqrt(D_MODEL))
        self.scale = math.sqrt(D_MODEL)
        self.register_buffer("pe", positional_encoding(MAX_LEN, D_MODEL))

    def forward(self, src, tgt_in, src_pad):
        """Returns the logits (B, T, V) and the supervised head's weights (B, T, S)."""
        S, T = src.shape[1], tgt_in.shape[1]
        x = self.src_embed(src) * self.scale + self.pe[:S]
        mem = self.transformer.encoder(x, src_key_padding_mask=src_pad)
        causal = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
        y = self.tgt_embed(tgt_in) * self.scale + self.pe[:T]
        head = None
        for l, layer in enumerate(self.transformer.decoder.layers):
            # post-norm decoder layer, as TransformerDecoderLayer with norm_first=False
            sa = layer.self_attn(y, y, y, attn_mask=causal, need_weights=False)[0]
            y = layer.norm1(y + sa)
            if l == ALIGN_LAYER:
                ca, w = layer.multihead_attn(y, mem, mem, key_padding_mask=src_pad,
                                             need_weights=True, average_attn_weights=False)
                head = w[:, ALIGN_HEAD]
            else:
                ca = layer.multihead_attn(y, mem, mem, key_padding_mask=src_pad, need_weights=False)[0]
            y = layer.norm2(y + ca)
            y = layer.norm3(y + layer.linear2(layer.activation(layer.linear1(y))))
        y = self.transformer.decoder.norm(y)
        return self.generator(y), head


def make_batch(examples, idx):
    """Padded ids, the source padding mask and the gold alignment rows (B, T, S)."""
    S = max(len(examples[i][0]) for i in idx)
    T = max(len(examples[i][1]) for i in idx) + 1
    B = len(idx)
    src = np.full((B, S), PAD, dtype=np.int64)
    tgt_in = np.full((B, T), PAD, dtype=np.int64)
    tgt_out = np.full((B, T), PAD, dtype=np.int64)
    align = np.zeros((B, T, S), dtype=np.float32)
    for b, i in enumerate(idx):
        s, t, links = examples[i]
        src[b, :len(s)] = s
        tgt_in[b, 0] = BOS
        tgt_in[b, 1:len(t) + 1] = t
        tgt_out[b, :len(t)] = t
        tgt_out[b, len(t)] = EOS
        for si, tj in links:
            align[b, tj, si] = 1.0
    sums = align.sum(axis=2, keepdims=True)
    np.divide(align, sums, out=align, where=sums > 0)
    src = torch.from_numpy(src)
    return src, torch.from_numpy(tgt_in), torch.from_numpy(tgt_out), src == PAD, torch.from_numpy(align)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--corpus", default=DEFAULT_CORPUS)
    ap.add_argument("--pair-limit", type=int, default=0, help="read only the first N pairs (default: all)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--log-every", type=int, default=500, help="progress line every N steps (default 500)")
    ap.add_argument("--flush-denormal", action="store_true", help="torch.set_flush_denormal(True)")
    args = ap.parse_args()

    torch.set_num_threads(args.threads)
    if args.flush_denormal:
        torch.set_flush_denormal(True)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)

    t_load = time.perf_counter()
    pairs = read_corpus(args.corpus, args.pair_limit)
    src_vocab = make_vocab(p[0] for p in pairs)
    tgt_vocab = make_vocab(p[1] for p in pairs)
    # the target needs one place more, for <bos> or <eos>
    examples = [([src_vocab[t] for t in s], [tgt_vocab[t] for t in t_], links)
                for s, t_, links in pairs if len(s) <= MAX_LEN and len(t_) + 1 <= MAX_LEN]
    model = Seq2Seq(len(src_vocab), len(tgt_vocab))
    model.train()
    n_params = sum(p.numel() for p in model.parameters())
    opt = torch.optim.Adam(model.parameters(), lr=LR, betas=BETAS, eps=ADAM_EPS)
    # LambdaLR's epoch 0 is our step 1: linear warm-up, then lr * sqrt(warmup / step)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda e: (e + 1) / WARMUP if e + 1 <= WARMUP else math.sqrt(WARMUP / (e + 1)))
    token_loss_fn = nn.CrossEntropyLoss(ignore_index=PAD, label_smoothing=LABEL_SMOOTHING)
    B = min(BATCH, len(examples))
    order = list(range(len(examples)))
    rng.shuffle(order)
    print(f"torch {torch.__version__} (BLAS: {blas_in_use()}), {torch.get_num_threads()} thread{'s' if args.threads > 1 else ''}; "
          f"{len(examples)} pairs, vocabularies {len(src_vocab)} + {len(tgt_vocab)}, {n_params} parameters, "
          f"{args.steps} steps of {B} pairs (setup {time.perf_counter() - t_load:.2f} s)", flush=True)

    pos, ema_loss, right, counted, tokens_seen = 0, None, 0, 0, 0
    window = 100
    start = time.perf_counter()
    first_window, last_acc, last_n = None, float("nan"), 0
    for step in range(1, args.steps + 1):
        if pos + B > len(examples):  # next epoch
            rng.shuffle(order)
            pos = 0
        src, tgt_in, tgt_out, src_pad, align = make_batch(examples, order[pos:pos + B])
        pos += B
        logits, head = model(src, tgt_in, src_pad)
        token_loss = token_loss_fn(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1))
        # alignment loss: -sum g log A over the rows with gold links, averaged over them
        supervised = align.sum(dim=2) > 0
        row_ce = -(align * torch.log(head.clamp_min(1e-12))).sum(dim=2)
        align_loss = row_ce[supervised].mean() if bool(supervised.any()) else head.sum() * 0.0
        loss = token_loss + ALIGN_WEIGHT * align_loss
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP)
        opt.step()
        sched.step()

        tokens_seen += src.numel() + tgt_in.numel()
        with torch.no_grad():
            real = tgt_out != PAD
            right += int((logits.argmax(dim=-1)[real] == tgt_out[real]).sum())
            counted += int(real.sum())
        tl = float(token_loss)
        ema_loss = tl if ema_loss is None else 0.95 * ema_loss + 0.05 * tl
        if step == window:
            first_window = time.perf_counter() - start
        if step % args.log_every == 0 or step == args.steps:
            t = time.perf_counter() - start
            print(f"{step}/{args.steps}  loss {ema_loss:.3f}  align {float(align_loss):.3f}  "
                  f"acc {100.0 * right / max(counted, 1):5.1f}% (last {(step - 1) % window + 1} steps)  "
                  f"{tokens_seen / t:.0f} tok/s  {t:.1f} s", flush=True)
        if step % window == 0 or step == args.steps:
            last_acc, last_n = 100.0 * right / max(counted, 1), (step - 1) % window + 1
            right = counted = 0
    wall = time.perf_counter() - start
    if first_window is not None:
        print(f"first {window} steps: {first_window:.2f} s ({1000 * first_window / window:.1f} ms/step)")
    print(f"torch_train: {args.steps} steps in {wall:.2f} s, {1000 * wall / args.steps:.1f} ms/step, "
          f"{args.steps / wall:.1f} steps/s, {tokens_seen / wall:.0f} tok/s; "
          f"final loss {ema_loss:.3f} (EMA of the token loss), "
          f"token accuracy {last_acc:.1f}% (last {last_n} steps)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
