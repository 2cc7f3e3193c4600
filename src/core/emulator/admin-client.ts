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
  mintUserTokenInputSchema,
  userSchema,
  userTokenSchema,
  webhookUrlInputSchema,
  type DeliverScenarioResultsInput,
  type FaultInput,
} from './schema';
import { webhookDeliverySchema } from '../webhooks/schema';

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

  webhookDeliveries(filter: { channelId?: string; kind?: string; limit?: number } = {}) {
    const query: Record<string, string> = {};
    for (const [key, value] of Object.entries(filter))
      if (value !== undefined) query[key] = String(value);
    return this.http.request('GET', '/webhooks', {
      query,
      schema: z.array(webhookDeliverySchema),
    });
  }

  webhookUrls() {
    return this.http.request('GET', '/webhooks/urls', {
      schema: z.array(webhookUrlInputSchema.extend({ url: z.string().nullable() })),
    });
  }

  setWebhookUrl(channelId: string, url: string | null) {
    return this.http.request('PUT', '/webhooks/urls', {
      body: { channelId, url },
      schema: webhookUrlInputSchema.extend({ url: z.string().nullable() }),
    });
  }

  sendTestWebhook(channelId: string) {
    return this.http.request('POST', '/webhooks/test', {
      body: { channelId },
      schema: webhookDeliverySchema,
    });
  }

  mintUserToken(input: z.input<typeof mintUserTokenInputSchema>) {
    return this.http.request('POST', '/user-tokens', { body: input, schema: userTokenSchema });
  }

  userTokens(filter: { channelId?: string; userId?: string } = {}) {
    const query: Record<string, string> = {};
    for (const [key, value] of Object.entries(filter)) if (value) query[key] = value;
    return this.http.request('GET', '/user-tokens', { query, schema: z.array(userTokenSchema) });
  }

  /** Sends each result to the product's channel as a scenario result event, in order. */
  deliverScenarioResults(input: DeliverScenarioResultsInput) {
    return this.http.request('POST', '/things/scenario-results', {
      body: input,
      schema: z.array(webhookDeliverySchema),
    });
  }
}
