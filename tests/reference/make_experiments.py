#!/usr/bin/env python3
"""PyTorch reference for the experiments (docs/TRACE.md, "Experiments").

Reads tests/data/reference/ref_model.safetensors (made by make_reference.py)
and writes tests/data/reference/ref_experiments.json:

  no_mask   the teacher-forced sentence through nn.Transformer with no target
            mask: every decoder self- and cross-attention weight per head,
            the logits, probabilities and the loss at each position
  ablate    the same values with heads or sub-layers silenced, for a few
            lists as --ablate reads them: a head by zeroing its columns of
            out_proj.weight (the same as zeroing its slice of the
            concatenated head outputs before out_proj), a sub-layer by
            zeroing its output projection's weight and bias (out_proj, or
            the FFN's linear2), so the residual passes alone
  each_head the mean loss with each head silenced alone

Needs only torch (tested with 1.13), numpy and the standard library; the
output is deterministic. Run from the repository root:

    python3 tests/reference/make_experiments.py
"""

import copy
import json
import re
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


ABLATIONS = [
    "L2H1,L1H3",
    "dec.L2.cross_attn",
    "enc.L1.self_attn.H2,dec.L1.self_attn.H4,dec.L2.ffn,enc.L2.ffn",
]


def parse_item(item):
    """(side, layer, sub-layer, head or 0), as src/core/ablation.c reads a part."""
    m = re.fullmatch(r"L(\d+)H(\d+)", item)
    if m:
        return "dec", int(m[1]), "cross_attn", int(m[2])
    m = re.fullmatch(r"(enc|dec)\.L(\d+)\.(self_attn|cross_attn|ffn)(?:\.H(\d+))?", item)
    assert m, item
    return m[1], int(m[2]), m[3], int(m[4] or 0)


def silenced(model, spec):
    """A copy of model with the parts of spec silenced in its weights."""
    out = copy.deepcopy(model)
    tr = out.transformer
    E, H = out.cfg["d_model"], out.cfg["nhead"]
    dk = E // H
    with torch.no_grad():
        for item in spec.split(","):
            side, layer, sub, head = parse_item(item)
            lay = (tr.encoder if side == "enc" else tr.decoder).layers[layer - 1]
            if sub == "ffn":
                lay.linear2.weight.zero_()
                lay.linear2.bias.zero_()
                continue
            attn = lay.multihead_attn if sub == "cross_attn" else lay.self_attn
            if head:
                attn.out_proj.weight[:, (head - 1) * dk:head * dk] = 0
            else:
                attn.out_proj.weight.zero_()
                attn.out_proj.bias.zero_()
    out.eval()
    return out


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
        mask = mr.causal_mask(len(tf_in), torch.float32)
        ablate = {spec: teacher_forced(silenced(model, spec), src_ids, tf_in, tf_out, mask) for spec in ABLATIONS}
        each_head = {}
        for side, subs, layers in (("enc", ("self_attn",), model.cfg["num_encoder_layers"]),
                                   ("dec", ("self_attn", "cross_attn"), model.cfg["num_decoder_layers"])):
            for layer in range(1, layers + 1):
                for sub in subs:
                    for head in range(1, model.cfg["nhead"] + 1):
                        spec = f"{side}.L{layer}.{sub}.H{head}"
                        each_head[spec] = teacher_forced(silenced(model, spec), src_ids, tf_in, tf_out, mask)["mean_loss"]
    data = {
        "model_file": MODEL + ".safetensors",
        "src_ids": src_ids,
        "tf_tgt_in_ids": tf_in,
        "tf_tgt_out_ids": tf_out,
        "masked_mean_loss": masked["mean_loss"],
        "no_mask": no_mask,
        "ablate": ablate,
        "each_head": each_head,
    }
    path = mr.OUT_DIR / "ref_experiments.json"
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        json.dump(data, f, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False)
        f.write("\n")
    print(f"mean loss: with the mask {masked['mean_loss']:.6f}, without {no_mask['mean_loss']:.6f}")
    print(f"wrote {path.relative_to(mr.REPO_ROOT)} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
