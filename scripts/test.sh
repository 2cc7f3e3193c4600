#!/usr/bin/env bash
# `npm test`: sets everything up, then type-checks, lints, and runs every test (units,
# integration against the emulator, keytar against a real Secret Service, e2e in Chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh test

npm run typecheck
npm run lint
npm run build:web

work=$(mktemp -d)
report=$work/vitest.json
# keytar needs a Secret Service: a private session bus with a new, unlocked gnome-keyring whose
# files live in a throwaway folder (an existing keyring would want its own password).
dbus-run-session -- sh -c '
  export XDG_DATA_HOME="$1/data"
  mkdir -p "$XDG_DATA_HOME"
  echo -n devicebench | gnome-keyring-daemon --unlock --components=secrets >/dev/null
  exec npx vitest run --reporter=default --reporter=json --outputFile="$1/vitest.json"
' sh "$work" && status=0 || status=$?

node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests} skipped`);
' "$report" || true
rm -rf "$work"
exit $status
