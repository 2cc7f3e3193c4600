// Starts an in-memory emulator on a free port for one test file and gives a small HTTP helper.
import { afterAll, beforeAll } from 'vitest';
import {
  startEmulator,
  type EmulatorOptions,
  type RunningEmulator,
} from '../../src/core/emulator/server';

export interface Answer {
  status: number;
  body: unknown;
  headers: Headers;
}

export interface EmulatorHarness {
  emulator: RunningEmulator;
  token: string;
  call(method: string, path: string, body?: unknown, token?: string | null): Promise<Answer>;
  admin(method: string, path: string, body?: unknown): Promise<Answer>;
}

export async function request(
  url: string,
  method: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  const res = await fetch(url, init);
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

export function harness(emulator: RunningEmulator): EmulatorHarness {
  const token = emulator.channels()[0]!.channelAccessToken;
  return {
    emulator,
    token,
    call: (method, path, body, t = token) =>
      request(
        emulator.url + path,
        method,
        body,
        t === null ? {} : { authorization: `Bearer ${t}` },
      ),
    admin: (method, path, body) => request(emulator.adminUrl + path, method, body),
  };
}

/** One emulator per test file; `get()` inside tests. */
export function useEmulator(options: EmulatorOptions = {}): () => EmulatorHarness {
  let h: EmulatorHarness | undefined;
  beforeAll(async () => {
    h = harness(await startEmulator(options));
  });
  afterAll(async () => {
    await h?.emulator.close();
  });
  return () => {
    if (!h) throw new Error('emulator not started');
    return h;
  };
}
