// Typed client for the device service (`/things/v1`, docs/platform-api.md#things-endpoints).
import { PlatformHttp, type HttpOptions, type PlatformTarget } from '../http';
import {
  deviceSchema,
  linksSchema,
  scenarioSetSchema,
  trialProductSchema,
  type Device,
  type Links,
  type ScenarioSet,
  type ScenarioSetInput,
  type TrialProduct,
} from './schema';
import { z } from 'zod';

const seg = encodeURIComponent;

export class ThingsClient {
  private readonly http: PlatformHttp;

  constructor(target: PlatformTarget, options?: HttpOptions) {
    this.http = new PlatformHttp(target, options);
  }

  getDevice(deviceId: string): Promise<Device> {
    return this.http.request('GET', `/things/v1/devices/${seg(deviceId)}`, {
      schema: deviceSchema,
    });
  }

  getLinks(productId: string, userId: string): Promise<Links> {
    return this.http.request(
      'GET',
      `/things/v1/products/${seg(productId)}/users/${seg(userId)}/links`,
      {
        schema: linksSchema,
      },
    );
  }

  createTrialProduct(name: string): Promise<TrialProduct> {
    return this.http.request('POST', '/things/v1/trial/products', {
      body: { name },
      schema: trialProductSchema,
    });
  }

  listTrialProducts(): Promise<TrialProduct[]> {
    return this.http.request('GET', '/things/v1/trial/products', {
      schema: z.array(trialProductSchema),
    });
  }

  deleteTrialProduct(productId: string): Promise<void> {
    return this.http.request('DELETE', `/things/v1/trial/products/${seg(productId)}`);
  }

  putScenarioSet(productId: string, set: ScenarioSetInput): Promise<ScenarioSet> {
    return this.http.request('PUT', `/things/v1/products/${seg(productId)}/scenario-set`, {
      body: set,
      schema: scenarioSetSchema,
    });
  }

  getScenarioSet(productId: string): Promise<ScenarioSet> {
    return this.http.request('GET', `/things/v1/products/${seg(productId)}/scenario-set`, {
      schema: scenarioSetSchema,
    });
  }

  deleteScenarioSet(productId: string): Promise<void> {
    return this.http.request('DELETE', `/things/v1/products/${seg(productId)}/scenario-set`);
  }
}
