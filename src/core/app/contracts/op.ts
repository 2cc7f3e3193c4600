// The building block of every area's contract: an operation is a zod input and output schema.
import { z } from 'zod';

export function op<I extends z.ZodType, O extends z.ZodType>(input: I, output: O) {
  return { input, output };
}

export type OperationSpec = ReturnType<typeof op>;

export const none = z.object({});
