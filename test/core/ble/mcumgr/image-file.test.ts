// The MCUboot image reader on images built byte by byte, and on truncated and corrupt ones.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readMcubootImage } from '../../../../src/core/ble/mcumgr/image-file';
import { buildImage } from './image-builder';

describe('MCUboot image reader', () => {
  it('reads the header, the TLVs and the SHA-256 of a well-formed image', () => {
    const bytes = buildImage({ version: [2, 0, 7, 0], tlvs: [[0x01, new Uint8Array(32).fill(1)]] });
    const image = readMcubootImage(bytes);
    expect(image.versionText).toBe('2.0.7');
    expect(image.headerSize).toBe(32);
    expect(image.imageSize).toBe(1000);
    expect(image.tlvs.map((t) => [t.type, t.protected])).toEqual([
      [0x10, false],
      [0x01, false],
    ]);
    const expected = createHash('sha256')
      .update(bytes.subarray(0, 32 + 1000))
      .digest();
    expect(Buffer.from(image.hash).equals(expected)).toBe(true);
  });

  it('adds the build number when it is not 0, and hashes the protected TLVs too', () => {
    const bytes = buildImage({
      version: [1, 4, 0, 99],
      headerSize: 0x200,
      protectedTlvs: [[0x50, new Uint8Array([1, 0, 0, 0])]],
    });
    const image = readMcubootImage(bytes);
    expect(image.versionText).toBe('1.4.0.99');
    expect(image.tlvs[0]).toMatchObject({ type: 0x50, protected: true });
    const signedEnd = 0x200 + 1000 + 4 + 8;
    const expected = createHash('sha256').update(bytes.subarray(0, signedEnd)).digest();
    expect(Buffer.from(image.hash).equals(expected)).toBe(true);
  });

  it('refuses a file that is not an MCUboot image, naming the magic', () => {
    const bytes = new Uint8Array(64).fill(0xff);
    expect(() => readMcubootImage(bytes)).toThrow(
      'not an MCUboot image: header magic is 0xffffffff, expected 0x96f3b83d',
    );
    expect(() => readMcubootImage(new Uint8Array(10))).toThrow('shorter than the 32-byte header');
  });

  it('refuses a truncated image, saying how much is missing', () => {
    const bytes = buildImage();
    expect(() => readMcubootImage(bytes.subarray(0, 500))).toThrow(
      'truncated MCUboot image: header and payload need 1032 bytes, the file has 500',
    );
    expect(() => readMcubootImage(bytes.subarray(0, 1032))).toThrow(
      'no TLV area after the payload (offset 1032)',
    );
    expect(() => readMcubootImage(bytes.subarray(0, bytes.length - 5))).toThrow(
      'the TLV area says 40 bytes, 35 remain',
    );
  });

  it('refuses a corrupt image whose contents do not match its hash', () => {
    const bytes = buildImage();
    bytes[100] = bytes[100]! ^ 0xff;
    expect(() => readMcubootImage(bytes)).toThrow(
      /corrupt MCUboot image: its SHA-256 TLV says [0-9a-f]{64}, the contents hash to/,
    );
  });

  it('refuses an image without its SHA-256 TLV, or with a TLV area of the wrong magic', () => {
    const noHash = Buffer.from(buildImage());
    noHash.writeUInt16LE(0x11, 1032 + 4);
    expect(() => readMcubootImage(noHash)).toThrow('has no SHA-256 TLV (type 0x10)');
    const badMagic = Buffer.from(buildImage());
    badMagic.writeUInt16LE(0x1234, 1032);
    expect(() => readMcubootImage(badMagic)).toThrow(
      'TLV area at offset 1032 has magic 0x1234, expected 0x6907',
    );
  });

  it('refuses bytes after the TLV area and a header size below 32', () => {
    const trailing = new Uint8Array([...buildImage(), 0, 0]);
    expect(() => readMcubootImage(trailing)).toThrow('2 bytes after its TLV area');
    const small = Buffer.from(buildImage());
    small.writeUInt16LE(16, 8);
    expect(() => readMcubootImage(small)).toThrow('header size is 16');
  });

  it('refuses a protected area whose size disagrees with the header', () => {
    const bytes = Buffer.from(buildImage({ protectedTlvs: [[0x50, new Uint8Array(4)]] }));
    bytes.writeUInt16LE(8, 10);
    expect(() => readMcubootImage(bytes)).toThrow(
      'header says the protected TLVs take 8 bytes, their area takes 12',
    );
  });
});
