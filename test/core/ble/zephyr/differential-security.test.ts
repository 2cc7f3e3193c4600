// The differential suite, security and the link: Zephyr's smp_svr (SC only, passkey shown,
// the SMP characteristic behind an authenticated link, bonds in flash) and its simulated twin
// each meet the same stations: one that cannot do better than Just Works, refused; one that
// types the passkey, which pairs, takes the board's keys and later encrypts with the bond. The
// Pairing Response, the PDUs each way, the ATT errors, the link's security and the MTU must
// agree (docs/decisions/simulated-bench.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McumgrClient } from '../../../../src/core/ble/mcumgr/client';
import { MCUMGR_SERVICE_UUID } from '../../../../src/core/ble/mcumgr/service';
import type { BoardSpecInput } from '../../../../src/core/ble/sim/board-schema';
import type { HciCentralOptions } from '../../../../src/core/ble/radio/hci-central';
import type { PairingOptions } from '../../../../src/core/ble/security-manager/initiator';
import type { StoredBond } from '../../../../src/core/ble/security-manager/bond-store';
import {
  startZephyrPeer,
  zephyrPeerMissing,
  zephyrTitled,
  type ZephyrPeer,
} from '../../../helpers/zephyr/zephyr-peer';
import { simSide, zephyrSide, type Side } from './differential';

const missing = zephyrPeerMissing('smp');
const NAME = 'zephyr-smp-peer';
const PASSKEY = 123456;

/** smp_svr as ../shared/zephyr-peer builds it, as a simulated board file would say it. */
const TWIN: BoardSpecInput = {
  name: NAME,
  address: 'c0:de:c0:de:00:01',
  advertising: { serviceUuids: [MCUMGR_SERVICE_UUID], intervalMs: 20 },
  latency: { connectMs: 10, perOperationMs: 1 },
  // CONFIG_BT_L2CAP_TX_MTU=498 (smp_svr's overlay-bt.conf).
  mtu: 498,
  mcumgr: { version: '1.0.0', resetMs: 100, security: 'authenticate' },
  security: {
    mode: 'sc-only',
    ioCapability: 'displayOnly',
    passkey: PASSKEY,
    bonding: { maxBonds: 4, allowUnauthOverwrite: false },
  },
};

