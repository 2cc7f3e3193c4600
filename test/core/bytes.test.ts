// The byte parser in every accepted and refused form, and the formats it writes back.
import { describe, expect, it } from 'vitest';
import {
  bytesAsText,
  bytesToBase64,
  bytesToHex,
  formatBytes,
  parseBytes,
  type ByteFormat,
} from '../../src/core/bytes';

function hexOf(text: string, format: ByteFormat): string {
  const parsed = parseBytes(text, format);
  if (!parsed.ok) throw new Error(`refused: ${parsed.message}`);
  return bytesToHex(parsed.bytes, ' ');
}

function refusal(text: string, format: ByteFormat): string {
  const parsed = parseBytes(text, format);
  if (parsed.ok) throw new Error(`accepted as ${bytesToHex(parsed.bytes, ' ')}`);
  return parsed.message;
}

describe('hex', () => {
  it.each([
    ['01', '01'],
    ['0x01', '01'],
    ['0X0A1B', '0a 1b'],
    ['0a 1b 2c', '0a 1b 2c'],
    ['0a:1b:2c', '0a 1b 2c'],
    ['0x0a, 0x1b', '0a 1b'],
    ['0A-1B', '0a 1b'],
    ['  deadBEEF \n', 'de ad be ef'],
    ['', ''],
  ])('reads %j as %s', (text, hex) => {
    expect(hexOf(text, 'hex')).toBe(hex);
  });

  it.each([
    ['0x1', '"0x1" is not whole bytes: each byte takes two hex digits, e.g. "01"'],
    ['01 2', '"2" is not whole bytes'],
    ['0g', '"g" is not a hex digit'],
    ['AQ==', '"Q" is not a hex digit'],
    ['0x', '"0x" has no hex digits after 0x'],
  ])('refuses %j', (text, message) => {
    expect(refusal(text, 'hex')).toContain(message);
  });
});

describe('base64', () => {
  it.each([
    ['AQ==', '01'],
    ['AQ', '01'],
    ['AQI=', '01 02'],
    ['AQID', '01 02 03'],
    ['AQ ID\nBA==', '01 02 03 04'],
    ['+/8=', 'fb ff'],
    ['', ''],
  ])('reads %j as %s', (text, hex) => {
    expect(hexOf(text, 'base64')).toBe(hex);
  });

  it.each([
    ['0x01', '"0x01" looks like hex, not base64: choose Hex'],
    ['0X', 'looks like hex'],
    ['AQ-=', '"-" is not a base64 character'],
    ['not base64!', '"!" is not a base64 character'],
    ['A', 'its length (1) is not one an encoder writes'],
    ['AQ=', 'its length (3)'],
    ['AQID=', 'its length (5)'],
    ['AR==', 'carries bits past the end'],
    ['=', 'its length (1)'],
  ])('refuses %j', (text, message) => {
    expect(refusal(text, 'base64')).toContain(message);
  });
});

describe('UTF-8', () => {
  it('takes any text, multi-byte characters included', () => {
    expect(hexOf('Hi', 'utf8')).toBe('48 69');
    expect(hexOf('0x01', 'utf8')).toBe('30 78 30 31');
    expect(hexOf('温度', 'utf8')).toBe('e6 b8 a9 e5 ba a6');
    expect(hexOf('', 'utf8')).toBe('');
  });
});

describe('writing bytes back', () => {
  const bytes = Uint8Array.from([0x48, 0x69, 0x21]);

  it('writes each format so that it reads back the same', () => {
    for (const format of ['hex', 'base64', 'utf8'] as const)
      expect(hexOf(formatBytes(bytes, format) ?? '', format)).toBe('48 69 21');
  });

  it('base64 is padded as the platform stores it', () => {
    expect(bytesToBase64(Uint8Array.from([1]))).toBe('AQ==');
    expect(bytesToBase64(Uint8Array.from([1, 2]))).toBe('AQI=');
    expect(bytesToBase64(Uint8Array.from([0xfb, 0xff, 0xfe]))).toBe('+//+');
    expect(bytesToBase64(new Uint8Array())).toBe('');
  });

  it('shows bytes as text only when they are printable UTF-8', () => {
    expect(bytesAsText(bytes)).toBe('Hi!');
    expect(bytesAsText(Uint8Array.from([0x01]))).toBeUndefined();
    expect(bytesAsText(Uint8Array.from([0xff]))).toBeUndefined();
    expect(formatBytes(Uint8Array.from([0xd3, 0x1d, 0x35]), 'utf8')).toBeUndefined();
  });
});
