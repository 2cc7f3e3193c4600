// The sample image shipped for the Firmware panel (resources/firmware/sample-mcuboot/) reads as
// the app reads an image file, and is the one its README describes.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readMcubootImage } from '../../../../src/core/ble/mcumgr/image-file';
import { buildImage } from './image-builder';

const FILE = 'resources/firmware/sample-mcuboot/zephyr-sample-1.1.0.signed.bin';

describe('the shipped sample MCUboot image', () => {
  it('is an MCUboot image of version 1.1.0, as its README says it was made', () => {
    const bytes = readFileSync(FILE);
    const image = readMcubootImage(bytes);
    expect(image.versionText).toBe('1.1.0');
    const payload = new Uint8Array(24_576).map((_, i) => (i * 131 + 7) & 0xff);
    expect(Buffer.from(buildImage({ version: [1, 1, 0, 0], payload })).equals(bytes)).toBe(true);
  });
});
