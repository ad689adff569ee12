#!/usr/bin/env python3
"""`trace --format npz` read with NumPy's own np.load and nothing else: every
step of the JSON trace of the same run is in the npz file, value for value
(float32 both ways: the JSON's 9 digits round-trip), a decoder stage whose
steps share their rows as one array with each step's shape beside it, the
labels and settings in the member trace.json.

Usage: test_npz.py TRACER SOURCE_DIR [unittest options]

Needs Debian's python3-numpy; without it the test is skipped (exit 77).
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

try:
    import numpy as np
except ImportError:
    print("numpy is not installed (Debian: python3-numpy): skipped")
    sys.exit(77)

TRACER = None
SENTENCE = "the cat sits on the mat ."


def trace(folder, name, *args):
    """The JSON and the npz file of one run, as (dict, NpzFile)."""
    out_json, out_npz = os.path.join(folder, name + ".json"), os.path.join(folder, name + ".npz")
    for fmt, out in (("json", out_json), ("npz", out_npz)):
        r = subprocess.run([TRACER, "trace", "--src", SENTENCE, *args, "--format", fmt, "--out", out],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        if r.returncode != 0:
            raise AssertionError(f"trace {' '.join(args)} --format {fmt}: exit {r.returncode}: {r.stderr.decode()!r}")
    with open(out_json, encoding="utf-8") as f:
        return json.load(f), np.load(out_npz)


def step_values(z, arrays, s):
    """Step s of the JSON as the npz file holds it."""
    base = s["stage"] + (f".h{s['head']}" if s["head"] else "")
    if base in arrays and "steps" in arrays[base]:
        first = arrays[base]["steps"][0]
        rows, cols = z[arrays[base]["shapes"]][s["step"] - first]
        return z[base][:rows, :cols]
    name = base + (f".step{s['step']}" if s["step"] else "")
    if name not in arrays:
        raise AssertionError(f"no array {name} in the npz file")
    return z[name]


class TestNpz(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def check_run(self, name, *args):
        j, z = trace(self.tmp.name, name, *args)
        meta = json.loads(z["trace.json"])
        self.assertEqual(meta["format"], "transformer-tracer-npz/1")
        for key in ("model", "decode", "source", "output"):
            self.assertEqual(meta[key], j[key], f"{name}: {key}")
        arrays = {a["array"]: a for a in meta["arrays"]}
        npy = {f for f in z.files if f != "trace.json"}
        shapes = {a["shapes"] for a in meta["arrays"] if "shapes" in a}
        self.assertEqual(npy, set(arrays) | shapes, f"{name}: the arrays and trace.json's list of them")
        for s in j["steps"]:
            got = step_values(z, arrays, s)
            want = np.array(s["values"], dtype=np.float32).reshape(s["shape"])
            self.assertEqual(got.dtype, np.float32)
            self.assertEqual(list(got.shape), s["shape"], f"{name}: {s['stage']} head {s['head']} step {s['step']}")
            same = (got == want) | (np.isnan(got) & np.isnan(want))
            self.assertTrue(same.all(), f"{name}: {s['stage']} head {s['head']} step {s['step']}: "
                                        f"{int((~same).sum())} values differ from the JSON")
            a = arrays.get(s["stage"] + (f".h{s['head']}" if s["head"] else ""), {})
            if "steps" in a:  # the last step's labels hold every step's
                if s["row_labels"] is not None:
                    self.assertEqual(a["row_labels"][:len(s["row_labels"])], s["row_labels"])
                if s["col_labels"] is not None:
                    self.assertEqual(a["col_labels"][:len(s["col_labels"])], s["col_labels"])
        return j, z, arrays

    def test_greedy_shares_rows(self):
        j, z, arrays = self.check_run("greedy", "--max-steps", "6")
        a = arrays["dec.L1.self_attn.weights.h1"]
        self.assertEqual(a["steps"][0], 1)
        sh = z[a["shapes"]]
        self.assertEqual(sh.dtype, np.int32)
        steps = a["steps"][1]
        self.assertEqual(sh.tolist(), [[t, t] for t in range(1, steps + 1)])
        self.assertGreater(steps, 2)
        # each decoder row once: fewer arrays than steps
        self.assertLess(len(z.files), len(j["steps"]))

    def test_sample(self):
        self.check_run("sample", "--decode", "sample", "--seed", "3", "--max-steps", "5")

    def test_beam_keeps_a_step_an_array(self):
        j, z, arrays = self.check_run("beam", "--decode", "beam", "--max-steps", "4")
        self.assertIn("dec.L1.self_attn.weights.h1.step2", arrays)
        self.assertNotIn("shapes", arrays["dec.L1.self_attn.weights.h1.step2"])

    def test_teacher_forcing(self):
        self.check_run("teacher", "--target", "貓 坐 在 墊子 上 。")

    def test_padded(self):
        self.check_run("padded", "--pad-to", "9", "--max-steps", "4")

    def test_repeats_byte_for_byte(self):
        paths = []
        for k in range(2):
            p = os.path.join(self.tmp.name, f"again{k}.npz")
            subprocess.run([TRACER, "trace", "--src", SENTENCE, "--format", "npz", "--out", p], check=True, timeout=120)
            paths.append(p)
        with open(paths[0], "rb") as a, open(paths[1], "rb") as b:
            self.assertEqual(a.read(), b.read())


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    TRACER = os.path.abspath(sys.argv[1])
    unittest.main(argv=[sys.argv[0]] + sys.argv[3:])
