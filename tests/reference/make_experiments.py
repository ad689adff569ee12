#!/usr/bin/env python3
"""PyTorch reference for the experiments (docs/TRACE.md, "Experiments").

Reads tests/data/reference/ref_model.safetensors (made by make_reference.py)
and writes tests/data/reference/ref_experiments.json:

  no_mask   the teacher-forced sentence through nn.Transformer with no target
            mask: every decoder self- and cross-attention weight per head,
            the logits, probabilities and the loss at each position

Needs only torch (tested with 1.13), numpy and the standard library; the
output is deterministic. Run from the repository root:

    python3 tests/reference/make_experiments.py
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_reference as mr  # noqa: E402

torch, nn, F = mr.torch, mr.nn, mr.F

MODEL = "ref_model"


def teacher_forced(model, src_ids, tf_in, tf_out, mask):
    """One teacher-forced pass: by layers for the weights, checked against
    the whole nn.Transformer; returns the values the C tests compare."""
    tr = model.transformer
    E = model.cfg["d_model"]
    pe = torch.from_numpy(mr.positional_encoding(model.cfg["max_len"], E)).float()
    src_x = mr.embed(model.src_embed.weight, src_ids, pe, E)
    tgt_x = mr.embed(model.tgt_embed.weight, tf_in, pe, E)
    mem, _ = mr.encoder_by_layers(tr, src_x)
    out, self_w, cross_w = mr.decoder_by_layers(tr, tgt_x, mem, mask)
    full = tr(src_x, tgt_x, tgt_mask=mask)
    torch.testing.assert_close(out, full, **mr.TOL32)
    logits = model.generator(full)[0]
    probs = torch.softmax(logits, dim=-1)
    loss = F.cross_entropy(logits, torch.tensor(tf_out), reduction="none")
    return {
        "dec_self_weights": mr.stack_list(self_w),
        "cross_weights": mr.stack_list(cross_w),
        "logits": mr.tolist(logits),
        "probs": mr.tolist(probs),
        "loss": mr.tolist(loss),
        "mean_loss": float(loss.mean().item()),
    }


def main():
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    model, _ = mr.load_model_from_file(mr.OUT_DIR / (MODEL + ".safetensors"))
    src_ids = [mr.SRC_VOCAB.index(w) for w in mr.SRC_SENTENCE.split()]
    tf_out = [mr.TGT_VOCAB.index(w) for w in mr.TF_TARGET.split()] + [mr.EOS]
    tf_in = [mr.BOS] + tf_out[:-1]
    with torch.no_grad():
        masked = teacher_forced(model, src_ids, tf_in, tf_out, mr.causal_mask(len(tf_in), torch.float32))
        no_mask = teacher_forced(model, src_ids, tf_in, tf_out, None)
    data = {
        "model_file": MODEL + ".safetensors",
        "src_ids": src_ids,
        "tf_tgt_in_ids": tf_in,
        "tf_tgt_out_ids": tf_out,
        "masked_mean_loss": masked["mean_loss"],
        "no_mask": no_mask,
    }
    path = mr.OUT_DIR / "ref_experiments.json"
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        json.dump(data, f, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False)
        f.write("\n")
    print(f"mean loss: with the mask {masked['mean_loss']:.6f}, without {no_mask['mean_loss']:.6f}")
    print(f"wrote {path.relative_to(mr.REPO_ROOT)} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
