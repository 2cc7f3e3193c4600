// Link requests through real noble over the virtual controller: each goes out as its HCI
// command (in the trace), is answered as a controller answers it (Command Status, then the LE
// Meta event), and the connection's link follows the controller's events.
import { afterEach, describe, expect, it } from 'vitest';
import { HCI_CMD, HCI_EVENT, LE_SUBEVENT } from '../../../src/core/ble/hci/codes';
import type { BleConnection } from '../../../src/core/ble/port';
import type { LinkInfo } from '../../../src/core/ble/link-parameters';
import type { AdapterProfileInput } from '../../../src/core/ble/sim/adapter-profile';
import { rig, sensorBoard, SENSOR_SERVICE, LED, type Rig } from './fixture';

let r: Rig;
afterEach(() => r.close());

/** Commands sent and LE Meta subevents received, in the order the trace saw them. */
function traceRecorder() {
  const seen: string[] = [];
  return {
    seen,
    trace: (direction: 'sent' | 'received', p: Uint8Array) => {
      const b = Buffer.from(p);
      if (direction === 'sent' && b[0] === 0x01) seen.push(`cmd:${b.readUInt16LE(1).toString(16)}`);
      if (direction === 'received' && b[0] === 0x04 && b[1] === HCI_EVENT.leMeta)
        seen.push(`le:${b[3]!.toString(16)}`);
      if (direction === 'received' && b[0] === 0x04 && b[1] === HCI_EVENT.commandStatus)
        seen.push(`status:${b.readUInt16LE(5).toString(16)}:${b[3]}`);
    },
  };
}

async function connected(
  options: Parameters<typeof sensorBoard>[0] = {},
  adapter: AdapterProfileInput = {},
) {
  const recorder = traceRecorder();
  r = rig([sensorBoard(options)], {}, { trace: recorder.trace, adapter });
  const ad = await r.find({ name: 'sensor' });
  const link = await r.drive(r.central.connect(ad.id));
  return { link, seen: recorder.seen };
}

/** Simulated time one write with response takes. */
async function writeTime(link: BleConnection): Promise<number> {
  const start = r.clock.now();
  await r.drive(link.write(SENSOR_SERVICE, LED, Uint8Array.of(1)), 10_000);
  return r.clock.now() - start;
}

