// The station's identity against a controller nobody on this project wrote: BlueZ's btvirt has a
// public address of its own, so the station's controller is made to read as a dongle without
// one (its Read BD_ADDR answer zeroed on the way up, as Zephyr's hci_uart answers); the station
// then generates and sets a static random address, and the board — the `ble-host` package's
// peripheral on a second btvirt controller — sees that address in its LE Connection Complete and
// pairs with LE Secure Connections, whose confirm values and DHKey check take the initiator's
// address and type (docs/decisions.md, "One identity per dongle").
import { EventEmitter } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdapterIdentityFile } from '../../../src/core/ble/adapter-identity-store';
import { HCI_CMD, HCI_EVENT, HCI_PACKET, LE_SUBEVENT } from '../../../src/core/ble/hci/codes';
import { openH4 } from '../../../src/core/ble/hci/h4-transports';
import type { H4Socket } from '../../../src/core/ble/hci/h4-socket';
import { addressOfBytes } from '../../../src/core/ble/hci/own-address';
import type { HciSocket } from '../../../src/core/ble/hci/socket';
import { hciCentral } from '../../../src/core/ble/radio/hci-central';
import type { NobleCentral } from '../../../src/core/ble/radio/noble-central';
import type { Advertisement } from '../../../src/core/ble/port';
import { startBtvirt, type Btvirt } from '../../helpers/btvirt/btvirt';
import { board, NAME, SECRET, SERVICE, startScBoard } from '../../helpers/btvirt/sc-board';
import { bleHostBondsCleanup } from '../../helpers/ble-host-bonds';

const removeBoardBonds = bleHostBondsCleanup();

/** btvirt's controller as a dongle without a public address: its Read BD_ADDR answers zeros. */
function withoutPublicAddress(inner: H4Socket): HciSocket {
  const socket = Object.assign(new EventEmitter(), {
    bindRaw: () => inner.bindRaw(),
    bindUser: () => inner.bindUser(),
    bindControl: () => inner.bindControl(),
    isDevUp: () => inner.isDevUp(),
    setFilter: () => inner.setFilter(),
    start: () => inner.start(),
    stop: () => inner.stop(),
    write: (packet: Buffer) => inner.write(packet),
    getDeviceList: () => inner.getDeviceList(),
  });
  inner.on('data', (packet: Buffer) => {
    const bdAddr =
      packet[0] === HCI_PACKET.event &&
      packet[1] === HCI_EVENT.commandComplete &&
      packet.length >= 13 &&
      packet.readUInt16LE(4) === HCI_CMD.readBdAddr;
    socket.emit('data', bdAddr ? Buffer.concat([packet.subarray(0, 7), Buffer.alloc(6)]) : packet);
  });
  inner.on('error', (err: Error) => socket.emit('error', err));
  return socket as unknown as HciSocket;
}

/** The initiator the board's controller reports in LE (Enhanced) Connection Complete. */
function connectionsSeenBy(socket: H4Socket): { address: string; type: string }[] {
  const seen: { address: string; type: string }[] = [];
  socket.on('data', (p: Buffer) => {
    const sub = p[3];
    if (p[0] !== HCI_PACKET.event || p[1] !== HCI_EVENT.leMeta || p[4] !== 0) return;
    if (sub !== LE_SUBEVENT.connectionComplete && sub !== LE_SUBEVENT.enhancedConnectionComplete)
      return;
    // Subevent, Status, Connection_Handle, Role, Peer_Address_Type, Peer_Address.
    seen.push({
      type: (p[8] ?? 0) & 1 ? 'random' : 'public',
      address: addressOfBytes(p.subarray(9, 15)),
    });
  });
  return seen;
}

async function waitFor<T>(read: () => T | undefined): Promise<T | undefined> {
  for (let i = 0; read() === undefined && i < 100; i++)
    await new Promise((resolve) => setTimeout(resolve, 20));
  return read();
}

describe('the station’s identity over btvirt', { timeout: 30_000 }, () => {
  let btvirt: Btvirt;
  let boardSocket: H4Socket;
  let central: NobleCentral;
  let seen: { address: string; type: string }[];

  beforeAll(async () => {
    btvirt = await startBtvirt();
    boardSocket = await openH4({ kind: 'unix', path: btvirt.leSocket });
    boardSocket.start();
    seen = connectionsSeenBy(boardSocket);
    await startScBoard(boardSocket);
    const station = await openH4({ kind: 'unix', path: btvirt.leSocket });
    central = hciCentral(
      withoutPublicAddress(station),
      {
        identityKey: 'btvirt',
        identities: await AdapterIdentityFile.open(mkdtempSync(join(tmpdir(), 'btvirt-id-'))),
        security: {
          options: { io: 'keyboardOnly', bond: true, mitm: true, sc: true },
          user: {
            displayPasskey: () => undefined,
            enterPasskey: async () => (await waitFor(() => board.shown)) ?? -1,
            confirmNumber: () => Promise.resolve(false),
          },
        },
      },
      () => station.stop(),
    );
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

  it('connects with its static random address, which the board sees and pairs with', async () => {
    const identity = central.identity();
    expect(identity).toMatchObject({ type: 'random', source: 'generatedKept' });
    let found: (ad: Advertisement) => void = () => undefined;
    const heard = new Promise<Advertisement>((resolve) => (found = resolve));
    const scan = await central.startScan({ name: NAME }, (ad) => found(ad));
    const ad = await heard.finally(() => scan.stop());
    board.shown = undefined;
    const link = await central.connect(ad.id);
    expect(seen.at(-1)).toEqual({ address: identity!.address, type: 'random' });
    expect(Buffer.from(await link.read(SERVICE, SECRET)).toString()).toBe('sesame');
    expect(link.linkInfo?.()).toMatchObject({
      securityLevel: 4,
      security: { key: 'sc', authenticated: true, method: 'passkeyEntry' },
    });
    await link.disconnect();
  });
});
