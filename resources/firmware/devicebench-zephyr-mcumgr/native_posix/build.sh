#!/bin/bash
# Builds the example firmware for native_posix_64 into devicebench-fw.exe next to this script
# (README.md, "A Linux build"). Needs a Zephyr workspace as ../shared/zephyr-peer/README.md
# prepares it (build/prepare-ws.sh): ZEPHYR_WS (default $HOME/zephyr-ws) with zephyr/,
# modules/crypto/tinycrypt, modules/lib/zcbor and bootloader/mcuboot. BUILD_DIR, JOBS optional.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
WS=${ZEPHYR_WS:-$HOME/zephyr-ws}
export ZEPHYR_BASE=${ZEPHYR_BASE:-$WS/zephyr}
export ZEPHYR_TOOLCHAIN_VARIANT=host
MODS="$WS/modules/crypto/tinycrypt;$WS/modules/lib/zcbor;$WS/bootloader/mcuboot"
B=${BUILD_DIR:-$WS/build/devicebench-fw-native}
FW=$(cd "$HERE/.." && pwd)
# Source paths in the binary relative to the workspace and the firmware: the same bytes on any machine.
nice -n 19 cmake -GNinja -S "$HERE" -B "$B" -DBOARD=native_posix_64 -DPYTHON_PREFER=/usr/bin/python3 \
  -DZEPHYR_MODULES="$MODS" -DEXTRA_CFLAGS="-ffile-prefix-map=$WS=zephyr-ws -ffile-prefix-map=$FW=firmware" \
  > "$B.cmake.log" 2>&1 || { tail -40 "$B.cmake.log"; exit 1; }
nice -n 19 ninja -C "$B" -j"${JOBS:-2}" > "$B.ninja.log" 2>&1 || { grep -m5 -B2 -A8 'error' "$B.ninja.log"; exit 1; }
cp "$B/zephyr/zephyr.exe" "$HERE/devicebench-fw.exe.tmp"
strip --strip-debug "$HERE/devicebench-fw.exe.tmp"
mv -f "$HERE/devicebench-fw.exe.tmp" "$HERE/devicebench-fw.exe"
ls -la "$HERE/devicebench-fw.exe"
