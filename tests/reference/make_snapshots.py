#!/usr/bin/env python3
"""PyTorch reference for the training history (docs/TRACE.md, "Attention learning").

Reads the shipped models' snapshots (assets/models/NAME.snapshots.safetensors:
F16 weights at each snapshot step, with numpy's own float16), loads each into
nn.Transformer (via make_reference's Seq2Seq) and runs the teacher-forced
sentence below, writing tests/data/reference/ref_snapshots.json: per snapshot
its step, the mean loss, the loss and the probabilities at each position, and
every decoder self- and cross-attention weight (layers, then heads), which tests/test_snapshots.c
compares the trace of each snapshot against. Also checks that the last
snapshot is the model rounded to F16, and en-zh's first its untrained twin.

Needs only torch (tested with 1.13), numpy and the standard library; the
output is deterministic. Run from the repository root:

    python3 tests/reference/make_snapshots.py
"""

import json
import struct
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_reference as mr  # noqa: E402
import make_experiments as mx  # noqa: E402

torch = mr.torch
MODELS = mr.REPO_ROOT / "assets" / "models"


def read(path):
    """(metadata, {name: float32 array}) of a safetensors file of F32 or F16 tensors."""
    raw = Path(path).read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n].decode("utf-8"))
    meta = header.pop("__metadata__")
    buf = raw[8 + n:]
    out = {}
    for name, h in header.items():
        b, e = h["data_offsets"]
        dtype = {"F32": "<f4", "F16": "<f2"}[h["dtype"]]
        out[name] = np.frombuffer(buf[b:e], dtype=dtype).astype(np.float32).reshape(h["shape"])
    return meta, out


def build(meta, eps, tensors):
    cfg = dict(name="snapshot", seed=0, d_model=int(meta["d_model"]), nhead=int(meta["nhead"]),
               num_encoder_layers=int(meta["num_encoder_layers"]), num_decoder_layers=int(meta["num_decoder_layers"]),
               dim_feedforward=int(meta["dim_feedforward"]), layer_norm_eps=eps, max_len=int(meta["max_len"]),
               tied=meta["tied_generator"] == "true")
    model = mr.Seq2Seq(cfg, json.loads(meta["src_vocab"]), json.loads(meta["tgt_vocab"]))
    sd = {k: torch.from_numpy(v.copy()) for k, v in tensors.items() if not k.startswith(("src_embed.", "tgt_embed.", "generator."))}
    model.transformer.load_state_dict(sd, strict=True)
    with torch.no_grad():
        for mod, name in ((model.src_embed, "src_embed"), (model.tgt_embed, "tgt_embed"), (model.generator, "generator")):
            mod.weight.copy_(torch.from_numpy(tensors[name + ".weight"].copy()))
        model.generator.bias.copy_(torch.from_numpy(tensors["generator.bias"].copy()))
    model.eval()
    return model


# (model, sentence, target): each shipped model's history
CASES = [("en-zh", "the cat sits on the mat .", "貓 坐 在 墊子 上 。"),
         ("en-fr", "the cat sits on the mat .", "le chat est assis sur le tapis .")]


def history(name, sentence, target):
    model_meta, trained = read(MODELS / f"{name}.safetensors")
    twin_file = MODELS / f"{name}-random.safetensors"
    twin = read(twin_file)[1] if twin_file.exists() else None
    meta, tensors = read(MODELS / f"{name}.snapshots.safetensors")
    assert meta["format"] == "transformer-tracer-snapshots/1"
    eps = float(model_meta["layer_norm_eps"])
    steps = [int(s) for s in meta["steps"].split(",")]
    src_vocab, tgt_vocab = json.loads(meta["src_vocab"]), json.loads(meta["tgt_vocab"])
    src_ids = [src_vocab.index(w) for w in sentence.split()]
    tf_out = [tgt_vocab.index(w) for w in target.split()] + [mr.EOS]
    tf_in = [mr.BOS] + tf_out[:-1]
    ends = {steps[-1]: (trained, name)}
    if twin is not None:
        ends[steps[0]] = (twin, "the untrained twin")
    out = []
    for step in steps:
        weights = {k.split("/", 1)[1]: v for k, v in tensors.items() if k.startswith(f"step{step}/")}
        # the ends of the history are the shipped models, rounded to F16
        if step in ends:
            model_weights, who = ends[step]
            for k, v in weights.items():
                assert np.array_equal(v, model_weights[k].astype(np.float16).astype(np.float32)), f"step {step}: {k} is not {who}'s"
        model = build(meta, eps, weights)
        with torch.no_grad():
            r = mx.teacher_forced(model, src_ids, tf_in, tf_out, mr.causal_mask(len(tf_in), torch.float32))
        out.append({"step": step, "mean_loss": r["mean_loss"], "loss": r["loss"], "probs": r["probs"],
                    "dec_self_weights": r["dec_self_weights"], "cross_weights": r["cross_weights"]})
        print(f"{name} step {step:5d}: mean loss {r['mean_loss']:.4f}")
    return {"model_file": f"assets/models/{name}.safetensors", "sentence": sentence, "target": target, "snapshots": out}


def main():
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    data = {"format": "transformer-tracer-snapshots-reference/2", "made_by": "tests/reference/make_snapshots.py",
            "models": [history(*case) for case in CASES]}
    (mr.OUT_DIR / "ref_snapshots.json").write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    main()
