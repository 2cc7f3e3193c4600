// An upload as `flashImage` runs it on a simulated Zephyr board through noble's HCI stack: the
// link it asks for (data length, 2M, the interval, restored after), the window of SMP requests
// from the board's MCUmgr parameters (one when the board does not answer them), what a request
// past the board's buffers costs, and the resume after a dropped link in the middle of a window.
import { afterEach, describe, expect, it } from 'vitest';
import { rig, type Rig } from '../fixture';
import { zephyr } from './zephyr-rig';
import { MCUMGR_CHARACTERISTIC_UUID } from '../../../../src/core/ble/mcumgr/service';
import { readMcubootImage } from '../../../../src/core/ble/mcumgr/image-file';
import { McumgrClient } from '../../../../src/core/ble/mcumgr/client';
import { listSlots, uploadImage } from '../../../../src/core/ble/mcumgr/image-group';
import { flashImage, type FlashProgress } from '../../../../src/core/usecases/firmware';
import type { BleConnection } from '../../../../src/core/ble/port';
import { linkForUpload, NO_LINK_CONTROL } from '../../../../src/core/ble/mcumgr/upload-link';
import type { AdapterProfileInput } from '../../../../src/core/ble/sim/adapter-profile';
import { buildImage } from './image-builder';
import { HCI_CMD } from '../../../../src/core/ble/hci/codes';

let r: Rig;
afterEach(() => r.close());

const IMAGE = readMcubootImage(
  buildImage({ version: [3, 0, 0, 0], payload: new Uint8Array(12_000).map((_, i) => i * 11) }),
);
const hash = Buffer.from(IMAGE.hash).toString('hex');
/** Long enough that a request dropped early has later ones whose answers tell. */
const LONG = readMcubootImage(
  buildImage({ version: [3, 1, 0, 0], payload: new Uint8Array(30_000).map((_, i) => i * 3) }),
);

/** A DLE + 2M controller whose links start at 30 ms: the upload has something to ask for. */
const DLE_ADAPTER: AdapterProfileInput = {
  dataLength: 251,
  aclBufferSize: 251,
  connectionIntervalMs: 30,
};

async function held(
  mcumgr: Parameters<typeof zephyr>[0],
  adapter: AdapterProfileInput,
  faults = {},
) {
  const commands: number[] = [];
  // The HCI commands the station sends, as the trace records them.
  const trace = (direction: 'sent' | 'received', p: Uint8Array) => {
    if (direction === 'sent' && p[0] === 0x01) commands.push(Buffer.from(p).readUInt16LE(1));
  };
  r = rig([zephyr({ bufferSize: 2475, ...mcumgr }, { faults, mtu: 247 })], {}, { adapter, trace });
  const ad = await r.find({ name: 'Zephyr MCUmgr' });
  let link = await r.drive(r.central.connect(ad.id, { mtu: 247 }));
  const target = {
    clock: r.clock,
    // A link that dropped is connected again, as a bench card does.
    link: async (): Promise<BleConnection> => {
      if (!link.linkInfo?.()) link = await r.central.connect(ad.id, { mtu: 247 });
      return link;
    },
  };
  return { target, current: () => link, commands };
}

