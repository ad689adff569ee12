#!/usr/bin/env python3
"""The corpus, train and eval commands against their contract: exit 0 on
success, 2 on a usage error, 1 on a runtime error (130 after Ctrl-C); every
error is one line on stderr that says what and where (file:line for corpus
lines); a bad corpus or an unwritable output is refused before training starts.

Usage: test_train_cli.py TRACER SOURCE_DIR [unittest options]

Python 3 standard library only. The corpora are tiny files written at test
time in a temporary folder, and the models tiny (d_model 16, one layer), so
the whole file runs in seconds.
"""
import json
import os
import re
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import unittest

# the assertions on exit codes, one-line errors and crash signs
from test_cli import CliCase, text

TRACER = None
SOURCE_DIR = None
SHIPPED_MODEL = None
SHIPPED_TEST = None
ENV = None


# Twelve pairs in the shipped corpus's format, gold alignments included.
GOOD_LINES = [
    "the cat sits on the mat\t貓 坐 在 墊子 上\t1-0 2-1 3-2 3-4 5-3",
    "the cat on the mat\t墊子 上 的 貓\t1-3 2-1 2-2 4-0",
    "i love nlp\t我 愛 自然 語言 處理\t0-0 1-1 2-2 2-3 2-4",
    "i have two cats\t我 有 兩 隻 貓\t0-0 1-1 2-2 2-3 3-4",
    "the red cat\t紅 貓\t1-0 2-1",
    "the dog does not eat the cake .\t狗 不 吃 蛋糕 。\t1-0 2-1 3-1 4-2 6-3 7-4",
    "she has a lot of books .\t她 有 很多 書 。\t0-0 1-1 2-2 3-2 4-2 5-3 6-4",
    "the small mouse is under the table .\t小 老鼠 在 桌子 下 。\t1-0 2-1 3-2 4-2 4-4 6-3 7-5",
    "he sees the dog\t他 看 狗\t0-0 1-1 3-2",
    "we eat the apple\t我們 吃 蘋果\t0-0 1-1 3-2",
    "the boy reads a book\t男孩 讀 一 本 書\t1-0 2-1 3-2 3-3 4-4",
    "they play\t他們 玩\t0-0 1-1",
]
SENTENCE = "the cat sits on the mat"
TINY = ["--d-model", "16", "--nhead", "2", "--layers", "1", "--d-ff", "32", "--max-len", "16",
        "--batch", "8", "--threads", "1", "--seed", "1"]
SHORT = TINY + ["--steps", "30"]


def run(*args, timeout=120):
    """Runs the tracer; args may be str or bytes."""
    return subprocess.run([TRACER, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          env=ENV, timeout=timeout)




def write_lines(path, lines):
    """Writes corpus lines (str or bytes) with LF line ends."""
    with open(path, "wb") as f:
        for line in lines:
            f.write((line.encode("utf-8") if isinstance(line, str) else line) + b"\n")
    return path


def metadata(path):
    """The __metadata__ object of a safetensors file."""
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        return json.loads(f.read(n)).get("__metadata__", {})


def temp_leftovers(folder):
    """Temporary files of atomic writes (".NAME.tmp.XXXXXX") left in folder."""
    return sorted(n for n in os.listdir(folder) if n.startswith(".") and ".tmp." in n)


class TrainCase(CliCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="tt-train-")
        self.dir = self._tmp.name
        self.good = write_lines(self.path("good.tsv"), GOOD_LINES)

    def tearDown(self):
        self._tmp.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)

    def assert_loads(self, model):
        """translate --model works with the file."""
        r = run("translate", "--model", model, "--src", SENTENCE)
        self.assert_ok(r)
        self.assertTrue(text(r.stdout).strip(), f"expected: a translation from {model}, got nothing")

    def assert_no_model(self, out):
        self.assertFalse(os.path.exists(out), f"expected: no model written at {out}")
        self.assertEqual(temp_leftovers(os.path.dirname(out) or "."), [], "expected: no temporary files left")

    def train(self, *args, corpus=None, out=None, extra=SHORT):
        out = out or self.path("model.safetensors")
        return run("train", "--train", corpus or self.good, "--out", out, *extra, *args), out


