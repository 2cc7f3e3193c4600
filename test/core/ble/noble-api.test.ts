// noble's own API (not only the parts BleCentral uses) over its HCI host stack and the
// simulated bench's controller, so any noble code — descriptors, handles, RSSI, MTU — runs
// against the simulated boards as against a Linux adapter.
import { afterEach, describe, expect, it } from 'vitest';
import type { Peripheral } from '@abandonware/noble';
import { nobleOverSocket } from '../../../src/core/ble/hci/noble-over-socket';
import { ManualSimClock } from '../../../src/core/ble/sim/manual-clock';
import { SimulatedBench } from '../../../src/core/ble/sim/bench';
import { sensorBoard, SENSOR_SERVICE, BUTTON, LED } from './fixture';

const compact = (uuid: string) => uuid.replaceAll('-', '');

let bench: SimulatedBench;
afterEach(() => bench.close());

async function setup() {
  const clock = new ManualSimClock();
  bench = new SimulatedBench({ clock, seed: 3 });
  bench.addBoard(
    sensorBoard({
      advertising: { intervalMs: 20, serviceUuids: ['180f'], rssi: { mean: -48, noise: 0 } },
    }),
  );
  // Filtered out by noble's HCI binding itself.
  bench.addBoard({ name: 'Other', advertising: { intervalMs: 20 } });
  const { noble } = nobleOverSocket(bench.createController());
  const drive = async <T>(promise: Promise<T>): Promise<T> => {
    let done = false;
    const tracked = promise.finally(() => (done = true));
    tracked.catch(() => undefined);
    for (let i = 0; !done && i < 2000; i++) await clock.advance(5);
    return tracked;
  };
  const heard = new Set<string>();
  noble.on('discover', (p: Peripheral) => heard.add(p.id));
  const found = new Promise<Peripheral>((resolve) => noble.once('discover', resolve));
  await drive(noble.startScanningAsync(['180f'], false));
  const peripheral = await drive(found);
  await clock.advance(100);
  await drive(noble.stopScanningAsync());
  return { noble, peripheral, drive, heard };
}

describe("noble's own API over the simulated bench's controller", () => {
  it('discovers, connects with the board MTU and reports RSSI', async () => {
    const { peripheral, drive, heard } = await setup();
    expect([...heard]).toEqual(['d63a41009901']);
    expect(peripheral).toMatchObject({
      id: 'd63a41009901',
      address: 'd6:3a:41:00:99:01',
      addressType: 'random',
      rssi: -48,
    });
    expect(peripheral.advertisement.localName).toBe('Test Sensor');
    await drive(peripheral.connectAsync());
    expect(peripheral.state).toBe('connected');
    expect(await drive(peripheral.updateRssiAsync())).toBe(-48);
    const { characteristics } = await drive(
      peripheral.discoverAllServicesAndCharacteristicsAsync(),
    );
    // noble exchanges the MTU (asking 256) before anything else on the link; the board has 185.
    expect(peripheral.mtu).toBe(185);
    expect(characteristics.map((c) => c.uuid)).toContain(compact(LED));
    await drive(peripheral.disconnectAsync());
    expect(peripheral.state).toBe('disconnected');
  });

  it('answers descriptor and handle operations like a GATT server', async () => {
    const { peripheral, drive } = await setup();
    await drive(peripheral.connectAsync());
    const [service] = await drive(peripheral.discoverServicesAsync([compact(SENSOR_SERVICE)]));
    const [button] = await drive(service!.discoverCharacteristicsAsync([compact(BUTTON)]));
    const [cccd] = await drive(button!.discoverDescriptorsAsync());
    expect(cccd!.uuid).toBe('2902');
    expect(Array.from(await drive(cccd!.readValueAsync()))).toEqual([0, 0]);
    await drive(cccd!.writeValueAsync(Buffer.from([1, 0])));
    expect(Array.from(await drive(cccd!.readValueAsync()))).toEqual([1, 0]);
    const got = new Promise<Buffer>((resolve) =>
      button!.once('data', (data: Buffer) => resolve(data)),
    );
    bench.pressButton('d63a41009901');
    expect(Array.from(await drive(got))).toEqual([1]);
    // Handles: service 1; button decl 2, value 3, CCCD 4; temperature 5, 6, 7; LED 8, value 9.
    expect(Array.from(await drive(peripheral.readHandleAsync(3)))).toEqual([1]);
    await drive(peripheral.writeHandleAsync(9, Buffer.from([1]), false));
    expect(Array.from(await drive(peripheral.readHandleAsync(9)))).toEqual([1]);
  });
});
