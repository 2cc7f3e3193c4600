// The MCUmgr client over a connection double that stands where the board would: it sees the
// client's writes as the board's GATT server would and sends notifications back.
import { describe, expect, it } from 'vitest';
import { McumgrClient, McumgrError } from '../../../../src/core/ble/mcumgr/client';
import {
  MCUMGR_CHARACTERISTIC_UUID,
  MCUMGR_SERVICE_UUID,
} from '../../../../src/core/ble/mcumgr/service';
import {
  MCUMGR_OP,
  McumgrReassembler,
  decodeFrame,
  encodeFrame,
  type McumgrBody,
  type McumgrFrame,
} from '../../../../src/core/ble/mcumgr/frame';
import { BleError, type BleConnection } from '../../../../src/core/ble/port';
import { uploadImage } from '../../../../src/core/ble/mcumgr/image-group';
import { readMcubootImage } from '../../../../src/core/ble/mcumgr/image-file';
import { buildImage } from './image-builder';

class BoardEnd implements BleConnection {
  readonly id = 'board';
  readonly writesConfirmed = true;
  readonly writes: { data: Uint8Array; withoutResponse: boolean }[] = [];
  private readonly joiner = new McumgrReassembler();
  private onValue: ((data: Uint8Array) => void) | undefined;
  private disconnectHandlers: ((reason: string) => void)[] = [];
  /** What the board does with each whole request. */
  answer: (request: McumgrFrame, send: (bytes: Uint8Array) => void) => void = () => {};

  constructor(readonly mtu: number) {}

  discover: BleConnection['discover'] = () => Promise.resolve([]);
  read = () => Promise.resolve(new Uint8Array());
  disconnect = () => Promise.resolve();

  async write(
    _s: string,
    characteristic: string,
    data: Uint8Array,
    o?: { withoutResponse?: boolean },
  ) {
    expect(characteristic).toBe(MCUMGR_CHARACTERISTIC_UUID);
    this.writes.push({ data: data.slice(), withoutResponse: o?.withoutResponse === true });
    for (const frame of this.joiner.push(data))
      this.answer(decodeFrame(frame), (bytes) => queueMicrotask(() => this.notify(bytes)));
  }

  async subscribe(_s: string, characteristic: string, onValue: (data: Uint8Array) => void) {
    if (characteristic !== MCUMGR_CHARACTERISTIC_UUID) throw new Error('no such characteristic');
    this.onValue = onValue;
    return async () => {
      this.onValue = undefined;
    };
  }

  /** A notification from the board. */
  notify(data: Uint8Array) {
    this.onValue?.(data);
  }

  onDisconnect(handler: (reason: string) => void) {
    this.disconnectHandlers.push(handler);
    return () => {
      this.disconnectHandlers = this.disconnectHandlers.filter((h) => h !== handler);
    };
  }

  drop(reason: string) {
    for (const handler of this.disconnectHandlers) handler(reason);
  }
}

/** The board's answer to `request`, cut into notifications of `mtu - 3`. */
function reply(request: McumgrFrame, body: McumgrBody, mtu: number, send: (b: Uint8Array) => void) {
  const { header } = request;
  const frame = encodeFrame({ ...header, op: (header.op + 1) as 1 | 3 }, body);
  for (let at = 0; at < frame.length; at += mtu - 3) send(frame.subarray(at, at + mtu - 3));
}

