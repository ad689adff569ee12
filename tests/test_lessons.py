"""lint against its contract: every shipped lesson passes, and every broken
lesson in tests/data/lessons fails with exactly the problems its "# expect:"
lines list, each as file:line: problem. Python 3 standard library only."""
import glob
import os
import subprocess
import sys
import unittest

TRACER, ROOT = sys.argv[1], sys.argv[2]
ENV = dict(os.environ, TRANSFORMER_TRACER_DATA=os.path.join(ROOT, "assets"))


def lint(*files):
    return subprocess.run([TRACER, "lint", *files], capture_output=True, env=ENV, timeout=120)


def expectations(path):
    """The (line, text) pairs of a broken lesson's '# expect: LINE: text' comments."""
    out = []
    with open(path, "rb") as f:
        data = f.read()
    for raw in data.split(b"\n"):
        if raw.startswith(b"# expect: "):
            line, text = raw[len(b"# expect: "):].decode("utf-8").split(": ", 1)
            out.append((int(line), text))
    return out


class ShippedLessons(unittest.TestCase):
    def test_every_shipped_lesson_passes(self):
        files = sorted(glob.glob(os.path.join(ROOT, "lessons", "*.lesson")))
        self.assertGreaterEqual(len(files), 6, "expected: at least 6 shipped lessons")
        r = lint(*files)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        self.assertEqual(r.stdout.decode().count(": ok\n"), len(files))


class BrokenLessons(unittest.TestCase):
    def test_each_broken_lesson_reports_its_problems(self):
        files = sorted(glob.glob(os.path.join(ROOT, "tests", "data", "lessons", "*.lesson")))
        self.assertGreaterEqual(len(files), 9)
        for path in files:
            with self.subTest(lesson=os.path.basename(path)):
                want = expectations(path)
                self.assertTrue(want, "a broken lesson lists its expected problems")
                r = lint(path)
                self.assertEqual(r.returncode, 1, "expected: exit 1")
                lines = r.stderr.decode("utf-8").splitlines()
                self.assertRegex(lines[-1], r"^\d+ problems?$")
                got = lines[:-1]
                self.assertEqual(len(got), len(want), "\n".join(got))
                for (line, text), msg in zip(sorted(want), sorted(got, key=lambda m: int(m.split(":")[1]))):
                    self.assertTrue(msg.startswith(f"{path}:{line}: "), f"expected: {path}:{line}: …, got: {msg}")
                # each expected text is in one of the messages of its line
                for line, text in want:
                    self.assertTrue(any(m.startswith(f"{path}:{line}: ") and text in m for m in got),
                                    f"expected: {path}:{line}: {text}\ngot:\n" + "\n".join(got))

    def test_missing_file(self):
        r = lint(os.path.join(ROOT, "tests", "data", "lessons", "no-such.lesson"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("no-such.lesson", r.stderr.decode())

    def test_no_files_is_a_usage_error(self):
        r = lint()
        self.assertEqual(r.returncode, 2)
        self.assertIn("lint needs one or more lesson files", r.stderr.decode())


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]], verbosity=2)