/** What one central saw on its HCI: SMP PDUs, ATT errors, encryption changes. */
interface Seen {
  smp: string[];
  attErrors: string[];
  encryption: number[];
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

function station(options: PairingOptions, seen: Seen): HciCentralOptions {
  const bonds = new Map<string, StoredBond>();
  return {
    trace: (direction, packet) => {
      const p = Buffer.from(packet);
      // HCI Encryption Change: its status.
      if (p[0] === 0x04 && p[1] === 0x08) seen.encryption.push(p[3]!);
      // ACL, first fragment (a board's 27-byte fragments continue with PB 01).
      if (p[0] !== 0x02 || p.length < 10 || ((p[2]! >> 4) & 0x3) === 0x1) return;
      const cid = p.readUInt16LE(7);
      if (cid === 0x0006) {
        // Pairing Request, Response and Failed whole; the rest by code.
        const code = p[9]!;
        seen.smp.push(`${direction}:${code <= 2 || code === 5 ? hex(p.subarray(9)) : code}`);
      }
      // ATT Error Response: the request's opcode and the code.
      if (cid === 0x0004 && p[9] === 0x01 && direction === 'received')
        seen.attErrors.push(`${p[10]!.toString(16)}:${p[13]!.toString(16)}`);
    },
    security: {
      options,
      bonds: { find: (id) => bonds.get(id), keep: (id, bond) => void bonds.set(id, bond) },
      user: {
        displayPasskey: () => undefined,
        enterPasskey: async () => PASSKEY,
        confirmNumber: async () => false,
      },
    },
  };
}

const empty = (): Seen => ({ smp: [], attErrors: [], encryption: [] });

describe.skipIf(missing !== undefined)(
  zephyrTitled('the simulated board pairs, bonds and guards its values as Zephyr does', missing),
  { timeout: 90_000 },
  () => {
    let peer: ZephyrPeer;
    const sides: Side[] = [];
    /** What each side's own central (the one that types the passkey) saw. */
    const typing: Record<string, Seen> = { sim: empty(), zephyr: empty() };
    const KEYBOARD: PairingOptions = { io: 'keyboardOnly', bond: true, mitm: true, sc: true };

    beforeAll(async () => {
      peer = await startZephyrPeer('smp', { args: [`--passkey=${PASSKEY}`] });
      sides.push(
        simSide(TWIN, station(KEYBOARD, typing.sim!)),
        await zephyrSide(peer, NAME, station(KEYBOARD, typing.zephyr!)),
      );
    }, 45_000);

    afterAll(async () => {
      // The peer first: its links drop with it, so no central waits on one.
      await peer?.stop();
      for (const side of sides) await side.close();
    }, 30_000);

    /** Runs `act` on each side with a new central of these options; what each saw. */
    async function each<T>(
      options: PairingOptions,
      act: (side: Side, central: Awaited<ReturnType<Side['another']>>, seen: Seen) => Promise<T>,
    ): Promise<Record<string, { seen: Seen; result: T }>> {
      const out: Record<string, { seen: Seen; result: T }> = {};
      for (const side of sides) {
        const seen = empty();
        const central = await side.another(station(options, seen));
        const result = await act(side, central, seen).catch((error: unknown) => {
          throw new Error(`${side.name}: ${String(error)}\n${JSON.stringify(seen)}`);
        });
        out[side.name] = { seen, result };
      }
      return out;
    }

    it('a station with no means for MITM: the SMP characteristic answers 0x05, the pairing is refused', async () => {
      const got = await each(
        { io: 'noInputNoOutput', bond: true, mitm: false, sc: true },
        async (side, central) => {
          const link = await side.connect(central);
          const failed = await McumgrClient.open(link)
            .then(() => 'opened')
            .catch(() => 'refused');
          await link.disconnect().catch(() => undefined);
          return { failed, mtu: link.mtu };
        },
      );
      expect(got.sim).toEqual(got.zephyr);
      // Zephyr's SC-only board answers a Just Works request at once: Authentication Requirements.
      expect(got.zephyr?.seen.smp).toEqual(['sent:01030009100007', 'received:0503']);
      expect(got.zephyr?.result).toEqual({ failed: 'refused', mtu: 256 });
    });

    it('passkey entry: the same Pairing Response, PDUs, keys and link security; the MTU agreed', async () => {
      const got: Record<string, unknown> = {};
      for (const side of sides) {
        const seen = typing[side.name]!;
        const link = await side.connect();
        const client = await McumgrClient.open(link);
        await client.close();
        const first = { security: link.linkInfo?.()?.security, mtu: link.mtu };
        await link.disconnect();
        const pairing = { ...seen, smp: [...seen.smp], encryption: [...seen.encryption] };
        seen.smp.length = 0;
        seen.encryption.length = 0;
        // The next link encrypts with the bond: no pairing at all.
        const again = await side.connect();
        const reopened = await McumgrClient.open(again);
        await reopened.close();
        const bonded = { security: again.linkInfo?.()?.security, seen: { ...seen } };
        await again.disconnect();
        got[side.name] = { pairing, first, bonded };
      }
      expect(got.sim).toEqual(got.zephyr);
      // Passkey entry: both public keys, twenty rounds, the DHKey checks; the board hands out no
      // keys (no privacy: no IdKey; Secure Connections: no EncKey); the bond encrypts the next
      // link after its Insufficient Encryption (0x0f), with no SMP PDU at all.
      const zephyr = got.zephyr as {
        pairing: Seen;
        bonded: { security: object; seen: Seen };
      };
      expect(zephyr.pairing.smp.filter((pdu) => pdu === 'sent:3')).toHaveLength(20);
      expect(zephyr.pairing.smp.slice(0, 2)).toEqual([
        'sent:0102000d100007',
        'received:0200000d100000',
      ]);
      expect(zephyr.pairing.smp.at(-1)).toBe('received:13');
      expect(zephyr.bonded.seen.smp).toEqual([]);
      expect(zephyr.bonded.security).toMatchObject({
        key: 'sc',
        authenticated: true,
        fromBond: true,
      });
      await peer.waitFor(/Pairing complete with .*, bonded 1/);
    });
  },
);
