// The bench's central over the `unix:` and `tcp:` transports against a controller and a board
// nobody on this project wrote: BlueZ's btvirt plays both controllers, the `ble-host` package's
// peripheral plays the board (test/helpers/btvirt/). What btvirt cannot do, and how these tests
// step around it, is in docs/decisions.md ("Proof against BlueZ's btvirt").
import { createServer, connect as netConnect, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCentral } from '../../../src/core/ble/radio/open-central';
import { openH4 } from '../../../src/core/ble/hci/h4-transports';
import type { H4Socket } from '../../../src/core/ble/hci/h4-socket';
import type { NobleCentral } from '../../../src/core/ble/radio/noble-central';
import type { Advertisement, BleCentral, BleConnection } from '../../../src/core/ble/port';
import { NoAdapterCentral } from '../../../src/core/ble/radio/no-adapter-central';
import { wallClock } from '../../../src/core/async/clock';
import { startDryRun } from '../../../src/core/scenario/engine';
import type { TimelineEvent } from '../../../src/core/scenario/schema';
import { btvirtMissing, startBtvirt, titled, type Btvirt } from '../../helpers/btvirt/btvirt';
import {
  BENCH,
  PROVISIONING,
  startProvisioningBoard,
  type ProvisioningBoard,
} from '../../helpers/btvirt/provisioning-board';
import { runCli, seedProduct, tempDir, writeJson } from '../../cli/run-cli';

const BOARD_NAME = 'BZ Board';
const missing = btvirtMissing();

