import { describe, expect, it } from 'vitest';
import {
  adapterSpecText,
  confirmsWrites,
  describeAdapter,
  formatAdapterSpec,
  parseAdapterList,
  parseAdapterSpec,
} from '../../../src/core/ble/adapter-spec';

describe('adapter spec', () => {
  it.each([
    ['sim', { kind: 'sim' }, 'sim'],
    ['native', { kind: 'native' }, 'native'],
    ['hci0', { kind: 'hci', index: 0 }, 'hci0'],
    ['hci12', { kind: 'hci', index: 12 }, 'hci12'],
    [
      'serial:/dev/ttyACM0',
      { kind: 'serial', path: '/dev/ttyACM0', baud: 1_000_000 },
      'serial:/dev/ttyACM0',
    ],
    ['serial:COM3@115200', { kind: 'serial', path: 'COM3', baud: 115_200 }, 'serial:COM3@115200'],
    [
      'serial:/dev/ttyACM0@1000000',
      { kind: 'serial', path: '/dev/ttyACM0', baud: 1_000_000 },
      'serial:/dev/ttyACM0',
    ],
    ['tcp:127.0.0.1:6402', { kind: 'tcp', host: '127.0.0.1', port: 6402 }, 'tcp:127.0.0.1:6402'],
    ['tcp:[::1]:9000', { kind: 'tcp', host: '::1', port: 9000 }, 'tcp:[::1]:9000'],
    [
      'unix:/tmp/bt-server-le',
      { kind: 'unix', path: '/tmp/bt-server-le' },
      'unix:/tmp/bt-server-le',
    ],
    ['usb:1915:521F', { kind: 'usb', vendorId: 0x1915, productId: 0x521f }, 'usb:1915:521f'],
    [' usb:0x0a12:1 ', { kind: 'usb', vendorId: 0x0a12, productId: 1 }, 'usb:0a12:0001'],
  ])('%s parses and formats back canonically', (text, spec, canonical) => {
    expect(parseAdapterSpec(text)).toEqual(spec);
    expect(formatAdapterSpec(parseAdapterSpec(text))).toBe(canonical);
    expect(parseAdapterSpec(canonical)).toEqual(spec);
  });

  it.each([
    ['', /empty/],
    ['simulated', /is not an adapter: use `sim`/],
    ['hardware', /is not an adapter/],
    ['hci', /is not an adapter/],
    ['serial:', /serial port is empty/],
    ['serial:/dev/ttyACM0@12', /baud rate must be from 1200/],
    ['tcp:localhost', /write tcp:<host>:<port>/],
    ['tcp::80', /host is empty/],
    ['tcp:localhost:0', /port must be a whole number from 1 to 65535/],
    ['tcp:localhost:http', /port must be a whole number/],
    ['unix:', /socket path is empty/],
    ['usb:1915', /write usb:<vid>:<pid>/],
    ['usb:zz:1', /vendor ID must be 1 to 4 hex digits/],
    ['usb:1:12345', /product ID must be 1 to 4 hex digits/],
  ])('%j is refused in words', (text, message) => {
    expect(() => parseAdapterSpec(text)).toThrow(message);
  });

  it('reads a comma-separated list, refusing an empty item', () => {
    expect(parseAdapterList('sim,sim').map(formatAdapterSpec)).toEqual(['sim', 'sim']);
    expect(parseAdapterList('hci0, serial:/dev/ttyACM1').map(formatAdapterSpec)).toEqual([
      'hci0',
      'serial:/dev/ttyACM1',
    ]);
    expect(() => parseAdapterList('sim,,hci0')).toThrow(/empty/);
  });

  it('checks text at a boundary with the same words and keeps it canonical', () => {
    expect(adapterSpecText.parse('serial:/dev/ttyUSB0@1000000')).toBe('serial:/dev/ttyUSB0');
    const bad = adapterSpecText.safeParse('bluetooth');
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toMatch(/"bluetooth" is not an adapter/);
  });

  it('says which specs cannot see a refused write, and names each for people', () => {
    expect(confirmsWrites(parseAdapterSpec('native'))).toBe(false);
    for (const text of ['sim', 'hci0', 'serial:/dev/ttyACM0', 'tcp:h:1', 'unix:/x', 'usb:1:2'])
      expect(confirmsWrites(parseAdapterSpec(text))).toBe(true);
    expect(describeAdapter(parseAdapterSpec('serial:/dev/ttyACM0'))).toBe(
      'the HCI controller on /dev/ttyACM0 at 1000000 baud',
    );
    expect(describeAdapter(parseAdapterSpec('tcp:[::1]:9000'))).toBe(
      'the HCI controller at [::1]:9000 (TCP)',
    );
  });
});
