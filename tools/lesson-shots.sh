#!/usr/bin/env bash
# Walks through a lesson in the real window and saves every step as a PNG
# (and, for a step with a question, its revealed answer too), to look at
# before a lesson ships:
#   bash tools/lesson-shots.sh lessons/03-decoder.lesson /tmp/shots [WIDTH HEIGHT] [zh]
# Runs under Xvfb when there is no display (apt-get install xvfb).
set -euo pipefail
lesson=$1 out=$2 w=${3:-1600} h=${4:-900} lang=${5:-en}
root="$(cd "$(dirname "$0")/.." && pwd)"
tracer="${TRACER:-$root/build/transformer-tracer}"
mkdir -p "$out"
name=$(basename "$lesson" .lesson)
steps=$(grep -c '^\[step\]' "$lesson")
script="$out/$name.script"
{
    echo "resize $w $h"
    [ "$lang" = zh ] && echo "key F2"
    for ((i = 1; i <= steps; i++)); do
        n=$(printf %02d "$i")
        echo "export $out/$name-$n.png"
        # a question: the answer too (Enter on a step without one does nothing)
        echo "key Return"
        echo "export $out/$name-$n-reveal.png"
        echo "key Return"
        echo "key Right"
    done
    echo "quit"
} >"$script"
run=("$tracer" window --lesson "$lesson" --script "$script")
if [ -z "${DISPLAY:-}" ] && [ "${SDL_VIDEODRIVER:-}" != offscreen ]; then
    xvfb-run -a -s "-screen 0 ${w}x${h}x24" "${run[@]}"
else
    "${run[@]}"
fi
# a step with no question gives the same picture twice: keep one
for f in "$out/$name"-??-reveal.png; do
    cmp -s "$f" "${f%-reveal.png}.png" && rm -f "$f"
done
ls "$out/$name"-*.png | wc -l | xargs echo "$name: pictures in $out:"
