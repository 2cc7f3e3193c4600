// Reading the errors the API throws: AppError carries field-named details, a platform status
// and request id; anything else (a bug, a dropped connection) is shown by its message.
import { AppError } from '../../core/app/api';
import { errorMessage } from '../../core/errors/message';

export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  return new AppError({
    code: 'internal',
    message: errorMessage(error),
  });
}

/** Messages the API gave for one input field (`name`, `scenarioSet.scenarios[0].trigger`…). */
export function messagesFor(error: unknown, field: string): string[] {
  if (!(error instanceof AppError)) return [];
  return error.fields.filter((f) => f.field === field).map((f) => f.message);
}

export function isNotFound(error: unknown): boolean {
  return error instanceof AppError && error.code === 'platform' && error.status === 404;
}
