// The virtual LE controller byte for byte: HCI commands in, Command Complete / Command Status /
// LE Meta events out, ACL fragmentation and Number Of Completed Packets, with every packet
// written out as the Core Specification lays it out (v5.3, Vol 4, Part E, 5.4 and 7).
import { afterEach, describe, expect, it } from 'vitest';
import { SimulatedBench } from '../../../src/core/ble/sim/bench';
import { ManualSimClock } from '../../../src/core/ble/sim/manual-clock';
import type { AdapterProfileInput } from '../../../src/core/ble/sim/adapter-profile';
import { sensorBoard } from './fixture';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');
/** The board address as it travels: least significant octet first. */
const BOARD_LE = '01 99 00 41 3a d6';

let bench: SimulatedBench;
afterEach(() => bench.close());

function setup(profile: AdapterProfileInput = {}, board = {}) {
  const clock = new ManualSimClock(0);
  bench = new SimulatedBench({ clock, seed: 3 });
  bench.addBoard(
    sensorBoard({
      advertising: { intervalMs: 100, rssi: { mean: -50, noise: 0 } },
      latency: { connectMs: 30, perOperationMs: 5, jitterMs: 0 },
      ...board,
    }),
  );
  const controller = bench.createController(profile);
  const received: Buffer[] = [];
  controller.on('data', (packet: Buffer) => received.push(packet));
  controller.start();
  const settle = () => clock.advance(0);
  /** Writes one packet and returns what came back once the event loop settled. */
  const send = async (packet: string) => {
    received.length = 0;
    controller.write(hex(packet));
    await settle();
    return received.splice(0).map((p) => p.toString('hex'));
  };
  const take = () => received.splice(0).map((p) => p.toString('hex'));
  return { clock, controller, send, take, settle };
}

/** LE Create Connection to the board: scan 96/48, peer random, interval 7.5–22.5 ms, timeout 420 ms. */
const CREATE = `01 0d 20 19 6000 3000 00 01 ${BOARD_LE} 00 0600 1200 0000 2a00 0400 0600`;

async function connected(profile: AdapterProfileInput = {}) {
  const rig = setup(profile);
  expect(await rig.send(CREATE)).toEqual(['040f0400010d20']);
  // The board is advertising: the link is up after its 30 ms connect latency.
  await rig.clock.advance(29);
  expect(rig.take()).toEqual([]);
  await rig.clock.advance(1);
  const events = rig.take();
  // Status, handle 0x0040, central, random peer, interval 12 × 1.25 = 15 ms, latency 0, 42 × 10 ms.
  expect(events).toEqual([
    hex(`04 3e 13 01 00 4000 00 01 ${BOARD_LE} 0c00 0000 2a00 00`).toString('hex'),
  ]);
  return rig;
}

