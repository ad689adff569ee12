#!/usr/bin/env python3
"""The command line against its contract: exit 0 on success, 2 on a usage
error, 1 on a runtime error; every error is one line on stderr that says what
and where.

Usage: test_cli.py TRACER SOURCE_DIR [unittest options]

Python 3 standard library only. Broken model files are made at test time,
in a temporary folder, from the shipped model.
"""
import json
import math
import os
import struct
import subprocess
import sys
import tempfile
import unittest

TRACER = None
SOURCE_DIR = None
DEFAULT_MODEL = None
REF_MODEL = None
ENV = None

SENTENCE = "i love natural language processing"
CRASH_SIGNS = ("Segmentation", "Aborted", "core dumped", "Sanitizer", "runtime error:", "Assertion")


def run(*args, env=None, stdout=subprocess.PIPE):
    """Runs the tracer; args may be str or bytes."""
    return subprocess.run([TRACER, *args], stdout=stdout, stderr=subprocess.PIPE,
                          env=env or ENV, timeout=120)


def text(b):
    return b.decode("utf-8", errors="replace")


class CliCase(unittest.TestCase):
    def assert_no_crash(self, r):
        err = text(r.stderr)
        self.assertGreaterEqual(r.returncode, 0, f"killed by signal {-r.returncode}; stderr: {err!r}")
        for sign in CRASH_SIGNS:
            self.assertNotIn(sign, err, f"crash sign {sign!r} on stderr: {err!r}")

    def assert_ok(self, r):
        self.assert_no_crash(r)
        self.assertEqual(r.returncode, 0, f"expected: exit 0, got: exit {r.returncode}; stderr: {text(r.stderr)!r}")

    def assert_error(self, r, code, words=(), names=()):
        """Exit code, exactly one line on stderr, nothing on stdout; the line
        holds every string in names and at least one of words (any case)."""
        self.assert_no_crash(r)
        err = text(r.stderr)
        self.assertEqual(r.returncode, code, f"expected: exit {code}, got: exit {r.returncode}; stderr: {err!r}")
        self.assertEqual(err.count("\n"), 1, f"expected: one line on stderr, got: {err!r}")
        self.assertTrue(err.endswith("\n"), f"expected: stderr ends with a newline, got: {err!r}")
        self.assertEqual(r.stdout, b"", f"expected: nothing on stdout, got: {text(r.stdout)[:200]!r}")
        for name in names:
            self.assertIn(name, err, f"expected: {name!r} in the message, got: {err!r}")
        if words:
            low = err.lower()
            self.assertTrue(any(w.lower() in low for w in words),
                            f"expected: one of {list(words)} in the message, got: {err!r}")
        return err

    def translate(self, *args):
        r = run("translate", "--src", SENTENCE, *args)
        self.assert_ok(r)
        return text(r.stdout)


class TestUsage(CliCase):
    def test_help(self):
        r = run("--help")
        self.assert_ok(r)
        out = text(r.stdout)
        self.assertIn("translate", out)
        self.assertIn("trace", out)

    def test_help_after_command(self):
        r = run("translate", "--help")
        self.assert_ok(r)
        self.assertIn("translate", text(r.stdout))

    def test_version(self):
        r = run("--version")
        self.assert_ok(r)
        self.assertEqual(text(r.stdout), "transformer-tracer 0.1.0\n")

    def test_bare_run_without_a_display(self):
        # a bare run opens the window; with no display it says so in one line
        env = {k: v for k, v in ENV.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")}
        self.assert_error(run(env=env), 1, words=("window",))

    def test_unknown_command(self):
        self.assert_error(run("frobnicate"), 2, names=("frobnicate",))

    def test_unknown_option(self):
        self.assert_error(run("translate", "--src", SENTENCE, "--frobnicate", "1"), 2, names=("--frobnicate",))

    def test_option_without_value(self):
        self.assert_error(run("translate", "--src"), 2, names=("--src",))

    def test_missing_src(self):
        self.assert_error(run("translate"), 2, names=("--src",))

    def test_target_with_translate(self):
        self.assert_error(run("translate", "--src", SENTENCE, "--target", "我"), 2, names=("--target",))

    def test_bad_decode_mode(self):
        self.assert_error(run("translate", "--src", SENTENCE, "--decode", "magic"), 2, names=("--decode", "magic"))

    def test_bad_format(self):
        for val in ("csv", "", "NPZ", "json,npz", "npz\x1b[31m"):
            with self.subTest(value=val):
                self.assert_error(run("trace", "--src", SENTENCE, "--format", val, "--out", "x.npz"), 2, names=("--format",))

    def test_bad_stages(self):
        for val in ("", "dec.L1 .q", "dec.\x1b[31m", "x" * 201):
            with self.subTest(value=val):
                self.assert_error(run("trace", "--src", SENTENCE, "--stages", val), 2, names=("--stages",))
        # well formed, but no stage of this model: a runtime error that names the pattern
        for val in ("dec.L9.ffn.out", "cross_attn", "enc.L1.self_attn.weight"):
            with self.subTest(value=val):
                self.assert_error(run("trace", "--src", SENTENCE, "--stages", val), 1, names=(val, "matches no stage"))

    def test_export_of_a_stage_left_out(self):
        # --stages that leaves out the stage asked for says so, not only "no stage"
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "x.png")
            r = run("export", "--src", SENTENCE, "--stage", "dec.L2.cross_attn.weights", "--stages", "enc.*", "--out", out)
            self.assert_error(r, 1, names=("dec.L2.cross_attn.weights", '--stages "enc.*" leaves it out'))
            self.assertFalse(os.path.exists(out))

    def test_bad_memory_limit(self):
        for val in ("", "0", "-1", "12X", "1.5G", "G", "4GB", "2000T", "99999999999999999999999"):
            with self.subTest(value=val):
                self.assert_error(run("trace", "--src", SENTENCE, "--memory-limit", val), 2, names=("--memory-limit",))

    def test_memory_limit_refuses_in_advance(self):
        for cmd in ("trace", "translate"):
            with self.subTest(command=cmd):
                r = run(cmd, "--src", SENTENCE, "--memory-limit", "600K")
                self.assert_error(r, 1, names=("needs", "over the limit of 614 kB", "--stages"))
        # the same trace of one stage fits
        r = run("trace", "--src", SENTENCE, "--memory-limit", "600K", "--stages", "dec.L*.cross_attn.weights")
        self.assert_ok(r)

    def test_npz_needs_out(self):
        self.assert_error(run("trace", "--src", SENTENCE, "--format", "npz"), 2, names=("--format npz", "--out"))

    def test_bad_numbers(self):
        cases = [("--beam", "0"), ("--beam", "-3"), ("--top-p", "2"), ("--top-p", "0"), ("--temperature", "0"),
                 ("--temperature", "-1"), ("--temperature", "nan"), ("--seed", "x"), ("--seed", "-1"),
                 ("--max-steps", "0"), ("--max-steps", "3.5"), ("--top-k", "-1"), ("--top-k", "many")]
        for opt, val in cases:
            with self.subTest(option=opt, value=val):
                self.assert_error(run("translate", "--src", SENTENCE, opt, val), 2, names=(opt,))

    def test_settings_have_the_lessons_bounds(self):
        # one function (settings.h) bounds the options and a lesson's keys, with the same words
        with tempfile.TemporaryDirectory() as tmp:
            for opt, val, bound in (("--temperature", "1e-30", "takes a number from 0.01 to 100"),
                                    ("--temperature", "101", "takes a number from 0.01 to 100"),
                                    ("--top-k", "2000000", "takes a whole number from 0 to 1000000"),
                                    ("--top-p", "1e-50", "takes a number above 0 and at most 1"),
                                    ("--max-steps", "4097", "takes a whole number from 1 to 4096")):
                with self.subTest(option=opt, value=val):
                    err = self.assert_error(run("translate", "--src", SENTENCE, opt, val), 2, names=(opt, f'{bound}, got "{val}"'))
                    lesson = os.path.join(tmp, "x.lesson")
                    with open(lesson, "w", encoding="utf-8") as f:
                        f.write(f"title: t\ntitle.zh: t\nmodel: en-zh\nsentence: {SENTENCE}\n{opt[2:]}: {val}\n"
                                "[step]\nstage: src.tokens\nsay: a\nsay.zh: b\n")
                    r = run("lint", lesson)
                    self.assertEqual(r.returncode, 1)
                    self.assertIn(f'{lesson}:5: {opt[2:]} {bound}, got "{val}"', text(r.stderr))

    def test_values_are_quoted(self):
        # an option's value is shown escaped: no control character reaches the terminal
        esc = "3\x1b[31m"
        for args, code, shown in ((("translate", "--src", SENTENCE, "--beam", esc), 2, "3U+001B[31m"),
                                  (("translate", "--src", SENTENCE, "--top-k", "1\n2"), 2, "1U+000A2"),
                                  (("translate", "--src", SENTENCE, "--seed", esc), 2, "3U+001B[31m"),
                                  (("translate", "--src", SENTENCE, "--decode", "x\u009b"), 2, "xU+009B"),
                                  (("translate", "--src", SENTENCE, "--scale", b"2\xff"), 2, "2\\xFF"),
                                  (("translate", "--src", SENTENCE, "--fro\x1b"), 2, "--froU+001B"),
                                  (("export", "--src", SENTENCE, "--stage", "enc\x1b[2J", "--out", os.devnull), 1, "encU+001B[2J")):
            with self.subTest(args=args):
                err = self.assert_error(run(*args), code, names=(shown,))
                self.assertNotIn("\x1b", err)

    def test_equals_form(self):
        r = run("translate", "--src=" + SENTENCE, "--max-steps=3")
        self.assert_ok(r)
        self.assertEqual(r.stdout, run("translate", "--src", SENTENCE, "--max-steps", "3").stdout)


