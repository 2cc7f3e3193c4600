// LE Secure Connections against a stack nobody on this project wrote: BlueZ's btvirt plays both
// controllers, the `ble-host` package's peripheral is a board whose value needs an authenticated
// Secure Connections link; the bench's central pairs with its own Security Manager: Passkey Entry
// either way, Numeric Comparison, Just Works, a bond's reconnection, an SC-only board refusing
// legacy, a board that lost its bond, and a dry run that pairs as a phone does, then encrypts
// with the bond (docs/decisions.md, "Pairing as a phone does"; how btvirt runs and what it
// cannot do: "Proof against BlueZ's btvirt").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCentral } from '../../../src/core/ble/radio/open-central';
import { openH4 } from '../../../src/core/ble/hci/h4-transports';
import type { H4Socket } from '../../../src/core/ble/hci/h4-socket';
import type { NobleCentral } from '../../../src/core/ble/radio/noble-central';
import type { Advertisement } from '../../../src/core/ble/port';
import { NoAdapterCentral } from '../../../src/core/ble/radio/no-adapter-central';
import { btvirtMissing, startBtvirt, titled, type Btvirt } from '../../helpers/btvirt/btvirt';
import {
  board,
  NAME,
  SECRET,
  SERVICE,
  startScBoard,
  type ScBoard,
} from '../../helpers/btvirt/sc-board';
import { bleHostBondsCleanup } from '../../helpers/ble-host-bonds';
import type { StoredBond } from '../../../src/core/ble/security-manager/bond-store';
import { startDryRun } from '../../../src/core/scenario/engine';
import type { RunnableSet, TimelineEvent } from '../../../src/core/scenario/schema';
import { wallClock } from '../../../src/core/async/clock';

const removeBoardBonds = bleHostBondsCleanup();
const missing = btvirtMissing();

/** The IRK this test's station hands out. */
const STATION_IRK = Uint8Array.from(Buffer.from('0f1e2d3c4b5a69788796a5b4c3d2e1f0', 'hex'));

/** SMP codes as the trace shows them (Vol 3, Part H, 3.3). */
const SMP = { pairingRequest: 1, pairingFailed: 5 } as const;

/** A scenario set reading the board's protected value once per connection. */
const readSecret: RunnableSet = {
  autoClose: true,
  suppressionInterval: 0,
  revision: 1,
  scenarios: [
    {
      id: 'secret',
      trigger: { type: 'IMMEDIATE' },
      actions: [{ type: 'GATT_READ', serviceUuid: SERVICE, characteristicUuid: SECRET }],
    },
  ],
};

async function waitFor<T>(read: () => T | undefined): Promise<T | undefined> {
  for (let i = 0; read() === undefined && i < 100; i++)
    await new Promise((resolve) => setTimeout(resolve, 20));
  return read();
}

