// The board's side of a provisioning run, whatever the profile's kind: the run reserves and
// records (record-ledger.ts), a board writer selects, writes, commits and verifies. A GATT
// profile writes the firmware's provisioning characteristics (gatt-session.ts); an MCUmgr
// settings profile writes settings keys, saves and resets (mcumgr-settings-session.ts). The
// run's guarantees rest on what a writer reports (docs/provisioning-protocol.md, "The tool's
// steps").
import type { Advertisement } from '../ble/port';
import type { BoardRef } from './steps';

/** What a write session needs from the record it writes. */
export interface SessionRecord {
  /** The PSDI to write. For a `device` profile, `fromBoard` is the PSDI the board reported. */
  psdiToWrite(fromBoard: string | undefined, attempt: number): Promise<string>;
  /** The board acknowledged every value and the commit, after `attempts` write sessions. */
  written(attempts: number): Promise<void>;
  /** Finishing a record from an earlier run (reconcile), whose commit may have taken. */
  resumed: boolean;
}

export interface BoardWriter {
  /** The board as last seen (its id may change when it is found again). */
  readonly board: BoardRef;
  /** Set once a commit went out that may have taken: the board may carry the PSDI. */
  readonly mayCarry: boolean;
  /** The board acknowledged the PSDI itself in this run. */
  readonly psdiAcked: boolean;
  /** Set when the board refused an operation by rule (no retry can change it). */
  readonly refused: unknown;
  /** Something went out to the board in this run. */
  readonly sent: boolean;
  /** A board from a scan must be one this profile can write. */
  select(ad: Advertisement | BoardRef): Promise<void>;
  /** Connects and checks the board, then runs `reserve`; the link is kept for the first write. */
  open(reserve: () => Promise<void>): Promise<void>;
  /** Writes and commits with retries; `acknowledged` when the board said the commit took. */
  writeAndCommit(record: SessionRecord): Promise<{ acknowledged: boolean }>;
  /** Reads the PSDI back from the product's service until it matches. */
  verify(psdi: string, onVerified: (attempt: number) => Promise<void>): Promise<void>;
  /**
   * What the record says when the answer to the PSDI's write or to the commit was lost, while it
   * still is: the board may carry the PSDI (docs/decisions.md, "A noisy serial line").
   */
  outcomeUnknown(): string | undefined;
  /** For a failure before the commit: what reached the board, so the record says no more. */
  whatReachedTheBoard(): string;
  checkCancelled(): void;
}
