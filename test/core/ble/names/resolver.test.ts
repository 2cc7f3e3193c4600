import { describe, expect, it } from 'vitest';
import { nameKey, resolveName } from '../../../../src/core/ble/names/resolver';
import { companyName, sigName } from '../../../../src/core/ble/names/sig';

const TEMPERATURE = 'a3c80002-7f2e-4b61-9c0d-5e1f2a3b4c5d';

describe('SIG names', () => {
  it('names assigned services, characteristics and descriptors in any UUID form', () => {
    expect(sigName('180f', ['service'])).toBe('Battery Service');
    expect(sigName('00002a19-0000-1000-8000-00805f9b34fb')).toBe('Battery Level');
    expect(sigName('0x2902', ['descriptor'])).toBe('Client Characteristic Configuration');
    expect(sigName(TEMPERATURE)).toBeUndefined();
    expect(sigName('not a uuid')).toBeUndefined();
  });

  it('names companies by their identifier', () => {
    expect(companyName(0x0059)).toBe('Nordic Semiconductor ASA');
    expect(companyName(0x004c)).toBe('Apple, Inc.');
    expect(companyName(0xfffe)).toBeUndefined();
  });
});

describe('resolveName', () => {
  it('prefers the user map, then the board file, then the SIG', () => {
    const board = { '2a19': 'Charge', [TEMPERATURE]: 'Temperature' };
    const user = { '00002a19-0000-1000-8000-00805f9b34fb': 'Cell charge' };
    expect(resolveName('2a19')).toEqual({ name: 'Battery Level', source: 'sig' });
    expect(resolveName('2a19', { board })).toEqual({ name: 'Charge', source: 'board' });
    expect(resolveName('2A19', { board, user })).toEqual({ name: 'Cell charge', source: 'user' });
    expect(resolveName(TEMPERATURE.replace(/-/g, ''), { board })).toEqual({
      name: 'Temperature',
      source: 'board',
    });
  });

  it('gives no name to a UUID nobody named, nor to text that is no UUID', () => {
    expect(resolveName('a3c80009-7f2e-4b61-9c0d-5e1f2a3b4c5d')).toBeUndefined();
    expect(resolveName('hello')).toBeUndefined();
  });

  it('keys every form of a UUID alike', () => {
    expect(nameKey('{0000180F-0000-1000-8000-00805F9B34FB}')).toBe(nameKey('180f'));
    expect(nameKey('zz')).toBeUndefined();
  });
});
