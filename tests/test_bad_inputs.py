#!/usr/bin/env python3
"""The bad-input collection (tests/bad/, listed in tests/bad/MANIFEST.tsv)
through the real command line: every malformed model, corpus, vocabulary,
sentence list, lesson and typed sentence must end in its expected exit code
(1, never a signal) with its message, naming the file, on standard error —
one line (lint: one line per problem, then the count) — and nothing written
to the output the command was given.

Usage: test_bad_inputs.py TRACER SOURCE_DIR [--show]

--show prints what the program says for each entry instead of checking, to
write the expected text of a new entry. Python 3 standard library only.
"""
import os
import shlex
import subprocess
import sys
import tempfile

CRASH_SIGNS = ("Segmentation", "Aborted", "core dumped", "Sanitizer", "runtime error:", "Assertion", "LeakSanitizer")
TINY_LESSON = ("title: A lesson\ntitle.zh: 一課\nmodel: en-zh\nsentence: the cat sits on the mat .\n\n"
               "[step]\nstage: src.tokens\nsay: The tokens.\nsay.zh: 詞元。\n")


def generated(name, tmp):
    """Inputs too big to commit (or not files at all), made at test time."""
    path = os.path.join(tmp, name.lstrip("@"))
    if name == "@directory":
        os.mkdir(path)
    elif name == "@missing":
        pass
    elif name == "@corpus-1mb-line":
        with open(path, "w", encoding="utf-8") as f:
            f.write("the cat\t貓\n" + "the " * (1 << 18) + "cat\t貓\n")
    elif name == "@sentences-1mb-line":
        with open(path, "w", encoding="utf-8") as f:
            f.write("the cat\n" + "x" * (1 << 20) + "\n")
    elif name == "@lesson-over-1mb":
        with open(path, "w", encoding="utf-8") as f:
            f.write(TINY_LESSON + "say: " + "the cat sits on the mat . " * 45000 + "\n")
    elif name == "@sentences-over-4mb":
        with open(path, "w", encoding="utf-8") as f:
            f.write("the cat sits on the mat .\n" * 170000)
    elif name == "@model-over-2gb":  # sparse: no disk used
        with open(path, "wb") as f:
            f.truncate((2 << 30) + 1)
    elif name == "@fifo":  # no writer: reading it would wait for ever
        os.mkfifo(path)
    elif name in ("@dev-zero", "@dev-urandom"):  # endless
        os.symlink("/dev/" + name[5:], path)
    elif name == "@lesson-model-fifo":  # a lesson whose model: names a FIFO beside it
        os.mkdir(path)
        os.mkfifo(os.path.join(path, "fifo.safetensors"))
        path = os.path.join(path, "a.lesson")
        with open(path, "w", encoding="utf-8") as f:
            f.write(TINY_LESSON.replace("model: en-zh", "model: fifo.safetensors"))
    else:
        raise ValueError(f"unknown generated input {name}")
    return path


def read_manifest(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) != 4:
                raise SystemExit(f"{path}:{no}: expected 4 tab-separated columns, got {len(cols)}")
            rows.append((no, cols[0], cols[1], cols[2], int(cols[3])))
    return rows


def run_row(tracer, source, bad_dir, file, command, tmp):
    """Runs one entry in its own folder tmp; returns (argv, result, input path, output path)."""
    path = generated(file, tmp) if file.startswith("@") else os.path.normpath(os.path.join(bad_dir, file))
    out = os.path.join(tmp, "out.bin")
    places = {
        "file": path, "out": out,
        "tiny": os.path.join(bad_dir, "base", "tiny.safetensors"),
        "tiny_corpus": os.path.join(bad_dir, "base", "tiny.tsv"),
        "src_vocab": os.path.join(bad_dir, "base", "src-vocab.txt"),
        "tgt_vocab": os.path.join(bad_dir, "base", "tgt-vocab.txt"),
    }
    argv = [tracer]
    for word in shlex.split(command):
        if word == "{text}":  # the file's bytes are the argument, as typed (argv cannot hold a NUL)
            with open(path, "rb") as f:
                argv.append(f.read())
        else:
            argv.append(word.format(**places))
    env = dict(os.environ, TRANSFORMER_TRACER_DATA=os.path.join(source, "assets"), LC_ALL="C.UTF-8",
               SDL_VIDEODRIVER="offscreen")
    try:
        r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp, timeout=60)
    except subprocess.TimeoutExpired as e:  # a reader that blocks (a FIFO) is a failure like any other
        r = subprocess.CompletedProcess(argv, -9, e.stdout or b"", (e.stderr or b"") + b"timed out after 60 s\n")
    return argv, r, path, out


