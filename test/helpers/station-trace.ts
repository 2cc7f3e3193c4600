// What the station's btsnoop traces in a data folder show of its pairings, for tests that run
// the CLI as a child process: the Pairing Requests it sent, each Encryption Change's status, and
// whether the controller had reported the station's keys sent before it disconnected.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseBtsnoop } from '../../src/core/ble/hci/btsnoop';

/** Every packet of the data folder's traces, oldest first, and whether the station sent it. */
function packets(dataDir: string): { p: Buffer; sent: boolean }[] {
  const dir = join(dataDir, 'traces');
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.btsnoop'))
    .sort()
    .flatMap((f) => parseBtsnoop(readFileSync(join(dir, f))).records)
    .map(({ data, flags }) => ({ p: Buffer.from(data), sent: (flags & 1) === 0 }));
}

/** An SMP PDU's code (ACL on L2CAP channel 6), else undefined. */
function smpCode(p: Buffer): number | undefined {
  return p[0] === 0x02 && p.length > 9 && p.readUInt16LE(7) === 0x0006 ? p[9] : undefined;
}

/** Pairing Requests the station sent, and the status of each Encryption Change. */
export function tracedPairing(dataDir: string): {
  pairingRequests: number;
  encryptionChanges: number[];
} {
  const seen = { pairingRequests: 0, encryptionChanges: [] as number[] };
  for (const { p, sent } of packets(dataDir)) {
    if (sent && smpCode(p) === 0x01) seen.pairingRequests++;
    if (p[0] === 0x04 && p[1] === 0x08) seen.encryptionChanges.push(p[3]!);
  }
  return seen;
}

/**
 * At the station's first HCI Disconnect: how many ACL packets it had sent up to its last SMP
 * PDU, and how many the controller had reported sent (Number of Completed Packets, Vol 4,
 * Part E, 7.7.19).
 */
export function keysSentBeforeDisconnect(dataDir: string): {
  throughLastSmp: number;
  completed: number;
} {
  const trace = packets(dataDir);
  const disconnect = trace.findIndex(
    ({ p, sent }) => sent && p[0] === 0x01 && p.readUInt16LE(1) === 0x0406,
  );
  const before = trace.slice(0, disconnect);
  const lastSmp = before.findLastIndex(({ p, sent }) => sent && smpCode(p) !== undefined);
  const throughLastSmp = before
    .slice(0, lastSmp + 1)
    .filter(({ p, sent }) => sent && p[0] === 0x02).length;
  let completed = 0;
  for (const { p } of before)
    if (p[0] === 0x04 && p[1] === 0x13)
      for (let h = 0; h < p[3]!; h++) completed += p.readUInt16LE(6 + h * 4);
  return { throughLastSmp, completed };
}
