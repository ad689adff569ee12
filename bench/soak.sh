#!/usr/bin/env bash
# The soak: N random actions (navigation keys, typed sentences good and bad,
# model and decoding changes) through the window's scripted event loop,
# headless, with its resident memory sampled every second. Not a test: it
# takes minutes. See docs/RELIABILITY.md.
#
#   bash bench/soak.sh [BUILD_DIR] [ACTIONS] [SEED]     (default: build 100000 1)
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
actions=${2:-100000}
seed=${3:-1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 bench/soak_script.py "$(pwd)" "$actions" "$seed" >"$work/soak.txt" || exit 1
echo "soak: $actions actions ($(grep -vc '^#' "$work/soak.txt") script lines), seed $seed, $build/transformer-tracer"
start=$SECONDS
# in the scratch folder: exports (Ctrl+S) and nothing else land there
(cd "$work" && SDL_VIDEODRIVER=offscreen TRANSFORMER_TRACER_DATA="$OLDPWD/assets" \
    "$OLDPWD/$build/transformer-tracer" window --src "the cat sits on the mat ." --script soak.txt >out.txt 2>err.txt) &
pid=$!
sleep 0.2
child=$(pgrep -P "$pid" -f transformer-tracer | head -1)
: >"$work/rss.txt"
while kill -0 "$pid" 2>/dev/null; do
    rss=$(awk '/^VmRSS/ {print $2}' "/proc/${child:-$pid}/status" 2>/dev/null)
    [ -n "$rss" ] && echo "$((SECONDS - start)) $rss" >>"$work/rss.txt"
    sleep 1
done
wait "$pid"
rc=$?
tail -1 "$work/out.txt"
[ "$rc" -eq 0 ] || { echo "soak: exit $rc"; tail -5 "$work/err.txt"; }
# start: once the window is up and warm (10 s in, or the first sample); end: the last sample
python3 - "$work/rss.txt" "$((SECONDS - start))" <<'PY'
import sys
rows = [tuple(map(int, line.split())) for line in open(sys.argv[1]) if line.strip()]
if not rows:
    sys.exit("soak: no memory samples")
warm = next((r for r in rows if r[0] >= 10), rows[0])
end, peak = rows[-1], max(r[1] for r in rows)
print(f"soak: {sys.argv[2]} s; RSS {warm[1] / 1024:.1f} MB at {warm[0]} s, {end[1] / 1024:.1f} MB at {end[0]} s (the end), "
      f"peak {peak / 1024:.1f} MB; first sample {rows[0][1] / 1024:.1f} MB")
# one sample moves with what is on screen (a long sentence, a beam table): compare tenths of the run
tenth = max(1, len(rows) // 10)
for i in range(0, len(rows), tenth):
    seg = sorted(r[1] for r in rows[i:i + tenth])
    print(f"soak: {rows[i][0]:5d} s to {rows[min(i + tenth, len(rows)) - 1][0]:5d} s: RSS min {seg[0] / 1024:6.1f}, "
          f"median {seg[len(seg) // 2] / 1024:6.1f}, max {seg[-1] / 1024:6.1f} MB")
PY
exit $rc
