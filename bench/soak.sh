#!/usr/bin/env bash
# The soak: random actions (navigation keys, full screen, typed sentences good
# and bad, model and decoding changes, resizes) through the real window, with
# SDL's X11 driver on an Xvfb server of its own, for a given time, with the
# process's resident memory sampled every 10 s. Not a test: it takes half an
# hour. See docs/RELIABILITY.md.
#
#   bash bench/soak.sh [BUILD_DIR] [MINUTES] [SEED] [RSS_TABLE]     (default: build 30 1)
#
# RSS_TABLE, if given, keeps the samples, a line each: seconds, RSS kB, the
# window's WIDTHxHEIGHT, then RssAnon, RssFile and RssShmem kB.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
minutes=${2:-30}
seed=${3:-1}
keep=${4:-}
work=$(mktemp -d)
xvfb=
cleanup() {
    [ -n "$xvfb" ] && kill "$xvfb" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
command -v Xvfb >/dev/null || { echo "soak: needs Xvfb (bash tools/setup.sh installs it)"; exit 1; }

# more actions than the time allows: the run is ended at the time limit
python3 bench/soak_script.py "$(pwd)" 400000 "$seed" >"$work/soak.txt" || exit 1
exec 3<> "$work/display"
Xvfb -displayfd 3 -screen 0 1920x1080x24 -nolisten tcp -noreset >/dev/null 2>&1 &
xvfb=$!
for _ in $(seq 50); do [ -s "$work/display" ] && break; sleep 0.1; done
display=":$(head -1 "$work/display")"
echo "soak: $minutes min of $(grep -vc '^#' "$work/soak.txt") script lines (seed $seed), $build/transformer-tracer, X11 on Xvfb $display"
start=$SECONDS
# in the scratch folder: exports (Ctrl+S) and nothing else land there
(cd "$work" && exec env DISPLAY="$display" SDL_VIDEODRIVER=x11 TRANSFORMER_TRACER_DATA="$OLDPWD/assets" \
    "$OLDPWD/$build/transformer-tracer" window --src "the cat sits on the mat ." --script soak.txt >"$work/out.txt" 2>"$work/err.txt") &
pid=$!
: >"$work/rss.txt"
stopped=0
while kill -0 "$pid" 2>/dev/null; do
    t=$((SECONDS - start))
    rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null)
    # and its parts: the heap and other private memory, mapped files, shared memory (the X framebuffer)
    parts=$(awk '/^Rss(Anon|File|Shmem)/ {printf " %s", $2}' "/proc/$pid/status" 2>/dev/null)
    # the window's size beside it: its framebuffer is most of what moves
    size=$(DISPLAY="$display" xwininfo -root -tree 2>/dev/null | awk '/Transformer Tracer/ {print $(NF-1); exit}')
    [ -n "$rss" ] && echo "$t $rss ${size%%+*}$parts" >>"$work/rss.txt"
    if [ "$t" -ge $((minutes * 60)) ]; then
        kill -TERM "$pid"  # SDL turns it into a quit: the window closes as if by its close button
        stopped=1
        break
    fi
    for _ in $(seq 20); do kill -0 "$pid" 2>/dev/null && sleep 0.5; done
done
wait "$pid"
rc=$?
grep "^script:" "$work/out.txt"
ran=$(sed -n 's/^soak.txt:\([0-9]*\): not run.*/\1/p' "$work/err.txt")
[ -n "$ran" ] && echo "soak: stopped at line $ran of the script"
done_lines=$(grep -c "not run: the window closed" "$work/err.txt")
failed=$(grep -v "not run: the window closed" "$work/err.txt" | head -5)
[ -n "$keep" ] && cp "$work/rss.txt" "$keep"
# the run passes when the window lasted the whole time (ended by us) with no failed check
status=0
if [ "$stopped" -ne 1 ]; then
    echo "soak: the window ended by itself after $((SECONDS - start)) s with exit $rc"
    status=1
elif [ "$done_lines" -ne 1 ] || grep -q "^script: .* [1-9][0-9]* failed" "$work/out.txt"; then
    status=1
fi
[ -n "$failed" ] && { echo "soak: stderr:"; echo "$failed"; status=1; }
python3 - "$work/rss.txt" <<'PY'
import sys
rows = [tuple(map(int, line.split()[:2])) for line in open(sys.argv[1]) if line.strip()]
if len(rows) < 2:
    sys.exit("soak: too few memory samples")
warm = next((r for r in rows if r[0] >= 10), rows[0])
end, peak = rows[-1], max(r[1] for r in rows)
print(f"soak: RSS {warm[1] / 1024:.1f} MB at {warm[0]} s, {end[1] / 1024:.1f} MB at {end[0]} s (the end), "
      f"peak {peak / 1024:.1f} MB")
# the trend: a least-squares line through the samples after the warm-up, and the halves' medians
after = [r for r in rows if r[0] >= warm[0]]
mx, my = sum(r[0] for r in after) / len(after), sum(r[1] for r in after) / len(after)
sxx = sum((r[0] - mx) ** 2 for r in after) or 1
slope = sum((r[0] - mx) * (r[1] - my) for r in after) / sxx * 3600 / 1024
half = sorted(r[1] for r in after[:len(after) // 2]), sorted(r[1] for r in after[len(after) // 2:])
print(f"soak: trend {slope:+.1f} MB an hour; median {half[0][len(half[0]) // 2] / 1024:.1f} MB in the first half, "
      f"{half[1][len(half[1]) // 2] / 1024:.1f} MB in the second")
# one sample moves with what is on screen (a long sentence, a beam table): compare tenths of the run
tenth = max(1, len(rows) // 10)
for i in range(0, len(rows), tenth):
    seg = sorted(r[1] for r in rows[i:i + tenth])
    print(f"soak: {rows[i][0]:5d} s to {rows[min(i + tenth, len(rows)) - 1][0]:5d} s: RSS min {seg[0] / 1024:6.1f}, "
          f"median {seg[len(seg) // 2] / 1024:6.1f}, max {seg[-1] / 1024:6.1f} MB")
PY
exit $status
