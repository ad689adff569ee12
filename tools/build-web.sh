#!/bin/bash
# The program for the browser: bash tools/build-web.sh [OUT]
#
# Builds SDL2, FreeType, HarfBuzz, zlib and libpng from Debian's source
# packages with Emscripten (Debian's emscripten package) into a cache outside
# the repository, reused while their versions do not change; then builds the
# same core, lesson and app sources into a static folder (default
# build-wasm/site): index.html, the .js, the .wasm and a .data file holding
# the models, the lessons and the font cut down to the glyphs the program can
# show. Serve it with: python3 -m http.server -d build-wasm/site
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build-wasm/site}
obj=$root/build-wasm/obj
cache=${XDG_CACHE_HOME:-$HOME/.cache}/transformer-tracer-web
jobs=${TT_WEB_JOBS:-2}
font_ttc=/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}

say() { echo "build-web: $*" >&2; }
die() { say "$*"; exit 1; }

need_debs() {
    local missing=()
    for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
    [ ${#missing[@]} -eq 0 ] && return 0
    [ "$(id -u)" = 0 ] || die "install: sudo apt-get install -y ${missing[*]}"
    apt-get install -y -q "${missing[@]}" >&2
}

# deb-src lines for the suites the machine's deb lines use
ensure_deb_src() {
    if apt-cache showsrc libsdl2 2>/dev/null | grep -q '^Version:'; then return 0; fi
    [ "$(id -u)" = 0 ] || die "no deb-src entries: add 'deb-src' to the Types of /etc/apt/sources.list.d/debian.sources and run apt-get update"
    local f=/etc/apt/sources.list.d/debian.sources dst=/etc/apt/sources.list.d/transformer-tracer-src.sources
    [ -f "$f" ] || die "no $f to take the suites from"
    sed 's/^Types:.*/Types: deb-src/' "$f" >"$dst"
    apt-get update -q >&2
}

need_debs emscripten node-acorn python3-fonttools fonts-noto-cjk dpkg-dev cmake make
mkdir -p "$cache/src"

# Debian source packages, in build order
pkgs=(zlib libpng1.6 freetype harfbuzz libsdl2)
ensure_deb_src
declare -A ver dir

fetch() {  # fetch P V: the source tree of package P at version V in $cache/src, with Debian's patches
    local p=$1 v=$2 d=$cache/src/$1-${2#*:}
    if [ ! -f "$d/.unpacked" ]; then
        say "fetching $p $v"
        rm -rf "$d" "$cache/src/dl-$p"
        mkdir -p "$cache/src/dl-$p"
        if ! (cd "$cache/src/dl-$p" && apt-get source -q --download-only "$p=$v" >&2); then
            rm -rf "$cache/src/dl-$p"
            return 1
        fi
        dpkg-source -q -x "$cache/src/dl-$p"/*.dsc "$d" >&2
        rm -rf "$cache/src/dl-$p"
        touch "$d/.unpacked"
    fi
    ver[$p]=$v
    dir[$p]=$d
}

# the newest version the mirror serves (an index can name one it does not hold yet)
key=$(emcc --version | sed -n 1p)
for p in "${pkgs[@]}"; do
    for v in $(apt-cache showsrc "$p" | sed -n 's/^Version: //p' | sort -rV | uniq); do
        fetch "$p" "$v" && break
    done
    [ -n "${ver[$p]:-}" ] || die "cannot fetch the source package $p"
    key="$key $p=${ver[$p]}"
done
# and the recipe: this script up to the program's part
key="$key $(sed '/^# ---- the program/q' "$0" | sha256sum)"
prefix=$cache/prefix-$(echo "$key" | sha256sum | cut -c1-12)

cm() {  # cm P ARGS: configure, build and install package P with CMake
    local p=$1; shift
    local b=$cache/build/$p
    rm -rf "$b"
    emcmake cmake -S "${dir[$p]}" -B "$b" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
        -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_ROOT_PATH="$prefix" -DBUILD_SHARED_LIBS=OFF "$@" >&2
    nice -n 15 cmake --build "$b" -j "$jobs" >&2
    cmake --install "$b" >&2
}

if [ ! -f "$prefix/.done" ]; then
    rm -rf "$prefix" "$cache/build"
    mkdir -p "$prefix"
    t0=$(date +%s)
    say "building the libraries into $prefix"
    # zlib's CMake file wants the Windows resources Debian's source leaves out: its sources directly
    mkdir -p "$cache/build/zlib" "$prefix/lib" "$prefix/include"
    # zconf.h as zlib's configure writes it (the source's own, found first beside zlib.h, lacks unistd.h)
    sed 's/^#ifdef HAVE_UNISTD_H.*/#if 1/; s/^#ifdef HAVE_STDARG_H.*/#if 1/' "${dir[zlib]}/zconf.h.in" >"$prefix/include/zconf.h"
    cp "$prefix/include/zconf.h" "${dir[zlib]}/zconf.h"
    for f in adler32 compress crc32 deflate gzclose gzlib gzread gzwrite infback inffast inflate inftrees trees uncompr zutil; do
        nice -n 15 emcc -O2 -c "${dir[zlib]}/$f.c" -I"$prefix/include" -o "$cache/build/zlib/$f.o"
    done
    emar rcs "$prefix/lib/libz.a" "$cache/build/zlib"/*.o
    cp "${dir[zlib]}/zlib.h" "$prefix/include/"
    cm libpng1.6 -DPNG_SHARED=OFF -DPNG_STATIC=ON -DPNG_TESTS=OFF -DPNG_EXECUTABLES=OFF -DPNG_HARDWARE_OPTIMIZATIONS=OFF \
        -DZLIB_ROOT="$prefix" -DZLIB_LIBRARY="$prefix/lib/libz.a" -DZLIB_INCLUDE_DIR="$prefix/include" -DSKIP_INSTALL_PROGRAMS=ON
    # zlib: ours (FreeType's own copy would clash with it at link time)
    cm freetype -DFT_REQUIRE_ZLIB=ON -DZLIB_LIBRARY="$prefix/lib/libz.a" -DZLIB_INCLUDE_DIR="$prefix/include" -DFT_DISABLE_BZIP2=ON -DFT_DISABLE_PNG=ON -DFT_DISABLE_HARFBUZZ=ON -DFT_DISABLE_BROTLI=ON
    # video and events only: the program has no sound, joystick or threads
    cm libsdl2 -DSDL_SHARED=OFF -DSDL_STATIC=ON -DSDL_TEST=OFF -DSDL_AUDIO=OFF -DSDL_JOYSTICK=OFF -DSDL_HAPTIC=OFF \
        -DSDL_SENSOR=OFF -DSDL_POWER=OFF -DSDL_HIDAPI=OFF -DSDL_THREADS=OFF -DSDL_PTHREADS=OFF -DSDL_OPENGL=OFF -DSDL_OPENGLES=OFF
    # HarfBuzz's one-file build, with FreeType: the text is shaped with it
    # (src/app/font.c) as on the desktop, so the page's text lines up with the goldens
    mkdir -p "$cache/build/hb" "$prefix/include/harfbuzz"
    nice -n 15 em++ -O2 -std=c++11 -fno-exceptions -fno-rtti -DHAVE_FREETYPE -I"$prefix/include/freetype2" \
        -c "${dir[harfbuzz]}/src/harfbuzz.cc" -o "$cache/build/hb/harfbuzz.o"
    emar rcs "$prefix/lib/libharfbuzz.a" "$cache/build/hb/harfbuzz.o"
    cp "${dir[harfbuzz]}"/src/hb*.h "$prefix/include/harfbuzz/"
    rm -rf "$cache/build"
    say "libraries built in $(($(date +%s) - t0)) s"
    touch "$prefix/.done"
fi
[ "${TT_WEB_LIBS_ONLY:-}" ] && exit 0

# ---- the program ----------------------------------------------------------------
rm -rf "$obj"
mkdir -p "$obj/o" "$obj/data/assets" "$out"
version=$(sed -n "s/^  version: '\(.*\)',/\1/p" "$root/meson.build")
# the page's file system: the data under /data, the app linked in (no module to load)
cat >"$obj/tt_config.h" <<CONF
#pragma once
#define TT_APP_MODULE ""
#define TT_DRAW_MODULE ""
#define TT_APP_MODULE_DIR ""
#define TT_APP_MODULE_FROM_BIN ""
#define TT_INSTALL_DATA "/data"
#define TT_SOURCE_ASSETS "/data/assets"
#define TT_VERSION "$version"
CONF
cflags=(-std=c11 -D_POSIX_C_SOURCE=200809L -DTT_APP_LINKED -I"$obj" -I"$root/src/core" -I"$root/src/lesson"
        -I"$root/src/app" -I"$prefix/include/SDL2" -I"$prefix/include" -I"$prefix/include/freetype2"
        -I"$prefix/include/harfbuzz" -Wall -Wextra)
compile() {  # compile DIR OPT... -- FILE...: each file into $obj/DIR, two at a time
    local dir=$obj/$1 opts=(); shift
    while [ "$1" != -- ]; do opts+=("$1"); shift; done; shift
    mkdir -p "$dir"
    printf '%s\n' "$@" | nice -n 15 xargs -P "$jobs" -I{} sh -c \
        'f="$1"; d="$2"; shift 2; o="$(echo "${f#'"$root"'/}" | tr / _).o"; exec emcc "$@" -c "$f" -o "$d/$o"' \
        _ {} "$dir" "${opts[@]}" "${cflags[@]}"
}
# The core at -O3, as in meson.build, twice: with WebAssembly's SIMD
# instructions (its dot products about 2.5 times faster) and without, for the
# browsers that have none (Safari before 16.4); index.html picks one.
say "compiling"
compile o -O3 -- "$root"/src/core/*.c
compile o-simd -O3 -msimd128 -- "$root"/src/core/*.c
compile o -O2 -- "$root"/src/lesson/*.c "$root"/src/app/*.c "$root"/src/main.c "$root"/src/cli.c "$root"/src/cmd_*.c

# the data: models, vocabularies, corpora (the gold alignments), lessons, and the font;
# not the models' training histories (10 MB: the page would pass its 6 MB): they
# are files of their own in histories/, downloaded when first shown (src/app/window.c)
rm -rf "$obj/data/assets/models"
mkdir -p "$obj/data/assets/models" "$obj/data/histories"
for f in "$root"/assets/models/*.safetensors; do
    case $f in
        # listed, as an empty file, for the page to know that histories/ beside it has it
        *.snapshots.safetensors) : >"$obj/data/histories/$(basename "$f")" ;;
        *) cp "$f" "$obj/data/assets/models/" ;;
    esac
done
cp -r "$root/assets/vocab" "$root/assets/corpus" "$obj/data/assets/"
cp -r "$root/lessons" "$obj/data/"
# the font cut down to what the program can show: its strings, the lessons,
# the vocabularies (also those inside the models), Latin, punctuation, arrows
/usr/bin/python3 - "$root" "$obj/chars.txt" <<'PY'
import json, pathlib, struct, sys, unicodedata
root, out = pathlib.Path(sys.argv[1]), sys.argv[2]
chars = set(chr(c) for c in range(0x20, 0x7F))
chars |= set(chr(c) for c in range(0xA0, 0x250))          # Latin-1 and Latin Extended (French)
chars |= set(chr(c) for c in range(0x2000, 0x2300))       # punctuation, super/subscripts, arrows, maths
chars |= set(chr(c) for c in range(0x2500, 0x2600))       # box drawing, blocks, geometric shapes
chars |= set(chr(c) for c in range(0x3000, 0x3040))       # CJK punctuation
chars |= set(chr(c) for c in range(0xFF00, 0xFFF0))       # full-width forms
texts = [p for d in ("src", "lessons", "assets/vocab", "assets/corpus") for p in (root / d).rglob("*") if p.is_file()]
for p in texts:
    if p.suffix in (".c", ".h", ".lesson", ".txt", ".tsv", ".vocab", ""):
        chars |= set(p.read_bytes().decode("utf-8", "ignore"))
for p in (root / "assets/models").glob("*.safetensors"):
    b = p.read_bytes()
    n = struct.unpack("<Q", b[:8])[0]
    chars |= set(json.dumps(json.loads(b[8:8 + n]).get("__metadata__", {}), ensure_ascii=False))
pathlib.Path(out).write_text("".join(sorted(c for c in chars if unicodedata.category(c) not in ("Cc", "Cs"))), encoding="utf-8")
PY
nice -n 15 /usr/bin/python3 -m fontTools.subset "$font_ttc" --font-number=3 --text-file="$obj/chars.txt" \
    --layout-features='*' --name-IDs='*' --notdef-outline --output-file="$obj/data/font.otf"

say "linking"
# the data once, in a file of its own with its loader (data.js), for both builds
(cd "$obj" && nice -n 15 /usr/bin/python3 /usr/share/emscripten/tools/file_packager.py transformer-tracer.data \
    --preload "data@/data" --js-output=data.js --no-node >/dev/null)
exported=_main,_tt_web_open,_tt_web_state,_tt_web_go,_tt_web_button
link() {  # link NAME CORE-DIR SIMD-FLAG...: the program, NAME.js and NAME.wasm
    local name=$1 core=$2; shift 2
    nice -n 15 emcc -O2 "$@" "$obj"/$core/src_core_*.o $(ls "$obj"/o/*.o | grep -v /src_core_) -o "$obj/$name.js" \
        -L"$prefix/lib" -lharfbuzz -lfreetype -lSDL2 -lpng16 -lz \
        -sALLOW_MEMORY_GROWTH=1 -sINITIAL_MEMORY=64MB -sENVIRONMENT=web -sFORCE_FILESYSTEM=1 \
        -sEXPORTED_FUNCTIONS="$exported" -sEXPORTED_RUNTIME_METHODS=FS,ENV,ccall,UTF8ToString
}
link transformer-tracer o
link transformer-tracer-simd o-simd -msimd128
# bench/bench_trace.c as a page of its own (bench.html): a toy trace's time in the browser, in both builds
for v in "" -simd; do
    nice -n 15 emcc -O3 ${v:+-msimd128} "${cflags[@]}" -I"$root/bench" "$root/bench/bench_trace.c" "$obj"/o$v/src_core_*.o \
        -o "$obj/bench$v.js" -sALLOW_MEMORY_GROWTH=1 -sENVIRONMENT=web -sEXIT_RUNTIME=1 \
        --preload-file "$root/assets/models/en-zh-random.safetensors@/data/assets/models/en-zh-random.safetensors"
done
cp "$obj"/transformer-tracer.* "$obj"/transformer-tracer-simd.* "$obj/data.js" "$obj"/bench.* "$obj"/bench-simd.* "$out/"
cp "$root"/web/* "$out/"
rm -rf "$out/histories"
mkdir -p "$out/histories"
cp "$root"/assets/models/*.snapshots.safetensors "$out/histories/"
# what it was built from, so that tests/test_web.mjs knows a folder older than the sources
(cd "$root" && find src lessons assets web -type f | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-64) >"$out/sources.sha256"
build=$(cat "$out"/transformer-tracer* "$out/data.js" "$out/simd.js" "$out/index.html" "$out"/histories/* | sha256sum | cut -c1-12)
histories=$(cat "$out"/histories/* | sha256sum | cut -c1-12)
sed -i "s/@BUILD@/$build/; s/@HISTORIES@/$histories/" "$out/sw.js"
# what a visitor with SIMD downloads (the benchmark page apart; the other build is the same size)
app=("$out"/index.html "$out"/simd.js "$out"/data.js "$out"/transformer-tracer.data "$out"/transformer-tracer-simd.{js,wasm}
     "$out"/sw.js "$out"/manifest.webmanifest "$out"/icon.svg)
say "wrote $out: the page is $(cat "${app[@]}" | wc -c) bytes, $(for f in "${app[@]}"; do gzip -9c "$f"; done | wc -c) compressed (gzip -9)"
# what tests/test_web.mjs drives the page with: Debian's chromium, and puppeteer-core from npm into the cache
need_debs chromium
if [ ! -d "$cache/npm/node_modules/puppeteer-core" ]; then
    say "installing puppeteer-core into $cache/npm"
    mkdir -p "$cache/npm"
    [ -f "$cache/npm/package.json" ] || echo '{"name": "transformer-tracer-web-test", "private": true}' >"$cache/npm/package.json"
    (cd "$cache/npm" && npm install --no-audit --no-fund puppeteer-core >&2)
fi
