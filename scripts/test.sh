#!/usr/bin/env bash
# `npm test`: sets everything up, then type-checks, lints, and runs every test (units,
# integration against the emulator, keytar against a real Secret Service, e2e in Chromium).
# What does not depend on another step runs at the same time (docs/decisions.md, "Test suite
# time"): the type-check, the lint, the unit project, and the web build followed by the e2e
# project. Each step's output goes to a file of its own and is printed whole, in a fixed order,
# once the step ends, so two steps' lines never interleave.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh test

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# step NAME COMMAND…: runs COMMAND in the background; its output lands in $work/NAME.log, its
# exit status in $work/NAME.status and its seconds in $work/NAME.seconds.
step() {
  local name=$1
  shift
  (
    start=$SECONDS
    "$@" >"$work/$name.log" 2>&1 && status=0 || status=$?
    echo "$status" >"$work/$name.status"
    echo $((SECONDS - start)) >"$work/$name.seconds"
  ) &
}

# project NAME: one Vitest project, with its per-file JSON report in $work/NAME.json. keytar
# needs a Secret Service: a private session bus with a new, unlocked gnome-keyring whose files
# live in a throwaway folder (an existing keyring would want its own password).
project() {
  dbus-run-session -- sh -c '
    export XDG_DATA_HOME="$1/$2-keyring"
    mkdir -p "$XDG_DATA_HOME"
    echo -n devicebench | gnome-keyring-daemon --unlock --components=secrets >/dev/null
    exec npx vitest run --project "$2" --reporter=default --reporter=json --outputFile="$1/$2.json"
  ' sh "$work" "$1"
}

# The e2e project serves the built renderer, so it waits for the build and nothing else.
e2e() {
  npm run build:web && project e2e
}

step typecheck npm run typecheck
step lint npm run lint
step unit project unit
step e2e e2e

failed=0
for name in typecheck lint unit e2e; do
  while [ ! -f "$work/$name.seconds" ]; do sleep 1; done
  status=$(cat "$work/$name.status")
  echo "── $name: exit $status after $(cat "$work/$name.seconds")s ──"
  cat "$work/$name.log"
  [ "$status" = 0 ] || failed=1
done
wait

# The counts of both projects, and the slowest files: where the time goes.
node -e '
  const fs = require("fs");
  const reports = process.argv.slice(1).filter((f) => fs.existsSync(f));
  const runs = reports.map((f) => JSON.parse(fs.readFileSync(f, "utf8")));
  const sum = (key) => runs.reduce((n, r) => n + r[key], 0);
  console.log(`${sum("numPassedTests")} passed, ${sum("numFailedTests")} failed, ${sum("numPendingTests")} skipped`);
  const files = runs.flatMap((r) => r.testResults.map((t) => [t.endTime - t.startTime, t.name]));
  files.sort((a, b) => b[0] - a[0]);
  console.log("slowest files:");
  for (const [ms, name] of files.slice(0, 10))
    console.log(`  ${(ms / 1000).toFixed(1).padStart(6)} s  ${name.replace(process.cwd() + "/", "")}`);
' "$work/unit.json" "$work/e2e.json" || true
exit $failed
