// LE Secure Connections Passkey Entry against a stack nobody on this project wrote: BlueZ's
// btvirt plays both controllers, the `ble-host` package's peripheral is a board whose value
// needs an authenticated Secure Connections link and whose passkey is shown on its "display";
// the bench's central pairs with its own Security Manager (docs/decisions.md, "Pairing as a
// phone does"; how btvirt runs: "Proof against BlueZ's btvirt").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCentral } from '../../../src/core/ble/radio/open-central';
import { openH4 } from '../../../src/core/ble/hci/h4-transports';
import type { H4Socket } from '../../../src/core/ble/hci/h4-socket';
import type { NobleCentral } from '../../../src/core/ble/radio/noble-central';
import type { Advertisement } from '../../../src/core/ble/port';
import { NoAdapterCentral } from '../../../src/core/ble/radio/no-adapter-central';
import { startBtvirt, type Btvirt } from '../../helpers/btvirt/btvirt';
import { board, NAME, SECRET, SERVICE, startScBoard } from '../../helpers/btvirt/sc-board';
import { bleHostBondsCleanup } from '../../helpers/ble-host-bonds';
import type { StoredBond } from '../../../src/core/ble/security-manager/bond-store';

const removeBoardBonds = bleHostBondsCleanup();

async function waitFor<T>(read: () => T | undefined): Promise<T | undefined> {
  for (let i = 0; read() === undefined && i < 100; i++)
    await new Promise((resolve) => setTimeout(resolve, 20));
  return read();
}

describe('LE Secure Connections over btvirt with a ble-host board', { timeout: 30_000 }, () => {
  let btvirt: Btvirt;
  let boardSocket: H4Socket;
  let central: NobleCentral;
  let compared: number | undefined;
  const smp: string[] = [];
  const bonds = new Map<string, StoredBond>();

  beforeAll(async () => {
    btvirt = await startBtvirt();
    boardSocket = await openH4({ kind: 'unix', path: btvirt.leSocket });
    boardSocket.start();
    await startScBoard(boardSocket);
    const opened = await openCentral(
      { kind: 'unix', path: btvirt.leSocket },
      {
        trace: (direction, packet) => {
          const p = Buffer.from(packet);
          if (p[0] === 0x02 && p.length > 9 && p.readUInt16LE(7) === 0x0006)
            smp.push(`${direction}:${p[9]}`);
        },
        security: {
          options: { io: 'keyboardOnly', bond: true, mitm: true, sc: true },
          bonds: { find: (id) => bonds.get(id), keep: (id, bond) => void bonds.set(id, bond) },
          user: {
            displayPasskey: () => undefined,
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
    board.shown = undefined;
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
    await link.disconnect();
  });

  it('encrypts the next link with the stored key: not one pairing PDU', async () => {
    expect(bonds.size).toBe(1);
    const link = await connect();
    expect(Buffer.from(await link.read(SERVICE, SECRET)).toString()).toBe('sesame');
    expect(smp).toEqual([]);
    expect(link.linkInfo?.()).toMatchObject({ securityLevel: 4, security: { bonded: true } });
    await link.disconnect();
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
});