class TestCorpus(TrainCase):
    FILES = ("train.tsv", "valid.tsv", "test.tsv", "src.vocab", "tgt.vocab")

    def make(self, out, pair="en-zh"):
        r = run("corpus", "--pair", pair, "--seed", "1", "--out", out)
        self.assert_ok(r)
        for name in self.FILES:
            self.assertTrue(os.path.isfile(os.path.join(out, name)), f"expected: {name} in {out}")
        self.assertEqual(temp_leftovers(out), [], "expected: no temporary files left")

    def read(self, folder, name):
        with open(os.path.join(folder, name), "rb") as f:
            return f.read()

    def test_writes_all_files_and_repeats_byte_for_byte(self):
        first, second = self.path("one"), self.path("two/nested")
        self.make(first)
        self.make(second)
        for name in self.FILES:
            self.assertEqual(self.read(first, name), self.read(second, name), f"{name} differs between two runs")
        # a third run over the same folder replaces the files with the same bytes
        self.make(first)
        for name in self.FILES:
            self.assertEqual(self.read(first, name), self.read(second, name), f"{name} changed when rewritten")

    def test_matches_the_shipped_corpora(self):
        for pair in ("en-zh", "en-fr"):
            with self.subTest(pair=pair):
                out = self.path(pair)
                self.make(out, pair)
                shipped = os.path.join(SOURCE_DIR, "assets", "corpus", pair)
                for name in self.FILES:
                    self.assertEqual(self.read(out, name), self.read(shipped, name),
                                     f"{pair}/{name} differs from the shipped file")

    def test_unknown_pair_is_a_usage_error(self):
        out = self.path("xx")
        r = run("corpus", "--pair", "xx", "--seed", "1", "--out", out)
        self.assert_error(r, 2, names=('"xx"',), words=("en-zh",))
        self.assertFalse(os.path.exists(out), "expected: no folder made for an unknown pair")

    def test_missing_options_are_usage_errors(self):
        self.assert_error(run("corpus", "--pair", "en-zh"), 2, words=("--out",))
        self.assert_error(run("corpus", "--out", self.path("c")), 2, words=("--pair",))


class TestTrain(TrainCase):
    def test_writes_a_model_that_loads_with_its_name(self):
        r, out = self.train("--name", "tiny test model")
        self.assert_ok(r)
        self.assertEqual(r.stdout, b"", "expected: progress on stderr, nothing on stdout")
        err = text(r.stderr)
        self.assertIn(f"training {out}", err, "expected: a line saying what is trained")
        self.assertRegex(err, r"30/30\s+loss [\d.]+", "expected: a progress line at the last step")
        self.assertIn(f"wrote {out} after 30 steps", err, "expected: a closing summary")
        self.assertEqual(metadata(out).get("name"), "tiny test model")
        self.assertEqual(metadata(out).get("d_model"), "16")
        self.assertEqual(temp_leftovers(self.dir), [], "expected: no temporary files left")
        self.assert_loads(out)

    def test_zero_steps_is_the_untrained_twin(self):
        """--steps 0 writes the model as training would start it: the same initial
        weights as a run of the same seed, before its first step (en-zh-random)."""
        r, out = self.train("--steps", "0", "--name", "untrained")
        self.assert_ok(r)
        self.assertIn(f"wrote {out} after 0 steps", text(r.stderr))
        self.assert_loads(out)
        r2, again = self.train("--steps", "0", "--name", "untrained", out=self.path("again.safetensors"))
        self.assert_ok(r2)
        with open(out, "rb") as a, open(again, "rb") as b:
            self.assertEqual(a.read(), b.read(), "expected: the same seed gives the same untrained model")

    def test_snapshots_of_a_whole_training_only(self):
        """--snapshots writes the history beside the model; from --resume it would start at a checkpoint, and is refused."""
        r, out = self.train("--snapshots", "3")
        self.assert_ok(r)
        self.assertTrue(os.path.isfile(out.replace(".safetensors", ".snapshots.safetensors")))
        self.assertIn("wrote 3 snapshots of the training", text(r.stderr))
        r2, out2 = self.train("--snapshots", "3", "--resume", out, out=self.path("again.safetensors"))
        self.assert_error(r2, 2, words=("--resume",))
        self.assert_no_model(out2)

    def test_keeps_checkpoints(self):
        r, out = self.train("--checkpoint-every", "10")
        self.assert_ok(r)
        for step in (10, 20):
            ckpt = self.path(f"model.step{step}.safetensors")
            self.assertTrue(os.path.isfile(ckpt), f"expected: checkpoint {ckpt}")
            self.assert_loads(ckpt)
        self.assertFalse(os.path.exists(self.path("model.step30.safetensors")),
                         "expected: the last step is the model itself, not a checkpoint")
        self.assert_loads(out)
        self.assertEqual(temp_leftovers(self.dir), [], "expected: no temporary files left")

    def test_checkpoint_name_without_extension(self):
        r, out = self.train("--checkpoint-every", "10", out=self.path("run.v1"))
        self.assert_ok(r)
        self.assertTrue(os.path.isfile(self.path("run.step10.v1")), f"expected: run.step10.v1 in {os.listdir(self.dir)}")

    def test_supervised_head_is_marked_by_eval(self):
        r, out = self.train("--supervise-head", "1,2")
        self.assert_ok(r)
        self.assertEqual(metadata(out).get("supervised_head"), "1,2")
        e = run("eval", "--model", out, "--corpus", self.good)
        self.assert_ok(e)
        self.assertRegex(text(e.stdout), r"L1\s+[\d.]+%\s+[\d.]+%\*", "expected: head 2 of layer 1 marked with *")


