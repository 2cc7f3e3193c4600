// The provisioning profile at the GATT level, as a board implements it: the tool's writes,
// commit, reboot into the product's identity, rejection, device-derived PSDIs and flash.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { rig, board, type Rig } from './fixture';
import { AttError, type BleConnection } from '../../../src/core/ble/port';
import {
  STATUS,
  encodeUuid,
  provisioningProfileSchema,
} from '../../../src/core/ble/provisioning-profile';
import { loadProfiles } from '../../../src/core/ble/sim/board-file';

const profiles = loadProfiles();
const v1 = profiles.get('devicebench-v1')!;
const devicePsdi = profiles.get('devicebench-v1-device-psdi')!;
const S = v1.service;
const C = v1.characteristics;

const PRODUCT = {
  serviceUuid: '9d5e0000-4a1b-4c8e-9f0d-000000000001',
  psdiServiceUuid: 'e625601e-9e55-4597-a598-76018a0d293d',
  psdiCharacteristicUuid: '26e2b12b-85f0-4f3f-9fdd-91d114270e6e',
};

const dir = mkdtempSync(join(tmpdir(), 'devicebench-sim-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let r: Rig;
afterEach(() => r.close());

const blank = (overrides = {}) =>
  board({
    name: 'DB Blank',
    address: 'c2:00:00:00:00:10',
    provisioning: { profile: 'devicebench-v1', rebootMs: 100 },
    ...overrides,
  });

async function connectTo(filter: {
  serviceUuids?: string[];
  name?: string;
}): Promise<BleConnection> {
  const ad = await r.find(filter);
  return r.drive(r.central.connect(ad.id));
}

async function writeUuids(link: BleConnection, profile = v1) {
  await r.drive(link.write(S, C.serviceUuid, encodeUuid(profile, PRODUCT.serviceUuid)));
  await r.drive(link.write(S, C.psdiServiceUuid, encodeUuid(profile, PRODUCT.psdiServiceUuid)));
  await r.drive(
    link.write(S, C.psdiCharacteristicUuid, encodeUuid(profile, PRODUCT.psdiCharacteristicUuid)),
  );
}

const text = (data: Uint8Array) => Buffer.from(data).toString('utf8');

describe('provisioning a simulated board over GATT', () => {
  it('stores the values, commits, reboots and comes back as the product with a read-only PSDI', async () => {
    r = rig([blank()]);
    const link = await connectTo({ serviceUuids: [S] });
    const statuses: number[] = [];
    await r.drive(link.subscribe(S, C.status, (d) => statuses.push(d[0]!)));
    expect(Array.from(await r.drive(link.read(S, C.status)))).toEqual([STATUS.blank]);
    await writeUuids(link);
    await r.drive(link.write(S, C.psdi, Buffer.from('PSDI-000123')));
    expect(r.bench.view(link.id).provisioning).toMatchObject({
      status: 'pending',
      written: { ...PRODUCT, psdi: 'PSDI-000123' },
    });
    expect(Buffer.from(await r.drive(link.read(S, C.serviceUuid))).toString('hex')).toBe(
      PRODUCT.serviceUuid.replaceAll('-', ''),
    );

    const down = new Promise<string>((resolve) => link.onDisconnect(resolve));
    await r.drive(link.write(S, C.control, Uint8Array.of(0x01)));
    expect(r.bench.view(link.id).provisioning?.committed).toMatchObject({
      ...PRODUCT,
      psdi: 'PSDI-000123',
    });
    expect(await r.drive(down)).toBe('the board ended the connection (0x13)');
    expect(statuses).toEqual([STATUS.pending, STATUS.committed]);

    // After the reboot it no longer advertises the provisioning service, but the product's.
    expect(await r.collect({ serviceUuids: [S] }, 200)).toEqual([]);
    const again = await connectTo({ serviceUuids: [PRODUCT.serviceUuid] });
    const services = await r.drive(again.discover());
    expect(services.map((s) => s.uuid)).toEqual([PRODUCT.psdiServiceUuid.replaceAll('-', '')]);
    expect(services[0]!.characteristics).toEqual([
      { uuid: PRODUCT.psdiCharacteristicUuid.replaceAll('-', ''), properties: ['read'] },
    ]);
    expect(
      text(await r.drive(again.read(PRODUCT.psdiServiceUuid, PRODUCT.psdiCharacteristicUuid))),
    ).toBe('PSDI-000123');
    await expect(
      r.drive(
        again.write(PRODUCT.psdiServiceUuid, PRODUCT.psdiCharacteristicUuid, Buffer.from('OTHER')),
      ),
    ).rejects.toMatchObject({ step: 'write' });
  });

  it('rejects a commit with a value missing: status 0x80 and an ATT error on the write', async () => {
    r = rig([blank()]);
    const link = await connectTo({ serviceUuids: [S] });
    await writeUuids(link);
    const err = await r
      .drive(link.write(S, C.control, Uint8Array.of(0x01)))
      .catch((e: unknown) => e);
    expect(err).toMatchObject({
      name: 'BleError',
      step: 'write',
      deviceId: link.id,
      message: expect.stringContaining('ATT error 0x80'),
    });
    expect((err as Error).cause).toBeInstanceOf(AttError);
    expect(((err as Error).cause as AttError).code).toBe(0x80);
    expect(Array.from(await r.drive(link.read(S, C.status)))).toEqual([STATUS.rejected]);
    expect(r.bench.view(link.id).provisioning?.status).toBe('rejected');
    // Still connected and still blank: the tool can write the PSDI and commit again.
    await r.drive(link.write(S, C.psdi, Buffer.from('PSDI-000124')));
    await r.drive(link.write(S, C.control, Uint8Array.of(0x01)));
    expect(r.bench.view(link.id).provisioning?.status).toBe('committed');
  });

  it('refuses malformed values with an ATT error and keeps what it had', async () => {
    r = rig([blank()]);
    const link = await connectTo({ serviceUuids: [S] });
    await expect(r.drive(link.write(S, C.serviceUuid, new Uint8Array(15)))).rejects.toMatchObject({
      step: 'write',
      message: expect.stringContaining('0x0d'),
    });
    await expect(r.drive(link.write(S, C.psdi, Buffer.from('x'.repeat(21))))).rejects.toMatchObject(
      { step: 'write' },
    );
    await expect(r.drive(link.write(S, C.control, Uint8Array.of(0x02)))).rejects.toMatchObject({
      step: 'write',
    });
    expect(r.bench.view(link.id).provisioning).toMatchObject({ status: 'blank', written: {} });
  });

  it('accepts UUIDs as text for a profile with text encoding', async () => {
    const textProfile = provisioningProfileSchema.parse({
      ...v1,
      id: 'text-uuids',
      uuidEncoding: 'text',
    });
    r = rig([blank({ provisioning: { profile: textProfile } })]);
    const link = await connectTo({ serviceUuids: [S] });
    await writeUuids(link, textProfile);
    await r.drive(link.write(S, C.psdi, Buffer.from('T-1')));
    await r.drive(link.write(S, C.control, Uint8Array.of(0x01)));
    expect(r.bench.view(link.id).provisioning?.committed).toMatchObject({
      ...PRODUCT,
      psdi: 'T-1',
    });
  });

  it('lets a device-PSDI board keep its derived PSDI read-only; the tool writes only the UUIDs', async () => {
    r = rig([
      board({
        name: 'DB ESP32',
        address: '24:6f:28:a1:b2:c3',
        addressType: 'public',
        provisioning: {
          profile: 'devicebench-v1-device-psdi',
          derivedPsdi: 'ESP32-{address}',
          rebootMs: 50,
        },
      }),
    ]);
    const link = await connectTo({ name: 'esp32' });
    const services = await r.drive(link.discover());
    const psdi = services[0]!.characteristics.find((c) => c.uuid === C.psdi);
    expect(psdi?.properties).toEqual(['read']);
    expect(text(await r.drive(link.read(S, C.psdi)))).toBe('ESP32-246F28A1B2C3');
    await expect(r.drive(link.write(S, C.psdi, Buffer.from('MINE')))).rejects.toMatchObject({
      step: 'write',
    });
    await writeUuids(link, devicePsdi);
    await r.drive(link.write(S, C.control, Uint8Array.of(0x01)));
    expect(r.bench.view(link.id).provisioning?.committed).toMatchObject({
      ...PRODUCT,
      psdi: 'ESP32-246F28A1B2C3',
    });
    const again = await connectTo({ serviceUuids: [PRODUCT.serviceUuid] });
    expect(
      text(await r.drive(again.read(PRODUCT.psdiServiceUuid, PRODUCT.psdiCharacteristicUuid))),
    ).toBe('ESP32-246F28A1B2C3');
  });

  it('keeps a committed identity in the state file across a restart, and forgets it on factory reset', async () => {
    const stateFile = join(dir, 'bench-state.json');
    r = rig([blank()], { stateFile });
    const link = await connectTo({ serviceUuids: [S] });
    await writeUuids(link);
    await r.drive(link.write(S, C.psdi, Buffer.from('PSDI-9')));
    await r.drive(link.write(S, C.control, Uint8Array.of(0x01)));
    // Written before the board answered the commit, so a crash right here keeps it.
    expect(JSON.parse(readFileSync(stateFile, 'utf8')).boards.c20000000010).toMatchObject({
      psdi: 'PSDI-9',
    });
    await r.close();

    r = rig([blank()], { stateFile });
    expect(r.bench.view('c20000000010').provisioning).toMatchObject({
      status: 'committed',
      committed: { psdi: 'PSDI-9' },
    });
    const again = await connectTo({ serviceUuids: [PRODUCT.serviceUuid] });
    expect(
      text(await r.drive(again.read(PRODUCT.psdiServiceUuid, PRODUCT.psdiCharacteristicUuid))),
    ).toBe('PSDI-9');

    const down = new Promise<string>((resolve) => again.onDisconnect(resolve));
    expect(r.bench.factoryReset('c20000000010').provisioning).toMatchObject({
      status: 'blank',
      written: {},
    });
    await r.drive(down);
    expect(JSON.parse(readFileSync(stateFile, 'utf8')).boards).toEqual({});
    await r.close();

    r = rig([blank()], { stateFile });
    expect(r.bench.view('c20000000010').provisioning?.status).toBe('blank');
    expect((await r.find({ serviceUuids: [S] })).id).toBe('c20000000010');
  });

  it('refuses to open a state file that is not one, without touching it', async () => {
    const stateFile = join(dir, 'broken.json');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(stateFile, '{"version": 2}');
    expect(() => rig([blank()], { stateFile })).toThrow(/broken\.json: version: /);
    expect(readFileSync(stateFile, 'utf8')).toBe('{"version": 2}');
    r = rig([blank()]);
  });
});
