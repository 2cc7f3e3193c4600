// Input fields several areas share, so they are checked and worded the same everywhere.
import { z } from 'zod';
import { USER_ID_PATTERN } from '../../platform/things/schema';

export const productId = z.string().trim().min(1, 'is required');
export const userId = z.string().trim().regex(USER_ID_PATTERN, 'must match U[0-9a-f]{32}');