/** A loopback TCP port carrying every connection to btvirt's Unix socket, as ser2net would. */
async function tcpBridge(path: string): Promise<{ port: number; close: () => Promise<void> }> {
  const server: Server = createServer((client) => {
    const upstream = netConnect(path);
    client.pipe(upstream).pipe(client);
    const end = () => (client.destroy(), upstream.destroy());
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no TCP port');
  return {
    port: address.port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function poweredOn(central: BleCentral): Promise<void> {
  return new Promise((resolve) => {
    if (central.state() === 'poweredOn') return resolve();
    const off = central.onStateChange((state) => {
      if (state !== 'poweredOn') return;
      off();
      resolve();
    });
  });
}

/** The first advertisement of the board; btvirt reports it once per scan (see the decisions). */
async function findBoard(central: BleCentral): Promise<Advertisement> {
  let found: (ad: Advertisement) => void = () => undefined;
  const seen = new Promise<Advertisement>((resolve) => (found = resolve));
  const scan = await central.startScan({ name: BOARD_NAME }, (ad) => found(ad));
  try {
    return await seen;
  } finally {
    await scan.stop();
  }
}

describe.skipIf(missing !== undefined).each(['unix', 'tcp'] as const)(
  titled("the bench's central over %s: to btvirt and a ble-host board", missing),
  { timeout: 30_000 },
  (transport) => {
    let btvirt: Btvirt;
    let bridge: Awaited<ReturnType<typeof tcpBridge>> | undefined;
    let boardSocket: H4Socket;
    let central: NobleCentral;
    let ad: Advertisement;
    let link: BleConnection;
    /** What the tap recorded, as a btsnoop trace would hold it. */
    const traced: { direction: string; packet: Buffer }[] = [];

    beforeAll(async () => {
      btvirt = await startBtvirt();
      // The board's own controller, through the same H4 transport; ble-host drives it from here.
      boardSocket = await openH4({ kind: 'unix', path: btvirt.leSocket });
      boardSocket.start();
      await startProvisioningBoard(boardSocket, BOARD_NAME);
      bridge = transport === 'tcp' ? await tcpBridge(btvirt.leSocket) : undefined;
      const opened = await openCentral(
        bridge
          ? { kind: 'tcp', host: '127.0.0.1', port: bridge.port }
          : { kind: 'unix', path: btvirt.leSocket },
        { trace: (direction, packet) => traced.push({ direction, packet: Buffer.from(packet) }) },
      );
      if (opened instanceof NoAdapterCentral) throw new Error(`${opened.reason}\n${btvirt.log()}`);
      central = opened;
      await poweredOn(central);
    }, 30_000);

    afterAll(async () => {
      await central?.close();
      boardSocket?.stop();
      await bridge?.close();
      await btvirt?.stop();
    });

    it('scans the board with its advertised service and name', async () => {
      ad = await findBoard(central);
      expect(ad).toMatchObject({ localName: BOARD_NAME, connectable: true });
      expect(ad.serviceUuids).toEqual([PROVISIONING.service.replace(/-/g, '')]);
      expect(ad.address).toMatch(/^([0-9a-f]{2}:){5}[0-9a-f]{2}$/);
    });

    it('connects, exchanges the MTU and discovers both services', async () => {
      link = await central.connect(ad.id, { timeoutMs: 5_000 });
      expect(link.mtu).toBeGreaterThan(240 + 3);
      const services = await link.discover();
      const byUuid = new Map(services.map((s) => [s.uuid, s.characteristics]));
      expect(byUuid.get(PROVISIONING.service.replace(/-/g, ''))).toHaveLength(6);
      expect(byUuid.get(BENCH.service.replace(/-/g, ''))?.map((c) => c.properties)).toEqual([
        ['read', 'write'],
        ['read'],
        ['read', 'write'],
      ]);
    });

    it.each([16, 240])('writes %i bytes and reads them back', async (length) => {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 7 + length) & 0xff);
      await link.write(BENCH.service, BENCH.echo, bytes);
      expect(Buffer.from(await link.read(BENCH.service, BENCH.echo))).toEqual(Buffer.from(bytes));
    });

    it("names the board's ATT error with its code, for a read and for a write", async () => {
      await expect(link.read(BENCH.service, BENCH.refusesRead)).rejects.toThrow(
        /the board answered ATT error 0x02 \(read not permitted\) to readReq/,
      );
      await expect(link.write(BENCH.service, BENCH.refusesWrite, Uint8Array.of(1))).rejects.toThrow(
        /the board answered ATT error 0x03 \(write not permitted\) to writeReq/,
      );
      // The tap saw both ATT Error Responses (opcode 0x01): to the Read Request (0x0a) and the
      // Write Request (0x12), with the board's codes.
      const attErrors = traced.filter(
        ({ direction, packet }) =>
          direction === 'received' &&
          packet[0] === 0x02 &&
          packet[9] === 0x01 &&
          (packet[10] === 0x0a || packet[10] === 0x12),
      );
      expect(attErrors.map(({ packet }) => [packet[10], packet[13]])).toEqual([
        [0x0a, 0x02],
        [0x12, 0x03],
      ]);
      // The link survives a refusal: the next operation goes through.
      expect(Buffer.from(await link.read(BENCH.service, BENCH.refusesWrite))).toEqual(
        Buffer.from([0]),
      );
      await link.disconnect();
    });

    it('dry-runs a scenario whose write the board refuses: the result says so, with the code', async () => {
      const events: TimelineEvent[] = [];
      const run = startDryRun({
        central,
        deviceId: ad.id,
        clock: wallClock(),
        cycles: 1,
        set: {
          autoClose: true,
          suppressionInterval: 0,
          revision: 1,
          scenarios: [
            {
              id: 'refused',
              trigger: { type: 'IMMEDIATE' },
              actions: [
                {
                  type: 'GATT_WRITE',
                  serviceUuid: BENCH.service,
                  characteristicUuid: BENCH.refusesWrite,
                  data: 'AQ==',
                },
              ],
            },
          ],
        },
        onEvent: (event) => events.push(event),
      });
      const outcome = await run.done;
      expect(outcome.reason).toBe('cycles');
      const [result] = outcome.results;
      expect(result).toMatchObject({ scenarioId: 'refused', resultCode: 'GATT_ERROR' });
      expect(result?.errorReason).toMatch(/ATT error 0x03 \(write not permitted\)/);
      expect(events.map((e) => e.kind)).toContain('scenario-end');
    });
  },
);

describe.skipIf(missing !== undefined)(
  titled('devicebench provision over unix: to btvirt and a ble-host board', missing),
  { timeout: 60_000 },
  () => {
    let btvirt: Btvirt;
    let boardSocket: H4Socket;
    let board: ProvisioningBoard;

    beforeAll(async () => {
      btvirt = await startBtvirt();
      boardSocket = await openH4({ kind: 'unix', path: btvirt.leSocket });
      boardSocket.start();
      board = await startProvisioningBoard(boardSocket, BOARD_NAME);
    }, 30_000);

    afterAll(async () => {
      boardSocket?.stop();
      await btvirt?.stop();
    });

    it('provisions the board, verifies it by reading the PSDI back in product mode, and logs it', async () => {
      const dir = tempDir('btvirt');
      const data = join(dir, 'data');
      const product = await seedProduct(data);
      const plan = writeJson(dir, 'plan.json', {
        profileId: 'devicebench-v1',
        psdi: { kind: 'sequence', prefix: 'BZ-', width: 4 },
      });
      const run = await runCli([
        'provision',
        '--adapter',
        `unix:${btvirt.leSocket}`,
        '--product',
        product,
        '--count',
        '1',
        '--concurrency',
        '1',
        '--plan',
        plan,
        '--data-dir',
        data,
        '--json',
      ]);
      expect(run.code, `${run.stderr}\n${btvirt.log()}`).toBe(0);
      const summary = JSON.parse(run.stdout);
      expect(summary).toMatchObject({ wanted: 1, verified: 1 });
      expect(summary.boards[0]).toMatchObject({ state: 'verified', psdi: 'BZ-0001' });
      // The board itself holds what the tool says it wrote.
      expect(board.stored()).toMatchObject({ psdi: 'BZ-0001' });
      const search = await runCli(['audit', 'search', '--json', '--data-dir', data]);
      expect(JSON.parse(search.stdout).items).toEqual([
        expect.objectContaining({
          psdi: 'BZ-0001',
          state: 'verified',
          boardAddress: summary.boards[0].address,
          adapter: `unix:${btvirt.leSocket}`,
        }),
      ]);
    });
  },
);
