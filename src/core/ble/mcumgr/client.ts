// An MCUmgr client over any connected board: requests go out as Write Without Response cut to
// the link's MTU − 3, answers come back as notifications of the same characteristic and are
// joined by their header's length and matched by sequence number (docs/mcumgr/protocol.md).
// One request at a time unless the caller opens a window (`setWindow`): Zephyr's server takes
// as many as it has buffers and answers them in order; each has its own timeout and retries.
import { wallClock, type Clock } from '../../async/clock';
import { BleError, failureWords, type BleConnection } from '../port';
import {
  MCUMGR_OP,
  McumgrFrameError,
  McumgrReassembler,
  decodeFrame,
  encodeFrame,
  type McumgrBody,
  type McumgrFrame,
  type McumgrVersion,
} from './frame';
import { describeGeneralResult, describeGroupResult } from './groups';
import { MCUMGR_CHARACTERISTIC_UUID, MCUMGR_SERVICE_UUID } from './service';

/**
 * Why a request failed: the board answered an error (`board`), nothing answered in time
 * (`timeout`), the link went down (`link`), or the answer could not be read (`frame`).
 */
export type McumgrFailure = 'board' | 'timeout' | 'link' | 'frame';

export class McumgrError extends Error {
  override name = 'McumgrError';
  constructor(
    readonly failure: McumgrFailure,
    message: string,
    /** For a board's answer: the group that answered (version 2) and its result code. */
    readonly result?: { group?: number; rc: number },
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface McumgrRequest {
  op: 'read' | 'write';
  group: number;
  command: number;
  body?: McumgrBody;
  /** Overrides the client's, e.g. for an erase that takes the board seconds. */
  timeoutMs?: number;
  /** Stops waiting for the answer and trying again: the caller knows none will come. */
  signal?: AbortSignal;
}

export interface McumgrClientOptions {
  /** How long one try waits for its answer. */
  timeoutMs?: number;
  /** Tries after the first before giving up. */
  retries?: number;
  /** The header version asked for; a board that only speaks the original answers in it. */
  version?: McumgrVersion;
  /** Whose time the timeouts count: the bench's clock on the simulated bench. */
  clock?: Clock;
}

const DEFAULTS = { timeoutMs: 5_000, retries: 2, version: 1 } as const;

interface InFlight {
  sequence: number;
  request: McumgrRequest;
  settle: (outcome: { frame: McumgrFrame } | { error: Error }) => void;
}

export class McumgrClient {
  private sequence = 0;
  /** Requests sent and not yet answered, by sequence number. */
  private readonly inFlight = new Map<number, InFlight>();
  /** Requests that may be in flight at once, and those holding or waiting for a place. */
  private window = 1;
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  /** One request's fragments go out whole before the next one's. */
  private sending: Promise<unknown> = Promise.resolve();
  private closedBecause: string | undefined;
  private readonly reassembler = new McumgrReassembler();
  private readonly options: Required<Omit<McumgrClientOptions, 'clock'>>;
  /** Whose time timeouts and throughput count. */
  readonly clock: Clock;
  private unsubscribe: (() => Promise<void>) | undefined;
  private readonly offDisconnect: () => void;

  private constructor(
    private readonly connection: BleConnection,
    options: McumgrClientOptions,
  ) {
    const { clock, ...rest } = options;
    this.options = { ...DEFAULTS, ...rest };
    this.clock = clock ?? wallClock();
    this.offDisconnect = connection.onDisconnect((reason) => {
      this.closedBecause = `the link went down (${reason})`;
      this.reassembler.reset();
      for (const inFlight of [...this.inFlight.values()])
        inFlight.settle({ error: new McumgrError('link', this.linkMessage()) });
    });
  }

  /** Subscribes to the board's MCUmgr characteristic; fails if the board has none. */
  static async open(
    connection: BleConnection,
    options: McumgrClientOptions = {},
  ): Promise<McumgrClient> {
    const client = new McumgrClient(connection, options);
    try {
      client.unsubscribe = await connection.subscribe(
        MCUMGR_SERVICE_UUID,
        MCUMGR_CHARACTERISTIC_UUID,
        (data) => client.onNotification(data),
      );
    } catch (error) {
      client.offDisconnect();
      throw await subscribeFailure(connection, error);
    }
    return client;
  }

  /** The largest write the link carries in one packet. */
  get fragmentSize(): number {
    return this.connection.mtu - 3;
  }

  /** Requests that may be in flight at once. */
  get windowSize(): number {
    return this.window;
  }

  /**
   * Lets up to `size` requests be in flight at once: fewer than the board's MCUmgr buffers
   * (OS parameters' `buf_count`, docs/mcumgr/os.md), which its answers take too.
   */
  setWindow(size: number): void {
    this.window = Math.max(1, Math.floor(size));
    this.admit();
  }

  /** Sends one request and resolves with the board's answer, or fails naming why. */
  async request(request: McumgrRequest): Promise<McumgrBody> {
    await new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      this.admit();
    });
    try {
      return await this.run(request);
    } finally {
      this.active--;
      this.admit();
    }
  }

