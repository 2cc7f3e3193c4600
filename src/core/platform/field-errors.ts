// Turns zod issues into the field-named errors every boundary answers with
// (`scenarios[0].actions[1].data: must be base64`), so the emulator, the contract and the
// editor all name fields the same way.
import type { z } from 'zod';

export interface FieldError {
  field: string;
  message: string;
}

export function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

export function fieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => ({
    field: fieldPath(issue.path) || '(body)',
    message: issue.message,
  }));
}

export function describeFieldErrors(errors: FieldError[]): string {
  return errors.map((e) => `${e.field}: ${e.message}`).join('; ');
}
