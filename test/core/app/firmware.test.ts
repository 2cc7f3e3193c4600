// Firmware through the app's contract on the default bench's Zephyr MCUmgr board, on the link
// its card holds: an image file checked before any board, an upload that resumes after the
// link dropped (with progress saying from where), test then reset (the card's link comes back
// under its id on the new image), a reset before confirm reverting it, confirm, echo, one call
// at a time per link, and an upload cancelled then resumed where it stopped.
import { describe, expect, it } from 'vitest';
import type { FirmwareSlot } from '../../../src/core/app/contracts/firmware';
import { buildImage } from '../ble/mcumgr/image-builder';
import { scanFor, useApp } from '../../helpers/app';
import { withFastAdapter } from '../../helpers/fast-adapter';

// Uploads on an adapter with Data Length Extension: the panel's steps are the subject, not the link's speed.
const get = useApp('app-firmware', { prepareDataDir: withFastAdapter });
const BOARD = 'e82f9a004001';
const MCUMGR_CHARACTERISTIC = 'da2e7828-fbce-4e01-ae9e-261174997c48';
const IMAGE = Buffer.from(
  buildImage({ version: [1, 4, 0, 0], payload: new Uint8Array(14_000).map((_, i) => i * 13) }),
);
const base64 = IMAGE.toString('base64');

interface Progress {
  connectionId: string;
  offset: number;
  total: number;
  resumedFrom: number;
  reconnects: number;
}

const active = (slots: FirmwareSlot[]) => slots.find((s) => s.active);

