// One HTTP/1.1 exchange over a raw socket, for what fetch cannot send or see: a POST with no
// body and no Content-Length, and whether the server closes the connection after answering.
import { connect } from 'node:net';

export interface RawAnswer {
  status: number;
  /** The answer's body as text (after the blank line; chunk framing left in). */
  body: string;
  /** Whether the server closed the connection within the wait. */
  closed: boolean;
}

/**
 * Writes `head` (request line and headers, no trailing blank line) and waits up to `waitMs`
 * for the server to close; with `Connection: close` in `head` that is as soon as it answers.
 * The Host header is `url`'s, unless `host` says otherwise (`null`: none at all).
 */
export function rawRequest(
  url: URL,
  head: string[],
  waitMs = 5_000,
  host: string | null = url.host,
): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    let answer = '';
    const done = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      const [top = '', ...rest] = answer.split('\r\n\r\n');
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(top)?.[1] ?? 0),
        body: rest.join('\r\n\r\n'),
        closed,
      });
    };
    const timer = setTimeout(() => done(false), waitMs);
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => done(true));
    socket.write([...head, ...(host === null ? [] : [`Host: ${host}`]), '', ''].join('\r\n'));
  });
}

export interface Held {
  /** The status of the server's first answer; 0 when it answered nothing. */
  status: number;
  /** Whether the server closed the connection within the wait. */
  closed: boolean;
  /** How long the connection stayed open, in ms (the whole wait when it was not closed). */
  ms: number;
}

/**
 * Writes `bytes` as they are (a request cut short, a whole one, or nothing) and waits up to
 * `waitMs` for the server to close the connection: how long it held it, and what it answered.
 */
export function heldFor(url: URL, bytes: string, waitMs: number): Promise<Held> {
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    const started = Date.now();
    let answer = '';
    const done = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0),
        closed,
        ms: Date.now() - started,
      });
    };
    const timer = setTimeout(() => done(false), waitMs);
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => done(true));
    if (bytes) socket.write(bytes);
  });
}
