#!/usr/bin/env bash
# `npm start`: sets everything up and opens DeviceBench on its embedded platform emulator.
# Where the Electron binary cannot be downloaded, it opens the same UI in the browser instead.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh app

if [ ! -f node_modules/electron/path.txt ]; then
  echo "Fetching the Electron binary"
  node node_modules/electron/install.js >/dev/null 2>&1 || true
fi

if [ -f node_modules/electron/path.txt ]; then
  # npm ci builds native modules for Node; the desktop app needs them built for Electron's ABI.
  # The stamp tells scripts/ensure-deps.sh to build them for Node again before the tests.
  if [ "$(cat node_modules/.devicebench-abi 2>/dev/null)" != electron ]; then
    echo "Building native modules for Electron"
    npm exec --yes -- @electron/rebuild --only better-sqlite3,keytar,@abandonware/bluetooth-hci-socket,usb
    echo electron > node_modules/.devicebench-abi
  fi
  exec npx electron-vite preview
fi

echo "The Electron binary could not be downloaded on this machine: starting the browser version."
exec npm run web
