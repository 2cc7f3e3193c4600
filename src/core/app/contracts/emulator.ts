// The embedded emulator's page: its state, seeding, the virtual clock and faults.
import { z } from 'zod';
import {
  clockAdvanceInputSchema,
  activitySchema,
  clockSchema,
  emulatorDeviceSchema,
  faultInputSchema,
  faultSchema,
  mintUserTokenInputSchema,
  userSchema,
  userTokenSchema,
} from '../../emulator/schema';
import { deviceSchema } from '../../platform/things/schema';
import { requiredId, requiredId as productId } from '../../bounds';
import { userId } from './fields';
import { none, op } from './op';

const emulatorStateSchema = z.object({
  url: z.string(),
  adminUrl: z.string(),
  clock: clockSchema,
  channels: z.array(z.object({ channelId: z.string(), name: z.string() })),
  users: z.array(userSchema),
  faults: z.array(faultSchema),
  devices: z.array(emulatorDeviceSchema),
  activity: z.array(activitySchema),
});
export type EmulatorState = z.infer<typeof emulatorStateSchema>;

export const emulatorOperations = {
  'emulator:getState': op(none, emulatorStateSchema),
  'emulator:addUser': op(
    z.object({ displayName: z.string().trim().min(1, 'is required').max(100) }),
    userSchema,
  ),
  'emulator:registerDevice': op(
    z.object({
      productId,
      productSpecificDeviceId: z.string().trim().min(1, 'is required').max(256),
      userId: userId.optional(),
    }),
    z.object({ device: deviceSchema, link: z.object({ userId: z.string() }).nullable() }),
  ),
  'emulator:linkDevice': op(
    z.object({ deviceId: requiredId, userId }),
    z.object({ deviceId: z.string(), userId: z.string() }),
  ),
  'emulator:advanceClock': op(clockAdvanceInputSchema, clockSchema),
  'emulator:resetClock': op(none, clockSchema),
  'emulator:injectFault': op(faultInputSchema, faultSchema),
  'emulator:clearFaults': op(none, z.object({ cleared: z.literal(true) })),
  /** A user access token without the login flow, for consoles that need one. */
  'emulator:mintUserToken': op(mintUserTokenInputSchema, userTokenSchema),
  'emulator:listUserTokens': op(
    z.object({ channelId: z.string().optional(), userId: z.string().optional() }),
    z.array(userTokenSchema),
  ),
} as const;

export const emulatorEvents = {
  'emulator:activity': activitySchema,
} as const;
