#!/usr/bin/env bash
# Times our trainer on the shipped models' recipe (as tools/train-models.sh
# runs it, into a temporary folder), then bench/torch_train.py training the
# same architecture on the same corpus, and prints both times and the ratio.
#   bash bench/bench_train.sh                      en-zh, each side once, PyTorch 2000 steps
#   bash bench/bench_train.sh --pair en-fr --runs 2
#   bash bench/bench_train.sh --torch-steps 300    PyTorch runs 300 steps; its time for
#                                                  2000 is extrapolated (ms/step × 2000)
#   bash bench/bench_train.sh --torch-threads 1    PyTorch on one thread (ours keeps 2)
#   bash bench/bench_train.sh --no-torch           our trainer only
# PyTorch's BLAS is whatever /usr/bin/python3 loads (Debian's default is the
# reference BLAS); for OpenBLAS see docs/PERFORMANCE.md. Build first:
# meson setup build && meson compile -C build
set -euo pipefail
cd "$(dirname "$0")/.."
tt=build/transformer-tracer
pair=en-zh
runs=1
steps=2000
torch_steps=2000
torch_threads=2
torch=true
while [ $# -gt 0 ]; do
    case $1 in
        --pair) pair=$2; shift 2 ;;
        --runs) runs=$2; shift 2 ;;
        --torch-steps) torch_steps=$2; shift 2 ;;
        --torch-threads) torch_threads=$2; shift 2 ;;
        --no-torch) torch=false; shift ;;
        *) echo "usage: bash bench/bench_train.sh [--pair en-zh|en-fr] [--runs N] [--torch-steps N] [--torch-threads N] [--no-torch]" >&2; exit 2 ;;
    esac
done
corpus=assets/corpus/$pair
[ -x $tt ] || { echo "no $tt: meson setup build && meson compile -C build" >&2; exit 1; }
[ -f "$corpus/train.tsv" ] || { echo "no $corpus/train.tsv" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# a copy, so that a rebuild during the bench cannot swap the binary under it
cp $tt "$tmp/transformer-tracer"
tt=$tmp/transformer-tracer

# "h:mm:ss" or "m:ss.ss" from /usr/bin/time -v → seconds
to_seconds() { awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }' <<<"$1"; }
field() { sed -n "s/^[[:space:]]*$1: //p" "$2" | tail -1; }

echo "bench_train: $pair, $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
ours_best=
for run in $(seq 1 "$runs"); do
    log=$tmp/ours.$run.log
    # the recipe of tools/train-models.sh
    /usr/bin/time -v $tt train --train "$corpus/train.tsv" --valid "$corpus/valid.tsv" \
        --out "$tmp/$pair.safetensors" --name bench --seed 1 --threads 2 \
        --d-model 64 --nhead 4 --layers 2 --d-ff 256 --max-len 24 \
        --steps $steps --batch 32 --lr 0.002 --warmup 200 --label-smoothing 0.1 --clip 1 \
        --supervise-head 2,1 --align-weight 1 --eval-every 500 2>"$log" || { cat "$log" >&2; exit 1; }
    wall=$(to_seconds "$(field 'Elapsed (wall clock) time (h:mm:ss or m:ss)' "$log")")
    rss=$(field 'Maximum resident set size (kbytes)' "$log")
    last=$(grep "^\[#*\] $steps/$steps" "$log" | tail -1)
    tok=$(sed -n 's/.*  \([0-9]*\) tok\/s.*/\1/p' <<<"$last")
    acc=$(sed -n 's/.*  acc *\([0-9.]*%\).*/\1/p' <<<"$last")
    loss=$(sed -n 's/.*  loss \([0-9.]*\) .*/\1/p' <<<"$last")
    printf 'ours  run %d: %7.2f s wall (whole process), %5.1f steps/s, %s tok/s, peak RSS %.1f MiB; loss %s, acc %s; load %s\n' \
        "$run" "$wall" "$(awk -v s=$steps -v w="$wall" 'BEGIN { print s / w }')" "$tok" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" \
        "$loss" "$acc" "$(cut -d' ' -f1-3 /proc/loadavg)"
    if [ -z "$ours_best" ] || awk -v a="$wall" -v b="$ours_best" 'BEGIN { exit !(a < b) }'; then ours_best=$wall; fi
done
$torch || exit 0

torch_best=
for run in $(seq 1 "$runs"); do
    log=$tmp/torch.$run.log
    /usr/bin/time -v /usr/bin/python3 bench/torch_train.py --steps "$torch_steps" --threads "$torch_threads" \
        --corpus "$corpus/train.tsv" >"$log" 2>"$log.time" || { cat "$log" "$log.time" >&2; exit 1; }
    [ "$run" = 1 ] && head -1 "$log"
    wall=$(to_seconds "$(field 'Elapsed (wall clock) time (h:mm:ss or m:ss)' "$log.time")")
    rss=$(field 'Maximum resident set size (kbytes)' "$log.time")
    summary=$(grep '^torch_train:' "$log")
    ms=$(sed -n 's/.* \([0-9.]*\) ms\/step.*/\1/p' <<<"$summary")
    full=$(awk -v m="$ms" -v s=$steps 'BEGIN { print m * s / 1000 }')
    printf 'torch run %d: %s\n              first 100 steps: %s; whole process %.2f s, peak RSS %.1f MiB; load %s\n' \
        "$run" "${summary#torch_train: }" "$(sed -n 's/^first 100 steps: //p' "$log")" "$wall" \
        "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" "$(cut -d' ' -f1-3 /proc/loadavg)"
    if [ "$torch_steps" != "$steps" ]; then
        printf '              %s steps extrapolated from %s measured: %.1f s\n' "$steps" "$torch_steps" "$full"
    fi
    if [ -z "$torch_best" ] || awk -v a="$full" -v b="$torch_best" 'BEGIN { exit !(a < b) }'; then torch_best=$full; fi
done
extra=""
[ "$torch_steps" != "$steps" ] && extra=" (extrapolated from $torch_steps steps)"
printf 'bench_train: %s, %d steps: ours %.1f s, PyTorch %.1f s%s (best of %d each): PyTorch / ours = %.1f×\n' \
    "$pair" "$steps" "$ours_best" "$torch_best" "$extra" "$runs" "$(awk -v t="$torch_best" -v o="$ours_best" 'BEGIN { print t / o }')"
