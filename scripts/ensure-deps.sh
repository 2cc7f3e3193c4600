#!/usr/bin/env bash
# Installs what DeviceBench needs on a fresh machine, and nothing twice: the Debian/Ubuntu
# packages that are missing (keytar builds against libsecret, noble's HCI binding against BlueZ
# and udev; tests need a Secret Service and Chromium), and the npm packages whenever
# package-lock.json has changed since the last install.
# usage: scripts/ensure-deps.sh app|test
set -euo pipefail
cd "$(dirname "$0")/.."
purpose=${1:-test}

packages=(libsecret-1-dev libbluetooth-dev libudev-dev)
# postgresql: the shared audit log's tests start their own server from it (test/helpers/postgres.ts).
[ "$purpose" = test ] && packages+=(gnome-keyring dbus chromium postgresql)
# fonts-noto-cjk: Japanese product names are drawn with real glyphs, not boxes (test/e2e/layout.test.ts).
[ "$purpose" = test ] && packages+=(fonts-noto-cjk)
# socat: a pty bridged to `devicebench sim serve --h4 tcp:…` is the serial dongle of the H4 tests.
[ "$purpose" = test ] && packages+=(socat)

if command -v dpkg-query >/dev/null 2>&1; then
  missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    echo "Installing system packages: ${missing[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
else
  echo "Not a Debian-like system: make sure libsecret (Linux) and, for tests, Chromium are installed." >&2
fi

# The Electron binary is fetched separately (scripts/start.sh): it cannot be downloaded
# everywhere, and neither the build nor any test needs it.
stamp=node_modules/.devicebench-lock
lock_hash=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lock_hash" ]; then
  echo "Installing npm packages"
  ELECTRON_SKIP_BINARY_DOWNLOAD=1 npm ci --no-fund --no-audit --loglevel=error
  echo "$lock_hash" > "$stamp"
fi

# After `npm start` built the native modules for Electron, the tests need them built for Node.
if [ "$purpose" = test ] && [ "$(cat node_modules/.devicebench-abi 2>/dev/null)" = electron ]; then
  echo "Building native modules for Node"
  npm rebuild better-sqlite3 keytar @abandonware/bluetooth-hci-socket usb --loglevel=error
  rm -f node_modules/.devicebench-abi
fi
