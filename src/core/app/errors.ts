// Every failure an operation can have, turned into the contract's AppErrorBody: what the
// UI shows, naming the field where there is one, with the platform's status and request id.
import { MALFORMED_TEXT, MalformedTextError } from '../platform/url-text';
import { PlatformError, PlatformUnreachableError, RequestTooLargeError } from '../platform/http';
import type { FieldError } from '../platform/field-errors';
import { StoreUnavailableError } from '../audit/errors';
import type { AppErrorBody } from './contract';
import { errorMessage } from '../errors/message';
import {
  NotConfiguredError,
  PlatformAnswerError,
  SetupError,
  UnreachableError,
} from '../usecases/errors';

/** A failure the app itself decided on (bad input it could only check late, missing setup). */
export class AppFailure extends Error {
  constructor(readonly body: AppErrorBody) {
    super(body.message);
    this.name = 'AppFailure';
  }

  static field(field: string, message: string): AppFailure {
    return new AppFailure({
      code: 'invalid_input',
      message: `${field}: ${message}`,
      fields: [{ field, message }],
    });
  }
}

export function toAppError(err: unknown): AppErrorBody {
  if (err instanceof AppFailure) return err.body;
  if (err instanceof SetupError) return AppFailure.field(err.field, err.detail).body;
  if (err instanceof NotConfiguredError) return { code: 'not_configured', message: err.message };
  if (err instanceof PlatformAnswerError) return { code: 'platform', message: err.message };
  if (err instanceof UnreachableError) return { code: 'unreachable', message: err.message };
  if (err instanceof PlatformError) return platformError(err);
  if (err instanceof PlatformUnreachableError) return { code: 'unreachable', message: err.message };
  if (err instanceof RequestTooLargeError) return { code: 'invalid_input', message: err.message };
  if (err instanceof MalformedTextError)
    return {
      code: 'invalid_input',
      message: err.message,
      fields: [{ field: err.field, message: MALFORMED_TEXT }],
    };
  if (err instanceof StoreUnavailableError) return { code: 'unreachable', message: err.message };
  return {
    code: 'internal',
    message: `Unexpected error: ${errorMessage(err)}`,
  };
}

function platformError(err: PlatformError): AppErrorBody {
  const body = err.body as { message?: unknown; details?: unknown } | undefined;
  return {
    code: 'platform',
    // The platform's own words; the status travels beside them.
    message: typeof body?.message === 'string' ? body.message : `HTTP ${err.status}`,
    status: err.status,
    requestId: err.requestId,
    body: err.body,
    fields: detailsToFields(body?.details),
  };
}

function detailsToFields(details: unknown): FieldError[] | undefined {
  if (!Array.isArray(details)) return undefined;
  const fields = details.flatMap((d: { property?: unknown; message?: unknown }) =>
    typeof d?.property === 'string'
      ? [{ field: d.property, message: typeof d.message === 'string' ? d.message : 'invalid' }]
      : [],
  );
  return fields.length ? fields : undefined;
}
