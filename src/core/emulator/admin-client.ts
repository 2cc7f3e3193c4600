// Typed client for the emulator's admin API, used by the app's Emulator page and by tests.
import { z } from 'zod';
import { PlatformHttp, type HttpOptions } from '../platform/http';
import { deviceSchema } from '../platform/things/schema';
import {
  activitySchema,
  adminStateSchema,
  clockSchema,
  emulatorDeviceSchema,
  faultSchema,
  userSchema,
  type FaultInput,
} from './schema';

export class EmulatorAdminClient {
  private readonly http: PlatformHttp;

  constructor(adminUrl: string, options?: HttpOptions) {
    this.http = new PlatformHttp({ baseUrl: adminUrl }, { maxRetries: 0, ...options });
  }

  state() {
    return this.http.request('GET', '/state', { schema: adminStateSchema });
  }

  log(limit = 100) {
    return this.http.request('GET', '/log', {
      query: { limit: String(limit) },
      schema: z.array(activitySchema),
    });
  }

  addUser(displayName: string, userId?: string) {
    return this.http.request('POST', '/users', {
      body: { displayName, userId },
      schema: userSchema,
    });
  }

  advanceClock(ms: number) {
    return this.http.request('POST', '/clock/advance', { body: { ms }, schema: clockSchema });
  }

  resetClock() {
    return this.http.request('POST', '/clock/reset', { schema: clockSchema });
  }

  injectFault(fault: FaultInput) {
    return this.http.request('POST', '/faults', { body: fault, schema: faultSchema });
  }

  clearFaults() {
    return this.http.request('DELETE', '/faults');
  }

  devices() {
    return this.http.request('GET', '/things/devices', { schema: z.array(emulatorDeviceSchema) });
  }

  registerDevice(input: { productId: string; productSpecificDeviceId: string; userId?: string }) {
    return this.http.request('POST', '/things/devices', {
      body: input,
      schema: z.object({
        device: deviceSchema,
        link: z.object({ userId: z.string() }).nullable(),
      }),
    });
  }

  linkDevice(deviceId: string, userId: string) {
    return this.http.request('POST', '/things/links', {
      body: { deviceId, userId },
      schema: z.object({ deviceId: z.string(), userId: z.string() }),
    });
  }
}