describe.skipIf(missing !== undefined)(
  titled('LE Secure Connections over btvirt with a ble-host board', missing),
  { timeout: 30_000 },
  () => {
    let btvirt: Btvirt;
    let boardSocket: H4Socket;
    let scBoard: ScBoard;
    let central: NobleCentral;
    let compared: number | undefined;
    let displayed: number | undefined;
    /** SMP PDUs on the link, "sent:1", "received:2", as the btsnoop trace holds them. */
    const smp: string[] = [];
    /** Encryption Change events: their status and whether encryption is on. */
    const encryptionChanges: { status: number; on: boolean }[] = [];
    const bonds = new Map<string, StoredBond>();

    beforeAll(async () => {
      btvirt = await startBtvirt();
      boardSocket = await openH4({ kind: 'unix', path: btvirt.leSocket });
      boardSocket.start();
      scBoard = await startScBoard(boardSocket);
      const opened = await openCentral(
        { kind: 'unix', path: btvirt.leSocket },
        {
          trace: (direction, packet) => {
            const p = Buffer.from(packet);
            if (p[0] === 0x02 && p.length > 9 && p.readUInt16LE(7) === 0x0006)
              smp.push(`${direction}:${p[9]}`);
            // HCI Encryption Change (0x08): status, handle, enabled.
            if (p[0] === 0x04 && p[1] === 0x08 && p.length >= 7)
              encryptionChanges.push({ status: p[3]!, on: p[6] === 1 });
          },
          security: {
            options: { io: 'keyboardOnly', bond: true, mitm: true, sc: true },
            bonds: {
              find: (id) => bonds.get(id),
              keep: (id, bond) => void bonds.set(id, bond),
              // The station's identity as the adapter settled it, with an IRK of its own.
              identity: () => {
                const own = central?.identity();
                return own && { irk: STATION_IRK, identityAddress: own };
              },
            },
            user: {
              // The station's display: the person at the board reads it and types it there.
              displayPasskey: (passkey) => (displayed = passkey),
              // The person reads the board's display and types it at the station.
              enterPasskey: async () => (await waitFor(() => board.shown)) ?? -1,
              confirmNumber: async (value) => {
                compared = value;
                return value === (await waitFor(() => board.shown));
              },
            },
          },
        },
      );
      if (opened instanceof NoAdapterCentral) throw new Error(`${opened.reason}\n${btvirt.log()}`);
      central = opened;
      if (central.state() !== 'poweredOn')
        await new Promise<void>((resolve) => {
          const off = central.onStateChange((state) => state === 'poweredOn' && (off(), resolve()));
        });
    }, 30_000);

    afterAll(async () => {
      await central?.close();
      boardSocket?.stop();
      await btvirt?.stop();
      removeBoardBonds();
    });

    async function connect() {
      let found: (ad: Advertisement) => void = () => undefined;
      const seen = new Promise<Advertisement>((resolve) => (found = resolve));
      const scan = await central.startScan({ name: NAME }, (ad) => found(ad));
      const ad = await seen.finally(() => scan.stop());
      smp.length = 0;
      encryptionChanges.length = 0;
      board.shown = undefined;
      displayed = undefined;
      return central.connect(ad.id);
    }

    it('pairs with Passkey Entry (the board displays), level 4, and reads the protected value', async () => {
      const link = await connect();
      expect(Buffer.from(await link.read(SERVICE, SECRET)).toString()).toBe('sesame');
      expect(link.linkInfo?.()).toMatchObject({
        securityLevel: 4,
        security: {
          encrypted: true,
          key: 'sc',
          authenticated: true,
          keySize: 16,
          method: 'passkeyEntry',
        },
      });
      // Request, response, both public keys, then 20 rounds of confirm and random each way.
      expect(smp.slice(0, 4)).toEqual(['sent:1', 'received:2', 'sent:12', 'received:12']);
      expect(smp.filter((pdu) => pdu === 'sent:3')).toHaveLength(20);
      expect(encryptionChanges).toEqual([{ status: 0, on: true }]);
      // The station handed out its identity after the board's keys: ble-host's board has it.
      const identity = central.identity()!;
      expect(await waitFor(() => board.central)).toEqual({
        irk: Buffer.from(STATION_IRK).toString('hex'),
        address: identity.address,
        type: identity.type,
      });
      expect(smp.slice(-4)).toEqual(['received:8', 'received:9', 'sent:8', 'sent:9']);
      await link.disconnect();
    });

    it('encrypts the next link with the stored key: the encryption change, not one pairing PDU', async () => {
      expect(bonds.size).toBe(1);
      const link = await connect();
      expect(Buffer.from(await link.read(SERVICE, SECRET)).toString()).toBe('sesame');
      expect(smp).toEqual([]);
      expect(encryptionChanges).toEqual([{ status: 0, on: true }]);
      expect(link.linkInfo?.()).toMatchObject({ securityLevel: 4, security: { bonded: true } });
      await link.disconnect();
    });

    it('a board that lost its bond is said in words, and pairs again once the station forgets it', async () => {
      // The board's bond storage is wiped while no link is up (Zephyr's bt_unpair on the board).
      await scBoard.forgetBonds();
      const link = await connect();
      await expect(link.read(SERVICE, SECRET)).rejects.toThrow(
        /encryption refused: .*0x06.* — the board lost its bond with this station: forget the bond and pair again/,
      );
      // The stored key was offered and refused: no pairing PDU, PIN or Key Missing (0x06).
      expect(smp).toEqual([]);
      expect(encryptionChanges).toEqual([{ status: 0x06, on: false }]);
      await link.disconnect().catch(() => undefined);
      bonds.delete(link.id);
      const again = await connect();
      expect(Buffer.from(await again.read(SERVICE, SECRET)).toString()).toBe('sesame');
      expect(smp[0]).toBe(`sent:${SMP.pairingRequest}`);
      expect(again.linkInfo?.()).toMatchObject({ securityLevel: 4, security: { bonded: true } });
      // The board's keys come after the link is encrypted, so the bond may land after the read.
      expect(await waitFor(() => bonds.get(again.id))).toBeDefined();
      await again.disconnect();
    });

    it('pairs with Numeric Comparison, both sides showing the same six digits', async () => {
      bonds.clear();
      board.ioCap = 1; // DisplayYesNo
      const link = await connect();
      await link.requestLink!({ kind: 'pair', io: 'displayYesNo' });
      expect(compared).toBe(board.shown);
      expect(link.linkInfo?.()).toMatchObject({
        securityLevel: 4,
        security: { method: 'numericComparison', authenticated: true },
      });
      expect(Buffer.from(await link.read(SERVICE, SECRET)).toString()).toBe('sesame');
      await link.disconnect();
    });

    it('a pair request to a bonded board encrypts with the stored key: bond first, no pairing PDU', async () => {
      expect(bonds.size).toBe(1);
      const link = await connect();
      const info = await link.requestLink!({ kind: 'pair', io: 'displayYesNo', mitm: true });
      expect(info.security).toMatchObject({
        key: 'sc',
        authenticated: true,
        method: 'numericComparison',
        fromBond: true,
      });
      expect(smp).toEqual([]);
      expect(encryptionChanges).toEqual([{ status: 0, on: true }]);
      expect(Buffer.from(await link.read(SERVICE, SECRET)).toString()).toBe('sesame');
      await link.disconnect();
    });

    it('a dry run that pairs as a phone does pairs once, then encrypts with the bond', async () => {
      bonds.clear();
      let found: (ad: Advertisement) => void = () => undefined;
      const seen = new Promise<Advertisement>((resolve) => (found = resolve));
      const scan = await central.startScan({ name: NAME }, (ad) => found(ad));
      const ad = await seen.finally(() => scan.stop());
      smp.length = 0;
      const events: TimelineEvent[] = [];
      const run = startDryRun({
        central,
        deviceId: ad.id,
        set: readSecret,
        clock: wallClock(),
        cycles: 2,
        pairAsPhone: true,
        onEvent: (e) => events.push(e),
      });
      const outcome = await run.done;
      const kinds = events
        .map((e) => e.kind)
        .filter((k) => ['connected', 'paired', 'encrypted', 'pairing-failed'].includes(k));
      expect(kinds).toEqual(['connected', 'paired', 'encrypted', 'connected', 'encrypted']);
      expect(events.filter((e) => e.kind === 'encrypted')[1]).toMatchObject({
        security: { key: 'sc', authenticated: true, bonded: true, fromBond: true },
      });
      // One Pairing Request in the whole run: the second link sent no pairing PDU.
      expect(smp.filter((pdu) => pdu === `sent:${SMP.pairingRequest}`)).toHaveLength(1);
      expect(outcome.results.map((r) => r.resultCode)).toEqual(['SUCCESS', 'SUCCESS']);
    });

    it('pairs with Passkey Entry the other way: the station displays, the board types it', async () => {
      // The station forgets the board, which lets a bonded central pair again (ble-host does).
      bonds.clear();
      board.ioCap = 2; // KeyboardOnly
      let typed: number | undefined;
      board.type = async () => (typed = (await waitFor(() => displayed)) ?? -1);
      const link = await connect();
      await link.requestLink!({ kind: 'pair', io: 'displayOnly' });
      expect(displayed).toBeTypeOf('number');
      expect(typed).toBe(displayed);
      expect(board.shown).toBeUndefined();
      expect(link.linkInfo?.()).toMatchObject({
        securityLevel: 4,
        security: { method: 'passkeyEntry', key: 'sc', authenticated: true },
      });
      expect(Buffer.from(await link.read(SERVICE, SECRET)).toString()).toBe('sesame');
      await link.disconnect();
    });

    it('a board that takes Secure Connections only refuses a legacy pairing, said with its reason', async () => {
      bonds.clear();
      board.ioCap = 0;
      board.scOnly = true;
      const link = await connect();
      await expect(
        link.requestLink!({ kind: 'pair', io: 'keyboardOnly', mitm: true, sc: false }),
      ).rejects.toThrow(
        'the board refused pairing: 0x03 authentication requirements — it needs MITM',
      );
      // The station offered legacy only (no SC flag in its AuthReq); the board said no.
      expect(smp).toEqual([`sent:${SMP.pairingRequest}`, `received:${SMP.pairingFailed}`]);
      expect(encryptionChanges).toEqual([]);
      await link.disconnect();
      board.scOnly = false;
    });

    it('pairs with Just Works on a board with no display or keyboard: SC, unauthenticated', async () => {
      bonds.clear();
      board.ioCap = 3; // NoInputNoOutput
      board.mitm = false;
      const link = await connect();
      await link.requestLink!({ kind: 'pair', io: 'noInputNoOutput', mitm: false, bond: false });
      expect(link.linkInfo?.()).toMatchObject({
        securityLevel: 2,
        security: { key: 'sc', authenticated: false, method: 'justWorks', keySize: 16 },
      });
      // No passkey rounds: one confirm from the board, one random each way, the DHKey checks.
      expect(smp).toEqual([
        'sent:1',
        'received:2',
        'sent:12',
        'received:12',
        'received:3',
        'sent:4',
        'received:4',
        'sent:13',
        'received:13',
      ]);
      await link.disconnect();
    });
  },
);