class TestTranslate(CliCase):
    def test_one_line_of_tokens(self):
        out = self.translate()
        self.assertTrue(out.endswith("\n"), f"expected: a newline at the end, got: {out!r}")
        line = out[:-1]
        self.assertNotIn("\n", line, f"expected: one line, got: {out!r}")
        self.assertTrue(line, "expected: some tokens, got: an empty line")
        self.assertEqual(line, line.strip(), f"expected: no leading or trailing space, got: {line!r}")
        self.assertNotIn("  ", line, f"expected: single spaces between tokens, got: {line!r}")
        self.assertNotIn("\t", line)

    def test_repeatable(self):
        self.assertEqual(self.translate(), self.translate())

    def test_beam_1_is_greedy(self):
        self.assertEqual(self.translate("--decode", "beam", "--beam", "1"), self.translate())

    def test_sample_top_k_1_is_greedy(self):
        self.assertEqual(self.translate("--decode", "sample", "--top-k", "1", "--seed", "7"), self.translate())

    def test_sample_same_seed(self):
        a = self.translate("--decode", "sample", "--seed", "42", "--temperature", "1.5")
        b = self.translate("--decode", "sample", "--seed", "42", "--temperature", "1.5")
        self.assertEqual(a, b)

    def test_explicit_default_model(self):
        self.assertEqual(self.translate("--model", DEFAULT_MODEL), self.translate())

    def test_max_steps(self):
        out = self.translate("--max-steps", "3")
        self.assertLessEqual(len(out.split()), 3, f"expected: at most 3 tokens, got: {out!r}")

    def test_max_steps_over_the_model_limit(self):
        self.assert_error(run("translate", "--src", SENTENCE, "--max-steps", "100"), 1, names=("100", "24"))

    def test_reference_model(self):
        r = run("translate", "--model", REF_MODEL, "--src", SENTENCE, "--max-steps", "3")
        self.assert_ok(r)
        out = text(r.stdout)
        self.assertEqual(out.count("\n"), 1)
        self.assertTrue(1 <= len(out.split()) <= 3, f"expected: 1 to 3 tokens, got: {out!r}")

    def test_without_data_env(self):
        # the shipped model is found beside the binary or in the source tree
        env = dict(ENV)
        env.pop("TRANSFORMER_TRACER_DATA", None)
        r = run("translate", "--src", SENTENCE, env=env)
        self.assert_ok(r)
        self.assertEqual(text(r.stdout).count("\n"), 1)

    @unittest.skipUnless(os.path.exists("/dev/full"), "needs /dev/full")
    def test_stdout_full(self):
        for cmd in ("translate", "trace"):
            with self.subTest(command=cmd), open("/dev/full", "wb") as full:
                r = run(cmd, "--src", SENTENCE, "--max-steps", "2", stdout=full)
                self.assert_no_crash(r)
                err = text(r.stderr)
                self.assertEqual(r.returncode, 1, f"expected: exit 1, got: exit {r.returncode}; stderr: {err!r}")
                self.assertEqual(err.count("\n"), 1, f"expected: one line on stderr, got: {err!r}")
                self.assertIn("output", err)


def load_trace(test, *args):
    r = run("trace", "--src", SENTENCE, *args)
    test.assert_ok(r)
    return json.loads(r.stdout.decode("utf-8"))


def steps_of(trace, stage):
    return [s for s in trace["steps"] if s["stage"] == stage]