describe('the virtual controller answers HCI commands as the Core Specification lays them out', () => {
  it('answers reset, version, buffer size, address and LE host support with Command Complete', async () => {
    const { send } = setup({ address: '00:1a:7d:da:71:09', aclBufferSize: 27, aclBufferCount: 8 });
    expect(await send('01 03 0c 00')).toEqual(['040e0401030c00']);
    // HCI 5.3 (0x0c), revision 1, LMP 5.3, manufacturer 0x05f1, subversion 1.
    expect(await send('01 01 10 00')).toEqual(['040e0c010110000c01000cf1050100']);
    expect(await send('01 02 20 00')).toEqual(['040e070102200' + '01b0008']);
    expect(await send('01 09 10 00')).toEqual(['040e0a0109100009' + '71da7d1a00']);
    expect(await send('01 6c 0c 00')).toEqual(['040e06016c0c000100']);
    expect(await send('01 6d 0c 02 01 00')).toEqual(['040e04016d0c00']);
    expect(await send('01 01 0c 08 ffffffffffffff3f')).toEqual(['040e0401010c00']);
  });

  it('answers a command it does not know with Unknown HCI Command (0x01)', async () => {
    const { send } = setup();
    expect(await send('01 14 0c 00')).toEqual(['040e0401140c01']);
  });

  it('reports advertising as ADV_IND and SCAN_RSP while actively scanning, nothing otherwise', async () => {
    const { send, clock, take } = setup();
    await clock.advance(300);
    expect(take()).toEqual([]);
    expect(await send('01 0b 20 07 01 1000 1000 00 00')).toEqual(['040e04010b2000']);
    expect(await send('01 0c 20 02 01 00')).toEqual(['040e04010c2000']);
    await clock.advance(100);
    const [adv, rsp, ...rest] = take().map((p) => hex(p));
    expect(rest).toEqual([]);
    // LE Meta, parameter length, Advertising Report, 1 report, ADV_IND, random, the address.
    expect(adv!.readUInt8(2)).toBe(adv!.length - 3);
    expect(adv!.subarray(3, 13).toString('hex')).toBe(`02010001${BOARD_LE.replaceAll(' ', '')}`);
    const advData = adv!.subarray(14, 14 + adv![13]!);
    expect(adv!.length).toBe(14 + adv![13]! + 1);
    expect(advData.subarray(0, 3).toString('hex')).toBe('020106'); // flags: LE General Discoverable
    expect(adv!.readInt8(adv!.length - 1)).toBe(-50);
    expect(rsp![5]).toBe(0x04); // SCAN_RSP
    const rspData = rsp!.subarray(14, 14 + rsp![13]!).toString('hex');
    expect(rspData).toContain('0c09' + Buffer.from('Test Sensor').toString('hex'));
    // Disabling stops the reports.
    expect(await send('01 0c 20 02 00 00')).toEqual(['040e04010c2000']);
    await clock.advance(300);
    expect(take()).toEqual([]);
  });

  it('reports each board once per scan with duplicate filtering on', async () => {
    const { send, clock, take } = setup();
    await send('01 0b 20 07 00 1000 1000 00 00'); // passive: no scan responses
    await send('01 0c 20 02 01 01');
    await clock.advance(500);
    expect(take()).toHaveLength(1);
  });

  it('connects with Command Status then LE Connection Complete, at the board’s next advertisement', async () => {
    await connected();
  });

  it('refuses a second pending LE Create Connection with Command Disallowed (0x0c)', async () => {
    const { send } = setup();
    await send(CREATE);
    expect(await send(CREATE)).toEqual(['040f040c010d20']);
  });

  it('refuses a connection past the adapter’s limit with Connection Limit Exceeded (0x09)', async () => {
    const { send } = await connected({ maxConnections: 1 });
    expect(await send(CREATE)).toEqual(['040f0409010d20']);
  });

  it('cancels a pending connection: Command Complete, then LE Connection Complete with 0x02', async () => {
    const { send, settle, take } = setup();
    bench.setFaults('d63a41009901', { refuseConnection: true });
    await send(CREATE);
    expect(await send('01 0e 20 00')).toEqual([
      '040e04010e2000',
      hex(`04 3e 13 01 02 0000 00 01 ${BOARD_LE} 0000 0000 0000 00`).toString('hex'),
    ]);
    await settle();
    expect(take()).toEqual([]);
    expect(await send('01 0e 20 00')).toEqual(['040e04010e200c']);
  });

  it('fails a refused connection with Connection Failed to be Established (0x3e)', async () => {
    const { send, clock, take } = setup();
    bench.setFaults('d63a41009901', { refuseConnection: true });
    await send(CREATE);
    await clock.advance(200);
    expect(take()).toEqual([
      hex(`04 3e 13 01 3e 0000 00 01 ${BOARD_LE} 0000 0000 0000 00`).toString('hex'),
    ]);
  });

  it('carries ACL at connection events: completed packets, then the answer one event later', async () => {
    const { send, clock, take } = await connected();
    // Established at t = 30 ms; events every 15 ms: 45, 60, ...
    await clock.advance(5);
    // ATT Exchange MTU Request (client 256) on CID 4, handle 0x0040, start (non-flushable).
    expect(await send('02 4000 0700 0300 0400 02 0001')).toEqual([]);
    await clock.advance(9);
    expect(take()).toEqual([]);
    await clock.advance(1);
    expect(take()).toEqual(['0413050140000100']); // Number Of Completed Packets: 1 on 0x0040
    // The board answers 5 ms later; the answer goes out at the next event, 60 ms.
    await clock.advance(14);
    expect(take()).toEqual([]);
    await clock.advance(1);
    // ATT Exchange MTU Response: the board's 185, flushable start fragment.
    expect(take()).toEqual(['024020070003000400' + '03b900']);
  });

  it('reassembles a fragmented request and fragments a long answer to the data length', async () => {
    const { send, clock, take } = await connected({ aclBufferSize: 27, dataLength: 27 });
    await send('02 4000 0700 0300 0400 02 f700');
    await clock.advance(30);
    take();
    // Read By Group Type Request, primary services, split into two ACL fragments.
    await send('02 4000 0600 0700 0400 10 01');
    await send('02 4010 0500 00 ffff 0028');
    await clock.advance(30);
    const packets = take().map((p) => hex(p));
    const acl = packets.filter((p) => p[0] === 0x02);
    expect(acl.length).toBeGreaterThan(0);
    const first = acl[0]!;
    expect(first.readUInt16LE(1) >> 12).toBe(0x02);
    const l2capLength = first.readUInt16LE(5);
    const body = Buffer.concat([first.subarray(9), ...acl.slice(1).map((p) => p.subarray(5))]);
    expect(acl.slice(1).every((p) => p.readUInt16LE(1) >> 12 === 0x01)).toBe(true);
    expect(acl.every((p) => p.readUInt16LE(3) <= 27)).toBe(true);
    expect(body.length).toBe(l2capLength);
    expect(body[0]).toBe(0x11); // Read By Group Type Response
  });

  it('disconnects on HCI Disconnect: Command Status, then Disconnection Complete (0x16) at the next event', async () => {
    const { send, clock, take } = await connected();
    expect(await send('01 06 04 03 4000 13')).toEqual(['040f0400010604']);
    await clock.advance(15);
    expect(take()).toEqual(['0405040040001' + '6']);
    expect(await send('01 06 04 03 4000 13')).toEqual(['040f0402010604']);
  });

  it('loses a board that stops answering after the supervision timeout (0x08)', async () => {
    const { clock, take } = await connected();
    await clock.advance(20); // t = 50: the last event was at 45
    bench.removeBoard('d63a41009901');
    await clock.advance(414);
    expect(take()).toEqual([]);
    await clock.advance(1); // 45 + 420

    expect(take()).toEqual(['04050400400008']);
  });

  it('answers Read RSSI for a link and Unknown Connection Identifier otherwise', async () => {
    const { send } = await connected();
    expect(await send('01 05 14 02 4000')).toEqual(['040e070105140040' + '00ce']);
    expect(await send('01 05 14 02 4100')).toEqual(['040e070105140241' + '0000']);
  });
});
