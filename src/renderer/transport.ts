// The browser's way to the app when there is no Electron preload: operations over
// `POST /api/ops/<name>` and events over one WebSocket at `/api/events`, both on the page's
// origin (the bench server). Answers the same Result envelopes as the preload.
import { buildBridge, type DeviceBenchBridge, type Transport } from '../core/app/api';
import {
  events,
  isEventName,
  type AppErrorBody,
  type EventName,
  type OperationName,
  type Result,
} from '../core/app/contract';
import { errorMessage } from '../core/errors/message';

declare global {
  interface Window {
    /** Set by the Electron preload; absent in a plain browser. */
    devicebench?: DeviceBenchBridge;
  }
}

const RECONNECT_MIN_MS = 500;
const RECONNECT_MAX_MS = 10_000;

function failure(error: AppErrorBody): Result<never> {
  return { ok: false, error };
}

function isResult(value: unknown): value is Result<unknown> {
  if (typeof value !== 'object' || value === null || !('ok' in value)) return false;
  return value.ok === true ? 'value' in value : value.ok === false && 'error' in value;
}

async function invoke(name: OperationName, input: unknown): Promise<Result<unknown>> {
  let response: Response;
  try {
    response = await fetch(`/api/ops/${name}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(input),
    });
  } catch (error) {
    return failure({
      code: 'unreachable',
      message: `The bench server did not answer: ${errorMessage(error)}`,
    });
  }
  // The envelope is the answer whatever the HTTP status; anything else means a broken server.
  const body: unknown = await response.json().catch(() => undefined);
  if (isResult(body)) return body;
  return failure({
    code: 'internal',
    message: `The bench server answered HTTP ${response.status} without a result envelope`,
    status: response.status,
  });
}

/** One WebSocket shared by every subscriber; open while anyone listens, reopened with backoff. */
class EventSocket {
  private readonly handlers = new Map<EventName, Set<(payload: unknown) => void>>();
  private socket: WebSocket | undefined;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private retryDelay = RECONNECT_MIN_MS;

  subscribe(event: EventName, handler: (payload: unknown) => void): () => void {
    let set = this.handlers.get(event);
    if (!set) this.handlers.set(event, (set = new Set()));
    set.add(handler);
    this.ensureOpen();
    return () => {
      set.delete(handler);
      if (set.size === 0) this.handlers.delete(event);
      if (this.handlers.size === 0) this.close();
    };
  }

  private ensureOpen(): void {
    if (this.socket || this.retryTimer) return;
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const socket = new WebSocket(`${scheme}://${location.host}/api/events`);
    this.socket = socket;
    socket.onopen = () => {
      this.retryDelay = RECONNECT_MIN_MS;
    };
    socket.onmessage = (message) => this.dispatch(message.data);
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      if (this.handlers.size > 0) this.scheduleReconnect();
    };
  }

  private scheduleReconnect(): void {
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (this.handlers.size > 0) this.ensureOpen();
    }, this.retryDelay);
    this.retryDelay = Math.min(this.retryDelay * 2, RECONNECT_MAX_MS);
  }

  private close(): void {
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const socket = this.socket;
    this.socket = undefined;
    socket?.close();
  }

  private dispatch(data: unknown): void {
    if (typeof data !== 'string') return;
    let frame: unknown;
    try {
      frame = JSON.parse(data);
    } catch {
      return;
    }
    if (typeof frame !== 'object' || frame === null || !('event' in frame)) return;
    const name = frame.event;
    if (typeof name !== 'string' || !isEventName(name)) return;
    // Payloads are checked like any other input crossing into the UI.
    const parsed = events[name].safeParse('payload' in frame ? frame.payload : undefined);
    if (!parsed.success) return;
    for (const handler of this.handlers.get(name) ?? []) handler(parsed.data);
  }
}

function httpTransport(): Transport {
  const socket = new EventSocket();
  return { invoke, subscribe: (event, handler) => socket.subscribe(event, handler) };
}

/** The preload's bridge inside Electron, otherwise the bench server's HTTP + WebSocket. */
export function connectBridge(): DeviceBenchBridge {
  return window.devicebench ?? buildBridge(httpTransport());
}