class TestTrace(CliCase):
    @classmethod
    def setUpClass(cls):
        r = run("trace", "--src", SENTENCE)
        cls.trace_run = r
        cls.trace = json.loads(r.stdout.decode("utf-8")) if r.returncode == 0 else None

    def setUp(self):
        self.assert_ok(self.trace_run)

    def test_format(self):
        self.assertEqual(self.trace["format"], "transformer-tracer-trace/1")
        self.assertEqual(self.trace["source"]["text"], SENTENCE)
        self.assertEqual(self.trace["source"]["source_tokens"], SENTENCE.split())

    def test_step_fields(self):
        fields = ("stage", "layer", "head", "step", "shape", "symbolic_shape", "row_labels", "col_labels",
                  "formula", "values")
        for i, s in enumerate(self.trace["steps"]):
            missing = [f for f in fields if f not in s]
            self.assertFalse(missing, f"step {i} ({s.get('stage')}): missing {missing}")
            rows, cols = s["shape"]
            where = f"step {i} ({s['stage']}, head {s['head']}, step {s['step']})"
            self.assertIsInstance(s["stage"], str)
            self.assertIsInstance(s["formula"], str)
            for f in ("layer", "head", "step"):
                self.assertIsInstance(s[f], int, f"{where}: {f}")
            self.assertEqual(len(s["symbolic_shape"]), 2, where)
            self.assertEqual(len(s["values"]), rows, f"{where}: expected: {rows} rows, got: {len(s['values'])}")
            for row in s["values"]:
                self.assertEqual(len(row), cols, f"{where}: expected: {cols} columns, got: {len(row)}")
                for v in row:
                    self.assertIsInstance(v, (int, float), where)
            if s["row_labels"] is not None:
                self.assertEqual(len(s["row_labels"]), rows, f"{where}: row_labels")
            if s["col_labels"] is not None:
                self.assertEqual(len(s["col_labels"]), cols, f"{where}: col_labels")

    def test_stages_present(self):
        stages = {s["stage"] for s in self.trace["steps"]}
        for stage in ("src.tokens", "enc.L1.self_attn.weights", "dec.look_ahead_mask",
                      "dec.L1.self_attn.masked_scores", "dec.L1.cross_attn.weights", "dec.probs", "dec.top_k",
                      "dec.choice", "out.tokens"):
            self.assertIn(stage, stages)

    def test_masked_scores(self):
        masked = steps_of(self.trace, "dec.L1.self_attn.masked_scores")
        self.assertTrue(any(s["shape"][0] > 1 for s in masked), "expected: a step with m > 1")
        for s in masked:
            for i, row in enumerate(s["values"]):
                for j, v in enumerate(row):
                    where = f"head {s['head']} step {s['step']} [{i}][{j}]"
                    if j > i:
                        self.assertEqual(v, float("-inf"), f"{where}: expected: -inf above the diagonal, got: {v}")
                    else:
                        self.assertTrue(math.isfinite(v), f"{where}: expected: a finite score, got: {v}")

    def test_look_ahead_mask_and_weights(self):
        for s in steps_of(self.trace, "dec.look_ahead_mask"):
            for i, row in enumerate(s["values"]):
                self.assertEqual(row, [0.0 if j <= i else float("-inf") for j in range(len(row))])
        for s in steps_of(self.trace, "dec.L1.self_attn.weights"):
            for i, row in enumerate(s["values"]):
                self.assertTrue(all(v == 0 for v in row[i + 1:]), f"step {s['step']} row {i}: {row}")
                self.assertAlmostEqual(sum(row), 1.0, places=4)

    def test_cross_attention_shape(self):
        n = len(SENTENCE.split())
        for s in steps_of(self.trace, "dec.L1.cross_attn.weights"):
            self.assertEqual(s["shape"], [s["step"], n])
            self.assertEqual(s["col_labels"], SENTENCE.split())

    def test_output_equals_translate(self):
        printed = self.translate().split()
        self.assertEqual(self.trace["output"]["output_tokens"], printed)
        out = steps_of(self.trace, "out.tokens")
        self.assertEqual(len(out), 1)
        self.assertEqual(out[0]["col_labels"], printed)
        self.assertEqual([c["row_labels"][0] for c in steps_of(self.trace, "dec.choice")][:len(printed)], printed)

    def test_beam(self):
        t = load_trace(self, "--decode", "beam", "--beam", "3", "--max-steps", "4")
        self.assertEqual(t["decode"]["mode"], "beam")
        self.assertTrue(steps_of(t, "dec.beam"), "expected: dec.beam steps")
        self.assertEqual(t["output"]["output_tokens"],
                         self.translate("--decode", "beam", "--beam", "3", "--max-steps", "4").split())

    def test_sample(self):
        args = ("--decode", "sample", "--seed", "3", "--top-p", "0.9", "--max-steps", "4")
        t = load_trace(self, *args)
        self.assertTrue(steps_of(t, "dec.sample"), "expected: dec.sample steps")
        self.assertEqual(t["output"]["output_tokens"], self.translate(*args).split())

    def test_teacher_forcing(self):
        t = load_trace(self, "--target", "我 愛 自然 語言 處理")
        loss = steps_of(t, "dec.loss")
        self.assertEqual(len(loss), 1)
        self.assertEqual(loss[0]["shape"], [6, 1])
        mean = t["output"]["mean_loss"]
        self.assertTrue(math.isfinite(mean) and mean > 0, f"mean_loss: {mean}")
        self.assertAlmostEqual(mean, sum(r[0] for r in loss[0]["values"]) / 6, places=4)

    def test_no_look_ahead_mask(self):
        """The experiment: said in the decode settings, the mask all 0, weight above the diagonal."""
        self.assertNotIn("look_ahead_mask", self.trace["decode"])
        for args in ((), ("--target", "我 愛 自然 語言 處理")):
            t = load_trace(self, "--no-look-ahead-mask", "--max-steps", "4", *args)
            self.assertIs(t["decode"]["look_ahead_mask"], False)
            for s in steps_of(t, "dec.look_ahead_mask"):
                self.assertTrue(all(v == 0 for row in s["values"] for v in row), f"step {s['step']}: {s['values']}")
            for s in steps_of(t, "dec.L1.self_attn.weights"):
                for i, row in enumerate(s["values"][:-1]):
                    self.assertGreater(sum(row[i + 1:]), 0, f"step {s['step']} row {i}: {row}")
                    self.assertAlmostEqual(sum(row), 1.0, places=4)
        r = run("trace", "--src", SENTENCE, "--no-look-ahead-mask=yes")
        self.assert_error(r, 2, names=("--no-look-ahead-mask",))
    def test_kv_cache_counts(self):
        """What a KV cache saves: in the JSON and from translate --kv-cache, the same counts; none in teacher forcing."""
        t = load_trace(self, "--max-steps", "5")
        out = t["output"]
        self.assertEqual(out["decoding_steps"], len(steps_of(t, "dec.choice")))
        ma = out["multiply_adds"]
        self.assertLess(ma["with_kv_cache"], ma["without_kv_cache"])
        self.assertLess(ma["paper_base_model"]["with_kv_cache"], ma["paper_base_model"]["without_kv_cache"])
        r = run("translate", "--src", SENTENCE, "--max-steps", "5", "--kv-cache")
        self.assert_ok(r)
        lines = r.stdout.decode("utf-8").splitlines()
        self.assertEqual(len(lines), 4, lines)
        self.assertIn(f"{out['decoding_steps']} decoding steps", lines[1])
        for line, counts in ((lines[2], ma), (lines[3], ma["paper_base_model"])):
            self.assertIn(f"{counts['with_kv_cache']:,} with a KV cache", line)
            self.assertIn(f"{counts['without_kv_cache']:,} without", line)
        self.assertEqual(lines[0], run("translate", "--src", SENTENCE, "--max-steps", "5").stdout.decode("utf-8").strip())
        teacher = load_trace(self, "--target", "我 愛 自然 語言 處理")
        self.assertNotIn("multiply_adds", teacher["output"])
        self.assert_error(run("translate", "--src", SENTENCE, "--kv-cache=yes"), 2, names=("--kv-cache",))

    def test_compare(self):
        """A second model on the same sentence: translate prints each one's loss and output, trace adds "compare"."""
        r = run("translate", "--src", "the cat sits on the mat .", "--compare", "en-zh-random")
        self.assert_ok(r)
        lines = r.stdout.decode("utf-8").splitlines()
        self.assertEqual(len(lines), 4, lines)
        self.assertIn("both teacher-forced on that output", lines[1])
        self.assertIn("untrained", lines[3])
        loss = [float(line.split("mean loss ")[1].split()[0]) for line in lines[2:]]
        self.assertLess(loss[0], 0.5)
        self.assertAlmostEqual(loss[1], math.log(77), delta=0.2)  # a uniform guess over 77 tokens
        r = run("trace", "--src", "the cat sits on the mat .", "--compare", "en-zh-random")
        self.assert_ok(r)
        t = json.loads(r.stdout.decode("utf-8"))
        c = t["compare"]
        self.assertAlmostEqual(c["other_mean_loss"], loss[1], places=3)
        self.assertTrue(c["same_target"])
        self.assertEqual(c["target_tokens"], t["output"]["output_tokens"])
        self.assertLess(c["mean_loss"], c["other_mean_loss"])
        r = run("trace", "--src", "the cat sits on the mat .", "--compare", "en-zh-random", "--format", "json-shared")
        self.assertEqual(json.loads(r.stdout.decode("utf-8"))["compare"], c)
        other = load_trace(self, "--compare", "en-fr")  # another target vocabulary: each on its own output
        self.assertFalse(other["compare"]["same_target"])
        self.assertEqual(other["compare"]["other_target_tokens"], other["compare"]["other_output_tokens"])
        # a model it cannot use: one line, nothing on stdout
        for model, words in (("no-such-model", ("no-such-model",)),
                             (os.path.join(SOURCE_DIR, "tests", "data", "reference", "ref_model.safetensors"), ("another source vocabulary",))):
            for cmd in ("translate", "trace"):
                with self.subTest(cmd=cmd, model=model):
                    r = run(cmd, "--src", SENTENCE, "--compare", model)
                    self.assert_error(r, 1, names=words)
                    self.assertEqual(r.stdout, b"")
        self.assert_error(run("trace", "--src", SENTENCE, "--compare", "en-zh-random", "--format", "npz", "--out", "x.npz"), 2,
                          names=("--compare",))

    def test_snapshot(self):
        """--snapshot STEP: the model at that step of its training; the last one translates as the model does."""
        r = run("trace", "--src", "the cat sits on the mat .", "--snapshot", "99")
        self.assert_ok(r)
        t = json.loads(r.stdout.decode("utf-8"))
        self.assertEqual(t["model"]["training_step"], 99)
        self.assertIn("training step 99", t["model"]["name"])
        self.assertNotIn("training_step", load_trace(self)["model"])
        last = run("translate", "--src", "the cat sits on the mat .", "--snapshot", "2000")
        self.assert_ok(last)
        self.assertEqual(last.stdout, run("translate", "--src", "the cat sits on the mat .").stdout)
        self.assert_error(run("translate", "--src", SENTENCE, "--snapshot", "100"), 1, names=("no snapshot at step 100", "0, 25, 99"))
        untrained = os.path.join(SOURCE_DIR, "assets", "models", "en-zh-random.safetensors")
        self.assert_error(run("translate", "--model", untrained, "--src", SENTENCE, "--snapshot", "0"), 1,
                          names=("no training history",))
        self.assert_error(run("translate", "--src", SENTENCE, "--snapshot", "-1"), 2, names=("--snapshot",))
        # another model's snapshots beside a model: refused in one line
        import shutil
        with tempfile.TemporaryDirectory() as d:
            models = os.path.join(SOURCE_DIR, "assets", "models")
            shutil.copy(os.path.join(models, "en-fr.safetensors"), os.path.join(d, "x.safetensors"))
            shutil.copy(os.path.join(models, "en-zh.snapshots.safetensors"), os.path.join(d, "x.snapshots.safetensors"))
            self.assert_error(run("translate", "--model", os.path.join(d, "x.safetensors"), "--src", SENTENCE, "--snapshot", "0"), 1,
                              names=("the snapshots of another model",))
            # the same configuration and vocabularies, other weights: en-zh's history beside its untrained twin
            shutil.copy(os.path.join(models, "en-zh-random.safetensors"), os.path.join(d, "x.safetensors"))
            self.assert_error(run("translate", "--model", os.path.join(d, "x.safetensors"), "--src", SENTENCE, "--snapshot", "2000"), 1,
                              names=("the snapshots of another model", "not this model's weights"))

    def test_json_shared(self):
        """Each decoder row once: a step a later one extends points at it, and its values are that step's first rows and columns."""
        for args in ((), ("--decode", "sample", "--seed", "3"), ("--decode", "beam"), ("--pad-to", "7")):
            with self.subTest(args=args):
                whole = json.loads(run("trace", "--src", SENTENCE, "--max-steps", "6", *args).stdout)
                r = run("trace", "--src", SENTENCE, "--max-steps", "6", "--format", "json-shared", *args)
                self.assert_ok(r)
                t = json.loads(r.stdout)
                self.assertIs(t["shared_rows"], True)
                self.assertEqual(len(t["steps"]), len(whole["steps"]))
                pointed = 0
                for s, w in zip(t["steps"], whole["steps"]):
                    self.assertEqual({k: v for k, v in s.items() if k not in ("values", "values_in")},
                                     {k: v for k, v in w.items() if k != "values"})
                    values = s["values"]
                    if values is None:
                        last = t["steps"][s["values_in"]]
                        self.assertGreater(s["values_in"], s["index"])
                        self.assertEqual((last["stage"], last["head"]), (s["stage"], s["head"]))
                        rows, cols = s["shape"]
                        values = [row[:cols] for row in last["values"][:rows]]
                        pointed += 1
                    self.assertEqual(values, w["values"], f"{s['stage']} head {s['head']} step {s['step']}")
                if "beam" in args:
                    self.assertEqual(pointed, 0)  # whole passes share nothing
                else:
                    self.assertGreater(pointed, len(t["steps"]) // 2)
                    self.assertLess(len(r.stdout), len(json.dumps(whole)) // 2)

    def test_stages(self):
        r = run("trace", "--src", SENTENCE, "--stages", "dec.L*.cross_attn.weights")
        self.assert_ok(r)
        t = json.loads(r.stdout)
        stages = {s["stage"] for s in t["steps"]}
        self.assertEqual(stages, {"dec.L1.cross_attn.weights", "dec.L2.cross_attn.weights"})
        whole = json.loads(run("trace", "--src", SENTENCE).stdout)
        want = [s for s in whole["steps"] if s["stage"] in stages]
        self.assertEqual(len(t["steps"]), len(want))
        for a, b in zip(t["steps"], want):
            self.assertEqual({k: v for k, v in a.items() if k != "index"}, {k: v for k, v in b.items() if k != "index"})
        self.assertEqual(t["output"], whole["output"])

    def test_ablate(self):
        """Silenced parts: listed in the decode settings, the output changed, bad lists one line each."""
        t = load_trace(self, "--ablate", "L2H1,dec.L2.cross_attn", "--max-steps", "5")
        self.assertEqual(t["decode"]["ablate"], ["dec.L2.cross_attn.H1", "dec.L2.cross_attn"])
        self.assertNotIn("ablate", self.trace["decode"])
        for s in steps_of(t, "dec.L2.cross_attn.out_proj"):
            self.assertTrue(all(v == 0 for row in s["values"] for v in row))
        # without both cross-attentions the decoder cannot see the source: it cannot translate it
        self.assertNotEqual(self.translate("--ablate", "dec.L1.cross_attn,dec.L2.cross_attn"), self.translate())
        self.assertEqual(self.translate("--ablate", "none"), self.translate())
        t = load_trace(self, "--target", "我 愛 自然 語言 處理", "--each-head")
        self.assertEqual(len(t["output"]["each_head"]), 6 * 4)
        self.assertIn("dec.L2.cross_attn.H4", t["output"]["each_head"])
        for args, names in ((("--ablate", "dec.L3.cross_attn"), ("dec.L3.cross_attn", "2 layers")),
                            (("--ablate", "L1H9"), ("dec.L1.cross_attn.H9", "4 heads")),
                            (("--ablate", "dec.L1.crossattn"), ("--ablate", "dec.L1.crossattn")),
                            (("--each-head",), ("teacher forcing",))):
            self.assert_error(run("trace", "--src", SENTENCE, *args), 2 if "--ablate" in names else 1, names=names)

    def test_pad_to(self):
        # the source padded as in a training batch: the pads are masked, nothing real changes
        words = SENTENCE.split()
        n, pad_to = len(words), len(words) + 3
        t = load_trace(self, "--pad-to", str(pad_to))
        self.assertEqual(t["decode"]["pad_to"], pad_to)
        self.assertEqual(t["output"]["output_tokens"], self.trace["output"]["output_tokens"])
        self.assertEqual(self.translate("--pad-to", str(pad_to)), self.translate())
        tokens, mask = t["steps"][0], t["steps"][1]
        self.assertEqual((tokens["stage"], mask["stage"]), ("src.tokens", "src.padding_mask"))
        self.assertEqual(mask["kind"], "mask")
        self.assertEqual(mask["col_labels"], words + ["<pad>"] * 3)
        self.assertEqual(mask["values"], [[0.0] * n + [float("-inf")] * 3])
        for stage in ("enc.L1.self_attn.masked_scores", "dec.L2.cross_attn.masked_scores"):
            self.assertTrue(steps_of(t, stage), f"expected: {stage} steps")
            self.assertFalse(steps_of(self.trace, stage), f"expected: no {stage} without --pad-to")
        for stage in ("enc.L2.self_attn.weights", "dec.L1.cross_attn.weights"):
            for s in steps_of(t, stage):
                self.assertEqual(s["shape"][1], pad_to)
                for row in s["values"]:
                    self.assertEqual(row[n:], [0.0] * 3, f"{stage} head {s['head']} step {s['step']}: {row}")
        for probs, want in zip(steps_of(t, "dec.probs"), steps_of(self.trace, "dec.probs")):
            diff = max(abs(a - b) for a, b in zip(probs["values"][0], want["values"][0]))
            self.assertLessEqual(diff, 1e-5, f"dec.probs step {probs['step']}: maxdiff {diff}")
        self.assert_error(run("trace", "--src", SENTENCE, "--pad-to", str(n - 1)), 1, names=("pad-to", str(n - 1)))
        self.assert_error(run("translate", "--src", SENTENCE, "--pad-to", "30"), 1, names=("30", "24"))
        self.assert_error(run("translate", "--src", SENTENCE, "--pad-to", "six"), 2, names=("--pad-to",))


class TestSpecialTokens(CliCase):
    """Decoding never chooses <pad>, <bos> or <unk> unless --allow-special;
    with it, the trace is the one of the program before they were excluded."""

    LETTER = "the big boy reads a red letter ."
    # SHA-256 of [output, steps] (json.dumps, sorted keys) as written by the
    # program before the exclusion (built from aa92985^, run on the shipped
    # models); "pad" draws <pad> at step 1
    BEFORE = {
        "pad": ("en-fr", ("--decode", "sample", "--temperature", "2", "--seed", "155"),
                "89eda571757cb79f4aa2f2b7864847ecca6ec02bed5ab6b27f21e47c4ce3ea44"),
        "sample": ("en-fr", ("--decode", "sample", "--seed", "4"),
                   "e0f1afffa519f236a1a00e36a37148250282bf457d3c9afb5ba526f6deba5a62"),
        "beam": ("en-fr", ("--decode", "beam"), "db91e9801be3a4f9f346aa202e57f5917168e20ceb879f156f2d93e1b6d25636"),
    }

    def trace(self, model, *args):
        path = os.path.join(SOURCE_DIR, "assets", "models", model + ".safetensors")
        r = run("trace", "--model", path, "--src", self.LETTER, *args)
        self.assert_ok(r)
        return json.loads(r.stdout.decode("utf-8"))

    def test_allowed_is_the_old_behaviour_bit_for_bit(self):
        import hashlib
        for name, (model, args, want) in self.BEFORE.items():
            with self.subTest(name):
                t = self.trace(model, *args, "--allow-special")
                self.assertEqual(t["decode"]["special_tokens"], "allowed")
                # (the output's decoding_steps and multiply_adds came later: they are not part of what was decoded)
                output = {k: v for k, v in t["output"].items() if k not in ("decoding_steps", "multiply_adds")}
                got = hashlib.sha256(json.dumps([output, t["steps"]], sort_keys=True).encode()).hexdigest()
                self.assertEqual(got, want)

    def test_excluded_by_default(self):
        for name, (model, args, _) in self.BEFORE.items():
            with self.subTest(name):
                t = self.trace(model, *args)
                self.assertEqual(t["decode"]["special_tokens"], "excluded")
                for tok in t["output"]["output_tokens"]:
                    self.assertNotIn(tok, ("<pad>", "<bos>", "<unk>"))
                for s in steps_of(t, "dec.choice"):
                    self.assertNotIn(s["row_labels"][0], ("<pad>", "<bos>", "<unk>"))
                for s in steps_of(t, "dec.sample"):
                    labels = s["col_labels"]
                    for special in ("<pad>", "<bos>", "<unk>"):
                        self.assertEqual(s["values"][0][labels.index(special)], 0.0, f"step {s['step']} {special}")
        # the allowed run draws <pad> at step 1; now the draw lands on a word
        t = self.trace("en-fr", *self.BEFORE["pad"][1], "--allow-special")
        self.assertEqual(t["output"]["output_tokens"][0], "<pad>")
        t = self.trace("en-fr", *self.BEFORE["pad"][1])
        self.assertNotEqual(t["output"]["output_tokens"][0], "<pad>")

    def test_teacher_forcing_records_no_choice(self):
        r = run("trace", "--src", SENTENCE, "--target", "我 愛 自然 語言 處理")
        self.assert_ok(r)
        self.assertNotIn("special_tokens", json.loads(r.stdout.decode("utf-8"))["decode"])

    def test_flag_takes_no_value(self):
        self.assert_error(run("translate", "--src", SENTENCE, "--allow-special=yes"), 2, names=("--allow-special",))


class TestTraceOut(CliCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def test_writes_file(self):
        path = os.path.join(self.dir, "trace.json")
        with open(path, "w") as f:
            f.write("old")
        r = run("trace", "--src", SENTENCE, "--max-steps", "2", "--out", path)
        self.assert_ok(r)
        self.assertEqual(r.stdout, b"")
        with open(path, encoding="utf-8") as f:
            t = json.load(f)
        self.assertEqual(t["format"], "transformer-tracer-trace/1")
        self.assertEqual(os.listdir(self.dir), ["trace.json"], "expected: no temporary file left")

    def test_missing_folder(self):
        path = os.path.join(self.dir, "no-such-folder", "trace.json")
        self.assert_error(run("trace", "--src", SENTENCE, "--out", path), 1, names=(path,))
        self.assertEqual(os.listdir(self.dir), [])

    def test_npz_file(self):
        path = os.path.join(self.dir, "trace.npz")
        r = run("trace", "--src", SENTENCE, "--max-steps", "2", "--format", "npz", "--out", path)
        self.assert_ok(r)
        self.assertEqual(r.stdout, b"")
        with open(path, "rb") as f:
            self.assertEqual(f.read(4), b"PK\x03\x04")  # a zip (tests/test_npz.py reads it with NumPy)
        self.assertEqual(os.listdir(self.dir), ["trace.npz"], "expected: no temporary file left")
        bad = os.path.join(self.dir, "no-such-folder", "trace.npz")
        self.assert_error(run("trace", "--src", SENTENCE, "--format", "npz", "--out", bad), 1, names=(bad,))

    def test_out_is_a_folder(self):
        path = os.path.join(self.dir, "sub")
        os.mkdir(path)
        self.assert_error(run("trace", "--src", SENTENCE, "--max-steps", "1", "--out", path), 1, names=(path,))
        self.assertTrue(os.path.isdir(path))
        self.assertEqual(os.listdir(self.dir), ["sub"], "expected: no temporary file left")

    def test_failure_leaves_file_untouched(self):
        path = os.path.join(self.dir, "trace.json")
        with open(path, "wb") as f:
            f.write(b"precious")
        before = os.stat(path)
        for args in (("--model", os.path.join(self.dir, "missing.safetensors")), ("--max-steps", "999")):
            with self.subTest(args=args):
                self.assert_error(run("trace", "--src", SENTENCE, "--out", path, *args), 1)
                with open(path, "rb") as f:
                    self.assertEqual(f.read(), b"precious")
                self.assertEqual(os.stat(path).st_mtime_ns, before.st_mtime_ns)
                self.assertEqual(os.listdir(self.dir), ["trace.json"])

    def test_failure_creates_nothing(self):
        path = os.path.join(self.dir, "trace.json")
        self.assert_error(run("trace", "--src", "", "--out", path), 1)
        self.assertFalse(os.path.exists(path))


class TestWriteTargets(CliCase):
    """--out never replaces what is not a regular file, writes through a
    symbolic link, says why a write failed, and leaves no temporary file
    behind when interrupted."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def writers(self, out):
        base = os.path.join(SOURCE_DIR, "tests", "bad", "base")
        return {
            "trace": ("trace", "--src", SENTENCE, "--max-steps", "2", "--out", out),
            "export": ("export", "--src", SENTENCE, "--stage", "dec.L1.cross_attn.weights", "--out", out),
            "init": ("init", "--src-vocab", os.path.join(base, "src-vocab.txt"),
                     "--tgt-vocab", os.path.join(base, "tgt-vocab.txt"), "--out", out),
        }

    def test_not_a_regular_file_is_left_alone(self):
        targets = {"fifo": lambda p: os.mkfifo(p), "link-to-null": lambda p: os.symlink("/dev/null", p)}
        if os.geteuid() == 0 and os.path.exists("/dev/full"):  # a copy of the device node, as cp -a makes
            targets["full-copy"] = lambda p: os.mknod(p, 0o20666, os.stat("/dev/full").st_rdev)
        for name, make in targets.items():
            path = os.path.join(self.dir, name)
            make(path)
            before = os.lstat(path)
            for cmd, args in self.writers(path).items():
                with self.subTest(target=name, command=cmd):
                    r = run(*args)
                    self.assert_error(r, 1, words=("not a regular file",), names=(path,))
                    after = os.lstat(path)
                    self.assertEqual((after.st_ino, after.st_mode, after.st_rdev), (before.st_ino, before.st_mode, before.st_rdev),
                                     f"expected: {path} left as it was")
                    left = [n for n in os.listdir(self.dir) if ".tmp." in n]
                    self.assertEqual(left, [], "expected: no temporary file left")

    def test_link_is_written_through(self):
        inner = os.path.join(self.dir, "files")
        os.mkdir(inner)
        for cmd, args in self.writers(os.path.join(self.dir, "link")).items():
            with self.subTest(command=cmd):
                real = os.path.join(inner, cmd + ".out")
                with open(real, "wb") as f:
                    f.write(b"old")
                link = os.path.join(self.dir, "link")
                if os.path.lexists(link):
                    os.unlink(link)
                os.symlink(os.path.join("files", cmd + ".out"), link)
                self.assert_ok(run(*args))
                self.assertTrue(os.path.islink(link), "expected: the link stays a link")
                with open(real, "rb") as f:
                    self.assertNotEqual(f.read(3), b"old", "expected: the file the link names replaced")
                self.assertEqual(sorted(os.listdir(self.dir)), ["files", "link"], "expected: no temporary file left")
                self.assertNotIn(".tmp.", " ".join(os.listdir(inner)), "expected: no temporary file left")

    def test_failed_write_says_why(self):
        import resource
        import signal

        def small_files():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG, as a full disk with ENOSPC
            resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

        path = os.path.join(self.dir, "out")
        for cmd, args in self.writers(path).items():
            with self.subTest(command=cmd):
                with open(path, "wb") as f:
                    f.write(b"precious")
                r = subprocess.run([TRACER, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV, timeout=120,
                                   preexec_fn=small_files)
                self.assert_error(r, 1, words=(os.strerror(27),), names=(path,))  # EFBIG: File too large
                with open(path, "rb") as f:
                    self.assertEqual(f.read(), b"precious")
                self.assertEqual(os.listdir(self.dir), ["out"], "expected: no temporary file left")

    def test_interrupt_removes_temporary(self):
        import signal
        import time
        env = dict(ENV, TRANSFORMER_TRACER_TEST_PAUSE_IN_WRITE="1")  # waits, the temporary file made, for a signal
        path = os.path.join(self.dir, "out")
        for cmd, args in self.writers(path).items():
            for sig in (signal.SIGINT, signal.SIGTERM):
                with self.subTest(command=cmd, signal=sig.name):
                    with open(path, "wb") as f:
                        f.write(b"precious")
                    p = subprocess.Popen([TRACER, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
                    self.addCleanup(end_process, p)  # a failed assertion must not leave it paused for ever
                    deadline = time.monotonic() + 60
                    while len(os.listdir(self.dir)) < 2 and time.monotonic() < deadline and p.poll() is None:
                        time.sleep(0.01)
                    self.assertEqual(len(os.listdir(self.dir)), 2, f"expected: a temporary file while writing, got: {os.listdir(self.dir)}")
                    p.send_signal(sig)
                    p.communicate(timeout=60)
                    self.assertEqual(p.returncode, -sig, f"expected: ended by {sig.name}, got: {p.returncode}")
                    self.assertEqual(os.listdir(self.dir), ["out"], "expected: no temporary file left")
                    with open(path, "rb") as f:
                        self.assertEqual(f.read(), b"precious")


def end_process(p):
    if p.poll() is None:
        p.kill()
    p.communicate()


class TestFontFile(CliCase):
    def test_font_not_a_regular_file(self):
        """TRANSFORMER_TRACER_FONT naming a FIFO or a folder: one line, exit 1, no wait for a writer."""
        with tempfile.TemporaryDirectory() as d:
            fifo = os.path.join(d, "fifo")
            os.mkfifo(fifo)
            for font in (fifo, d):
                with self.subTest(font=font):
                    try:
                        r = subprocess.run([TRACER, "export", "--src", SENTENCE, "--stage", "src.tokens",
                                            "--out", os.path.join(d, "o.png")], stdout=subprocess.PIPE,
                                           stderr=subprocess.PIPE, env=dict(ENV, TRANSFORMER_TRACER_FONT=font), timeout=30)
                    except subprocess.TimeoutExpired:
                        self.fail(f"expected: a refusal, got: still running after 30 s with the font {font}")
                    self.assert_error(r, 1, words=("not a regular file",), names=("TRANSFORMER_TRACER_FONT", font))
                    self.assertFalse(os.path.exists(os.path.join(d, "o.png")))

    def test_font_broken(self):
        """A font file that is not one, or is cut short: FreeType's reason in words, exit 1, no PNG."""
        real = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"
        with open(real, "rb") as f:
            head = f.read(30000)
        cases = ((b"\x00\x01not a font at all" * 300, "unknown file format"), (b"", "is empty"),
                 (head, "table missing"))
        with tempfile.TemporaryDirectory() as d:
            for data, why in cases:
                font = os.path.join(d, "font.ttc")
                with open(font, "wb") as f:
                    f.write(data)
                with self.subTest(why=why):
                    r = subprocess.run([TRACER, "export", "--src", SENTENCE, "--stage", "src.tokens",
                                        "--out", os.path.join(d, "o.png")], capture_output=True,
                                       env=dict(ENV, TRANSFORMER_TRACER_FONT=font), timeout=60)
                    self.assert_error(r, 1, words=(why,), names=("TRANSFORMER_TRACER_FONT", font))
                    self.assertNotIn("FreeType error", text(r.stderr))
                    self.assertFalse(os.path.exists(os.path.join(d, "o.png")))


class TestSentences(CliCase):
    def test_empty(self):
        self.assert_error(run("translate", "--src", ""), 1, words=("empty",))

    def test_only_spaces(self):
        self.assert_error(run("translate", "--src", "   "), 1, words=("empty",))

    def test_invalid_utf8(self):
        self.assert_error(run("translate", "--src", b"\xff\xfe"), 1, words=("UTF-8",))
        self.assert_error(run("translate", "--src", b"i love \xc3"), 1, words=("UTF-8",))

    def test_too_long(self):
        err = self.assert_error(run("translate", "--src", " ".join(["i", "love", "the", "cat"] * 10)), 1)
        self.assertIn("24", err)
        self.assertIn("40", err)

    def test_too_long_with_an_unknown_word(self):
        err = self.assert_error(run("translate", "--src", " ".join(["i", "love", "zebras", "cat"] * 10)), 1)
        self.assertIn("24", err)

    def test_longest_accepted(self):
        r = run("translate", "--src", " ".join(["i", "love", "the", "cat"] * 6), "--max-steps", "2")
        self.assert_ok(r)

    def test_only_unknown_words(self):
        self.assert_error(run("translate", "--src", "zebra giraffe"), 1, words=("vocabulary",))

    def test_some_unknown_words(self):
        r = run("translate", "--src", "i love zebras")
        self.assert_ok(r)
        err = text(r.stderr)
        self.assertIn("zebras", err)
        self.assertEqual(err.count("\n"), 1, f"expected: one warning line, got: {err!r}")
        self.assertEqual(text(r.stdout).count("\n"), 1)

    def test_control_characters_named_never_raw(self):
        # DEL, C1 controls, the line separator and bidi overrides are refused as C0 is, by code point and byte
        for raw, name, at in ((b"i love\x7f nlp", "U+007F", 6), (b"i love \xc2\x85nlp", "U+0085", 7),
                              (b"i \xc2\x9b31m love", "U+009B", 2), (b"i love nlp\xe2\x80\xa8", "U+2028", 10),
                              (b"i \xe2\x80\xaelove", "U+202E", 2)):
            with self.subTest(name=name):
                r = run("translate", "--src", raw)
                err = self.assert_error(r, 1, names=(f"{name} at byte {at}",), words=("control character",))
                self.assertNotIn(raw.decode("utf-8")[at:at + 1], err)

    def test_unknown_target_words(self):
        r = run("trace", "--src", SENTENCE, "--target", "我 愛 斑馬", "--max-steps", "2")
        self.assert_ok(r)
        self.assertIn("斑馬", text(r.stderr))

    def test_target_too_long(self):
        err = self.assert_error(run("trace", "--src", SENTENCE, "--target", " ".join(["我"] * 40)), 1)
        self.assertIn("23", err)


# --- broken model files ---------------------------------------------------

def read_model(path):
    """Returns (header dict, data bytes) of a safetensors file."""
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    return json.loads(raw[8:8 + n].decode("utf-8")), raw[8 + n:]


def pack(header_text, data, length=None):
    """header_text: str or bytes; pads it so 8 + N is a multiple of 8."""
    head = header_text.encode("utf-8") if isinstance(header_text, str) else header_text
    head += b" " * (-(8 + len(head)) % 8)
    return struct.pack("<Q", len(head) if length is None else length) + head + data


def dumps(header):
    return json.dumps(header, ensure_ascii=False)


def tensor_list(header, data):
    """[(name, entry, bytes)] in data order."""
    items = [(k, v) for k, v in header.items() if k != "__metadata__"]
    items.sort(key=lambda kv: kv[1]["data_offsets"][0])
    return [(k, dict(v), data[v["data_offsets"][0]:v["data_offsets"][1]]) for k, v in items]


def repack(meta, tensors):
    """Lays tensors out back to back again; returns the file bytes."""
    header, blobs, off = {"__metadata__": meta}, [], 0
    for name, entry, blob in tensors:
        entry = dict(entry, data_offsets=[off, off + len(blob)])
        header[name] = entry
        blobs.append(blob)
        off += len(blob)
    return pack(dumps(header), b"".join(blobs))


class TestBadModels(CliCase):
    @classmethod
    def setUpClass(cls):
        with open(DEFAULT_MODEL, "rb") as f:
            cls.raw = f.read()
        cls.header, cls.data = read_model(DEFAULT_MODEL)
        cls.meta = cls.header["__metadata__"]
        cls.n = struct.unpack("<Q", cls.raw[:8])[0]

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def tensors(self):
        return tensor_list(self.header, self.data)

    def check(self, name, content, words):
        """Writes content to a file and expects one clear error line naming it."""
        path = os.path.join(self.tmp.name, name + ".safetensors")
        with open(path, "wb") as f:
            f.write(content)
        for cmd in ("translate", "trace"):
            r = run(cmd, "--model", path, "--src", SENTENCE)
            self.assert_error(r, 1, words=words, names=(path,))

    def test_sanity_repack(self):
        # the helpers rebuild a model the tracer accepts
        path = os.path.join(self.tmp.name, "good.safetensors")
        with open(path, "wb") as f:
            f.write(repack(self.meta, self.tensors()))
        self.assertEqual(self.translate("--model", path), self.translate())

    def test_truncated(self):
        size = len(self.raw)
        cuts = {"in the length": 3, "in the header": 8 + self.n // 2, "at the data": 8 + self.n,
                "in the data": 8 + self.n + 1000, "in the last tensor": size - 4}
        for where, cut in cuts.items():
            with self.subTest(where=where):
                self.check("truncated", self.raw[:cut], ("short", "past the end", "truncated"))

    def test_empty_file(self):
        self.check("empty", b"", ("short", "empty", "0 bytes"))

    def test_header_length_past_end(self):
        self.check("past-end", struct.pack("<Q", len(self.raw)) + self.raw[8:], ("past the end",))

    def test_header_length_max(self):
        self.check("huge-length", struct.pack("<Q", 2**64 - 1) + self.raw[8:], ("past the end", "limit", "length"))

    def test_invalid_json(self):
        bad = self.raw[8:8 + self.n].replace(b'"__metadata__"', b"__metadata__", 1)
        self.check("bad-json", pack(bad, self.data), ("JSON",))

    def test_header_not_an_object(self):
        self.check("not-object", pack("[1, 2, 3]", self.data), ("object",))

    def test_tensor_missing(self):
        tensors = [t for t in self.tensors() if t[0] != "decoder.layers.1.norm3.bias"]
        self.check("missing", repack(self.meta, tensors), ("missing",))

    def test_tensor_duplicated(self):
        name = "src_embed.weight"
        text_ = dumps(self.header)
        dup = json.dumps({name: self.header[name]})[1:-1]
        self.check("duplicated", pack("{" + dup + ", " + text_[1:], self.data), ("twice", "duplicate"))

    def test_wrong_shape(self):
        header = json.loads(dumps(self.header))
        rows, cols = header["src_embed.weight"]["shape"]
        header["src_embed.weight"]["shape"] = [cols, rows]
        self.check("shape", pack(dumps(header), self.data), ("shape",))

    def test_wrong_shape_repacked(self):
        tensors = self.tensors()
        for i, (name, entry, blob) in enumerate(tensors):
            if name == "encoder.layers.0.linear1.weight":
                rows, cols = entry["shape"]
                tensors[i] = (name, dict(entry, shape=[rows // 2, cols]), blob[:len(blob) // 2])
        self.check("shape2", repack(self.meta, tensors), ("shape",))

    def test_wrong_dtype(self):
        for dtype in ("F16", "I32"):
            with self.subTest(dtype=dtype):
                tensors = self.tensors()
                for i, (name, entry, blob) in enumerate(tensors):
                    if name == "tgt_embed.weight":
                        blob = blob[:len(blob) // 2] if dtype == "F16" else blob
                        tensors[i] = (name, dict(entry, dtype=dtype), blob)
                self.check("dtype", repack(self.meta, tensors), ("dtype",))

    def test_unknown_dtype(self):
        header = json.loads(dumps(self.header))
        header["tgt_embed.weight"]["dtype"] = "Q7"
        self.check("dtype-q7", pack(dumps(header), self.data), ("dtype",))

    def test_overlapping_offsets(self):
        header = json.loads(dumps(self.header))
        second = tensor_list(self.header, self.data)[1][0]
        b, e = header[second]["data_offsets"]
        header[second]["data_offsets"] = [b - 4, e - 4]
        self.check("overlap", pack(dumps(header), self.data), ("overlap",))

    def test_offsets_out_of_range(self):
        header = json.loads(dumps(self.header))
        last = tensor_list(self.header, self.data)[-1][0]
        b, e = header[last]["data_offsets"]
        header[last]["data_offsets"] = [b + 1000000, e + 1000000]
        self.check("range", pack(dumps(header), self.data), ("past the end", "offsets"))

    def test_offsets_huge(self):
        header = json.loads(dumps(self.header))
        header["src_embed.weight"]["data_offsets"] = [2**64 - 8, 2**64 - 4]
        self.check("huge-offsets", pack(dumps(header), self.data), ("offsets",))

    def test_offsets_reversed(self):
        header = json.loads(dumps(self.header))
        b, e = header["src_embed.weight"]["data_offsets"]
        header["src_embed.weight"]["data_offsets"] = [e, b]
        self.check("reversed", pack(dumps(header), self.data), ("offsets",))

    def test_trailing_bytes(self):
        self.check("trailing", self.raw + b"\0" * 8, ("belong to no tensor", "unused", "left over"))

    def poke(self, tensor, value):
        b = self.header[tensor]["data_offsets"][0] + 4 * 5
        data = self.data[:b] + struct.pack("<f", value) + self.data[b + 4:]
        return pack(dumps(self.header), data)

    def test_nan_weight(self):
        self.check("nan", self.poke("decoder.layers.1.linear1.weight", float("nan")), ("NaN",))

    def test_inf_weight(self):
        self.check("inf", self.poke("encoder.layers.0.self_attn.in_proj_bias", float("inf")), ("Inf",))
        self.check("neg-inf", self.poke("generator.bias", float("-inf")), ("Inf",))

    def with_meta(self, **changes):
        meta = dict(self.meta)
        for k, v in changes.items():
            if v is None:
                meta.pop(k)
            else:
                meta[k] = v
        header = dict(self.header, __metadata__=meta)
        return pack(dumps(header), self.data)

    def test_nhead_not_dividing(self):
        self.check("nhead", self.with_meta(nhead="3"), ("divisible",))

    def test_nhead_zero(self):
        self.check("nhead0", self.with_meta(nhead="0"), ("nhead",))

    def test_src_vocab_missing(self):
        self.check("no-vocab", self.with_meta(src_vocab=None), ("src_vocab",))

    def test_tgt_vocab_not_json(self):
        self.check("bad-vocab", self.with_meta(tgt_vocab='["<pad>", '), ("tgt_vocab",))

    def test_vocab_size_mismatch(self):
        vocab = json.loads(self.meta["src_vocab"])
        self.check("vocab-size", self.with_meta(src_vocab=json.dumps(vocab[:-1])), ("vocab", "shape"))

    def test_d_model_not_a_number(self):
        self.check("d-model", self.with_meta(d_model="sixty-four"), ("d_model",))

    def test_values_from_the_file_are_quoted(self):
        # values and names from the file are shown escaped, and the message stays one line
        for name, content, shown in (
                ("d-model-esc", self.with_meta(d_model="12\n\x1b[31mx"), '"d_model" is "12U+000AU+001B[31mx"'),
                ("eps-esc", self.with_meta(layer_norm_eps="1e-5\x1b"), '"layer_norm_eps" is "1e-5U+001B"'),
                ("bool-esc", self.with_meta(norm_first="\u009b1m"), '"norm_first" is "U+009B1m"'),
                ("head-esc", self.with_meta(supervised_head="2,1\r"), '"supervised_head" is "2,1U+000D"'),
                ("name-esc", pack(dumps(dict(self.header, **{"w\x1b[2J\n": 7})), self.data), "tensor 'wU+001B[2JU+000A'")):
            with self.subTest(name=name):
                path = os.path.join(self.tmp.name, name + ".safetensors")
                with open(path, "wb") as f:
                    f.write(content)
                err = self.assert_error(run("translate", "--model", path, "--src", SENTENCE), 1, names=(path, shown))
                self.assertNotIn("\x1b", err)

    def test_model_name_is_quoted(self):
        # eval shows the model's name from the file escaped
        path = os.path.join(self.tmp.name, "named.safetensors")
        with open(path, "wb") as f:
            f.write(self.with_meta(name="evil\x1b[31m\nname"))
        corpus = os.path.join(self.tmp.name, "one.tsv")
        with open(corpus, "w", encoding="utf-8") as f:
            f.write("i love natural language processing\t我 愛 自然語言 處理\n")
        r = run("eval", "--model", path, "--corpus", corpus)
        self.assert_ok(r)
        out = text(r.stdout)
        self.assertIn("(evilU+001B[31mU+000Aname)", out)
        self.assertNotIn("\x1b", out)

    def test_metadata_not_strings(self):
        header = dict(self.header, __metadata__=dict(self.meta, d_model=64))
        self.check("meta-int", pack(dumps(header), self.data), ("__metadata__", "string"))

    def test_directory(self):
        path = self.tmp.name
        self.assert_error(run("translate", "--model", path, "--src", SENTENCE), 1,
                          words=("directory",), names=(path,))

    def test_missing_file(self):
        path = os.path.join(self.tmp.name, "nope.safetensors")
        self.assert_error(run("translate", "--model", path, "--src", SENTENCE), 1,
                          words=("no such file", "cannot open", "missing"), names=(path,))


class TestSentenceList(CliCase):
    """window --sentences FILE: the list is read before any window opens, so
    a bad one is one line "file:line: reason" (or "file: reason"), exit 1,
    with or without a display."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def check(self, name, content, line, words):
        path = os.path.join(self.tmp.name, name)
        with open(path, "wb") as f:
            f.write(content)
        where = f"{path}:{line}: " if line else f"{path}: "
        self.assert_error(run("window", "--sentences", path), 1, words=words, names=(where,))

    def test_invalid_utf8(self):
        self.check("utf8.txt", b"the cat\n# fine\nthe \xff mat\n", 3, ("UTF-8",))

    def test_control_character(self):
        self.check("control.txt", b"the cat\r\nthe \x07 mat\r\n", 2, ("control",))

    def test_long_line(self):
        self.check("long.txt", b"ok\n" + b"a" * 1001 + b"\n", 2, ("at most 1000",))

    def test_empty_list(self):
        self.check("empty.txt", b"\xef\xbb\xbf# nothing here\n\n", 0, ("no sentences",))

    def test_missing_file(self):
        path = os.path.join(self.tmp.name, "nope.txt")
        self.assert_error(run("window", "--sentences", path), 1, words=("cannot open", "no such file"), names=(path,))


class TestLibrariesLoaded(CliCase):
    """A command loads only the libraries it uses: no SDL (and the ~55
    libraries it brings) for a translation, a trace or a PNG export, whose
    drawing needs FreeType and HarfBuzz alone (docs/PERFORMANCE.md)."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def loaded(self, *args):
        env = dict(ENV, LD_DEBUG="files")
        r = subprocess.run([TRACER, *args], capture_output=True, text=True, env=env, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr[-2000:])
        names = set()
        for line in r.stderr.splitlines():
            if "file=" in line and ("needed by" in line or "dynamically loaded by" in line):
                names.add(line.split("file=")[1].split()[0])
        return names

    def test_translate_and_trace(self):
        out = os.path.join(self.tmp.name, "t.json")
        for args in (("translate", "--src", SENTENCE), ("trace", "--src", SENTENCE, "--out", out)):
            names = self.loaded(*args)
            self.assertTrue(any(n.startswith("libc.so") for n in names), names)  # LD_DEBUG did report
            drawing = [n for n in names if "SDL" in n or "freetype" in n or "harfbuzz" in n or "transformer-tracer-" in n]
            self.assertEqual(drawing, [], args[0])

    def test_export_loads_no_sdl(self):
        out = os.path.join(self.tmp.name, "e.png")
        names = self.loaded("export", "--src", SENTENCE, "--stage", "enc.L1.self_attn.weights", "--out", out)
        self.assertTrue(any("transformer-tracer-draw.so" in n for n in names), names)
        self.assertTrue(any(n.startswith("libfreetype") for n in names), names)
        self.assertEqual([n for n in names if "SDL" in n or n.startswith("libX11") or n.startswith("libpulse")], [])


class TestCoreHasNoSDL(unittest.TestCase):
    def test_no_sdl_in_core(self):
        # C files may not include or name SDL; build files may not depend on it
        # (a comment there saying "never SDL" is fine)
        core = os.path.join(SOURCE_DIR, "src", "core")
        self.assertTrue(os.path.isdir(core), core)
        found = []
        for root, _, files in os.walk(core):
            for name in files:
                path = os.path.join(root, name)
                with open(path, "rb") as f:
                    content = f.read()
                if name == "meson.build":
                    code = b"\n".join(line.split(b"#")[0] for line in content.splitlines())
                    bad = b"sdl" in code.lower()
                else:
                    bad = b"SDL" in content
                if bad:
                    found.append(os.path.relpath(path, SOURCE_DIR))
        self.assertEqual(found, [], "src/core must not include, name or depend on SDL")


def main():
    global TRACER, SOURCE_DIR, DEFAULT_MODEL, REF_MODEL, ENV
    if len(sys.argv) < 3:
        print("usage: test_cli.py TRACER SOURCE_DIR [unittest options]", file=sys.stderr)
        return 2
    TRACER = os.path.abspath(sys.argv[1])
    SOURCE_DIR = os.path.abspath(sys.argv[2])
    DEFAULT_MODEL = os.path.join(SOURCE_DIR, "assets", "models", "en-zh.safetensors")
    REF_MODEL = os.path.join(SOURCE_DIR, "tests", "data", "reference", "ref_model.safetensors")
    ENV = dict(os.environ, TRANSFORMER_TRACER_DATA=os.path.join(SOURCE_DIR, "assets"), LC_ALL="C.UTF-8")
    prog = unittest.main(argv=[sys.argv[0], *sys.argv[3:]], exit=False, verbosity=2)
    result = prog.result
    # a failing subtest is reported under its parent test: count tests, not reports
    bad = {getattr(t, "test_case", t).id() for t, _ in result.failures + result.errors}
    failed = len(bad) + len(result.unexpectedSuccesses)
    passed = result.testsRun - failed - len(result.skipped)
    print(f"cli: {passed} passed, {failed} failed", flush=True)
    return 1 if failed or result.testsRun == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
