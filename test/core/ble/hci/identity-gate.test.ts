// The station's identity settled at the tap: a scripted controller answers as a public-address
// adapter, a Zephyr dongle with a static address, or a controller with neither; the host's side
// is what noble writes at start (Read Local Version, Read BD_ADDR, then its scan parameters).
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { AdapterIdentity } from '../../../../src/core/ble/adapter-identity';
import { AdapterIdentityFile, adapterKey } from '../../../../src/core/ble/adapter-identity-store';
import {
  HCI_CMD,
  HCI_ERROR,
  HCI_VERSION,
  ZEPHYR_VS_CMD,
  commandPacket,
} from '../../../../src/core/ble/hci/codes';
import type { IdentityKeeping } from '../../../../src/core/ble/hci/identity-probe';
import type { HciDevice, HciSocket } from '../../../../src/core/ble/hci/socket';
import { HciTap } from '../../../../src/core/ble/hci/tap';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const opOf = (packet: Buffer) => packet.readUInt16LE(1);

/** A Command Complete for `op` with these return parameters (status first). */
const complete = (op: number, returnParams: Buffer) =>
  Buffer.concat([
    Buffer.of(0x04, 0x0e, 3 + returnParams.length, 1, op & 0xff, op >> 8),
    returnParams,
  ]);

/** A controller that answers each command from a table; an unknown one with Unknown Command. */
class ScriptedController extends EventEmitter implements HciSocket {
  written: Buffer[] = [];
  constructor(private readonly answers: Map<number, Buffer>) {
    super();
  }
  bindRaw = () => 0;
  bindUser = () => 0;
  bindControl() {}
  isDevUp = () => true;
  setFilter() {}
  start() {}
  stop() {}
  getDeviceList = (): HciDevice[] => [];
  write(packet: Buffer) {
    this.written.push(packet);
    const op = opOf(packet);
    const answer = this.answers.get(op) ?? Buffer.of(HCI_ERROR.unknownCommand);
    setImmediate(() => this.emit('data', complete(op, answer)));
  }
}

/** Read Local Version's return parameters: HCI version, manufacturer 0x0059 (Nordic). */
const version = (hci: number) => Buffer.of(0, hci, 1, 0, hci, 0x59, 0x00, 1, 0);
const ZERO = Buffer.alloc(6);
/** c0:1a:7d:da:71:01 as BD_ADDR octets. */
const STATIC = hex('01 71 da 7d 1a c0');

function zephyrAnswers(): Map<number, Buffer> {
  const mask = Buffer.alloc(64);
  mask[0] = 0b11;
  mask[1] = 0b1;
  return new Map([
    [HCI_CMD.readLocalVersion, version(HCI_VERSION.v5_0)],
    [HCI_CMD.readBdAddr, Buffer.concat([Buffer.of(0), ZERO])],
    [ZEPHYR_VS_CMD.readVersionInfo, Buffer.concat([Buffer.of(0), Buffer.alloc(12)])],
    [ZEPHYR_VS_CMD.readSupportedCommands, Buffer.concat([Buffer.of(0), mask])],
    [ZEPHYR_VS_CMD.readStaticAddresses, Buffer.concat([Buffer.of(0, 1), STATIC, Buffer.alloc(16)])],
    [HCI_CMD.leSetRandomAddress, Buffer.of(0)],
    [HCI_CMD.leSetScanParameters, Buffer.of(0)],
  ]);
}

/** noble's start as far as the identity goes, then its scan parameters; what noble received. */
async function start(controller: ScriptedController, keeping?: IdentityKeeping) {
  const tap = new HciTap(controller, undefined, keeping && (() => keeping));
  const received: Buffer[] = [];
  const settled: AdapterIdentity[] = [];
  tap.on('data', (packet) => received.push(packet));
  tap.on('identity', (identity) => settled.push(identity));
  tap.write(commandPacket(HCI_CMD.readLocalVersion));
  tap.write(commandPacket(HCI_CMD.readBdAddr));
  // noble sends its scan parameters when Read Local Version is answered, before Read BD_ADDR is.
  tap.write(commandPacket(HCI_CMD.leSetScanParameters, hex('01 1200 1200 00 00')));
  // Real time: keeping a generated identity writes a file.
  await vi.waitFor(
    () =>
      expect(received.some((p) => p.readUInt16LE(4) === HCI_CMD.leSetScanParameters)).toBe(true),
    { timeout: 5_000 },
  );
  return { tap, received, settled };
}

const bdAddrTold = (received: Buffer[]) =>
  received.find((p) => p.readUInt16LE(4) === HCI_CMD.readBdAddr)!.subarray(7, 13);
const sentOps = (controller: ScriptedController) => controller.written.map(opOf);