describe('MCUmgr client', () => {
  it('cuts a long request to MTU − 3 Write Without Response, and joins a long answer', async () => {
    const board = new BoardEnd(23);
    board.answer = (request, send) =>
      reply(request, { r: `${String(request.body.d)}!`, big: new Uint8Array(100) }, 23, send);
    const client = await McumgrClient.open(board);
    const text = 'x'.repeat(60);
    const answer = await client.request({ op: 'write', group: 0, command: 0, body: { d: text } });
    expect(answer.r).toBe(`${text}!`);
    expect(board.writes.length).toBeGreaterThan(3);
    expect(board.writes.every((w) => w.withoutResponse && w.data.length <= 20)).toBe(true);
  });

  it('keeps up to its window of requests in flight, and matches answers by sequence number', async () => {
    const board = new BoardEnd(247);
    const held: McumgrFrame[] = [];
    board.answer = (request) => held.push(request);
    const client = await McumgrClient.open(board);
    client.setWindow(3);
    const answers = [1, 2, 3, 4, 5].map((n) =>
      client.request({ op: 'write', group: 0, command: 0, body: { d: String(n) } }),
    );
    await new Promise((resolve) => setTimeout(resolve, 0));
    // Three out, the other two wait for a place.
    expect(held.map((f) => f.body.d)).toEqual(['1', '2', '3']);
    const answerTo = (frame: McumgrFrame) =>
      reply(frame, { r: frame.body.d }, 247, (b) => queueMicrotask(() => board.notify(b)));
    // Answered out of order, each still reaches its own request.
    answerTo(held[1]!);
    answerTo(held[0]!);
    expect(await answers[1]).toEqual({ r: '2' });
    expect(await answers[0]).toEqual({ r: '1' });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(held.map((f) => f.body.d)).toEqual(['1', '2', '3', '4', '5']);
    for (const frame of held.slice(2)) answerTo(frame);
    expect(await Promise.all(answers.slice(2))).toEqual([{ r: '3' }, { r: '4' }, { r: '5' }]);
  });

  it('uploads with a window: a chunk the board did not take voids those sent after it, and the upload goes on from the board’s offset', async () => {
    const image = readMcubootImage(
      buildImage({ version: [1, 0, 0, 0], payload: new Uint8Array(3000).map((_, i) => i * 5) }),
    );
    const board = new BoardEnd(247);
    const stored = new Uint8Array(image.bytes.length);
    let offset = 0;
    let chunks = 0;
    const offsets: number[] = [];
    board.answer = (request, send) => {
      const { off, data } = request.body as { off: number; data: Uint8Array };
      offsets.push(off);
      chunks++;
      // The third chunk is lost (a buffer the board did not have): it stays where it was.
      if (off === offset && chunks !== 3) {
        stored.set(data, off);
        offset += data.length;
      }
      reply(request, { off: offset }, 247, send);
    };
    const client = await McumgrClient.open(board);
    client.setWindow(3);
    const result = await uploadImage(client, image, { bufferSize: 512 });
    expect(Buffer.from(stored).equals(Buffer.from(image.bytes))).toBe(true);
    // The chunk after the lost one went to the wrong place; the next ones start at the board's offset.
    const lost = offsets[2]!;
    expect(offsets.slice(3).filter((o) => o === lost)).toHaveLength(1);
    expect(result.sent).toBeGreaterThan(image.bytes.length);
  });

  it('gives up a chunk the board dropped as soon as a later one is answered, without its timeout', async () => {
    const image = readMcubootImage(
      buildImage({ version: [1, 0, 0, 0], payload: new Uint8Array(3000).map((_, i) => i * 5) }),
    );
    const board = new BoardEnd(247);
    const stored = new Uint8Array(image.bytes.length);
    let offset = 0;
    let chunks = 0;
    board.answer = (request, send) => {
      const { off, data } = request.body as { off: number; data: Uint8Array };
      // The third request finds no buffer: no answer at all, as Zephyr drops the write.
      if (++chunks === 3) return;
      if (off === offset) {
        stored.set(data, off);
        offset += data.length;
      }
      reply(request, { off: offset }, 247, send);
    };
    // Waiting out the dropped one would take 60 s: the test's own limit ends it first.
    const client = await McumgrClient.open(board, { timeoutMs: 60_000 });
    client.setWindow(3);
    await uploadImage(client, image, { bufferSize: 512 });
    expect(Buffer.from(stored).equals(Buffer.from(image.bytes))).toBe(true);
  });

  it('numbers requests in sequence and sends version 2 by default', async () => {
    const board = new BoardEnd(247);
    const seen: McumgrFrame[] = [];
    board.answer = (request, send) => {
      seen.push(request);
      reply(request, {}, 247, send);
    };
    const client = await McumgrClient.open(board);
    await client.request({ op: 'read', group: 1, command: 0 });
    await client.request({ op: 'read', group: 1, command: 0 });
    expect(seen.map((f) => f.header.sequence)).toEqual([0, 1]);
    expect(seen[0]!.header).toMatchObject({ version: 1, op: MCUMGR_OP.read, group: 1 });
  });

  it('turns a version 2 group error and a version 1 rc into words', async () => {
    const board = new BoardEnd(247);
    const client = await McumgrClient.open(board);
    board.answer = (request, send) => reply(request, { err: { group: 1, rc: 9 } }, 247, send);
    await expect(client.request({ op: 'write', group: 1, command: 1 })).rejects.toThrow(
      'image group: 0x09 no free slot',
    );
    board.answer = (request, send) => reply(request, { rc: 3, rsn: 'bad offset' }, 247, send);
    const error = await client
      .request({ op: 'write', group: 1, command: 1 })
      .catch((e: unknown) => e as McumgrError);
    expect(error).toBeInstanceOf(McumgrError);
    expect(error).toMatchObject({ failure: 'board', result: { rc: 3 } });
    expect(String((error as Error).message)).toBe('MCUmgr: 0x03 invalid value (bad offset)');
    board.answer = (request, send) => reply(request, { rc: 0, r: 'ok' }, 247, send);
    await expect(client.request({ op: 'write', group: 0, command: 0 })).resolves.toEqual({
      rc: 0,
      r: 'ok',
    });
  });

  it('retries a request that was not answered, then gives up naming the tries', async () => {
    const board = new BoardEnd(247);
    let calls = 0;
    board.answer = (request, send) => {
      calls++;
      if (calls === 2) reply(request, { r: 'late but here' }, 247, send);
    };
    const client = await McumgrClient.open(board, { timeoutMs: 30, retries: 2 });
    await expect(client.request({ op: 'write', group: 0, command: 0 })).resolves.toEqual({
      r: 'late but here',
    });
    board.answer = () => {};
    await expect(client.request({ op: 'read', group: 1, command: 0 })).rejects.toThrow(
      'no MCUmgr answer to group 1 command 0 after 3 tries of 30 ms',
    );
  });

  it('ignores an answer to another sequence number and refuses one to another command', async () => {
    const board = new BoardEnd(247);
    board.answer = (request, send) => {
      const stale = { ...request, header: { ...request.header, sequence: 200 } };
      reply(stale, { r: 'stale' }, 247, send);
      reply(request, { r: 'fresh' }, 247, send);
    };
    const client = await McumgrClient.open(board);
    await expect(client.request({ op: 'write', group: 0, command: 0 })).resolves.toEqual({
      r: 'fresh',
    });
    board.answer = (request, send) =>
      reply({ ...request, header: { ...request.header, command: 6 } }, {}, 247, send);
    await expect(client.request({ op: 'write', group: 0, command: 0 })).rejects.toThrow(
      'does not match its request',
    );
  });

  it('fails the request in flight and every later one when the link goes down', async () => {
    const board = new BoardEnd(247);
    const client = await McumgrClient.open(board, { timeoutMs: 5_000 });
    const pending = client.request({ op: 'write', group: 1, command: 1 });
    board.drop('connection timeout');
    await expect(pending).rejects.toMatchObject({
      failure: 'link',
      message: 'MCUmgr request not answered: the link went down (connection timeout)',
    });
    await expect(client.request({ op: 'read', group: 1, command: 0 })).rejects.toMatchObject({
      failure: 'link',
    });
  });

  it('says "no MCUmgr service" only when discovery finds none', async () => {
    const board = new BoardEnd(247);
    board.subscribe = () =>
      Promise.reject(new BleError('subscribe', 'the board has no service 8d53dc1d-…', 'board'));
    await expect(McumgrClient.open(board)).rejects.toMatchObject({
      failure: 'board',
      message:
        'the board has no MCUmgr service (8d53dc1d-…): its firmware does not serve MCUmgr over Bluetooth',
    });
  });

  it('names what the subscribe met when the board has the service: no answer, a refusal, a lost link', async () => {
    const failing = (error: Error) => {
      const board = new BoardEnd(247);
      board.discover = () => Promise.resolve(MCUMGR_GATT);
      board.subscribe = () => Promise.reject(error);
      return McumgrClient.open(board);
    };
    const what = 'subscribing to SMP';
    await expect(
      failing(
        new BleError('subscribe', `${what}: no answer within 10 s`, 'board', {
          link: 'timeout',
          detail: 'no answer within 10 s',
        }),
      ),
    ).rejects.toMatchObject({
      failure: 'timeout',
      message: 'subscribing to the board’s MCUmgr characteristic: no answer within 10 s',
    });
    const refused =
      'the board needs an encrypted link and pairing refused by the board: 0x05 pairing not supported; the link is closed';
    await expect(
      failing(new BleError('subscribe', `${what}: ${refused}`, 'board', { detail: refused })),
    ).rejects.toMatchObject({
      failure: 'board',
      message: `subscribing to the board’s MCUmgr characteristic: ${refused}`,
    });
    await expect(
      failing(
        new BleError('subscribe', `${what}: link lost: remote user terminated`, 'board', {
          link: 'lost',
          detail: 'link lost: remote user terminated',
        }),
      ),
    ).rejects.toMatchObject({
      failure: 'link',
      message:
        'subscribing to the board’s MCUmgr characteristic: link lost: remote user terminated',
    });
  });
});

/** A board's GATT as discovery lists it: the MCUmgr service and its SMP characteristic. */
const MCUMGR_GATT = [
  {
    uuid: MCUMGR_SERVICE_UUID,
    characteristics: [
      {
        uuid: MCUMGR_CHARACTERISTIC_UUID,
        properties: ['writeWithoutResponse' as const, 'notify' as const],
      },
    ],
  },
];