class TestBadCorpus(TrainCase):
    BAD_LINE = 4
    CASES = [
        ("no tab", b"the cat sits", ("tab",)),
        ("empty source", "\t貓 坐".encode(), ("empty source",)),
        ("empty target", b"the cat\t", ("empty target",)),
        ("invalid UTF-8", b"the \xff cat\t\xe8\xb2\x93", ("UTF-8",)),
        ("alignment out of range", "the cat\t貓\t1-3".encode(), ("out of range",)),
        ("alignment 0-", "the cat\t貓\t0-".encode(), ("form", "malformed", "invalid")),
        ("alignment a-b", "the cat\t貓\ta-b".encode(), ("form", "malformed", "invalid")),
        ("control character", "the \x01cat\t貓".encode(), ("control",)),
        ("four columns", "the cat\t貓\t1-0\tx".encode(), ("column",)),
    ]

    def bad_corpus(self, bad):
        lines = [l.encode() for l in GOOD_LINES]
        lines.insert(self.BAD_LINE - 1, bad)
        return write_lines(self.path("bad.tsv"), lines)

    def test_bad_line_stops_training_before_it_starts(self):
        for what, bad, words in self.CASES:
            with self.subTest(what):
                corpus = self.bad_corpus(bad)
                r, out = self.train(corpus=corpus)
                err = self.assert_error(r, 1, words=words, names=(f"{corpus}:{self.BAD_LINE}:",))
                self.assertNotIn("training", err)
                self.assert_no_model(out)

    def test_empty_file(self):
        for what, content in (("empty", b""), ("only blank lines", b"\n\r\n\n")):
            with self.subTest(what):
                corpus = self.path("empty.tsv")
                with open(corpus, "wb") as f:
                    f.write(content)
                r, out = self.train(corpus=corpus)
                self.assert_error(r, 1, words=("no sentence pair", "empty"), names=(corpus,))
                self.assert_no_model(out)

    def test_missing_file(self):
        corpus = self.path("missing.tsv")
        r, out = self.train(corpus=corpus)
        self.assert_error(r, 1, names=(corpus,))
        self.assert_no_model(out)

    def test_bad_validation_split(self):
        valid = write_lines(self.path("valid.tsv"), [GOOD_LINES[0], "the cat\t貓\t0-"])
        r, out = self.train("--valid", valid)
        self.assert_error(r, 1, names=(f"{valid}:2:",))
        self.assert_no_model(out)

    def test_skip_bad_trains_and_counts(self):
        lines = [l.encode() for l in GOOD_LINES]
        lines[2:2] = [b"no tab here", b"the \xff cat\t\xe8\xb2\x93", "the cat\t貓\t5-0".encode()]
        corpus = write_lines(self.path("bad.tsv"), lines)
        r, out = self.train("--skip-bad", corpus=corpus)
        self.assert_ok(r)
        err = text(r.stderr)
        self.assertRegex(err, r"skipped 3 malformed lines", f"expected: how many lines were skipped, got: {err!r}")
        self.assertIn(f"{corpus}:3:", err, "expected: the first skipped line named")
        self.assertIn(f"training {out}: {len(GOOD_LINES)} pairs", err)
        self.assert_loads(out)

    def test_skip_bad_then_a_refusal_is_one_line(self):
        # the count of skipped lines is folded into the refusal, not a warning line before it
        corpus = write_lines(self.path("bad.tsv"), [GOOD_LINES[0], "no tab here"])
        extra = list(SHORT)
        extra[extra.index("--max-len") + 1] = "1"
        r, out = self.train("--skip-bad", corpus=corpus, extra=extra)
        self.assert_error(r, 1, names=(corpus, "max_len 1", "1 malformed line of", "was skipped"), words=("no sentence pair fits",))
        self.assert_no_model(out)
        valid = write_lines(self.path("valid.tsv"), [b"no tab", b"\tx"])
        r, out = self.train("--skip-bad", "--valid", valid, corpus=corpus)
        self.assert_error(r, 1, names=(valid, f"1 malformed line of {corpus} was skipped"), words=("no sentence pair",))
        self.assert_no_model(out)

    def test_skip_bad_with_nothing_left(self):
        corpus = write_lines(self.path("bad.tsv"), [b"no tab", b"\tx"])
        r, out = self.train("--skip-bad", corpus=corpus)
        self.assert_error(r, 1, names=(corpus,), words=("no sentence pair",))
        self.assert_no_model(out)


