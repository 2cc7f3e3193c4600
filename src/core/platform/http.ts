// The one way DeviceBench talks to a platform (real or emulated): base URL, Bearer channel
// token, the 2 MB request guard, 429 backoff, and error bodies turned into typed errors that
// carry the status, body and x-platform-request-id.
import { isWellFormedText, MalformedTextError } from './url-text';
import type { z } from 'zod';
import { causeMessage } from '../errors/message';
import { MAX_REQUEST_BYTES } from '../bounds';

export const REQUEST_ID_HEADER = 'x-platform-request-id';

export interface PlatformTarget {
  baseUrl: string;
  /** Sent as `Authorization: Bearer …`; the emulator's admin API needs none. */
  channelAccessToken?: string;
}

export interface HttpOptions {
  /** Retries after a 429 before giving up; each waits Retry-After or an exponential backoff. */
  maxRetries?: number;
  backoffMs?: number;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export class PlatformError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly body: unknown,
    readonly requestId: string | undefined,
  ) {
    super(`${method} ${path} answered ${status}: ${describeBody(body)}`);
    this.name = 'PlatformError';
  }
}

/** The platform could not be reached, or answered something that is not its API. */
export class PlatformUnreachableError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    message: string,
  ) {
    super(`${method} ${path}: ${message}`);
    this.name = 'PlatformUnreachableError';
  }
}

export class RequestTooLargeError extends Error {
  constructor(readonly bytes: number) {
    super(`Request body is ${bytes} bytes; the platform refuses anything over 2 MB.`);
    this.name = 'RequestTooLargeError';
  }
}

function describeBody(body: unknown): string {
  if (body && typeof body === 'object' && 'message' in body) return String(body.message);
  if (typeof body === 'string' && body) return body.slice(0, 200);
  return 'no message';
}

interface RequestSpec<T> {
  query?: Record<string, string>;
  body?: unknown;
  /** Sent as `application/x-www-form-urlencoded` instead of a JSON `body`. */
  form?: Record<string, string>;
  /** Extra headers; an `authorization` here replaces the Bearer token. */
  headers?: Record<string, string>;
  /** Schema of a 2xx JSON body; omit for 204 answers. */
  schema?: z.ZodType<T>;
}

export class PlatformHttp {
  private readonly fetch: typeof fetch;
  private readonly maxRetries: number;
  private readonly backoffMs: number;
  private readonly timeoutMs: number;

  constructor(
    private readonly target: PlatformTarget,
    options: HttpOptions = {},
  ) {
    this.fetch = options.fetch ?? globalThis.fetch;
    this.maxRetries = options.maxRetries ?? 3;
    this.backoffMs = options.backoffMs ?? 500;
    this.timeoutMs = options.timeoutMs ?? 15_000;
  }

  async request<T = void>(method: string, path: string, spec: RequestSpec<T> = {}): Promise<T> {
    const url = new URL(this.target.baseUrl.replace(/\/+$/, '') + path);
    for (const [k, v] of Object.entries(spec.query ?? {})) {
      if (!isWellFormedText(v)) throw new MalformedTextError(k);
      url.searchParams.set(k, v);
    }
    const headers: Record<string, string> = {};
    if (this.target.channelAccessToken)
      headers.authorization = `Bearer ${this.target.channelAccessToken}`;
    let body: string | undefined;
    if (spec.body !== undefined) {
      body = JSON.stringify(spec.body);
      headers['content-type'] = 'application/json';
    } else if (spec.form !== undefined) {
      body = new URLSearchParams(spec.form).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const bytes = body === undefined ? 0 : Buffer.byteLength(body);
    if (bytes > MAX_REQUEST_BYTES) throw new RequestTooLargeError(bytes);
    for (const [name, value] of Object.entries(spec.headers ?? {}))
      headers[name.toLowerCase()] = value;

    for (let attempt = 0; ; attempt++) {
      const res = await this.send(method, path, url, { method, headers, body });
      if (res.status === 429 && attempt < this.maxRetries) {
        await sleep(retryDelay(res.headers.get('retry-after'), this.backoffMs * 2 ** attempt));
        continue;
      }
      return this.read(method, path, res, spec.schema);
    }
  }

  private async send(method: string, path: string, url: URL, init: RequestInit): Promise<Response> {
    try {
      return await this.fetch(url, { ...init, signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (err) {
      throw new PlatformUnreachableError(
        method,
        path,
        `cannot reach ${url.origin} (${causeMessage(err)})`,
      );
    }
  }

  private async read<T>(
    method: string,
    path: string,
    res: Response,
    schema: z.ZodType<T> | undefined,
  ): Promise<T> {
    const requestId = res.headers.get(REQUEST_ID_HEADER) ?? undefined;
    const text = await res.text();
    const json = parseJson(text);
    if (!res.ok) throw new PlatformError(method, path, res.status, json ?? text, requestId);
    if (!schema) return undefined as T;
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      throw new PlatformUnreachableError(
        method,
        path,
        `answered ${res.status} with a body that is not the documented shape (request id ${requestId ?? 'none'})`,
      );
    }
    return parsed.data;
  }
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function retryDelay(retryAfter: string | null, fallbackMs: number): number {
  const seconds = retryAfter === null ? NaN : Number(retryAfter);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds * 1000, 30_000) : fallbackMs;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
