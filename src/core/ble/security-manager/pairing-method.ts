// Which association model a pairing uses (Bluetooth Core Specification v5.3, Vol 3, Part H,
// 2.3.5.1, Tables 2.6–2.8): from the OOB flags, the MITM flags, whether both sides speak LE
// Secure Connections, and the two IO capabilities.

import { IO_CAPABILITY_NAMES } from '../link-parameters';

/** IO capabilities in the order the Pairing Request/Response code them (Vol 3, Part H, 3.5.1). */
export const IO_CAPABILITIES = IO_CAPABILITY_NAMES;
export type IoCapability = (typeof IO_CAPABILITIES)[number];

export type PairingMethod =
  | { model: 'justWorks' }
  | { model: 'numericComparison' }
  | { model: 'oob' }
  /** Passkey Entry: who shows the six digits and who types them. */
  | { model: 'passkeyEntry'; display: 'initiator' | 'responder' | 'neither' };

/** What one side said in its Pairing Request or Response. */
export interface PairingFeatures {
  io: IoCapability;
  oob: boolean;
  mitm: boolean;
  sc: boolean;
}

type Cell = 'JW' | 'NC' | 'PE-i' | 'PE-r' | 'PE-b' | 'PE-r/NC' | 'PE-i/NC' | 'JW/NC';

/**
 * Table 2.8, rows the responder's capability, columns the initiator's, in IO_CAPABILITIES order.
 * PE-i: the initiator displays and the responder types; PE-r: the responder displays and the
 * initiator types; PE-b: both type; "legacy/SC" where the two pairings differ.
 */
const TABLE: Record<IoCapability, readonly Cell[]> = {
  displayOnly: ['JW', 'JW', 'PE-r', 'JW', 'PE-r'],
  displayYesNo: ['JW', 'JW/NC', 'PE-r', 'JW', 'PE-r/NC'],
  keyboardOnly: ['PE-i', 'PE-i', 'PE-b', 'JW', 'PE-i'],
  noInputNoOutput: ['JW', 'JW', 'JW', 'JW', 'JW'],
  keyboardDisplay: ['PE-i', 'PE-i/NC', 'PE-r', 'JW', 'PE-i/NC'],
};

function fromCell(cell: Cell, sc: boolean): PairingMethod {
  const [legacy, secure = legacy] = cell.split('/') as [string, string | undefined];
  const chosen = sc ? secure : legacy;
  switch (chosen) {
    case 'NC':
      return { model: 'numericComparison' };
    case 'PE-i':
      return { model: 'passkeyEntry', display: 'initiator' };
    case 'PE-r':
      return { model: 'passkeyEntry', display: 'responder' };
    case 'PE-b':
      return { model: 'passkeyEntry', display: 'neither' };
    default:
      return { model: 'justWorks' };
  }
}

/** The association model for a pairing between these two sides (Vol 3, Part H, 2.3.5.1). */
export function pairingMethod(
  initiator: PairingFeatures,
  responder: PairingFeatures,
): PairingMethod {
  const sc = initiator.sc && responder.sc;
  // Legacy uses OOB when both have the other's data (Table 2.6), Secure Connections when either
  // has (Table 2.7).
  if (sc ? initiator.oob || responder.oob : initiator.oob && responder.oob) return { model: 'oob' };
  if (!initiator.mitm && !responder.mitm) return { model: 'justWorks' };
  const row = TABLE[responder.io];
  return fromCell(row[IO_CAPABILITIES.indexOf(initiator.io)] ?? 'JW', sc);
}

/** Whether a method gives an authenticated (MITM-protected) key (Vol 3, Part H, 2.3.1). */
export function isAuthenticated(method: PairingMethod): boolean {
  return method.model !== 'justWorks';
}