class TestOutputPath(TrainCase):
    LONG = TINY + ["--steps", "1000000"]

    def refused_fast(self, out):
        start = time.monotonic()
        try:
            r = run("train", "--train", self.good, "--out", out, *self.LONG, timeout=30)
        except subprocess.TimeoutExpired:
            self.fail(f"expected: {out} refused before training, but training ran on")
        elapsed = time.monotonic() - start
        err = self.assert_error(r, 1, names=(out,))
        self.assertNotIn("training", err, "expected: no training line before the error")
        self.assertLess(elapsed, 10, "expected: the error before training")
        self.assertEqual(temp_leftovers(self.dir), [], "expected: no temporary files left")
        return err

    def test_folder_that_does_not_exist(self):
        out = self.path("no/such/folder/model.safetensors")
        self.refused_fast(out)
        self.assertFalse(os.path.exists(self.path("no")))

    def test_path_that_is_a_folder(self):
        out = self.path("a-folder")
        os.mkdir(out)
        self.refused_fast(out)
        self.assertTrue(os.path.isdir(out))
        self.assertEqual(os.listdir(out), [])

    def test_path_with_trailing_slash(self):
        self.refused_fast(self.path("model") + "/")


class TestResume(TrainCase):
    def checkpoint(self):
        r, ckpt = self.train(out=self.path("base.safetensors"))
        self.assert_ok(r)
        return ckpt

    def test_matching_checkpoint_resumes(self):
        ckpt = self.checkpoint()
        r, out = self.train("--resume", ckpt, out=self.path("resumed.safetensors"))
        self.assert_ok(r)
        self.assertIn("wrote", text(r.stderr))
        self.assert_loads(out)

    def test_other_architecture_is_refused(self):
        ckpt = self.checkpoint()
        extra = [a if a != "16" else "32" for a in SHORT]  # --d-model 32, --max-len 32
        r, out = self.train("--resume", ckpt, extra=extra, out=self.path("resumed.safetensors"))
        self.assert_error(r, 1, names=(ckpt, "d_model"), words=("16",))
        self.assert_no_model(out)

    def test_other_vocabulary_is_refused(self):
        ckpt = self.checkpoint()
        corpus = write_lines(self.path("more.tsv"), GOOD_LINES + ["the zebra sleeps\t斑馬 睡覺\t1-0 2-1"])
        r, out = self.train("--resume", ckpt, corpus=corpus, out=self.path("resumed.safetensors"))
        self.assert_error(r, 1, names=(ckpt,), words=("vocabulary",))
        self.assert_no_model(out)

    def test_missing_checkpoint(self):
        ckpt = self.path("missing.safetensors")
        r, out = self.train("--resume", ckpt)
        self.assert_error(r, 1, names=(ckpt,))
        self.assert_no_model(out)