describe('link requests over the virtual controller', () => {
  it('reports the link the controller made: interval, latency, timeout, 1M PHY, open, MTU', async () => {
    const { link } = await connected();
    expect(link.linkInfo?.()).toEqual({
      mtu: 185,
      intervalMs: 15,
      latency: 0,
      supervisionTimeoutMs: 420,
      txPhy: '1M',
      rxPhy: '1M',
      dataLength: 27,
      securityLevel: 1,
      security: { encrypted: false, authenticated: false, bonded: false },
    });
  });

  it('asks for new connection parameters with LE Connection Update; timing follows the new interval', async () => {
    const { link, seen } = await connected();
    const changes: LinkInfo[] = [];
    link.onLinkChange?.((info) => changes.push(info));
    await writeTime(link); // discovers the GATT table first
    const before = await writeTime(link);
    const updated = await r.drive(
      link.requestLink!({
        kind: 'connectionParameters',
        parameters: {
          minIntervalMs: 50,
          maxIntervalMs: 50,
          latency: 2,
          supervisionTimeoutMs: 2000,
        },
      }),
    );
    expect(updated).toMatchObject({ intervalMs: 50, latency: 2, supervisionTimeoutMs: 2000 });
    expect(changes.at(-1)).toEqual(updated);
    const update = HCI_CMD.leConnectionUpdate.toString(16);
    expect(seen.slice(seen.indexOf(`cmd:${update}`))).toEqual([
      `cmd:${update}`,
      `status:${update}:0`,
      `le:${LE_SUBEVENT.connectionUpdateComplete.toString(16)}`,
    ]);
    const after = await writeTime(link);
    expect(before).toBeLessThan(50);
    expect(after).toBeGreaterThanOrEqual(50);
  });

  it('refuses parameters out of the spec’s range with 0x12 and keeps the link as it was', async () => {
    const { link, seen } = await connected();
    // A supervision timeout not above (1 + latency) × interval × 2 = 300 ms.
    await expect(
      r.drive(
        link.requestLink!({
          kind: 'connectionParameters',
          parameters: {
            minIntervalMs: 50,
            maxIntervalMs: 50,
            latency: 2,
            supervisionTimeoutMs: 300,
          },
        }),
      ),
    ).rejects.toThrow(
      'asking for new connection parameters: the controller answered invalid HCI command parameters (0x12)',
    );
    expect(seen).toContain(`status:${HCI_CMD.leConnectionUpdate.toString(16)}:18`);
    expect(link.linkInfo?.()).toMatchObject({
      intervalMs: 15,
      latency: 0,
      supervisionTimeoutMs: 420,
    });
  });

  it('moves to the 2M PHY with LE Set PHY, answered by LE PHY Update Complete', async () => {
    const { link, seen } = await connected();
    const updated = await r.drive(
      link.requestLink!({ kind: 'phy', phy: { tx: '2M', rx: 'coded' } }),
    );
    expect(updated).toMatchObject({ txPhy: '2M', rxPhy: 'coded' });
    const setPhy = HCI_CMD.leSetPhy.toString(16);
    expect(seen.slice(seen.indexOf(`cmd:${setPhy}`))).toEqual([
      `cmd:${setPhy}`,
      `status:${setPhy}:0`,
      `le:${LE_SUBEVENT.phyUpdateComplete.toString(16)}`,
    ]);
    // GATT still works on the new PHY, and noble was not confused by answers it did not ask for.
    expect(Buffer.from(await r.drive(link.read(SENSOR_SERVICE, LED))).toString('hex')).toBe('00');
  });

  it('asks for longer PDUs with LE Set Data Length: a controller with DLE settles on what both sides take; one without answers Unknown HCI Command', async () => {
    const { link, seen } = await connected({}, { dataLength: 200, aclBufferSize: 251 });
    const setLength = HCI_CMD.leSetDataLength.toString(16);
    const asked = await r.drive(link.requestLink!({ kind: 'dataLength', octets: 251 }));
    // The controller's maximum (200) is below the board's (251) and the 251 asked for.
    expect(asked.dataLength).toBe(200);
    expect(seen.slice(seen.indexOf(`cmd:${setLength}`))).toEqual([
      `cmd:${setLength}`,
      `le:${LE_SUBEVENT.dataLengthChange.toString(16)}`,
    ]);
    // Asked again, nothing changes and no event comes (7.7.65.7): the request still ends.
    expect(await r.drive(link.requestLink!({ kind: 'dataLength', octets: 251 }))).toMatchObject({
      dataLength: 200,
    });
    expect(
      seen.filter((e) => e === `le:${LE_SUBEVENT.dataLengthChange.toString(16)}`),
    ).toHaveLength(1);
    await r.close();

    const plain = await connected();
    await expect(
      r.drive(plain.link.requestLink!({ kind: 'dataLength', octets: 251 })),
    ).rejects.toThrow(/asking for a data length: the controller answered unknown HCI command/i);
    expect(plain.link.linkInfo?.()?.dataLength).toBe(27);
  });

  it('reads the RSSI with Read RSSI', async () => {
    const { link, seen } = await connected();
    const read = await r.drive(link.requestLink!({ kind: 'rssi' }));
    expect(read.rssi).toBe(-50);
    expect(seen).toContain(`cmd:${HCI_CMD.readRssi.toString(16)}`);
  });

  it('pairs through the station’s SMP under noble: the link is encrypted (level 2); a board that refuses says so and stays connected', async () => {
    const { link } = await connected();
    expect(await r.drive(link.requestLink!({ kind: 'pair' }))).toMatchObject({ securityLevel: 2 });
    await r.close();
    // The simulated fault "refuse pairing": the board answers Pairing Not Supported.
    const refusing = await connected();
    await r.drive(refusing.link.disconnect());
    r.bench.setFaults(refusing.link.id, { refusePairing: true });
    const ad = await r.find({ name: 'sensor' });
    refusing.link = await r.drive(r.central.connect(ad.id));
    await expect(r.drive(refusing.link.requestLink!({ kind: 'pair' }))).rejects.toThrow(
      'pairing: the board refused pairing: 0x05 pairing not supported',
    );
    expect(refusing.link.linkInfo?.()).toMatchObject({ securityLevel: 1 });
    expect(Buffer.from(await r.drive(refusing.link.read(SENSOR_SERVICE, LED))).length).toBe(1);
  });
});
