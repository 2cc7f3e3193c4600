// The differential suite, MCUmgr's OS and image groups: one table of requests goes to Zephyr's
// smp_svr (Zephyr 3.4.99, SC-only passkey pairing, ../shared/zephyr-peer) and to its simulated
// twin; each answer's codes, fields and shape must agree, in both header versions (SMP v1's
// `rc`, v2's `err: {group, rc}`). Where they did not, the simulated board changed
// (docs/decisions/simulated-bench.md).
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildImage } from '../mcumgr/image-builder';
import { readMcubootImage } from '../../../../src/core/ble/mcumgr/image-file';
import { MCUMGR_COMMAND, MCUMGR_GROUP } from '../../../../src/core/ble/mcumgr/groups';
import type { McumgrBody, McumgrVersion } from '../../../../src/core/ble/mcumgr/frame';
import { MCUMGR_SERVICE_UUID } from '../../../../src/core/ble/mcumgr/service';
import type { BoardSpecInput } from '../../../../src/core/ble/sim/board-schema';
import type { HciCentralOptions } from '../../../../src/core/ble/radio/hci-central';
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

const missing = zephyrPeerMissing('smp');
const NAME = 'zephyr-smp-peer';
const PASSKEY = 123456;

/** smp_svr as ../shared/zephyr-peer builds it, as a simulated board file would say it. */
const TWIN: BoardSpecInput = {
  name: NAME,
  address: 'c0:de:c0:de:00:01',
  advertising: { serviceUuids: [MCUMGR_SERVICE_UUID], intervalMs: 20 },
  latency: { connectMs: 10, perOperationMs: 1 },
  mcumgr: { version: '1.0.0', resetMs: 100 },
  security: {
    mode: 'sc-only',
    ioCapability: 'displayOnly',
    passkey: PASSKEY,
    bonding: { maxBonds: 4, allowUnauthOverwrite: false },
  },
};

/** The station types the passkey the board shows, given up front as CI gives it. */
const STATION: HciCentralOptions = {
  security: {
    options: { io: 'keyboardOnly', bond: true, mitm: true, sc: true },
    user: {
      displayPasskey: () => undefined,
      enterPasskey: async () => PASSKEY,
      confirmNumber: async () => false,
    },
  },
};

const IMAGE = readMcubootImage(
  buildImage({
    version: [2, 0, 0, 0],
    payload: Uint8Array.from({ length: 3000 }, (_, i) => i * 7),
  }),
);

const { os, image } = MCUMGR_COMMAND;
/** What the core's upload sends first: the file's SHA-256, for a resume. */
const SHA = createHash('sha256').update(IMAGE.bytes).digest();

interface Context {
  /** The hash of the image the board runs (each board has its own). */
  running: Uint8Array;
}

interface Exchange {
  what: string;
  version: McumgrVersion;
  op: 'read' | 'write';
  group: number;
  command: number;
  body?: (ctx: Context) => McumgrBody;
}

const v1 = 0 as const;
const v2 = 1 as const;
const chunk = (off: number, n: number, first: McumgrBody = {}) => ({
  ...first,
  off,
  data: IMAGE.bytes.subarray(off, off + n),
});