class TestInterrupt(TrainCase):
    def interrupt(self, corpus, delay):
        """Starts a long training run, sends SIGINT delay seconds after its
        "training" line; returns (exit status, stderr, step, checkpoint)."""
        out = self.path("model.safetensors")
        p = subprocess.Popen([TRACER, "train", "--train", corpus, "--out", out, *TINY, "--steps", "1000000"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
        watchdog = threading.Timer(90, p.kill)
        watchdog.start()
        err = ""
        try:
            for line in iter(p.stderr.readline, b""):
                err += text(line)
                if line.startswith(b"training"):
                    break
            self.assertIn("training", err, "expected: a training line")
            time.sleep(delay)
            p.send_signal(signal.SIGINT)
            stdout, rest = p.communicate(timeout=60)
        finally:
            watchdog.cancel()
            if p.poll() is None:
                p.kill()
                p.wait()
        err += text(rest)
        self.assertEqual(p.returncode, 130, f"expected: exit 130, got: exit {p.returncode}; stderr: {err!r}")
        self.assertEqual(stdout, b"")
        m = re.search(r"interrupted after step (\d+); the weights so far are in (\S+)", err)
        self.assertIsNotNone(m, f"expected: the checkpoint named on stderr, got: {err!r}")
        step, ckpt = int(m.group(1)), m.group(2)
        self.assertEqual(ckpt, self.path(f"model.step{step}.safetensors"))
        self.assertTrue(os.path.isfile(ckpt), f"expected: {ckpt} written")
        self.assert_loads(ckpt)
        self.assertEqual(temp_leftovers(self.dir), [], "expected: no temporary files left")
        return step, out

    def test_ctrl_c_keeps_the_weights_so_far(self):
        out = self.path("model.safetensors")
        before = b"an older model, not to be touched\n"
        with open(out, "wb") as f:
            f.write(before)
        step, out = self.interrupt(self.good, 0.5)
        self.assertGreaterEqual(step, 1)
        with open(out, "rb") as f:
            self.assertEqual(f.read(), before, "expected: the older model untouched")

    def test_ctrl_c_right_after_the_training_line(self):
        # a corpus large enough that setting up the first step takes a moment
        corpus = write_lines(self.path("large.tsv"), GOOD_LINES * 2000)
        step, out = self.interrupt(corpus, 0)
        self.assertFalse(os.path.exists(out), "expected: no final model after Ctrl-C")


class TestEval(TrainCase):
    def test_shipped_model_on_the_test_split(self):
        r = run("eval", "--model", SHIPPED_MODEL, "--corpus", SHIPPED_TEST, "--limit", "50")
        self.assert_ok(r)
        out = text(r.stdout)
        self.assertIn("50 pairs evaluated", out)
        self.assertRegex(out, r"exact match:\s+[\d.]+%")
        self.assertRegex(out, r"BLEU:\s+[\d.]+")
        self.assertIn("AER", out)
        self.assertRegex(out, r"head 1\s+head 2\s+head 3\s+head 4\s+average")
        # the shipped models supervise decoder layer 2's head 1
        self.assertRegex(out, r"L2\s+[\d.]+%\*", "expected: the supervised head marked with *")
        self.assertIn("* trained on the gold alignments", out)

    def test_broken_corpus_names_file_and_line(self):
        corpus = write_lines(self.path("bad.tsv"), GOOD_LINES[:2] + ["the cat\t貓\ta-b"])
        r = run("eval", "--model", SHIPPED_MODEL, "--corpus", corpus)
        self.assert_error(r, 1, names=(f"{corpus}:3:",))

    def test_missing_options_are_usage_errors(self):
        self.assert_error(run("eval", "--model", SHIPPED_MODEL), 2, words=("--corpus",))
        self.assert_error(run("eval", "--corpus", self.good), 2, words=("--model",))

    def test_unknown_words_read_as_unk(self):
        corpus = write_lines(self.path("unknown.tsv"), ["the zebra eats a quokka\t斑馬 吃 短尾矮袋鼠\t1-0 2-1 4-2",
                                                        "blorp\tfoo"] + GOOD_LINES)
        r = run("eval", "--model", SHIPPED_MODEL, "--corpus", corpus)
        self.assert_ok(r)
        out = text(r.stdout)
        self.assertIn("14 pairs evaluated", out)
        self.assertRegex(out, r"exact match:\s+[\d.]+%")
        self.assertIn("BLEU:", out)
        # the target tokens the model does not know are counted
        self.assertRegex(out, r"unknown:\s+3 of 54 target tokens \(5\.56%\)")

    def test_model_of_another_language_pair_is_refused(self):
        # the French model on the Chinese test split: no target token is in its vocabulary
        french = os.path.join(SOURCE_DIR, "assets", "models", "en-fr.safetensors")
        r = run("eval", "--model", french, "--corpus", SHIPPED_TEST)
        self.assert_error(r, 1, names=(SHIPPED_TEST, "of the", "target tokens", "100.0%", "en-fr.safetensors"),
                          words=("another language pair",))
        # half unknown (2 of 4) is still evaluated
        corpus = write_lines(self.path("half.tsv"), ["the cat\t貓 坐", "the dog\tle chien"])
        self.assert_ok(run("eval", "--model", SHIPPED_MODEL, "--corpus", corpus))
        corpus = write_lines(self.path("most.tsv"), ["the cat\t貓", "the dog\tle chien noir"])
        self.assert_error(run("eval", "--model", SHIPPED_MODEL, "--corpus", corpus), 1, names=("3 of the 4 target tokens (75.0%)",))


class TestUsage(TrainCase):
    def test_train_needs_train_and_out(self):
        self.assert_error(run("train", "--out", self.path("m.safetensors"), *SHORT), 2, words=("--train",))
        self.assert_error(run("train", "--train", self.good, *SHORT), 2, words=("--out",))

    def test_bad_numbers(self):
        for opt, val, word in (("--lr", "0", "--lr"), ("--lr", "-1", "--lr"),
                               ("--label-smoothing", "1", "--label-smoothing"),
                               ("--label-smoothing", "-0.1", "--label-smoothing"),
                               ("--steps", "-1", "--steps"), ("--batch", "x", "--batch")):
            with self.subTest(opt=opt, val=val):
                r, out = self.train(opt, val)
                self.assert_error(r, 2, words=(word,))
                self.assert_no_model(out)

    def test_max_len_that_fits_no_pair(self):
        # one line: the refusal, not a note about the pairs left out and then the refusal
        extra = list(SHORT)
        extra[extra.index("--max-len") + 1] = "1"
        r, out = self.train(extra=extra)
        self.assert_error(r, 1, names=(self.good, "12", "max_len 1"), words=("no sentence pair fits",))
        self.assert_no_model(out)

    def test_supervised_head_that_does_not_exist(self):
        r, out = self.train("--supervise-head", "9,9")
        err = self.assert_error(r, 1, words=("does not exist",), names=("9",))
        self.assertNotIn("training", err)
        self.assert_no_model(out)

    def test_malformed_supervised_head(self):
        for val in ("0,1", "1", "a,b", "1,1,1"):
            with self.subTest(val=val):
                r, out = self.train("--supervise-head", val)
                self.assert_error(r, 2, names=(f'"{val}"',))


def main():
    global TRACER, SOURCE_DIR, SHIPPED_MODEL, SHIPPED_TEST, ENV
    if len(sys.argv) < 3:
        print("usage: test_train_cli.py TRACER SOURCE_DIR [unittest options]", file=sys.stderr)
        return 2
    TRACER = os.path.abspath(sys.argv[1])
    SOURCE_DIR = os.path.abspath(sys.argv[2])
    SHIPPED_MODEL = os.path.join(SOURCE_DIR, "assets", "models", "en-zh.safetensors")
    SHIPPED_TEST = os.path.join(SOURCE_DIR, "assets", "corpus", "en-zh", "test.tsv")
    ENV = dict(os.environ, TRANSFORMER_TRACER_DATA=os.path.join(SOURCE_DIR, "assets"), LC_ALL="C.UTF-8")
    prog = unittest.main(argv=[sys.argv[0], *sys.argv[3:]], exit=False, verbosity=2)
    result = prog.result
    # a failing subtest is reported under its parent test: count tests, not reports
    bad = {getattr(t, "test_case", t).id() for t, _ in result.failures + result.errors}
    failed = len(bad) + len(result.unexpectedSuccesses)
    passed = result.testsRun - failed - len(result.skipped)
    print(f"train-cli: {passed} passed, {failed} failed", flush=True)
    return 1 if failed or result.testsRun == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
