// The refusal of a dry run on a board that has one running (dry-run-service.ts: one run per
// board at a time), written and read in one place: the service names the run, and a window that
// did not start it follows it — its timeline, its Stop — rather than show a refusal whose "stop
// it first" names a Stop that window does not have (docs/decisions/app-and-ui.md, "A refused
// panel recovers by itself"). Browser-safe.

/** The detail of the refusal at `deviceId`: "has dry run 12 running on it: stop it first". */
export function busyBoardDetail(runId: number): string {
  return `has dry run ${runId} running on it: stop it first`;
}

/** The run that holds the board, from a refusal's detail at `deviceId`; undefined otherwise. */
export function runFromDetail(detail: string): number | undefined {
  const id = /^has dry run (\d+) running on it: stop it first$/.exec(detail)?.[1];
  return id === undefined ? undefined : Number(id);
}
