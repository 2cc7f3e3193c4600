// Real Zephyr firmware as a board in a test: one of the Zephyr 3.4.99 `native_posix_64`
// executables of ../shared/zephyr-peer (its README says what each is and how they are built),
// on its own btvirt LE controller through the link-layer relay, with its own flash file and its
// console kept (the passkey it displays, "Pairing complete … bonded 1"). A central reaches it
// through the same btvirt: `unix:<leSocket>` (docs/decisions/simulated-bench.md).
//
// Where the executables are: the folder `DEVICEBENCH_ZEPHYR_PEERS` names, else
// `../shared/zephyr-peer/bin` beside the repository (CI clones it beside a copy of shared/);
// the example firmware is the repository's own build of it where that is committed
// (resources/firmware/devicebench-zephyr-mcumgr/README.md, "A Linux build").
// Where they, btvirt or its tools are missing, the tests skip and their title says why.
import { spawn, type ChildProcess } from 'node:child_process';
import {
  accessSync,
  appendFileSync,
  constants,
  existsSync,
  mkdtempSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { btvirtMissing, startBtvirt, type Btvirt } from '../btvirt/btvirt';
import { buildImage } from '../../core/ble/mcumgr/image-builder';
import { readMcubootImage } from '../../../src/core/ble/mcumgr/image-file';
import { startLinkLayerRelay, type LinkLayerRelay } from './ll-relay';

const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

/** The peers of ../shared/zephyr-peer/bin, by the name run-peer.sh gives them. */
export type ZephyrPeerName = 'smp' | 'peripheral' | 'devicebench-fw';

/**
 * What each peer prints once it is on air: smp_svr and the peripheral sample say so; the
 * example firmware says whether it booted provisioned, then advertises.
 */
const READY: Record<ZephyrPeerName, RegExp> = {
  smp: /Advertising successfully started/,
  peripheral: /Advertising successfully started/,
  'devicebench-fw': /provisioned/,
};

const START_TIMEOUT_MS = 15_000;

/** The example firmware as this checkout builds it, the one its tests provision. */
const OWN_FIRMWARE = join(
  ROOT,
  'resources/firmware/devicebench-zephyr-mcumgr/native_posix/devicebench-fw.exe',
);

/** The folder the peers are taken from. */
function zephyrPeersDir(): string {
  return resolve(
    process.env.DEVICEBENCH_ZEPHYR_PEERS ?? join(ROOT, '..', 'shared', 'zephyr-peer', 'bin'),
  );
}

function executable(name: ZephyrPeerName): string {
  if (name === 'devicebench-fw' && existsSync(OWN_FIRMWARE)) return OWN_FIRMWARE;
  return join(zephyrPeersDir(), `${name}.exe`);
}

/**
 * Why this peer cannot run here, or undefined when it can: btvirt's own needs first, then the
 * executable. Said on the console, as btvirtMissing does, and put in the skipped title.
 */
export function zephyrPeerMissing(name: ZephyrPeerName): string | undefined {
  const btvirt = btvirtMissing();
  if (btvirt) return btvirt;
  const exe = executable(name);
  try {
    accessSync(exe, constants.X_OK);
  } catch {
    const reason = `no Zephyr peer ${exe} (set DEVICEBENCH_ZEPHYR_PEERS to the folder of the zephyr-peer executables)`;
    console.warn(`Zephyr peer tests skipped: ${reason}`);
    return reason;
  }
  return undefined;
}

/** A describe title that says why it was skipped, when it is. */
export function zephyrTitled(title: string, missing: string | undefined): string {
  return missing ? `${title} (skipped: ${missing})` : title;
}

/** The image smp_svr lists in slot 0: what `mcuboot-image.js flash FILE 1.0.0+0` writes. */
export const SLOT0 = readMcubootImage(
  buildImage({
    version: [1, 0, 0, 0],
    payload: Uint8Array.from({ length: 4096 }, (_, i) => (i * 31 + 7) & 0xff),
  }),
);
/** The flash simulator's size and the slot-0 partition's offset on native_posix_64. */
const FLASH_SIZE = 2048 * 1024;
const SLOT0_OFFSET = 0xc000;

/** An erased flash file with SLOT0 in slot 0, as a board fresh from the factory. */
function writeSlot0Flash(file: string): void {
  const flash = Buffer.alloc(FLASH_SIZE, 0xff);
  flash.set(SLOT0.bytes, SLOT0_OFFSET);
  writeFileSync(file, flash);
}

export interface ZephyrPeerOptions {
  /** Extra command-line arguments: `--passkey=N`, `--random-passkey`, `--addr=…` (smp). */
  args?: string[];
  /** A btvirt to join (a test with several peers); without it the peer starts and stops its own. */
  btvirt?: Btvirt;
}

export interface ZephyrPeer {
  readonly name: ZephyrPeerName;
  /** The btvirt socket a central opens: each connection is a new LE controller. */
  readonly leSocket: string;
  /** The adapter spec a central uses (`--adapter` of the CLI). */
  readonly adapter: string;
  /** The peer's simulated flash: bonds, settings, image slots. */
  readonly flash: string;
  /** The Zephyr console so far, every boot's (also in `peer.log` beside the flash file). */
  log(): string;
  /** Where the console stands now: `waitFor` from here sees only what comes after. */
  mark(): number;
  /** The first match of `pattern` in the console from `from` on, waiting up to `timeoutMs`. */
  waitFor(
    pattern: RegExp,
    options?: { from?: number; timeoutMs?: number },
  ): Promise<RegExpMatchArray>;
  /** The passkey the peer displayed last (`Passkey for …: NNNNNN`), if it did. */
  passkey(): number | undefined;
  /** How many times it has booted (an MCUmgr reset exits; it boots again on the same flash). */
  boots(): number;
  /** Waits until it has booted `count` times and is on air again. */
  booted(count: number, timeoutMs?: number): Promise<void>;
  /** Kills it and starts it again on the same flash, as a power cycle. */
  powerCycle(): Promise<void>;
  /** Stops the peer, the relay and (if it started it) btvirt; removes its state. */
  stop(): Promise<void>;
}

/** Starts a Zephyr peer on a fresh flash file; resolves once it advertises. */
export async function startZephyrPeer(
  name: ZephyrPeerName,
  options: ZephyrPeerOptions = {},
): Promise<ZephyrPeer> {
  const exe = executable(name);
  const stateDir = mkdtempSync(join(tmpdir(), `devicebench-zephyr-${name}-`));
  const flash = join(stateDir, 'flash.bin');
  const logFile = join(stateDir, 'peer.log');
  if (name === 'smp') writeSlot0Flash(flash);
  const btvirt = options.btvirt ?? (await startBtvirt());
  const relay: LinkLayerRelay = await startLinkLayerRelay(btvirt.leSocket);
  let console_ = '';
  let boots = 0;
  let stopping = false;
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  const waiters = new Set<() => void>();
  const heard = (chunk: Buffer) => {
    const text = chunk.toString();
    console_ += text;
    appendFileSync(logFile, text);
    for (const wake of waiters) wake();
  };
  // A native_posix board's reset (sys_reboot) ends its process: it boots again on the same
  // flash, as run-peer.sh's loop does, until the test stops it.
  const boot = () => {
    boots += 1;
    // Into a pipe, C's stdout is block-buffered: a printk'd passkey would wait in the buffer.
    // stdbuf execs the peer line-buffered (the child's PID is the peer's).
    const started = spawn(
      'stdbuf',
      [
        '-oL',
        '-eL',
        exe,
        `--bt-dev=127.0.0.1:${relay.port}`,
        `-flash=${flash}`,
        ...(options.args ?? []),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    started.stdout?.on('data', heard);
    started.stderr?.on('data', heard);
    child = started;
    exited = new Promise((done) =>
      started.once('exit', (code, signal) => {
        heard(Buffer.from(`=== exited (${code ?? signal})\n`));
        if (!stopping) setTimeout(() => !stopping && boot(), 200);
        done();
      }),
    );
  };
  const waitFor = (pattern: RegExp, { from = 0, timeoutMs = 10_000 } = {}) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const check = () => {
        const match = console_.slice(from).match(pattern);
        if (!match) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve(match);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`the Zephyr ${name} peer never printed ${pattern}:\n${console_}`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  const readyCount = () => console_.split(READY[name]).length - 1;
  const booted = async (count: number, timeoutMs = START_TIMEOUT_MS) => {
    const deadline = Date.now() + timeoutMs;
    while (readyCount() < count) {
      if (Date.now() > deadline)
        throw new Error(`the Zephyr ${name} peer did not come up (boot ${count}):\n${console_}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const kill = async () => {
    // native_posix ignores SIGTERM.
    child?.kill('SIGKILL');
    await exited;
  };
  // A test process that ends without stop() (a hook that timed out) takes its peer with it.
  const orphaned = () => child?.kill('SIGKILL');
  process.once('exit', orphaned);
  const stop = async () => {
    process.off('exit', orphaned);
    stopping = true;
    await kill();
    await relay.close();
    if (!options.btvirt) await btvirt.stop();
    rmSync(stateDir, { recursive: true, force: true });
  };
  boot();
  try {
    await booted(1);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    name,
    leSocket: btvirt.leSocket,
    adapter: `unix:${btvirt.leSocket}`,
    flash,
    log: () => console_,
    mark: () => console_.length,
    waitFor,
    passkey: () => {
      const all = [...console_.matchAll(/^Passkey for .*: (\d{6})$/gm)];
      const last = all.at(-1);
      return last ? Number(last[1]) : undefined;
    },
    boots: () => boots,
    booted,
    powerCycle: async () => {
      const count = readyCount();
      stopping = true;
      await kill();
      stopping = false;
      boot();
      await booted(count + 1);
    },
    stop,
  };
}
