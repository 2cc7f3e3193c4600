// Input fields several areas share, so they are checked and worded the same everywhere.
import { z } from 'zod';
import { fileTextField, MAX_FILE_TEXT_LENGTH } from '../../bounds';
import { userIdField } from '../../platform/user-id';

/** The longest other required text an operation passes on: a token, a user ID, a message key. */
const MAX_TEXT_LENGTH = 8_192;

export const userId = z.string().trim().pipe(userIdField);
/** Any other text an operation needs and passes on. */
export const requiredText = z
  .string()
  .trim()
  .min(1, 'is required')
  .max(MAX_TEXT_LENGTH, `must be at most ${MAX_TEXT_LENGTH} characters`);

/**
 * The largest operation body a transport takes: a file of MAX_FILE_TEXT_LENGTH characters at
 * three UTF-8 bytes each (any character of the Basic Multilingual Plane, or an escaped quote or
 * line break), plus 1 MiB for the rest of the input.
 */
export const MAX_OPERATION_BODY_BYTES = 3 * MAX_FILE_TEXT_LENGTH + 1024 * 1024;

/** A file the user picked, as its name and text: board files, profiles. */
export const namedFileText = z.object({
  fileName: z.string().trim().min(1, 'is required').max(255),
  text: fileTextField,
});
