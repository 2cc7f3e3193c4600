// The pairing benchmark (bench/pairing.ts) on the model's clock: a board that bonds as phones
// make it, the link ended as soon as the station kept the bond, then a reconnection encrypted
// with it — no pairing PDU, the two events of the encryption procedure. It broke once unseen:
// the HCI tap told noble the station's last keys were sent when it took them, so the bond was
// kept and the link ended before the keys went over the air, and the board, bondless, refused
// the reconnection (noble-smp.ts `aclSent` now asks the tap's ACL scheduler).
import { expect, it } from 'vitest';
import { pairing } from '../../bench/pairing';

it('reconnects with the bond in two connection events and no pairing PDU', async () => {
  const lines: string[] = [];
  await pairing.run((line) => lines.push(line));
  expect(lines.join('\n')).toMatch(
    /reconnection with the bond: 2 connection events, 0 pairing PDUs/,
  );
  expect(lines.at(-1)).toMatch(/PASS$/);
});
