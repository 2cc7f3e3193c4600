// Shapes the contract into the object the UI calls — `api.things.createTrialProduct({ name })` —
// over any transport (Electron IPC in the preload, HTTP + WebSocket in the browser). Errors come
// back as AppError carrying the field-named details.
import {
  operations,
  type AppErrorBody,
  type EventName,
  type EventPayload,
  type OperationName,
  type OpInput,
  type OpOutput,
  type Result,
} from './contract';

export interface Transport {
  invoke(name: OperationName, input: unknown): Promise<Result<unknown>>;
  subscribe(event: EventName, handler: (payload: unknown) => void): () => void;
}

type Namespace = OperationName extends `${infer NS}:${string}` ? NS : never;
type Methods<NS extends string, Wrap extends 'result' | 'value'> = {
  [N in OperationName as N extends `${NS}:${infer M}` ? M : never]: (
    input: OpInput<N>,
  ) => Promise<Wrap extends 'result' ? Result<OpOutput<N>> : OpOutput<N>>;
};
type Subscribe = {
  on<E extends EventName>(event: E, handler: (payload: EventPayload<E>) => void): () => void;
};

/**
 * What the preload exposes as `window.devicebench`: one method per operation answering a
 * Result envelope. Envelopes, not thrown errors, because Electron's contextBridge strips an
 * error's own properties (status, fields, request id) on the way to the renderer.
 */
export type DeviceBenchBridge = { [NS in Namespace]: Methods<NS, 'result'> } & Subscribe;

/** What React code calls: the same methods, answering the value or throwing AppError. */
export type DeviceBenchApi = { [NS in Namespace]: Methods<NS, 'value'> } & Subscribe;

export class AppError extends Error {
  readonly code: AppErrorBody['code'];
  readonly fields: NonNullable<AppErrorBody['fields']>;
  readonly details?: string;
  readonly status?: number;
  readonly requestId?: string;
  readonly body?: unknown;

  constructor(error: AppErrorBody) {
    super(error.message);
    this.name = 'AppError';
    this.code = error.code;
    this.fields = error.fields ?? [];
    this.details = error.details;
    this.status = error.status;
    this.requestId = error.requestId;
    this.body = error.body;
  }
}

type Method = (input: unknown) => Promise<unknown>;

function shape(method: (name: OperationName) => Method): Record<string, Record<string, Method>> {
  const out: Record<string, Record<string, Method>> = {};
  for (const name of Object.keys(operations) as OperationName[]) {
    const [ns, m] = name.split(':') as [string, string];
    (out[ns] ??= {})[m] = method(name);
  }
  return out;
}

export function buildBridge(transport: Transport): DeviceBenchBridge {
  const methods = shape((name) => (input) => transport.invoke(name, input ?? {}));
  const on = (event: EventName, handler: (payload: unknown) => void) =>
    transport.subscribe(event, handler);
  return { ...methods, on } as unknown as DeviceBenchBridge;
}

export function buildApi(bridge: DeviceBenchBridge): DeviceBenchApi {
  const byName = bridge as unknown as Record<string, Record<string, Method>>;
  const methods = shape((name) => {
    const [ns, m] = name.split(':') as [string, string];
    return async (input) => {
      const call = byName[ns]?.[m];
      if (!call)
        throw new AppError({ code: 'unknown_operation', message: `${name} is not available` });
      const result = (await call(input ?? {})) as Result<unknown>;
      if (!result.ok) throw new AppError(result.error);
      return result.value;
    };
  });
  const on: DeviceBenchApi['on'] = (event, handler) => bridge.on(event, handler);
  return { ...methods, on } as unknown as DeviceBenchApi;
}
