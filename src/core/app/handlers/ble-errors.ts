// BLE, board-file and provisioning failures as contract errors that say which step or field.
// They are named by class name: they may have crossed from the BLE process, which keeps only
// the name.
import type { AppErrorBody } from '../contract';
import { AppFailure } from '../errors';
import { PAIRING_FAILED } from '../../usecases/provisioning/batch-events';

function bleError(err: unknown): AppFailure | unknown {
  if (!(err instanceof Error) || err instanceof AppFailure) return err;
  const body = ((): AppErrorBody | undefined => {
    switch (err.name) {
      case 'BoardFileError':
      case 'ProfileError':
      case 'SimBenchError':
        return { code: 'invalid_input', message: err.message, fields: fieldsOf(err) };
      case 'PsdiError': {
        const field = (err as { field?: string }).field;
        return {
          code: 'invalid_input',
          message: err.message,
          fields: field ? [{ field, message: err.message }] : undefined,
        };
      }
      case 'McumgrError':
      case 'BoardUnreachableError':
      case 'ImageTooLargeError':
      case 'SerialListError':
        // Already in words with its group ("image group: 0x04 no free slot") or its cause.
        return { code: 'device', message: err.message };
      case 'BleError':
      case 'NotAllowedError':
        return { code: 'device', message: withStep(err.message, (err as { step?: string }).step) };
      case 'ProvisionError':
      case 'ProvisionMismatchError':
      case 'ProvisionCancelledError': {
        // The screen names the board already: say the step and the cause, once.
        const { step, detail } = err as { step?: string; detail?: string };
        const full = detail ? `${step}: ${detail}` : err.message;
        if (causeNamed(err, 'PairingStepError'))
          return { code: 'device', message: `pair: ${PAIRING_FAILED}`, details: full };
        return { code: 'device', message: full };
      }
      default:
        return undefined;
    }
  })();
  return body ? new AppFailure(body) : err;
}

/** Whether `err` or one of its causes is the error class named `name`. */
function causeNamed(err: Error, name: string): boolean {
  let e: unknown = err;
  for (let depth = 0; e instanceof Error && depth < 8; depth++, e = e.cause)
    if (e.name === name) return true;
  return false;
}

/**
 * The message led by its step ("connect: no connection within 10000 ms"), unless it already
 * says what it was doing: "read: reading Temperature (…)" says it twice.
 */
function withStep(message: string, step = 'BLE'): string {
  const saysItsStep = /^(reading|writing|discovering|subscribing|unsubscribing|asking|pairing)\b/;
  return saysItsStep.test(message) ? message : `${step}: ${message}`;
}

/**
 * The fields a file's refusal names; the file as a whole (`file`) where it has no issues of its
 * own: a file that is not JSON, or a board file's refusal, whose issues stay in the BLE process.
 * A simulated bench's refusal names its field where its handler knows it (sim.ts).
 */
function fieldsOf(err: Error): AppErrorBody['fields'] {
  const issues = (err as { issues?: { path: string; message: string }[] }).issues;
  if (!issues)
    return err.name === 'SimBenchError' ? undefined : [{ field: 'file', message: err.message }];
  return issues.map((i) => ({ field: i.path || 'file', message: i.message }));
}

/** Handlers whose BLE, board-file and provisioning failures become contract errors. */
export function withBleErrors<H extends object>(handlers: H): H {
  const wrapped: Record<string, (input: never) => Promise<unknown>> = {};
  for (const [name, handler] of Object.entries(handlers) as [
    string,
    (input: never) => Promise<unknown>,
  ][])
    wrapped[name] = async (input) => {
      try {
        return await handler(input);
      } catch (err) {
        throw bleError(err);
      }
    };
  return wrapped as H;
}