  /** Lets waiting requests go, in the order they were made, while the window has room. */
  private admit(): void {
    while (this.active < this.window && this.waiting.length) {
      this.active++;
      this.waiting.shift()!();
    }
  }

  async close(): Promise<void> {
    this.offDisconnect();
    this.closedBecause ??= 'the MCUmgr client was closed';
    // Nothing it sent is retried once it is closed: another client may use the board's buffers.
    for (const inFlight of [...this.inFlight.values()])
      inFlight.settle({ error: new McumgrError('link', this.linkMessage()) });
    const unsubscribe = this.unsubscribe;
    this.unsubscribe = undefined;
    if (unsubscribe) await unsubscribe().catch(() => undefined);
  }

  private linkMessage(): string {
    return `MCUmgr request not answered: ${this.closedBecause}`;
  }

  private async run(request: McumgrRequest): Promise<McumgrBody> {
    const sequence = this.sequence;
    this.sequence = (this.sequence + 1) & 0xff;
    const frame = encodeFrame(
      {
        op: request.op === 'read' ? MCUMGR_OP.read : MCUMGR_OP.write,
        version: this.options.version,
        flags: 0,
        group: request.group,
        sequence,
        command: request.command,
      },
      request.body ?? {},
    );
    const timeoutMs = request.timeoutMs ?? this.options.timeoutMs;
    const tries = this.options.retries + 1;
    for (let attempt = 1; ; attempt++) {
      if (this.closedBecause) throw new McumgrError('link', this.linkMessage());
      request.signal?.throwIfAborted();
      const answer = await this.attempt(sequence, request, frame, timeoutMs);
      if (answer) return answerBody(answer);
      if (attempt >= tries)
        throw new McumgrError(
          'timeout',
          `no MCUmgr answer to group ${request.group} command ${request.command} after ${tries} tries of ${timeoutMs} ms`,
        );
    }
  }

  /** One try: the frame out in fragments, then its answer, or undefined when time ran out. */
  private attempt(
    sequence: number,
    request: McumgrRequest,
    frame: Uint8Array,
    timeoutMs: number,
  ): Promise<McumgrFrame | undefined> {
    return new Promise((resolve, reject) => {
      const timer = this.clock.setTimeout(() => {
        this.inFlight.delete(sequence);
        // A part of this answer may be in the reassembler; only when nothing else is awaited
        // can it be dropped without cutting another answer.
        if (!this.inFlight.size) this.reassembler.reset();
        resolve(undefined);
      }, timeoutMs);
      const inFlight: InFlight = {
        sequence,
        request,
        settle: (outcome) => {
          this.clock.clearTimeout(timer);
          if (this.inFlight.get(sequence) === inFlight) this.inFlight.delete(sequence);
          if ('frame' in outcome) resolve(outcome.frame);
          else reject(outcome.error);
        },
      };
      this.inFlight.set(sequence, inFlight);
      const { signal } = request;
      signal?.addEventListener('abort', () => inFlight.settle({ error: signal.reason as Error }), {
        once: true,
      });
      const sent = this.sending.then(() => this.send(frame));
      this.sending = sent.catch(() => undefined);
      sent.catch((error: unknown) =>
        inFlight.settle({
          error: new McumgrError(
            'link',
            `MCUmgr request not sent: ${(error as Error).message}`,
            undefined,
            {
              cause: error,
            },
          ),
        }),
      );
    });
  }

