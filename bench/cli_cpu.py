#!/usr/bin/env python3
"""CPU time of the command-line subcommands, whole process: the commands a
teacher types, each run RUNS times in a row, user + sys CPU of the child
(os.wait4's rusage, which counts the dynamic loader, the libraries' start-up
and the exit too), the median and the range. Python 3 standard library only.

    python3 bench/cli_cpu.py [BINARY] [RUNS]   (default build/transformer-tracer, 10)

A command's output goes to a temporary folder; the figures are in
docs/PERFORMANCE.md ("The command line's start-up")."""
import os
import statistics
import subprocess
import sys
import tempfile

SENTENCE = "the cat sits on the mat ."


def commands(out):
    """(name, argv after the binary, the aim in CPU ms)"""
    png = os.path.join(out, "e.png")
    return [
        ("translate", ["translate", "--src", SENTENCE], 5),
        ("trace", ["trace", "--src", SENTENCE, "--out", os.path.join(out, "t.json")], 5),
        ("export", ["export", "--src", SENTENCE, "--stage", "dec.L2.cross_attn.weights",
                    "--head", "1", "--step", "6", "--out", png], 25),
        ("export (no gold)", ["export", "--src", SENTENCE, "--stage", "enc.L1.self_attn.weights",
                              "--out", png], 25),
        ("lint", ["lint", os.path.join(ROOT, "lessons", "01-overview.lesson")], None),
        ("--version", ["--version"], None),
    ]


def cpu_ms(argv):
    """Runs argv, returns (user + sys CPU ms, peak RSS KiB); exits if it fails.
    (The peak counts the moments before exec too, so it is at least this
    script's own: meaningful only for a larger child.)"""
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    rc = os.waitstatus_to_exitcode(status)
    if rc:
        sys.exit(f"{' '.join(argv)}: exit {rc}: {err.strip()}")
    return (ru.ru_utime + ru.ru_stime) * 1000.0, ru.ru_maxrss


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "build/transformer-tracer"
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    with tempfile.TemporaryDirectory() as out:
        cmds = commands(out)
        # a lesson that is not shipped any more is not benchmarked
        cmds = [c for c in cmds if c[0] != "lint" or os.path.exists(c[1][1])]
        print(f"{binary}, {runs} runs each, user+sys CPU of the whole process")
        print(f"{'command':<18} {'median ms':>10} {'min':>7} {'max':>7}  aim")
        for name, args, aim in cmds:
            cpu_ms([binary] + args)  # once to warm the page cache
            samples = [cpu_ms([binary] + args) for _ in range(runs)]
            ms = [s[0] for s in samples]
            med = statistics.median(ms)
            verdict = "" if aim is None else f"< {aim} ms: {'met' if med < aim else 'NOT met'}"
            print(f"{name:<18} {med:10.1f} {min(ms):7.1f} {max(ms):7.1f}  {verdict}")


if __name__ == "__main__":
    main()
