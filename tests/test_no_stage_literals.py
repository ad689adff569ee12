#!/usr/bin/env python3
"""No stage id as a string literal in src/app or src/lesson: they ask the
stage table (src/core/stage.h). Fails naming file:line of each literal that is
a stage name or id ("dec.cross_attn.weights", "dec.L2.cross_attn.weights"), a
part's prefix ("dec.") or a name's dotted tail ("cross_attn.weights", ".weights").

Usage: test_no_stage_literals.py STAGE_NAMES_PROGRAM SOURCE_ROOT
"""
import os
import re
import subprocess
import sys

FOLDERS = ["src/app", "src/lesson"]


def forbidden(names):
    exact, prefixes, tails = set(), set(), set()
    for name in names:
        exact.add(name)
        part, _, rest = name.partition(".")
        prefixes.add(part + ".")
        pieces = rest.split(".")
        for i in range(len(pieces)):
            tail = ".".join(pieces[i:])
            if "." in tail:  # "weights" alone is a word, "cross_attn.weights" a stage's
                tails.add(tail)
            tails.add("." + tail)
    return exact, prefixes, tails


def literals(text):
    """(line, content) of each string literal outside comments, #include lines and char literals."""
    i, line, n = 0, 1, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif text.startswith("//", i):
            i = text.find("\n", i) if "\n" in text[i:] else n
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            line += text.count("\n", i, end)
            i = end
        elif c == "#" and re.match(r"#\s*include", text[i:i + 20]):
            i = text.find("\n", i) if "\n" in text[i:] else n
        elif c in "'\"":
            j, buf = i + 1, []
            while j < n and text[j] != c:
                if text[j] == "\\":
                    buf.append(text[j:j + 2])
                    j += 2
                else:
                    buf.append(text[j])
                    j += 1
            if c == '"':
                yield line, "".join(buf)
            line += text.count("\n", i, j)
            i = j + 1
        else:
            i += 1


def main():
    program, root = sys.argv[1], sys.argv[2]
    names = subprocess.run([program], check=True, capture_output=True, text=True).stdout.split()
    if len(names) < 10:
        sys.exit("expected: the stage table's names, got: %r" % names)
    exact, prefixes, tails = forbidden(names)
    layered = re.compile(r"^(%s)\.L[0-9]+\.(.*)$" % "|".join(sorted({p[:-1] for p in prefixes})))
    found = []
    for folder in FOLDERS:
        for dirpath, _, files in os.walk(os.path.join(root, folder)):
            for f in sorted(files):
                if not f.endswith((".c", ".h")) or f.startswith("stage."):
                    continue
                path = os.path.join(dirpath, f)
                with open(path, encoding="utf-8") as fp:
                    text = fp.read()
                for line, lit in literals(text):
                    m = layered.match(lit)
                    bare = m.group(1) + "." + m.group(2) if m else lit
                    if bare in exact or lit in tails or any(lit.startswith(p) for p in prefixes):
                        found.append("%s:%d: stage id literal \"%s\"" % (os.path.relpath(path, root), line, lit))
    for f in found:
        print(f)
    if found:
        sys.exit("expected: no stage id literal in %s (ask the stage table, src/core/stage.h), got: %d"
                 % (" or ".join(FOLDERS), len(found)))
    print("no stage id literal in %s (%d names in the table)" % (" or ".join(FOLDERS), len(names)))


if __name__ == "__main__":
    main()