  private async send(frame: Uint8Array): Promise<void> {
    const size = this.fragmentSize;
    for (let at = 0; at < frame.length; at += size)
      await this.connection.write(
        MCUMGR_SERVICE_UUID,
        MCUMGR_CHARACTERISTIC_UUID,
        frame.subarray(at, at + size),
        { withoutResponse: true },
      );
  }

  private onNotification(data: Uint8Array): void {
    let frames: Uint8Array[];
    try {
      frames = this.reassembler.push(data);
    } catch {
      this.reassembler.reset();
      return;
    }
    for (const bytes of frames) this.onFrame(bytes);
  }

  private onFrame(bytes: Uint8Array): void {
    // The board answers in the order it was asked: an answer it garbled is the oldest one's.
    const oldest = this.inFlight.values().next().value;
    if (!oldest) return;
    let frame: McumgrFrame;
    try {
      frame = decodeFrame(bytes);
    } catch (error) {
      if (error instanceof McumgrFrameError)
        oldest.settle({
          error: new McumgrError('frame', error.message, undefined, { cause: error }),
        });
      return;
    }
    // A late answer to an earlier try or request carries a sequence number nobody awaits.
    const inFlight = this.inFlight.get(frame.header.sequence);
    if (!inFlight) return;
    const { request } = inFlight;
    const expectedOp = request.op === 'read' ? MCUMGR_OP.readResponse : MCUMGR_OP.writeResponse;
    if (
      frame.header.op !== expectedOp ||
      frame.header.group !== request.group ||
      frame.header.command !== request.command
    ) {
      inFlight.settle({
        error: new McumgrError(
          'frame',
          `MCUmgr answer does not match its request: op ${frame.header.op}, group ${frame.header.group}, command ${frame.header.command} to op ${request.op}, group ${request.group}, command ${request.command}`,
        ),
      });
      return;
    }
    inFlight.settle({ frame });
  }
}

/**
 * Why the subscribe failed, in words that blame the right thing: "no MCUmgr service" only when
 * discovery shows the board has none; else what the subscribe met — no answer in time, a lost
 * link (both worth a new link), or the board's refusal (a pairing it refused, an ATT error),
 * which a new link would only meet again.
 */
async function subscribeFailure(connection: BleConnection, error: unknown): Promise<McumgrError> {
  const options = { cause: error };
  const services = await connection.discover().catch(() => undefined);
  const service = services?.find((s) => s.uuid === MCUMGR_SERVICE_UUID);
  const hasCharacteristic = service?.characteristics.some(
    (c) => c.uuid === MCUMGR_CHARACTERISTIC_UUID,
  );
  if (services && !hasCharacteristic)
    return new McumgrError(
      'board',
      service
        ? 'the board’s MCUmgr service has no SMP characteristic (da2e7828-…)'
        : 'the board has no MCUmgr service (8d53dc1d-…): its firmware does not serve MCUmgr over Bluetooth',
      undefined,
      options,
    );
  const failure: McumgrFailure =
    error instanceof BleError && error.link === 'timeout'
      ? 'timeout'
      : error instanceof BleError && error.link === 'lost'
        ? 'link'
        : 'board';
  return new McumgrError(
    failure,
    `subscribing to the board’s MCUmgr characteristic: ${failureWords(error)}`,
    undefined,
    options,
  );
}

/**
 * The answer's body, or the board's error in words: version 2 answers a group's own error as
 * `err: {group, rc}`; both versions answer the protocol's errors as `rc` (0 is success), with
 * an optional `rsn` saying why.
 */
function answerBody(frame: McumgrFrame): McumgrBody {
  const { body } = frame;
  const err = body.err;
  if (typeof err === 'object' && err !== null) {
    const { group, rc } = err as { group?: unknown; rc?: unknown };
    if (typeof group === 'number' && typeof rc === 'number' && rc !== 0)
      throw new McumgrError('board', describeGroupResult(group, rc), { group, rc });
  }
  if (typeof body.rc === 'number' && body.rc !== 0) {
    const reason = typeof body.rsn === 'string' ? ` (${body.rsn})` : '';
    throw new McumgrError('board', `${describeGeneralResult(body.rc)}${reason}`, { rc: body.rc });
  }
  return body;
}
