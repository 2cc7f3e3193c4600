#!/usr/bin/env bash
# `npm test`: sets everything up, then type-checks, lints, and runs every test (units,
# integration against the emulator, keytar against a real Secret Service, e2e in Chromium).
# The web build (a second) comes first: the e2e tests load it. The type-check and the lint
# need nothing of the tests and run beside them at the lowest CPU priority, on the cores the
# tests leave idle while they wait on timers, boards and the browser (docs/decisions/tooling.md,
# "Eighth round"); each one's output goes to a file of its own and is printed whole after the
# tests, in a fixed order, so their lines never interleave. Either failing fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh test

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# step NAME COMMAND…: runs COMMAND in the background; its output lands in $work/NAME.log and its
# exit status in $work/NAME.status; `report NAME` waits for it and prints both.
step() {
  local name=$1
  shift
  ("$@" >"$work/$name.log" 2>&1 && echo 0 >"$work/$name.status" || echo $? >"$work/$name.status") &
}
checks=0
report() {
  while [ ! -f "$work/$1.status" ]; do sleep 1; done
  echo "── $1: exit $(cat "$work/$1.status") ──"
  cat "$work/$1.log"
  [ "$(cat "$work/$1.status")" = 0 ] || checks=1
}

step build-web npm run build:web
report build-web
[ "$checks" = 0 ] || exit 1
step typecheck nice -n 19 npm run typecheck
step lint nice -n 19 npm run lint

# Per-file timings of the run stay in test-results/vitest.json (where the time went, file by
# file). keytar needs a Secret Service: a private session bus with a new, unlocked
# gnome-keyring whose files live in a throwaway folder (an existing keyring would want its own
# password).
report=test-results/vitest.json
mkdir -p test-results
dbus-run-session -- sh -c '
  export XDG_DATA_HOME="$1/data"
  mkdir -p "$XDG_DATA_HOME"
  echo -n devicebench | gnome-keyring-daemon --unlock --components=secrets >/dev/null
  exec npx vitest run --reporter=default --reporter=json --outputFile="$2"
' sh "$work" "$report" && status=0 || status=$?
report typecheck
report lint
wait

node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests} skipped`);
  const files = r.testResults.map((t) => [t.endTime - t.startTime, t.name]).sort((a, b) => b[0] - a[0]);
  console.log("slowest files:");
  for (const [ms, name] of files.slice(0, 10))
    console.log(`  ${(ms / 1000).toFixed(1).padStart(6)} s  ${name.replace(process.cwd() + "/", "")}`);
' "$report" || true
[ "$checks" = 0 ] || exit 1
exit $status
