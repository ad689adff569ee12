#!/usr/bin/env bash
# Builds the libFuzzer harnesses of tests/fuzz/ with clang (AddressSanitizer +
# UndefinedBehaviorSanitizer) in build-fuzz/ and runs each for a set time,
# two at a time. Not part of the test suite; see docs/RELIABILITY.md.
#
#   bash tools/fuzz.sh [SECONDS_PER_HARNESS] [HARNESS...]    (default: 300 s, every harness)
#   FUZZ_JOBS=1 bash tools/fuzz.sh 60 corpus                  one harness, one at a time
#
# New corpus entries stay in build-fuzz/corpus/NAME/ (the next run starts
# from them); crashes, leaks and hangs land in build-fuzz/artifacts/NAME/.
# A found input belongs in tests/fuzz/regressions/NAME/ once its reader is
# fixed: the normal suite replays that folder (tests/fuzz/meson.build).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
seconds=${1:-300}
shift || true
jobs=${FUZZ_JOBS:-2}
out=build-fuzz
CC=${CC_FUZZ:-clang}

command -v "$CC" >/dev/null || { echo "fuzz.sh: needs clang (apt-get install clang)" >&2; exit 1; }

all=(model json tokenize vocab corpus)
# colleagues' readers: fuzzed once they are in the tree
[ -f src/core/sentences.h ] && all+=(sentences)
[ -f src/lesson/lesson.h ] && all+=(lesson)
harnesses=("${@:-${all[@]}}")

mkdir -p "$out/obj"
flags=(-g -O1 -std=c11 -D_POSIX_C_SOURCE=200809L -fno-omit-frame-pointer
       -fsanitize=address,undefined -fno-sanitize-recover=undefined
       -Isrc/core -Isrc/lesson -Itests/fuzz "-DTT_FUZZ_ASSETS=\"$root/assets\"")

# the readers, built once with coverage for the fuzzer
sources=(src/core/*.c tests/fuzz/fuzz_file.c)
[ -d src/lesson ] && sources+=($(ls src/lesson/*.c 2>/dev/null))
objs=()
for src in "${sources[@]}"; do
    obj="$out/obj/$(echo "${src%.c}" | tr / _).o"
    if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ -n "$(find src/core src/lesson -name '*.h' -newer "$obj" 2>/dev/null | head -1)" ]; then
        # the kernels' loops do not depend on the input's bytes: coverage there only slows the search
        cov=-fsanitize=fuzzer-no-link
        case "$src" in src/core/ops.c|src/core/train.c) cov= ;; esac
        "$CC" "${flags[@]}" $cov -c "$src" -o "$obj" || exit 1
    fi
    objs+=("$obj")
done
for h in "${harnesses[@]}"; do
    "$CC" "${flags[@]}" -fsanitize=fuzzer "tests/fuzz/fuzz_$h.c" "${objs[@]}" -lm -lpthread -o "$out/fuzz_$h" || exit 1
done

# Seeds from the real files, gathered into build-fuzz/seeds/NAME/.
rm -rf "$out/seeds"
python3 - "$out/seeds" <<'PY'
import glob, json, os, struct, sys
seeds = sys.argv[1]
def put(kind, name, data):
    os.makedirs(os.path.join(seeds, kind), exist_ok=True)
    with open(os.path.join(seeds, kind, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode("utf-8"))
models = sorted(glob.glob("assets/models/*.safetensors") + glob.glob("tests/data/reference/*.safetensors")
                + glob.glob("tests/bad/base/*.safetensors"))
for path in models:
    raw = open(path, "rb").read()
    base = os.path.basename(path)
    if len(raw) < 100000:   # the shipped 1 MB models fuzz at a few runs a second; their headers seed json
        put("model", base, raw)
    (n,) = struct.unpack("<Q", raw[:8])
    put("json", base + ".header.json", raw[8:8 + n])
    meta = json.loads(raw[8:8 + n]).get("__metadata__", {})
    for key in ("src_vocab", "tgt_vocab"):
        if key in meta:
            put("vocab", f"{base}.{key}.json", meta[key])
for path in sorted(glob.glob("tests/data/reference/*.json")):
    put("json", os.path.basename(path), open(path, "rb").read())
for path in sorted(glob.glob("assets/vocab/*.txt") + glob.glob("assets/corpus/*/*.vocab")):
    put("vocab", path.replace("/", "_"), open(path, "rb").read())
for path in sorted(glob.glob("assets/corpus/*/*.tsv")):
    lines = open(path, "rb").read().split(b"\n")
    name = path.replace("/", "_")
    put("corpus", name, b"\n".join(lines[:40]) + b"\n")   # a slice: small inputs fuzz faster
    for i, line in enumerate(lines[:40]):
        for side, text in enumerate(line.split(b"\t")[:2]):
            put("tokenize", f"{name}.{i}.{side}", text)
for kind in ("sentences", "lesson"):
    for path in sorted(glob.glob(f"tests/fuzz/seeds/{kind}/*") + glob.glob(f"tests/data/{kind}*/*")
                       + glob.glob(f"{'lessons' if kind == 'lesson' else 'assets/sentences'}/*")):
        if os.path.isfile(path):
            put(kind, path.replace("/", "_"), open(path, "rb").read())
PY
# the bad-input collection seeds the harness that reads its kind
for f in tests/bad/model/*; do [ -f "$f" ] && cp "$f" "$out/seeds/model/bad_$(basename "$f")"; done 2>/dev/null
for f in tests/bad/corpus/*; do [ -f "$f" ] && cp "$f" "$out/seeds/corpus/bad_$(basename "$f")"; done 2>/dev/null
for f in tests/bad/vocab/*; do [ -f "$f" ] && cp "$f" "$out/seeds/vocab/bad_$(basename "$f")"; done 2>/dev/null
for f in tests/bad/text/*; do [ -f "$f" ] && cp "$f" "$out/seeds/tokenize/bad_$(basename "$f")"; done 2>/dev/null

run_one() {
    local h=$1
    mkdir -p "$out/corpus/$h" "$out/artifacts/$h" "$out/seeds/$h"
    local dirs=("$out/corpus/$h" "$out/seeds/$h")
    [ -d "tests/fuzz/regressions/$h" ] && dirs+=("tests/fuzz/regressions/$h")
    local start=$SECONDS
    "$out/fuzz_$h" "${dirs[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$out/artifacts/$h/" >"$out/fuzz_$h.log" 2>&1
    local rc=$?
    local execs
    execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$out/fuzz_$h.log" | tail -1 | awk '{print $2}')
    local found
    found=$(find "$out/artifacts/$h" -type f -newer "$out/started" | wc -l)
    printf '%-10s %12s executions in %4d s, exit %d, %d artifact(s) in %s\n' \
        "$h" "${execs:-?}" $((SECONDS - start)) "$rc" "$found" "$out/artifacts/$h/" | tee -a "$out/summary.txt"
}

echo "fuzzing ${harnesses[*]} for $seconds s each, $jobs at a time (logs: $out/fuzz_NAME.log)"
: >"$out/summary.txt"
touch "$out/started"   # artifacts newer than this are this run's
running=0
for h in "${harnesses[@]}"; do
    run_one "$h" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait -n
        running=$((running - 1))
    fi
done
wait
total=$(find "$out/artifacts" -type f -newer "$out/started" | wc -l)
echo "new artifacts (crashes, leaks, hangs) under $out/artifacts/: $total"
[ "$total" -eq 0 ]
