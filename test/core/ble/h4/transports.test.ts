// The same provisioning run over every H4 transport the app opens (TCP, Unix, a serial pty
// through socat) to the simulated bench served over H4, against the in-process sim: the same
// record, the same board state, the same ATT exchange in the trace. And what an engineer meets
// when the controller is not there, answers nothing, talks garbage or is unplugged mid-run.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseAdapterSpec, type AdapterSpec } from '../../../../src/core/ble/adapter-spec';
import type { Direction } from '../../../../src/core/ble/hci/btsnoop';
import { HCI_PACKET } from '../../../../src/core/ble/hci/codes';
import { H4Framer } from '../../../../src/core/ble/hci/h4-framer';
import { serveH4, type H4Server } from '../../../../src/core/ble/hci/h4-server';
import { NoAdapterCentral } from '../../../../src/core/ble/radio/no-adapter-central';
import { openCentral, type OpenedCentral } from '../../../../src/core/ble/radio/open-central';
import { ATT_OP } from '../../../../src/core/ble/att/codes';
import { SimulatedBench } from '../../../../src/core/ble/sim/bench';
import { openAuditStore } from '../../../../src/core/audit/open-store';
import type { AuditStore } from '../../../../src/core/audit/store';
import {
  provisionBoard,
  type ProvisionBoardOptions,
} from '../../../../src/core/provisioning/workflow';
import { builtInProfiles, gattProfiles } from '../../../../src/core/provisioning/profiles';
import type { BoardSpecInput } from '../../../../src/core/ble/sim/board-schema';
import { JUST_WORKS_PAIRING, smpRecorder } from '../fixture';
import { ProvisionError } from '../../../../src/core/provisioning/steps';
import {
  advertisementOf,
  blankBoard,
  FAST,
  PRODUCT,
  sequence,
  V1,
} from '../../provisioning/fixture';

type Record_ = [Direction, Buffer];

const ADDRESS = 'c2:8e:20:00:00:01';
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const undo of cleanups.splice(0).reverse()) await undo();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'devicebench-h4-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function until(check: () => boolean, what: string, limitMs = 5_000): Promise<void> {
  const end = Date.now() + limitMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A pty at `path` bridged to an H4 TCP server, as a serial dongle would be. */
async function socatPty(path: string, tcp: string): Promise<ChildProcess> {
  const [, host, port] = tcp.split(':');
  const child = spawn('socat', [`pty,raw,echo=0,link=${path}`, `tcp:${host}:${port}`], {
    stdio: 'ignore',
  });
  cleanups.push(() => void child.kill('SIGKILL'));
  await until(() => existsSync(path), 'socat to make the pty');
  return child;
}

interface Bed {
  bench: SimulatedBench;
  store: AuditStore;
  central: OpenedCentral;
  trace: Record_[];
  server?: H4Server;
  /** The socat bridging the serial pty. */
  pty?: { path: string; bridge: ChildProcess };
}

/** One board on a bench, reached through `kind`; the trace records what the tap saw. */
async function bed(
  kind: 'sim' | 'tcp' | 'unix' | 'serial',
  relay?: (target: string) => Promise<string>,
  board: BoardSpecInput = blankBoard(1),
): Promise<Bed> {
  const dir = tempDir();
  const bench = new SimulatedBench({ seed: 11 });
  bench.addBoard(board, 'test');
  cleanups.push(() => bench.close());
  const store = await openAuditStore({
    location: { kind: 'local', file: join(dir, 'audit.db') },
    station: 'test-bench',
  });
  cleanups.push(() => store.close());
  const trace: Record_[] = [];
  const record = (direction: Direction, packet: Uint8Array) =>
    trace.push([direction, Buffer.from(packet)]);
  let spec: AdapterSpec = { kind: 'sim' };
  let server: H4Server | undefined;
  let pty: Bed['pty'];
  if (kind !== 'sim') {
    server = await serveH4(
      bench,
      kind === 'unix'
        ? { kind: 'unix', path: join(dir, 'h4.sock') }
        : { kind: 'tcp', host: '127.0.0.1', port: 0 },
    );
    cleanups.push(() => server?.close());
    let target = server.spec;
    if (relay) target = await relay(target);
    if (kind === 'serial') {
      const path = join(dir, 'ttyH4');
      pty = { path, bridge: await socatPty(path, target) };
      target = `serial:${path}`;
    }
    spec = parseAdapterSpec(target);
  }
  const central = await openCentral(spec, { bench, trace: record });
  cleanups.push(() => central.close());
  return { bench, store, central, trace, server, pty };
}

