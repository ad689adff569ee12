#!/bin/bash
# Cold start of the window: from just before the process starts to the first
# frame presented (after SDL_UpdateWindowSurface), N runs, the median. Needs
# a display; without one it runs itself under Xvfb at 1920×1080, started with
# -noreset: a desktop's X server never resets, but an Xvfb whose only client
# exits does, and the next run would wait about 70 ms for that reset.
#   bash bench/first_frame.sh [BINARY] [RUNS]      (default build/transformer-tracer, 11)
set -euo pipefail
bin=${1:-build/transformer-tracer}
runs=${2:-11}
if [ -z "${DISPLAY:-}" ]; then
    exec xvfb-run -a -s "-screen 0 1920x1080x24 -noreset" bash "$0" "$bin" "$runs"
fi
times=()
for ((i = 0; i < runs; i++)); do
    start=$(date +%s%N)
    line=$(TRANSFORMER_TRACER_FIRST_FRAME=quit "$bin" window --src "the cat sits on the mat ." | grep '^first-frame ')
    frame=${line#first-frame }
    ms=$(( (${frame/./} - start) / 1000000 ))
    times+=("$ms")
done
sorted=$(printf '%s\n' "${times[@]}" | sort -n | tr '\n' ' ')
median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")
echo "first presented frame, ms (sorted): $sorted"
echo "bench: first_frame_median_ms=$median runs=$runs"
