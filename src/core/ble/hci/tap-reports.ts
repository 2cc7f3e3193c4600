// What the HCI tap reports about the traffic it reads (tap.ts, traffic-reader.ts): ATT errors,
// security failures, advertising reports and link changes, each tied to noble's peripheral id.
import type { Phy } from '../link-parameters';

export interface AttErrorReport {
  /** noble's peripheral id: the peer address without colons, lowercase. */
  peripheralId: string;
  address: string;
  connectionHandle: number;
  /** The opcode of the request the error answers (ATT_OP). */
  request: number;
  attHandle: number;
  /** The ATT error code (ATT_ERROR). */
  code: number;
  /** Whether the link was encrypted when the board answered. */
  encrypted: boolean;
}

export interface SecurityFailure {
  peripheralId: string;
  connectionHandle: number;
  /** SMP Pairing Failed (code: its reason), or encryption refused (code: the HCI status). */
  stage: 'pairing' | 'encryption';
  code: number;
  /** A Pairing Failed the board sent (else the station's own, or the controller's status). */
  byBoard: boolean;
}

/** A link as the controller's events describe it (what the board's link card shows). */
export interface LinkState {
  intervalMs: number;
  latency: number;
  supervisionTimeoutMs: number;
  txPhy: Phy;
  rxPhy: Phy;
  /** Payload octets of the central's data PDUs (LE Data Length Change's Max_TX_Octets). */
  dataLength: number;
  encrypted: boolean;
  rssi?: number;
}

/** What changed a link's state, or which request the controller refused (`status` not 0). */
export type LinkCause = 'connectionParameters' | 'phy' | 'dataLength' | 'encryption' | 'rssi';

export interface LinkReport {
  peripheralId: string;
  cause: LinkCause;
  /** The HCI status: 0, or why the controller refused or failed the procedure. */
  status: number;
  link: LinkState;
}

/** One report of an LE Advertising Report event (Vol 4, Part E, 7.7.65.2): the AD bytes as received. */
export interface AdvertisingReport {
  /** ADV_REPORT_TYPE: ADV_IND … SCAN_RSP. */
  eventType: number;
  /** noble's peripheral id: the address without colons. */
  peripheralId: string;
  data: Uint8Array;
}

/** Packets the tap could not read, and reports it could not tie to a link; all passed on. */
export interface TapCounts {
  malformed: number;
  /** ATT or SMP traffic on a connection handle no Connection Complete announced. */
  unknownLink: number;
  /** Error Responses naming a request other than the one in flight. */
  unmatchedError: number;
}

/** One report, as the tap emits it. */
export type Report =
  | { event: 'attError'; payload: AttErrorReport }
  | { event: 'securityFailed'; payload: SecurityFailure }
  | { event: 'advertisingReport'; payload: AdvertisingReport }
  | { event: 'linkChanged'; payload: LinkReport };
