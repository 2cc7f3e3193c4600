import { describe, expect, it } from 'vitest';
import { parseAdStructures } from '../../../../src/core/ble/advertising/ad-structures';

const bytes = (hex: string) =>
  Uint8Array.from(hex.replace(/\s/g, '').match(/../g) ?? [], (b) => parseInt(b, 16));

describe('parseAdStructures', () => {
  it('reads flags, 16- and 128-bit UUID lists, names, TX power, service and manufacturer data', () => {
    const payload = bytes(
      [
        '020106', // flags: LE General Discoverable, BR/EDR not supported
        '03030f18', // complete 16-bit: 180f
        '1107' + '5d4c3b2a1f5e0d9c614b2e7f0000c8a3', // complete 128-bit, little-endian
        '0708444220536e73', // shortened name "DB Sns"
        '0a09444220536e736f7221', // complete name "DB Snsor!"
        '020afc', // TX power -4 dBm
        '05160f1864ff', // service data 180f: 64 ff
        '05ff59000102', // manufacturer: Nordic (0x0059), 01 02
      ].join(''),
    );
    const fields = parseAdStructures(payload).map((s) => s.field);
    expect(fields).toEqual([
      {
        kind: 'flags',
        value: 6,
        set: ['LE General Discoverable Mode', 'BR/EDR Not Supported'],
      },
      { kind: 'serviceUuids', bits: 16, complete: true, uuids: ['180f'] },
      {
        kind: 'serviceUuids',
        bits: 128,
        complete: true,
        uuids: ['a3c800007f2e4b619c0d5e1f2a3b4c5d'],
      },
      { kind: 'localName', complete: false, name: 'DB Sns' },
      { kind: 'localName', complete: true, name: 'DB Snsor!' },
      { kind: 'txPower', dbm: -4 },
      { kind: 'serviceData', uuid: '180f', data: '64ff' },
      {
        kind: 'manufacturerData',
        companyId: 0x59,
        company: 'Nordic Semiconductor ASA',
        data: '0102',
      },
    ]);
  });

  it('labels each structure with its offset, bytes and type name', () => {
    const [flags, name] = parseAdStructures(bytes('020106 03094142'));
    expect(flags).toMatchObject({ offset: 0, hex: '020106', type: 1, typeName: 'Flags' });
    expect(name).toMatchObject({ offset: 3, hex: '03094142', typeName: 'Complete local name' });
  });

  it('keeps an unknown type as bytes under its number', () => {
    expect(parseAdStructures(bytes('03190000'))[0]).toMatchObject({
      typeName: 'AD type 0x19',
      field: { kind: 'other' },
    });
  });

  it('reports a structure that runs past the end instead of dropping it', () => {
    const structures = parseAdStructures(bytes('020106 0509414243'));
    expect(structures[1]).toMatchObject({
      offset: 3,
      hex: '0509414243',
      field: { kind: 'malformed', message: 'says 5 bytes follow, but only 4 do' },
    });
  });

  it.each([
    ['02030f', '1 bytes is not a whole number of 16-bit UUIDs'],
    ['0101', 'needs 1 byte, got 0'],
    ['02ff59', 'needs 2 bytes of company identifier, got 1'],
    ['030a0102', 'needs 1 byte, got 2'],
    ['022101', 'needs 16 bytes of UUID, got 1'],
  ])('reports a field too short or too long for its type: %s', (hex, message) => {
    const [first] = parseAdStructures(bytes(hex));
    expect(first?.field).toEqual({ kind: 'malformed', message });
  });

  it('stops at a zero length (the insignificant part) and reads an empty payload as nothing', () => {
    expect(parseAdStructures(bytes('020106 00 0000'))).toHaveLength(1);
    expect(parseAdStructures(new Uint8Array())).toEqual([]);
  });
});
