// A simulated Zephyr board's MCUmgr server, driven by the core's client through noble's own
// HCI stack: echo and parameters, upload, test, reset, confirm, revert, resume after a dropped
// link, a corrupt upload refused, erasing the free slot (settings: sim-board-settings.test.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { rig, type Rig } from '../fixture';
import { openMcumgr, resetAndWait, zephyr } from './zephyr-rig';
import {
  MCUMGR_CHARACTERISTIC_UUID,
  MCUMGR_SERVICE_UUID,
} from '../../../../src/core/ble/mcumgr/service';
import { echo, params } from '../../../../src/core/ble/mcumgr/os-group';
import {
  confirmImage,
  eraseSlot,
  listSlots,
  testImage,
  uploadImage,
} from '../../../../src/core/ble/mcumgr/image-group';
import { readMcubootImage } from '../../../../src/core/ble/mcumgr/image-file';
import { buildImage } from './image-builder';

let r: Rig;
afterEach(() => r.close());

const IMAGE = readMcubootImage(
  buildImage({ version: [2, 1, 0, 0], payload: new Uint8Array(6000).map((_, i) => i * 13) }),
);

describe('simulated MCUmgr board: images', () => {
  it('adds the MCUmgr service, and answers echo and parameters at any MTU', async () => {
    r = rig([zephyr()]);
    for (const mtu of [23, 247]) {
      const { link, client } = await openMcumgr(r, mtu);
      const services = await r.drive(link.discover());
      const smp = services.find((s) => s.uuid === MCUMGR_SERVICE_UUID);
      expect(smp?.characteristics).toEqual([
        { uuid: MCUMGR_CHARACTERISTIC_UUID, properties: ['writeWithoutResponse', 'notify'] },
      ]);
      const long = 'bench '.repeat(30);
      expect(await r.drive(echo(client, long))).toBe(long);
      expect(await r.drive(params(client))).toEqual({ bufferSize: 1024, bufferCount: 4 });
      await r.drive(link.disconnect());
    }
  });

  it('uploads, tests, swaps on reset, and keeps the image once confirmed', async () => {
    r = rig([zephyr()]);
    let { link, client } = await openMcumgr(r);
    const before = await r.drive(listSlots(client));
    expect(before).toHaveLength(1);
    expect(before[0]).toMatchObject({ slot: 0, version: '1.0.0', active: true, confirmed: true });

    const progress: number[] = [];
    const result = await r.drive(
      uploadImage(client, IMAGE, {
        bufferSize: 1024,
        onProgress: (p) => progress.push(p.offset),
      }),
    );
    expect(result).toMatchObject({ total: IMAGE.bytes.length, resumedFrom: 0 });
    expect(result.kilobytesPerSecond).toBeGreaterThan(0);
    expect(progress.at(-1)).toBe(IMAGE.bytes.length);
    expect(progress.length).toBeGreaterThan(5);

    const hash = Buffer.from(IMAGE.hash).toString('hex');
    const uploaded = await r.drive(listSlots(client));
    expect(uploaded[1]).toMatchObject({ slot: 1, version: '2.1.0', hash, pending: false });
    const tested = await r.drive(testImage(client, IMAGE.hash));
    expect(tested[1]).toMatchObject({ pending: true, permanent: false });

    await resetAndWait(r, link, client);
    ({ link, client } = await openMcumgr(r));
    const swapped = await r.drive(listSlots(client));
    expect(swapped[0]).toMatchObject({ version: '2.1.0', hash, active: true, confirmed: false });
    expect(swapped[1]).toMatchObject({ version: '1.0.0', pending: false });

    const confirmed = await r.drive(confirmImage(client));
    expect(confirmed[0]).toMatchObject({ version: '2.1.0', confirmed: true });
    await resetAndWait(r, link, client);
    ({ client } = await openMcumgr(r));
    expect((await r.drive(listSlots(client)))[0]).toMatchObject({
      version: '2.1.0',
      confirmed: true,
    });
  });

  it('reverts an image that was not confirmed before the next reset', async () => {
    r = rig([zephyr()]);
    let { link, client } = await openMcumgr(r);
    await r.drive(uploadImage(client, IMAGE, { bufferSize: 1024 }));
    await r.drive(testImage(client, IMAGE.hash));
    await resetAndWait(r, link, client);
    ({ link, client } = await openMcumgr(r));
    expect((await r.drive(listSlots(client)))[0]!.version).toBe('2.1.0');
    await resetAndWait(r, link, client);
    ({ client } = await openMcumgr(r));
    const slots = await r.drive(listSlots(client));
    expect(slots[0]).toMatchObject({ version: '1.0.0', confirmed: true, active: true });
    expect(slots[1]).toMatchObject({ version: '2.1.0', pending: false });
  });

  it('comes back on the old image when the test image fails to boot', async () => {
    r = rig([zephyr({ faults: { testImageFails: true } })]);
    const first = await openMcumgr(r);
    const { link } = first;
    let { client } = first;
    await r.drive(uploadImage(client, IMAGE, { bufferSize: 1024 }));
    await r.drive(testImage(client, IMAGE.hash));
    await resetAndWait(r, link, client);
    ({ client } = await openMcumgr(r));
    const slots = await r.drive(listSlots(client));
    expect(slots[0]).toMatchObject({ version: '1.0.0', confirmed: true });
    expect(slots[1]).toMatchObject({ version: '2.1.0', pending: false });
  });

  it('resumes an upload from the offset the board reports after the link dropped', async () => {
    r = rig([
      zephyr(
        {},
        {
          faults: {
            dropLinkDuringWrite: { characteristic: MCUMGR_CHARACTERISTIC_UUID, afterWrites: 12 },
          },
        },
      ),
    ]);
    let { client } = await openMcumgr(r);
    const failed = await r
      .drive(uploadImage(client, IMAGE, { bufferSize: 1024 }))
      .catch((e: unknown) => e);
    expect(failed).toMatchObject({ failure: expect.stringMatching(/link|timeout/) });
    ({ client } = await openMcumgr(r));
    const result = await r.drive(uploadImage(client, IMAGE, { bufferSize: 1024 }));
    expect(result.resumedFrom).toBeGreaterThan(0);
    expect(result.sent).toBeLessThan(IMAGE.bytes.length);
    const slots = await r.drive(listSlots(client));
    expect(slots[1]!.hash).toBe(Buffer.from(IMAGE.hash).toString('hex'));
  });

  it('takes a corrupt upload as Zephyr does, and MCUboot refuses to boot it', async () => {
    r = rig([zephyr({ faults: { corruptUpload: true } })]);
    let { link, client } = await openMcumgr(r);
    // img_mgmt checks no hash (docs/decisions/simulated-bench.md): it lists the TLV's.
    await r.drive(uploadImage(client, IMAGE, { bufferSize: 1024 }));
    const hash = Buffer.from(IMAGE.hash).toString('hex');
    expect((await r.drive(listSlots(client)))[1]).toMatchObject({ slot: 1, hash });
    await r.drive(testImage(client, IMAGE.hash));
    await resetAndWait(r, link, client);
    ({ link, client } = await openMcumgr(r));
    const after = await r.drive(listSlots(client));
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ slot: 0, version: '1.0.0', active: true, confirmed: true });
  });

  it('erases the free slot, and refuses to while an image is pending', async () => {
    r = rig([zephyr()]);
    const { client } = await openMcumgr(r);
    await r.drive(uploadImage(client, IMAGE, { bufferSize: 1024 }));
    await r.drive(eraseSlot(client));
    expect(await r.drive(listSlots(client))).toHaveLength(1);
    await r.drive(uploadImage(client, IMAGE, { bufferSize: 1024 }));
    await r.drive(testImage(client, IMAGE.hash));
    await expect(r.drive(eraseSlot(client))).rejects.toThrow('image group: 0x09 no free slot');
  });
});