describe('the station’s identity at the tap', () => {
  it('keeps a public address as it is and changes nothing noble sends', async () => {
    const answers = zephyrAnswers();
    answers.set(HCI_CMD.readBdAddr, hex('00 01 71 da 7d 1a 00'));
    const controller = new ScriptedController(answers);
    const { tap, received, settled } = await start(controller);
    expect(settled).toEqual([{ address: '00:1a:7d:da:71:01', type: 'public', source: 'public' }]);
    expect(tap.identity).toEqual(settled[0]);
    expect(sentOps(controller)).toEqual([
      HCI_CMD.readLocalVersion,
      HCI_CMD.readBdAddr,
      HCI_CMD.leSetScanParameters,
    ]);
    expect(controller.written.at(-1)![9]).toBe(0x00);
    expect(bdAddrTold(received)).toEqual(hex('01 71 da 7d 1a 00'));
  });

  it('asks a Zephyr controller without a public address for its static one, sets it, and scans with it', async () => {
    const controller = new ScriptedController(zephyrAnswers());
    const { received, settled } = await start(controller);
    expect(settled).toEqual([
      { address: 'c0:1a:7d:da:71:01', type: 'random', source: 'controllerStatic' },
    ]);
    expect(sentOps(controller)).toEqual([
      HCI_CMD.readLocalVersion,
      HCI_CMD.readBdAddr,
      ZEPHYR_VS_CMD.readVersionInfo,
      ZEPHYR_VS_CMD.readSupportedCommands,
      ZEPHYR_VS_CMD.readStaticAddresses,
      HCI_CMD.leSetRandomAddress,
      HCI_CMD.leSetScanParameters,
    ]);
    expect(controller.written[5]!.subarray(4)).toEqual(STATIC);
    // Own_Address_Type random in the scan parameters noble wrote with public.
    expect(controller.written[6]![9]).toBe(0x01);
    // noble hears its own commands answered, and the identity as the controller's address.
    expect(received.map((p) => p.readUInt16LE(4))).toEqual([
      HCI_CMD.readLocalVersion,
      HCI_CMD.readBdAddr,
      HCI_CMD.leSetScanParameters,
    ]);
    expect(bdAddrTold(received)).toEqual(STATIC);
  });

  it('generates a static address where the controller has none, keeps it, and finds it again on reopening', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'identity-'));
    const answers = zephyrAnswers();
    answers.delete(ZEPHYR_VS_CMD.readVersionInfo);
    const key = adapterKey('serial:/dev/ttyACM0', 0x0059);
    const first = await start(new ScriptedController(answers), {
      key,
      keeper: await AdapterIdentityFile.open(dir),
    });
    const identity = first.settled[0]!;
    expect(identity).toMatchObject({ type: 'random', source: 'generatedKept' });
    expect(identity.address).toMatch(/^[c-f][0-9a-f]:/);
    const kept = JSON.parse(readFileSync(join(dir, 'adapter-identities.json'), 'utf8'));
    expect(kept.adapters[key].address).toBe(identity.address);

    const controller = new ScriptedController(answers);
    const again = await start(controller, { key, keeper: await AdapterIdentityFile.open(dir) });
    expect(again.settled).toEqual([identity]);
    const set = controller.written.find((p) => opOf(p) === HCI_CMD.leSetRandomAddress)!;
    expect(Buffer.from(set.subarray(4)).reverse().toString('hex')).toBe(
      identity.address.replace(/:/g, ''),
    );
    // Another adapter gets an identity of its own.
    const other = await start(new ScriptedController(answers), {
      key: adapterKey('serial:/dev/ttyACM1', 0x0059),
      keeper: await AdapterIdentityFile.open(dir),
    });
    expect(other.settled[0]!.address).not.toBe(identity.address);
  });

  it('asks no vendor command of a controller older than HCI 5.0, as Zephyr’s host does, and says an unkept identity is this session’s', async () => {
    const answers = zephyrAnswers();
    answers.set(HCI_CMD.readLocalVersion, version(0x08));
    const controller = new ScriptedController(answers);
    const { settled } = await start(controller);
    expect(settled[0]).toMatchObject({ type: 'random', source: 'generatedSession' });
    expect(sentOps(controller)).toEqual([
      HCI_CMD.readLocalVersion,
      HCI_CMD.readBdAddr,
      HCI_CMD.leSetRandomAddress,
      HCI_CMD.leSetScanParameters,
    ]);
  });

  it('settles again after a reset (a new Read BD_ADDR), and connects with the random address', async () => {
    const controller = new ScriptedController(zephyrAnswers());
    const { tap, settled } = await start(controller);
    controller.written.length = 0;
    tap.write(commandPacket(HCI_CMD.readBdAddr));
    const connect = commandPacket(HCI_CMD.leCreateConnection, Buffer.alloc(25));
    tap.write(connect);
    await vi.waitFor(() => expect(settled).toHaveLength(2));
    await vi.waitFor(() =>
      expect(opOf(controller.written.at(-1)!)).toBe(HCI_CMD.leCreateConnection),
    );
    expect(settled).toHaveLength(2);
    expect(sentOps(controller).at(-2)).toBe(HCI_CMD.leSetRandomAddress);
    expect(controller.written.at(-1)![4 + 12]).toBe(0x01);
  });

  it('lets noble’s commands go when the controller never answers Read BD_ADDR (an answer lost on the line)', async () => {
    const answers = zephyrAnswers();
    const controller = new ScriptedController(answers);
    const silent = controller.write.bind(controller);
    controller.write = (packet: Buffer) => {
      if (opOf(packet) === HCI_CMD.readBdAddr) controller.written.push(packet);
      else silent(packet);
    };
    const { tap } = await start(controller);
    expect(tap.identity).toBeUndefined();
    expect(controller.written.at(-1)![9]).toBe(0x00);
  });
});