/** In order: each row sees what the rows before it left on the board. */
const EXCHANGES: Exchange[] = [
  { what: 'OS parameters', version: v2, op: 'read', group: MCUMGR_GROUP.os, command: os.params },
  {
    what: 'echo',
    version: v2,
    op: 'write',
    group: MCUMGR_GROUP.os,
    command: os.echo,
    body: () => ({ d: 'bench' }),
  },
  { what: 'image list', version: v2, op: 'read', group: MCUMGR_GROUP.image, command: image.state },
  {
    what: 'image list (v1)',
    version: v1,
    op: 'read',
    group: MCUMGR_GROUP.image,
    command: image.state,
  },
  ...([v1, v2] as const).flatMap((version): Exchange[] => [
    {
      what: `test an unknown hash (v${version + 1})`,
      version,
      op: 'write',
      group: MCUMGR_GROUP.image,
      command: image.state,
      body: () => ({ hash: new Uint8Array(32).fill(0xab), confirm: false }),
    },
    {
      what: `test the running image (v${version + 1})`,
      version,
      op: 'write',
      group: MCUMGR_GROUP.image,
      command: image.state,
      body: (c) => ({ hash: c.running, confirm: false }),
    },
    {
      what: `test without a hash (v${version + 1})`,
      version,
      op: 'write',
      group: MCUMGR_GROUP.image,
      command: image.state,
      body: () => ({ confirm: false }),
    },
    {
      what: `upload: not an image (v${version + 1})`,
      version,
      op: 'write',
      group: MCUMGR_GROUP.image,
      command: image.upload,
      body: () => ({ image: 0, len: 64, off: 0, data: new Uint8Array(64) }),
    },
    {
      what: `upload: larger than the slot (v${version + 1})`,
      version,
      op: 'write',
      group: MCUMGR_GROUP.image,
      command: image.upload,
      body: () => ({ image: 0, len: 8 * 1024 * 1024, off: 0, data: IMAGE.bytes.subarray(0, 64) }),
    },
    {
      what: `upload: a chunk with no upload begun (v${version + 1})`,
      version,
      op: 'write',
      group: MCUMGR_GROUP.image,
      command: image.upload,
      body: () => chunk(512, 64),
    },
  ]),
  {
    what: 'confirm the running image',
    version: v2,
    op: 'write',
    group: MCUMGR_GROUP.image,
    command: image.state,
    body: () => ({ confirm: true }),
  },
  {
    what: 'erase the empty slot',
    version: v2,
    op: 'write',
    group: MCUMGR_GROUP.image,
    command: image.erase,
    body: () => ({}),
  },
  {
    what: 'upload: first chunk',
    version: v2,
    op: 'write',
    group: MCUMGR_GROUP.image,
    command: image.upload,
    body: () => chunk(0, 1024, { image: 0, len: IMAGE.bytes.length, sha: SHA }),
  },
  {
    what: 'upload: a chunk at the wrong offset',
    version: v2,
    op: 'write',
    group: MCUMGR_GROUP.image,
    command: image.upload,
    body: () => chunk(2048, 512),
  },
  {
    what: 'upload: second chunk',
    version: v2,
    op: 'write',
    group: MCUMGR_GROUP.image,
    command: image.upload,
    body: () => chunk(1024, 1024),
  },
  {
    what: 'upload: last chunk',
    version: v2,
    op: 'write',
    group: MCUMGR_GROUP.image,
    command: image.upload,
    body: () => chunk(2048, IMAGE.bytes.length - 2048),
  },
  {
    what: 'image list after the upload',
    version: v2,
    op: 'read',
    group: MCUMGR_GROUP.image,
    command: image.state,
  },
  {
    what: 'test the uploaded image',
    version: v2,
    op: 'write',
    group: MCUMGR_GROUP.image,
    command: image.state,
    body: () => ({ hash: IMAGE.hash, confirm: false }),
  },
  {
    what: 'test the image on test again',
    version: v2,
    op: 'write',
    group: MCUMGR_GROUP.image,
    command: image.state,
    body: () => ({ hash: IMAGE.hash, confirm: false }),
  },
  {
    what: 'confirm the running image while another is on test',
    version: v2,
    op: 'write',
    group: MCUMGR_GROUP.image,
    command: image.state,
    body: () => ({ confirm: true }),
  },
  {
    what: 'upload: a chunk without an offset',
    version: v2,
    op: 'write',
    group: MCUMGR_GROUP.image,
    command: image.upload,
    body: () => ({ data: IMAGE.bytes.subarray(0, 64) }),
  },
  {
    what: 'upload while an image is pending (v1)',
    version: v1,
    op: 'write',
    group: MCUMGR_GROUP.image,
    command: image.upload,
    body: () => chunk(0, 512, { image: 0, len: IMAGE.bytes.length }),
  },
  {
    what: 'upload while an image is pending (v2)',
    version: v2,
    op: 'write',
    group: MCUMGR_GROUP.image,
    command: image.upload,
    body: () => chunk(0, 512, { image: 0, len: IMAGE.bytes.length }),
  },
  {
    what: 'erase while an image is pending (v1)',
    version: v1,
    op: 'write',
    group: MCUMGR_GROUP.image,
    command: image.erase,
    body: () => ({}),
  },
  {
    what: 'erase while an image is pending (v2)',
    version: v2,
    op: 'write',
    group: MCUMGR_GROUP.image,
    command: image.erase,
    body: () => ({}),
  },
  {
    what: 'confirm the uploaded image',
    version: v2,
    op: 'write',
    group: MCUMGR_GROUP.image,
    command: image.state,
    body: () => ({ hash: IMAGE.hash, confirm: true }),
  },
  { what: 'an unknown command', version: v2, op: 'read', group: MCUMGR_GROUP.image, command: 9 },
  { what: 'an unknown group', version: v2, op: 'read', group: 77, command: 0 },
];

describe.skipIf(missing !== undefined)(
  zephyrTitled(
    "the simulated board answers MCUmgr's OS and image groups as Zephyr's smp_svr",
    missing,
  ),
  { timeout: 60_000 },
  () => {
    let peer: ZephyrPeer;
    const sides: { side: Side; session: McumgrSession; ctx: Context }[] = [];

    beforeAll(async () => {
      peer = await startZephyrPeer('smp', { args: [`--passkey=${PASSKEY}`] });
      for (const side of [simSide(TWIN, STATION), await zephyrSide(peer, NAME, STATION)]) {
        const session = new McumgrSession(side);
        const list = await (
          await session.open(v2)
        ).request({ op: 'read', group: MCUMGR_GROUP.image, command: image.state });
        const running = (list.images as { hash: Uint8Array }[])[0]!.hash;
        sides.push({ side, session, ctx: { running } });
      }
    }, 45_000);

    afterAll(async () => {
      // The peer first: its links drop with it, so no central waits on one.
      await peer?.stop();
      for (const { side, session } of sides) {
        await session.close();
        await side.close();
      }
    }, 30_000);

    it.each(EXCHANGES.map((e) => [e.what, e] as const))('%s', async (_, exchange) => {
      const answers: Record<string, Outcome> = {};
      for (const { side, session, ctx } of sides) {
        const client = await session.open(exchange.version);
        answers[side.name] = await outcome(
          client.request({
            op: exchange.op,
            group: exchange.group,
            command: exchange.command,
            body: exchange.body?.(ctx),
          }),
        );
      }
      expect(answers.sim).toEqual(answers.zephyr);
    });
  },
);
