// The refusal of a firmware call on a link that has one running (src/core/usecases/bench/
// board-firmware.ts: one call at a time per link), written and read in one place: the server
// says what runs, and a panel in another window reads it back to wait for that call rather
// than show a refusal (docs/decisions/ble-and-hci.md, "MCUmgr in the app"). Browser-safe.

/** The detail of the refusal at `connectionId`: "is busy: an upload runs on this board; wait for it". */
export function busyDetail(running: string): string {
  return `is busy: ${running} runs on this board; wait for it`;
}

/** What runs, from a refusal's detail at `connectionId`; undefined for any other refusal. */
export function runningFromDetail(detail: string): string | undefined {
  return /^is busy: (.+) runs on this board; wait for it$/.exec(detail)?.[1];
}