describe('firmware through the contract', { timeout: 60_000 }, () => {
  it('refuses a file that is not an MCUboot image, naming what is wrong', async () => {
    const bad = await get().fails('firmware:inspectImage', {
      image: Buffer.from(
        'not an image at all, just a text file of sixty-four bytes or so.',
      ).toString('base64'),
    });
    expect(bad.fields?.[0]?.field).toBe('image');
    expect(bad.fields?.[0]?.message).toMatch(/magic/i);
    const truncated = await get().fails('firmware:inspectImage', {
      image: IMAGE.subarray(0, 5_000).toString('base64'),
    });
    expect(truncated.fields?.[0]).toMatchObject({ field: 'image' });
    expect(await get().ok('firmware:inspectImage', { image: base64 })).toMatchObject({
      version: '1.4.0',
      bytes: IMAGE.length,
    });
  });

  it('uploads with resume, tests, resets, reverts, confirms and echoes on the card’s link', async () => {
    const h = get();
    const device = await scanFor(h, 'DB Zephyr MCUmgr');
    const { connectionId } = await h.ok<{ connectionId: string }>('ble:connect', {
      deviceId: device.id,
    });
    const before = await h.ok<{ slots: FirmwareSlot[] }>('firmware:slots', { connectionId });
    expect(active(before.slots)).toMatchObject({ version: '1.0.0', confirmed: true });

    await h.ok('sim:setFaults', {
      boardId: BOARD,
      dropLinkDuringWrite: true,
      dropLinkAfterWrites: 40,
      dropLinkCharacteristic: MCUMGR_CHARACTERISTIC,
    });
    const progress: Progress[] = [];
    const off = h.app.subscribe('firmware:progress', (p) => progress.push(p as Progress));
    const uploading = h.ok<{ resumedFrom: number; reconnects: number; slots: FirmwareSlot[] }>(
      'firmware:upload',
      { connectionId, image: base64 },
    );
    // One call at a time on a link: a second one is refused at the link, naming it busy.
    const busy = await h.fails('firmware:slots', { connectionId });
    expect(busy.fields?.[0]).toMatchObject({ field: 'connectionId' });
    expect(busy.fields?.[0]?.message).toContain('an upload runs');
    const uploaded = await uploading;
    off();
    expect(uploaded.reconnects).toBe(1);
    expect(uploaded.resumedFrom).toBeGreaterThan(0);
    const hash = uploaded.slots.find((s) => s.slot === 1)?.hash;
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(progress.at(-1)).toMatchObject({ connectionId, offset: IMAGE.length, reconnects: 1 });
    expect(progress.at(-1)?.resumedFrom).toBe(uploaded.resumedFrom);

    const tested = await h.ok<{ slots: FirmwareSlot[] }>('firmware:test', { connectionId, hash });
    expect(tested.slots.find((s) => s.hash === hash)).toMatchObject({ pending: true });
    const swapped = await h.ok<{ swapped: boolean; reverted: boolean; slots: FirmwareSlot[] }>(
      'firmware:reset',
      { connectionId },
    );
    expect(swapped).toMatchObject({ swapped: true, reverted: false });
    expect(active(swapped.slots)).toMatchObject({ version: '1.4.0', confirmed: false });
    // The card's link came back under its id.
    const links = await h.ok<{ connectionId: string; state: string }[]>('ble:listLinks');
    expect(links.find((l) => l.connectionId === connectionId)?.state).toBe('connected');

    const reverted = await h.ok<{ reverted: boolean; slots: FirmwareSlot[] }>('firmware:reset', {
      connectionId,
    });
    expect(reverted.reverted).toBe(true);
    expect(active(reverted.slots)).toMatchObject({ version: '1.0.0' });

    await h.ok('firmware:test', { connectionId, hash });
    await h.ok('firmware:reset', { connectionId });
    const confirmed = await h.ok<{ slots: FirmwareSlot[] }>('firmware:confirm', { connectionId });
    expect(active(confirmed.slots)).toMatchObject({ version: '1.4.0', confirmed: true });
    const kept = await h.ok<{ reverted: boolean; slots: FirmwareSlot[] }>('firmware:reset', {
      connectionId,
    });
    expect(kept.reverted).toBe(false);
    expect(active(kept.slots)).toMatchObject({ version: '1.4.0', confirmed: true });

    expect(await h.ok('firmware:echo', { connectionId, text: 'hello board' })).toEqual({
      text: 'hello board',
    });
    const wrongHash = await h.fails('firmware:test', { connectionId, hash: 'abc' });
    expect(wrongHash.fields?.[0]).toMatchObject({ field: 'hash' });
  });

  it('cancels an upload at the next chunk, and the next upload resumes where it stopped', async () => {
    const h = get();
    // The card's link from the test before, or a new one: the board takes one connection.
    const links = await h.ok<{ connectionId: string; state: string }[]>('ble:listLinks');
    const connectionId =
      links.find((l) => l.state === 'connected')?.connectionId ??
      (
        await h.ok<{ connectionId: string }>('ble:connect', {
          deviceId: (await scanFor(h, 'DB Zephyr MCUmgr')).id,
        })
      ).connectionId;
    const image = Buffer.from(
      buildImage({ version: [1, 5, 0, 0], payload: new Uint8Array(12_000).map((_, i) => i * 7) }),
    );
    expect(await h.ok('firmware:cancelUpload', { connectionId })).toEqual({ uploading: false });

    const progress: Progress[] = [];
    let asked: Promise<unknown> | undefined;
    const off = h.app.subscribe('firmware:progress', (p) => {
      progress.push(p as Progress);
      // After two chunks: a board answering one first chunk's length tells no resume from a
      // fresh start (src/core/ble/mcumgr/image-group.ts), so stop past it.
      if (progress.length === 2) asked = h.ok('firmware:cancelUpload', { connectionId });
    });
    const cancelled = await h.ok<{ cancelled: boolean; offset: number; total: number }>(
      'firmware:upload',
      { connectionId, image: image.toString('base64') },
    );
    off();
    expect(await asked).toEqual({ uploading: true });
    expect(cancelled).toMatchObject({ cancelled: true, total: image.length });
    expect(cancelled.offset).toBeGreaterThan(0);
    expect(cancelled.offset).toBeLessThan(image.length);
    // It stopped at the next chunk: what the board took last is where it says it stopped.
    expect(cancelled.offset).toBe(progress.at(-1)?.offset);
    // No chunk goes out after the cancel; the window’s chunks already sent (buf_count 4 − 1)
    // land first, so the board is where the last answer said.
    expect(progress.length).toBeLessThanOrEqual(2 + 3);

    const resumed = await h.ok<{ cancelled: boolean; resumedFrom: number; slots: FirmwareSlot[] }>(
      'firmware:upload',
      { connectionId, image: image.toString('base64') },
    );
    expect(resumed).toMatchObject({ cancelled: false, resumedFrom: cancelled.offset });
    expect(resumed.slots.find((s) => s.slot === 1)).toMatchObject({ version: '1.5.0' });
  });
});
