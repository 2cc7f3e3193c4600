// A boundary between two processes or threads typed once: each method is one entry of a table
// with a zod input and output schema, as `op()` is for the app's contract
// (src/core/app/contracts/op.ts). The same table types the caller and the handlers, and the
// side that runs a request parses its input with it where it crosses (`parseRequest`). The BLE
// process (ble/host/protocol.ts) and the SQLite audit worker (audit/sqlite-worker-protocol.ts)
// are built on it.
import { z } from 'zod';
import { describeFieldErrors, fieldErrors } from '../platform/field-errors';

export function method<I extends z.ZodType, O extends z.ZodType>(input: I, output: O) {
  return { input, output };
}
export type MethodSpec = ReturnType<typeof method>;
export type MethodTable = Record<string, MethodSpec>;

/**
 * The request's method (one of `target`'s tables) and its parsed input; otherwise `refuse`
 * is thrown with what is wrong, naming the method and the field.
 */
export function parseRequest(
  tables: Readonly<Record<string, MethodTable>>,
  request: { target: string; method: string; input: unknown },
  refuse: (message: string) => Error,
): { method: string; input: unknown } {
  const table = Object.hasOwn(tables, request.target) ? tables[request.target] : undefined;
  if (!table) throw refuse(`no method target "${String(request.target)}"`);
  if (!Object.hasOwn(table, request.method))
    throw refuse(`no ${request.target} method "${request.method}"`);
  const parsed = table[request.method]!.input.safeParse(request.input ?? {});
  if (!parsed.success)
    throw refuse(`${request.method}: ${describeFieldErrors(fieldErrors(parsed.error))}`);
  return { method: request.method, input: parsed.data };
}
