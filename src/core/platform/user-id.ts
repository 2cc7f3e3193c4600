// The platform's user ID, one rule for every area that takes one (docs/platform-api.md#login):
// "U" followed by 32 lowercase hexadecimal digits.
import { z } from 'zod';

export const USER_ID_PATTERN = /^U[0-9a-f]{32}$/;
const USER_ID_RULE = 'must match U[0-9a-f]{32}';

/** A user ID field; a missing one reads "is required". */
export const userIdField = z.string({ error: 'is required' }).regex(USER_ID_PATTERN, USER_ID_RULE);
