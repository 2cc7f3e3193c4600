// Names and value formats through the app's contract: a simulated board's characteristics carry
// their board file's names, the per-product map persists in the data folder, and bad input is
// refused naming the field.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanFor as scanOn, useApp } from '../../helpers/app';

const get = useApp('app-names');
const ok = <T>(name: string, input?: unknown) => get().ok<T>(name, input);
const fails = (name: string, input: unknown) => get().fails(name, input);

const TEMPERATURE = 'a3c80002-7f2e-4b61-9c0d-5e1f2a3b4c5d';
const TEMPERATURE_KEY = TEMPERATURE.replace(/-/g, '');

describe('names and value formats', () => {
  it('names a simulated board’s services and characteristics from its board file, and carries its raw advertising data', async () => {
    const board = await scanOn(get(), 'DB Sensor');
    // Flags first, Nordic's manufacturer data and the name in one of the two packets.
    expect(board.advertisingData).toMatch(/^020106/);
    const both = `${board.advertisingData ?? ''}${board.scanResponseData ?? ''}`;
    expect(both).toContain('05ff59000102');
    expect(both).toContain('0a0944422053656e736f72');
    const connection = await ok<{
      connectionId: string;
      services: {
        uuid: string;
        name?: string;
        characteristics: { uuid: string; name?: string }[];
      }[];
    }>('ble:connect', { deviceId: board.id });
    const sensor = connection.services.find((s) => s.uuid === 'a3c800007f2e4b619c0d5e1f2a3b4c5d');
    expect(sensor?.name).toBe('DeviceBench Sensor');
    expect(sensor?.characteristics.find((c) => c.uuid === TEMPERATURE_KEY)?.name).toBe(
      'Temperature',
    );
    await ok('ble:disconnect', { connectionId: connection.connectionId });
  });

  it('keeps a product’s names and formats in names.json, any UUID form being one entry', async () => {
    expect(await ok('names:get', { scope: '3000000001' })).toEqual({ names: {}, formats: {} });
    await ok('names:setName', { scope: '3000000001', uuid: TEMPERATURE, name: ' Room temp ' });
    const map = await ok('names:setFormat', {
      scope: '3000000001',
      uuid: TEMPERATURE_KEY.toUpperCase(),
      format: { type: 'int16le', exponent: -2, unit: '°C' },
    });
    expect(map).toEqual({
      names: { [TEMPERATURE_KEY]: 'Room temp' },
      formats: { [TEMPERATURE_KEY]: { type: 'int16le', exponent: -2, unit: '°C' } },
    });
    expect(await ok('names:get', { scope: 'bench' })).toEqual({ names: {}, formats: {} });
    const file = JSON.parse(await readFile(join(get().dataDir, 'names.json'), 'utf8')) as unknown;
    expect(file).toEqual({ scopes: { '3000000001': map } });

    await ok('names:setName', { scope: '3000000001', uuid: TEMPERATURE, name: '' });
    const cleared = await ok('names:setFormat', {
      scope: '3000000001',
      uuid: TEMPERATURE,
      format: null,
    });
    expect(cleared).toEqual({ names: {}, formats: {} });
  });

  it('keeps a format set on a blank board once it is a product’s board, the product’s own first', async () => {
    const celsius = { type: 'int16le', exponent: -2, unit: '°C' };
    await ok('names:setFormat', { scope: 'bench', uuid: TEMPERATURE, format: celsius });
    await ok('names:setName', { scope: 'bench', uuid: TEMPERATURE, name: 'Board temp' });
    // Provisioned, the board advertises product 3000000002's service: its scope is the product's.
    expect(await ok('names:get', { scope: '3000000002' })).toEqual({
      names: { [TEMPERATURE_KEY]: 'Board temp' },
      formats: { [TEMPERATURE_KEY]: celsius },
    });
    const kelvin = { type: 'uint16le', exponent: -1, unit: 'K' };
    const own = await ok('names:setFormat', {
      scope: '3000000002',
      uuid: TEMPERATURE,
      format: kelvin,
    });
    expect(own).toEqual({
      names: { [TEMPERATURE_KEY]: 'Board temp' },
      formats: { [TEMPERATURE_KEY]: kelvin },
    });
    expect(await ok('names:get', { scope: 'bench' })).toMatchObject({
      formats: { [TEMPERATURE_KEY]: celsius },
    });
    await ok('names:setFormat', { scope: 'bench', uuid: TEMPERATURE, format: null });
    await ok('names:setName', { scope: 'bench', uuid: TEMPERATURE, name: '' });
  });

  it('refuses bad input naming the field', async () => {
    const uuid = await fails('names:setName', { scope: 'bench', uuid: 'temp', name: 'x' });
    expect(uuid.fields?.map((f) => f.field)).toEqual(['uuid']);
    const scope = await fails('names:get', { scope: '../etc' });
    expect(scope.fields?.map((f) => f.field)).toEqual(['scope']);
    const long = await fails('names:setName', {
      scope: 'bench',
      uuid: '2a19',
      name: 'x'.repeat(61),
    });
    expect(long.fields?.[0]).toMatchObject({ field: 'name' });
    const format = await fails('names:setFormat', {
      scope: 'bench',
      uuid: '2a19',
      format: { type: 'uint64le', exponent: 0.5 },
    });
    expect(format.fields?.map((f) => f.field).sort()).toEqual(['format.exponent', 'format.type']);
  });
});
