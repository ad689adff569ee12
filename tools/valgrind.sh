#!/usr/bin/env bash
# Valgrind's memcheck over every command and a scripted headless window
# session (tests/data/scripts/e2e.txt). Each line: the command, its exit
# status, bytes definitely lost and memcheck's error count. Not part of the
# test suite (minutes); see docs/RELIABILITY.md.
#
#   bash tools/valgrind.sh [BUILD_DIR]      (default: build)
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
T=$root/${1:-build}/transformer-tracer
command -v valgrind >/dev/null || { echo "valgrind.sh: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
export TRANSFORMER_TRACER_DATA=$root/assets
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0

vg() {
    local name=$1
    shift
    valgrind --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 --log-file="$work/$name.log" \
        "$@" >/dev/null 2>"$work/$name.err"
    local rc=$?
    local lost errors
    lost=$(grep -o 'definitely lost: [0-9,]* bytes' "$work/$name.log" | grep -o '[0-9,]* bytes' || echo "0 bytes")
    errors=$(grep -o 'ERROR SUMMARY: [0-9]* errors' "$work/$name.log" | grep -o '[0-9]* errors')
    printf '%-18s exit %-3s definitely lost %-10s %s\n' "$name" "$rc" "$lost" "$errors"
    [ "$rc" -eq 99 ] && status=1
}

head -200 assets/corpus/en-zh/train.tsv >"$work/small.tsv"
vg translate "$T" translate --src "i love natural language processing"
vg translate-beam "$T" translate --src "the cat sits on the mat ." --decode beam --beam 4
vg translate-sample "$T" translate --src "the cat sits on the mat ." --decode sample --seed 3 --top-p 0.9
vg trace-out "$T" trace --src "i love nlp" --target "我 愛 自然 語言 處理" --out "$work/t.json"
vg export "$T" export --src "the cat on the mat" --stage dec.L2.cross_attn.weights --head 1 --step 2 --out "$work/s.png"
vg eval "$T" eval --model assets/models/en-zh.safetensors --corpus assets/corpus/en-zh/test.tsv --limit 30
vg train "$T" train --train "$work/small.tsv" --out "$work/m.safetensors" --steps 3 --batch 8 --d-model 16 --nhead 2 \
    --layers 1 --d-ff 32 --threads 2 --checkpoint-every 2
vg init "$T" init --src-vocab tests/bad/base/src-vocab.txt --tgt-vocab tests/bad/base/tgt-vocab.txt --out "$work/i.safetensors" --d-model 8 --nhead 2
vg corpus "$T" corpus --pair en-fr --seed 2 --out "$work/c"
vg lint "$T" lint tests/data/lessons/syntax.lesson
vg bad-model "$T" translate --model tests/bad/model/weights-huge.safetensors --src "the cat"
vg bad-corpus "$T" eval --model tests/bad/base/tiny.safetensors --corpus tests/bad/corpus/align-huge-index.tsv
vg bad-text "$T" translate --src "$(printf 'the \377 cat')"
(cd "$work" && SDL_VIDEODRIVER=offscreen vg window-e2e "$T" window --src "the cat sits on the mat ." --script "$root/tests/data/scripts/e2e.txt")
exit $status
