// Putting an image on a board to stay (`imageFlash`, what `provision --image` and a batch's
// image do), on a simulated Zephyr board through noble's own HCI stack: upload, test, reset
// and confirm on three connections; a board already running the image confirmed is only
// looked at; one whose test image does not boot is an error and keeps its old image.
import { afterEach, describe, expect, it } from 'vitest';
import { readMcubootImage } from '../../../src/core/ble/mcumgr/image-file';
import { listSlots } from '../../../src/core/ble/mcumgr/image-group';
import type { BleCentral } from '../../../src/core/ble/port';
import { imageFlash } from '../../../src/core/usecases/firmware';
import { rig, type Rig } from '../ble/fixture';
import { buildImage } from '../ble/mcumgr/image-builder';
import { openMcumgr, zephyr } from '../ble/mcumgr/zephyr-rig';

let r: Rig;
afterEach(() => r.close());

const IMAGE = readMcubootImage(
  buildImage({ version: [3, 0, 1, 0], payload: new Uint8Array(3000).map((_, i) => i * 7) }),
);
const HASH = Buffer.from(IMAGE.hash).toString('hex');

/** The rig's central, counting the connections made through it. */
function counted(central: BleCentral): { central: BleCentral; connections: () => number } {
  let n = 0;
  const proxy = new Proxy(central, {
    get(target, key, receiver) {
      if (key === 'connect')
        return (...args: Parameters<BleCentral['connect']>) => {
          n++;
          return target.connect(...args);
        };
      const value: unknown = Reflect.get(target, key, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { central: proxy, connections: () => n };
}

async function slots(): Promise<{ version: string; active: boolean; confirmed: boolean }[]> {
  const { link, client } = await openMcumgr(r);
  const listed = await r.drive(listSlots(client));
  await r.drive(client.close());
  await r.drive(link.disconnect());
  return listed.map(({ version, active, confirmed }) => ({ version, active, confirmed }));
}

describe('an image put on a board to stay', () => {
  it('uploads, tests, resets and confirms on three connections, then only looks', async () => {
    r = rig([zephyr()]);
    const { central, connections } = counted(r.central);
    const flash = imageFlash(central, IMAGE);
    expect(flash.hash).toBe(HASH);

    await r.drive(flash.onto('c3:00:00:00:00:01'));
    expect(connections()).toBe(3);
    expect(await slots()).toContainEqual({ version: '3.0.1', active: true, confirmed: true });

    // Already running it, confirmed: one connection to see so, nothing sent.
    await r.drive(flash.onto('c3:00:00:00:00:01'));
    expect(connections()).toBe(4);
  });

  it('refuses a test image that does not boot, the old image still running', async () => {
    r = rig([zephyr({ faults: { testImageFails: true } })]);
    await expect(r.drive(imageFlash(r.central, IMAGE).onto('c3:00:00:00:00:01'))).rejects.toThrow(
      `the board reverted after the test reset: image ${HASH.slice(0, 12)}… did not boot`,
    );
    expect(await slots()).toContainEqual({ version: '1.0.0', active: true, confirmed: true });
  });
});