describe('an upload asks for the link it needs', () => {
  it('gets 251-octet PDUs, the 2M PHY and a 7.5–15 ms interval for the upload, a window of buf_count − 1, and the interval back after', async () => {
    const { target, current, commands } = await held({}, DLE_ADAPTER);
    const before = current().linkInfo?.();
    const sentBefore = commands.length;
    expect(before).toMatchObject({ dataLength: 27, txPhy: '1M' });
    expect(before!.intervalMs).toBeGreaterThan(15);
    const progress: FlashProgress[] = [];
    const result = await r.drive(
      flashImage(target, IMAGE, { onProgress: (p) => progress.push(p) }),
    );
    expect(result.link).toEqual({
      phy: '2M',
      dataLength: 251,
      intervalMs: 15,
      window: 3,
      notes: [],
    });
    expect(progress.at(-1)?.link).toEqual(result.link);
    expect(result.slots[1]?.hash).toBe(hash);
    // On the HCI: LE Set Data Length, LE Set PHY, LE Connection Update for the upload, and one
    // more after it, for the interval the link had.
    const link = [HCI_CMD.leSetDataLength, HCI_CMD.leSetPhy, HCI_CMD.leConnectionUpdate];
    expect(commands.slice(sentBefore).filter((op) => link.includes(op))).toEqual([
      ...link,
      HCI_CMD.leConnectionUpdate,
    ]);
    // The board's link is the card's: it keeps the longer PDUs and 2M, and its interval.
    expect(current().linkInfo?.()).toMatchObject({
      intervalMs: before!.intervalMs,
      latency: before!.latency,
      dataLength: 251,
      txPhy: '2M',
    });
  });

  it('keeps one request in flight on a board that does not answer its MCUmgr parameters, and says what the controller did not grant', async () => {
    const { target } = await held({ params: false, bufferCount: 4 }, {});
    const result = await r.drive(flashImage(target, IMAGE));
    expect(result.link.window).toBe(1);
    expect(result.link.dataLength).toBe(27);
    expect(result.link.notes).toEqual([
      'data length not granted: the controller answered unknown HCI command (0x01)',
    ]);
    expect(result.slots[1]?.hash).toBe(hash);
  });

  it('uploads on the link it has through an adapter with no link controls (noble’s OS bindings), saying so', async () => {
    r = rig([]);
    const plain = { requestLink: undefined, linkInfo: undefined } as unknown as BleConnection;
    const asked = await linkForUpload(plain);
    expect(asked.link).toEqual({ notes: [NO_LINK_CONTROL] });
    expect(NO_LINK_CONTROL).toBe('link: default (the adapter cannot change it)');
    await asked.restore();
  });

  it('resumes from the board’s offset after the link drops with a window in flight', async () => {
    const { target } = await held({}, DLE_ADAPTER, {
      dropLinkDuringWrite: { characteristic: MCUMGR_CHARACTERISTIC_UUID, afterWrites: 30 },
    });
    const reconnects: number[] = [];
    const result = await r.drive(
      flashImage(target, IMAGE, { onReconnect: (n) => reconnects.push(n) }),
    );
    expect(reconnects).toEqual([1]);
    expect(result).toMatchObject({ reconnects: 1, total: IMAGE.bytes.length });
    expect(result.resumedFrom).toBeGreaterThan(0);
    expect(result.link.window).toBe(3);
    // The board checks nothing; the slot's hash is the image's only if every byte landed once.
    expect(result.slots[1]?.hash).toBe(hash);
  });

  it('a window past the board’s buffers loses requests, and the upload still puts every byte in place from the board’s offsets, the last chunk once there is room', async () => {
    const timed = async (window: number, image = LONG) => {
      // A board slower to write a chunk to flash than the link is to bring the next one, so
      // requests queue in its buffers.
      const slow = { latency: { connectMs: 40, perOperationMs: 200, jitterMs: 0 }, mtu: 247 };
      const adapter = { ...DLE_ADAPTER, connectionIntervalMs: 7.5, pdusPerEvent: 8 };
      r = rig([zephyr({ bufferSize: 2475 }, slow)], {}, { adapter });
      const ad = await r.find({ name: 'Zephyr MCUmgr' });
      const link = await r.drive(r.central.connect(ad.id, { mtu: 247 }));
      await r.drive(link.requestLink!({ kind: 'dataLength', octets: 251 }));
      const client = await r.drive(McumgrClient.open(link, { clock: r.clock, timeoutMs: 1_000 }));
      client.setWindow(window);
      const start = r.clock.now();
      const result = await r.drive(uploadImage(client, image, { bufferSize: 2475 }));
      const ms = r.clock.now() - start;
      const slots = await r.drive(listSlots(client));
      await r.close();
      return { ms, sent: result.sent, hash: slots[1]?.hash };
    };
    const fits = await timed(3);
    // Past buf_count − 1: the board drops a request; the next answer says so.
    const over = await timed(4);
    expect(fits.sent).toBe(LONG.bytes.length);
    expect(over.sent).toBeGreaterThan(LONG.bytes.length);
    // Dropped requests cost chunks sent again.
    expect(over.ms).toBeGreaterThan(fits.ms);
    const long = Buffer.from(LONG.hash).toString('hex');
    expect(fits.hash).toBe(long);
    expect(over.hash).toBe(long);

    // The last chunk waits until at most one other is in flight: a request dropped there would
    // have no answer after it to tell, and cost its timeout (1 s here). Five chunks with a
    // window of four: the last waits for room, none is dropped, and it takes what a window of
    // three takes.
    const three = await timed(3, IMAGE);
    const four = await timed(4, IMAGE);
    expect(four.sent).toBe(IMAGE.bytes.length);
    expect(four.ms).toBeLessThanOrEqual(three.ms);
    expect(four.hash).toBe(hash);
  });
});
