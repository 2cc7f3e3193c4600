// The differential suite, MCUmgr's settings group: one table of requests goes to DeviceBench's
// example firmware built for Zephyr 3.4.99 (its settings handler behind Zephyr's settings_mgmt,
// on btvirt) and to the simulated board file that stands for it (resources/sim/zephyr-mcumgr.json);
// codes, fields and shapes must agree in both header versions, through a save and a reset
// (docs/decisions/simulated-bench.md).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCUMGR_COMMAND, MCUMGR_GROUP } from '../../../../src/core/ble/mcumgr/groups';
import type { McumgrBody, McumgrVersion } from '../../../../src/core/ble/mcumgr/frame';
import type { BoardSpecInput } from '../../../../src/core/ble/sim/board-schema';
import {
  startZephyrPeer,
  zephyrPeerMissing,
  zephyrTitled,
  type ZephyrPeer,
} from '../../../helpers/zephyr/zephyr-peer';
import {
  McumgrSession,
  outcome,
  simSide,
  zephyrSide,
  type Outcome,
  type Side,
} from './differential';

const missing = zephyrPeerMissing('devicebench-fw');

/** The board file the simulated bench ships for this firmware. */
const BOARD = (
  JSON.parse(
    readFileSync(new URL('../../../../resources/sim/zephyr-mcumgr.json', import.meta.url), 'utf8'),
  ) as { boards: BoardSpecInput[] }
).boards[0]!;
/** The firmware's CONFIG_BT_DEVICE_NAME. */
const FIRMWARE_NAME = 'DB Zephyr';

const { settings, os } = MCUMGR_COMMAND;
const group = MCUMGR_GROUP.settings;
const v1 = 0 as const;
const v2 = 1 as const;
const PSDI = 'ZS-0047';

interface Exchange {
  what: string;
  version: McumgrVersion;
  op: 'read' | 'write';
  group?: number;
  command: number;
  body?: McumgrBody;
  /** The board resets after answering. */
  resets?: boolean;
}

const both = (what: string, row: Omit<Exchange, 'what' | 'version'>): Exchange[] => [
  { what: `${what} (v1)`, version: v1, ...row },
  { what: `${what} (v2)`, version: v2, ...row },
];
const read = (name: string) => ({
  op: 'read' as const,
  command: settings.readWrite,
  body: { name },
});
const write = (name: string, val: string) => ({
  op: 'write' as const,
  command: settings.readWrite,
  body: { name, val: Buffer.from(val) },
});

/** In order: each row sees what the rows before it left on the board. */
const EXCHANGES: Exchange[] = [
  ...both('read a key the firmware has, unset', read('devicebench/psdi')),
  ...both('read a key its handler does not know', read('devicebench/nothing')),
  ...both('read a key of a subtree with no handler', read('nothing/at_all')),
  ...both('read a key of 32 characters', read(`devicebench/${'k'.repeat(20)}`)),
  ...both('read without a name', { op: 'read', command: settings.readWrite, body: {} }),
  ...both('write a key of a subtree with no handler', write('nothing/at_all', 'x')),
  { what: 'write the PSDI', version: v2, ...write('devicebench/psdi', PSDI) },
  { what: 'read it back', version: v2, ...read('devicebench/psdi') },
  { what: 'commit', version: v2, op: 'write', command: settings.commit },
  { what: 'save', version: v2, op: 'write', command: settings.loadSave },
  { what: 'load', version: v2, op: 'read', command: settings.loadSave },
  {
    what: 'reset',
    version: v2,
    op: 'write',
    group: MCUMGR_GROUP.os,
    command: os.reset,
    resets: true,
  },
  { what: 'read the saved PSDI after the reset', version: v2, ...read('devicebench/psdi') },
];

describe.skipIf(missing !== undefined)(
  zephyrTitled(
    "the simulated board answers MCUmgr's settings group as the example firmware on Zephyr",
    missing,
  ),
  { timeout: 60_000 },
  () => {
    let peer: ZephyrPeer;
    const sessions: McumgrSession[] = [];
    const answered: Record<string, Record<string, unknown>> = {};

    beforeAll(async () => {
      peer = await startZephyrPeer('devicebench-fw');
      const sides: Side[] = [simSide(BOARD), await zephyrSide(peer, FIRMWARE_NAME)];
      sessions.push(...sides.map((side) => new McumgrSession(side)));
    }, 45_000);

    afterAll(async () => {
      // The peer first: its links drop with it, so no central waits on one.
      await peer?.stop();
      for (const session of sessions) {
        await session.close();
        await session.side.close();
      }
    }, 30_000);

    it.each(EXCHANGES.map((e) => [e.what, e] as const))('%s', async (_, exchange) => {
      const answers: Record<string, Outcome> = {};
      for (const session of sessions) {
        const client = await session.open(exchange.version);
        answers[session.side.name] = await outcome(
          client.request({
            op: exchange.op,
            group: exchange.group ?? group,
            command: exchange.command,
            body: exchange.body,
          }),
        );
        if (exchange.resets) {
          session.dropped();
          await session.side.rebooted();
        }
      }
      answered[exchange.what] = answers;
      expect(answers.sim).toEqual(answers.zephyr);
    });

    it('both boards booted with the PSDI written: the value read after the reset', () => {
      expect(answered['read the saved PSDI after the reset']?.zephyr).toEqual({
        ok: { val: `<${PSDI.length} bytes>` },
      });
    });
  },
);
