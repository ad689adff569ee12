#!/usr/bin/env bash
# Set-up on a fresh Debian 12 or Ubuntu machine: installs the system packages
# that are missing, builds, and runs a first translation.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(gcc meson ninja-build pkg-config libcmocka-dev python3 python3-numpy libsdl2-dev libfreetype-dev libharfbuzz-dev libpng-dev fonts-noto-cjk
          xvfb openbox xdotool x11-utils imagemagick)  # the last five: the real-X11 window test (tests/test_x11.py)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "Installing: ${missing[*]}"
    $sudo apt-get update -q
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
fi

[ -f build/build.ninja ] || meson setup build
meson compile -C build
echo "transformer-tracer translate --src \"I love natural language processing\""
build/transformer-tracer translate --src "I love natural language processing"