def check(row, argv, r, path, out, tmp, made):
    """Returns a list of what is wrong with one entry's run."""
    no, file, command, want, code = row
    err = r.stderr.decode("utf-8", errors="replace")
    wrong = []
    if r.returncode < 0:
        wrong.append(f"killed by signal {-r.returncode}")
    for sign in CRASH_SIGNS:
        if sign in err:
            wrong.append(f"crash sign {sign!r} on stderr")
    if r.returncode != code:
        wrong.append(f"expected: exit {code}, got: exit {r.returncode}")
    if r.stdout:
        wrong.append(f"expected: nothing on stdout, got: {r.stdout[:200]!r}")
    lines = err.splitlines()
    if not err.endswith("\n"):
        wrong.append("expected: stderr ends with a newline")
    if command.startswith("lint"):
        # lint's contract: one "file:line: problem" per problem, then the count
        problems = lines[:-1]
        if not lines or not lines[-1].endswith(("problem", "problems")):
            wrong.append("expected: the count of problems on the last line")
        if not problems or any(not p.startswith(path) for p in problems):
            wrong.append(f"expected: every problem line to start with {path}")
    else:
        if len(lines) != 1:
            wrong.append(f"expected: one line on stderr, got: {len(lines)}")
        if "{text}" not in command and path not in err:
            wrong.append(f"expected: the file name {path} in the message")
    if want not in err:
        wrong.append(f"expected: {want!r} in the message")
    if os.path.exists(out):
        wrong.append(f"expected: nothing written to {out}")
    left = sorted(set(os.listdir(tmp)) - made)
    if left:
        wrong.append(f"expected: no file left behind, got: {left}")
    return [f"MANIFEST.tsv:{no}: {file} | {command}: {w}; stderr: {err[:300]!r}" for w in wrong]


def main():
    if len(sys.argv) < 3:
        print("usage: test_bad_inputs.py TRACER SOURCE_DIR [--show]", file=sys.stderr)
        return 2
    tracer, source = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    show = "--show" in sys.argv[3:]
    bad_dir = os.path.join(source, "tests", "bad")
    rows = read_manifest(os.path.join(bad_dir, "MANIFEST.tsv"))
    failures, passed = [], 0
    for row in rows:
        no, file, command, want, code = row
        with tempfile.TemporaryDirectory() as tmp:
            argv, r, path, out = run_row(tracer, source, bad_dir, file, command, tmp)
            if show:
                err = r.stderr.decode("utf-8", errors="replace")
                print(f"{no}\t{file}\t{command}\texit {r.returncode}\t{err[:400]!r}")
                continue
            made = {os.path.relpath(path, tmp).split(os.sep)[0]} if file.startswith("@") and os.path.lexists(path) else set()
            wrong = check(row, argv, r, path, out, tmp, made)
        if wrong:
            failures.extend(wrong)
        else:
            passed += 1
    if show:
        return 0
    for f in failures:
        print(f)
    kinds = sorted({"generated" if row[1].startswith("@") else "lesson" if row[1].startswith("../data/lessons/")
                    else row[1].split("/")[0] for row in rows})
    files = len({row[1] for row in rows})
    print(f"bad inputs: {len(rows)} runs of {files} inputs ({', '.join(kinds)}): "
          f"{passed} gave their message, {len(rows) - passed} did not", flush=True)
    return 1 if failures or not rows else 0


if __name__ == "__main__":
    sys.exit(main())
