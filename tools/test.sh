#!/usr/bin/env bash
# The whole test suite: once in the normal build, once more built with
# warnings as errors under AddressSanitizer and UndefinedBehaviorSanitizer.
# Run tools/setup.sh first.
set -uo pipefail
cd "$(dirname "$0")/.."

export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0"
status=0

meson compile -C build && meson test -C build --print-errorlogs || status=1

[ -f build-sanitize/build.ninja ] ||
    meson setup build-sanitize --werror -Dbuildtype=debug -Db_sanitize=address,undefined -Db_lundef=false || status=1
meson compile -C build-sanitize && meson test -C build-sanitize --print-errorlogs || status=1

# One closing line over both runs, counted from meson's own logs.
python3 - build/meson-logs/testlog.json build-sanitize/meson-logs/testlog.json <<'PY'
import json, sys
ok = bad = 0
for path in sys.argv[1:]:
    try:
        for line in open(path, encoding="utf-8"):
            r = json.loads(line)["result"]
            ok += r in ("OK", "EXPECTEDFAIL", "SKIP")
            bad += r not in ("OK", "EXPECTEDFAIL", "SKIP")
    except OSError:
        bad += 1
print(f"tests: {ok} passed, {bad} failed")
PY
exit $status