function provision(b: Bed, extra: Partial<ProvisionBoardOptions> = {}) {
  const profile = extra.profile ?? V1;
  return advertisementOf(b.central, ADDRESS, [profile.service]).then((board) =>
    provisionBoard({
      central: b.central,
      store: b.store,
      profile,
      product: PRODUCT,
      board,
      psdi: sequence(),
      timing: FAST,
      ...extra,
    }),
  );
}

/**
 * The ATT requests of the run, by opcode, in order: what the board was asked. (Whether the
 * answer to the status read after the commit beats the board's reboot is a race on any link.)
 */
function attRequests(trace: Record_[]): string[] {
  return trace.flatMap(([direction, p]) => {
    const start = p[0] === HCI_PACKET.acl && ((p.readUInt16LE(1) >> 12) & 0x3) !== 0x1;
    if (direction !== 'sent' || !start || p.length < 10 || p.readUInt16LE(7) !== 0x0004) return [];
    return [p[9]!.toString(16).padStart(2, '0')];
  });
}

describe('H4 transports', () => {
  it('provisions the same over sim, tcp:, unix: and serial: (pty), with the same ATT requests', async () => {
    // Each transport on a bench of its own, all at once: they share nothing but the machine.
    const kinds = ['sim', 'tcp', 'unix', 'serial'] as const;
    const runs = await Promise.all(
      kinds.map(async (kind) => {
        const b = await bed(kind);
        expect(b.central).not.toBeInstanceOf(NoAdapterCentral);
        const { record } = await provision(b);
        return {
          record: {
            state: record.state,
            psdi: record.psdi,
            boardAddress: record.boardAddress,
            writtenAt: record.writtenAt !== null,
          },
          att: attRequests(b.trace),
          board: b.bench.boards().find((x) => x.address === ADDRESS)?.provisioning?.committed?.psdi,
        };
      }),
    );
    const results = Object.fromEntries(kinds.map((kind, i) => [kind, runs[i]]));
    expect(results.sim!.record).toEqual({
      state: 'verified',
      psdi: 'DB-0001',
      boardAddress: ADDRESS,
      writtenAt: true,
    });
    expect(results.sim!.board).toBe('DB-0001');
    expect(results.sim!.att).toContain(ATT_OP.writeReq.toString(16).padStart(2, '0'));
    for (const kind of ['tcp', 'unix', 'serial']) expect(results[kind]).toEqual(results.sim);
    // Four provisioning runs at once: 5 s is not enough on a busy 2-core machine.
  }, 30_000);

  it("pairs (Just Works, noble's own SMP) over tcp: as on the sim, and the trace shows it", async () => {
    const STARTER = gattProfiles(builtInProfiles()).find((p) => p.id === 'platform-starter')!;
    const b = await bed(
      'tcp',
      undefined,
      blankBoard(1, {
        provisioning: { profile: STARTER.id, derivedPsdi: 'STARTER-{address}', rebootMs: 50 },
      }),
    );
    const { record } = await provision(b, { profile: STARTER, psdi: undefined });
    expect(record).toMatchObject({ state: 'verified', psdi: 'STARTER-C28E20000001' });
    const smp = smpRecorder();
    for (const [direction, packet] of b.trace) smp.trace(direction, packet);
    expect(smp.seen).toEqual(JUST_WORKS_PAIRING);
  });

  it('names the ATT error code a board answers a write with, over unix:', async () => {
    const dir = tempDir();
    const bench = new SimulatedBench({ seed: 3 });
    cleanups.push(() => bench.close());
    bench.addBoard(
      blankBoard(1, {
        faults: {
          refuseAccess: { characteristic: V1.characteristics.psdi, operation: 'write', code: 0x03 },
        },
      }),
      'test',
    );
    const server = await serveH4(bench, { kind: 'unix', path: join(dir, 'h4.sock') });
    cleanups.push(() => server.close());
    const central = await openCentral(parseAdapterSpec(server.spec));
    cleanups.push(() => central.close());
    const store = await openAuditStore({
      location: { kind: 'local', file: join(dir, 'audit.db') },
      station: 'test-bench',
    });
    cleanups.push(() => store.close());
    const err = await provision({ bench, store, central, trace: [] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ProvisionError);
    expect((err as ProvisionError).step).toBe('write');
    expect((err as Error).message).toMatch(/0x03/);
  });

  it('unplugged mid-run: the adapter goes away, the run ends with a clear error, nothing is sent after', async () => {
    let cut: (() => void) | undefined;
    // A relay that closes both sides at the board's first Write Request: the TCP peer goes away.
    const relay = async (target: string): Promise<string> => {
      const [, host, port] = target.split(':');
      const server: Server = createServer((client: Socket) => {
        const upstream = connect(Number(port), host);
        const framer = new H4Framer({
          accept: [HCI_PACKET.command, HCI_PACKET.acl],
          onPacket: (p) => {
            if (p[0] === HCI_PACKET.acl && p.length > 9 && p[9] === ATT_OP.writeReq) cut?.();
            else upstream.write(p);
          },
        });
        cut = () => {
          client.destroy();
          upstream.destroy();
        };
        client.on('data', (chunk: Buffer) => framer.push(chunk));
        upstream.on('data', (chunk: Buffer) => client.write(chunk));
        client.on('error', () => upstream.destroy());
        upstream.on('error', () => client.destroy());
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
      const address = server.address();
      return `tcp:127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    };
    const b = await bed('tcp', relay);
    const states: string[] = [];
    b.central.onStateChange((s) => states.push(s));
    const err = await provision(b).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ProvisionError);
    expect(b.central.state()).toBe('noAdapter');
    expect(b.central.stateReason()).toMatch(/^the HCI controller on 127\.0\.0\.1:\d+ went away/);
    expect(states).toContain('noAdapter');
    const failed = err as ProvisionError;
    expect(failed.record?.state).not.toBe('verified');
    expect(b.bench.boards().find((x) => x.address === ADDRESS)?.provisioning?.status).toBe('blank');
    // The tap saw the synthesized disconnect; after it, nothing went out to a controller.
    const lost = b.trace.findIndex(([d, p]) => d === 'received' && p[1] === 0x05);
    expect(lost).toBeGreaterThan(0);
    expect(b.trace.slice(lost + 1).filter(([d]) => d === 'sent')).toEqual([]);
    expect(failed.message).toMatch(/went away|noAdapter|disconnect/);
  });

  it(
    'a serial dongle unplugged (the pty closed): the adapter goes away with the port named',
    { timeout: 20_000 },
    async () => {
      const b = await bed('serial');
      await provision(b);
      // socat removes its pty link as the kernel removes an unplugged dongle's device node.
      b.pty!.bridge.kill('SIGTERM');
      await until(() => b.central.state() === 'noAdapter', 'the adapter to go away');
      expect(b.central.stateReason()).toMatch(
        new RegExp(`^the HCI controller on ${b.pty!.path} at 1000000 baud went away`),
      );
      await expect(b.central.startScan({}, () => undefined)).rejects.toThrow(
        /noAdapter: the HCI controller/,
      );
    },
  );
});

describe('H4 transport errors', () => {
  it('says nothing listens when the TCP port is closed', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const central = await openCentral({ kind: 'tcp', host: '127.0.0.1', port });
    expect(central).toBeInstanceOf(NoAdapterCentral);
    expect(central.stateReason()).toBe(
      `nothing listens at 127.0.0.1:${port}: start the HCI controller there (e.g. devicebench sim serve --h4 tcp:...)`,
    );
  });

  it('says no controller answered when the peer accepts but never answers the Reset', async () => {
    const dir = tempDir();
    const path = join(dir, 'mute.sock');
    const peers: Socket[] = [];
    const silent = createServer((s) => void peers.push(s));
    await new Promise<void>((resolve) => silent.listen(path, resolve));
    cleanups.push(() => {
      for (const peer of peers) peer.destroy();
      return new Promise<void>((resolve) => silent.close(() => resolve()));
    });
    const central = await openCentral({ kind: 'unix', path }, { resetTimeoutMs: 200 });
    expect(central).toBeInstanceOf(NoAdapterCentral);
    expect(central.stateReason()).toBe(
      `no HCI controller answered on ${path} within 200 ms: check that the peer speaks H4 HCI (btvirt, devicebench sim serve)`,
    );
  });

  it('says there is no serial port, and that a pty with no controller behind it answers nothing', async () => {
    const dir = tempDir();
    const missing = await openCentral({
      kind: 'serial',
      path: join(dir, 'ttyNone'),
      baud: 1_000_000,
    });
    expect(missing.stateReason()).toBe(
      `no serial port ${join(dir, 'ttyNone')}: plug the dongle in, or pick a port from the list of serial ports`,
    );
    const pty = join(dir, 'ttyMute');
    const child = spawn('socat', [`pty,raw,echo=0,link=${pty}`, 'pty,raw,echo=0'], {
      stdio: 'ignore',
    });
    cleanups.push(() => void child.kill('SIGKILL'));
    await until(() => existsSync(pty), 'socat to make the pty');
    const mute = await openCentral(
      { kind: 'serial', path: pty, baud: 115_200 },
      { resetTimeoutMs: 200 },
    );
    expect(mute.stateReason()).toMatch(
      new RegExp(
        `^no HCI controller answered on ${pty} at 115200 baud within 200 ms: check the firmware`,
      ),
    );
  });

  it('skips garbage from the controller, counts it, records it in the trace and goes on', async () => {
    const dir = tempDir();
    const path = join(dir, 'noisy.sock');
    // A controller that prints a boot banner, then answers the Reset, then sends noise and an event.
    const noisy = createServer((s) => {
      s.once('data', () => {
        s.write(Buffer.from('boot\r\n'));
        s.write(Buffer.from([HCI_PACKET.event, 0x0e, 4, 1, 0x03, 0x0c, 0]));
        s.write(Buffer.from([0x00, 0xff, 0x33, HCI_PACKET.event, 0x10, 1, 0x00]));
      });
    });
    await new Promise<void>((resolve) => noisy.listen(path, resolve));
    cleanups.push(() => new Promise<void>((resolve) => noisy.close(() => resolve())));
    const trace: Record_[] = [];
    const resyncs: number[] = [];
    const central = await openCentral(
      { kind: 'unix', path },
      {
        trace: (d, p) => trace.push([d, Buffer.from(p)]),
        onResync: (skipped) => resyncs.push(skipped),
      },
    );
    cleanups.push(() => central.close());
    expect(central).not.toBeInstanceOf(NoAdapterCentral);
    await until(() => resyncs.length === 2, 'both garbage runs');
    // The banner before the Reset answer, then three bytes of noise.
    expect(resyncs).toEqual([6, 3]);
    const vendor = trace.filter(([, p]) => p[0] === HCI_PACKET.event && p[1] === 0xff);
    expect(vendor.map(([, p]) => p.subarray(3).toString('latin1'))).toEqual([
      'DeviceBench H4 resync: skipped 6 bytes: 626f6f740d0a',
      'DeviceBench H4 resync: skipped 3 bytes: 00ff33',
    ]);
  });
});
