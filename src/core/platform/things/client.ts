// Typed client for the device service (`/things/v1`, docs/platform-api.md#things-endpoints).
import { PlatformHttp, type HttpOptions, type PlatformTarget } from '../http';
import { pathSegment } from '../url-text';
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

export class ThingsClient {
  private readonly http: PlatformHttp;

  constructor(target: PlatformTarget, options?: HttpOptions) {
    this.http = new PlatformHttp(target, options);
  }

  getDevice(deviceId: string): Promise<Device> {
    return this.http.request('GET', `/things/v1/devices/${pathSegment(deviceId, 'deviceId')}`, {
      schema: deviceSchema,
    });
  }

  getLinks(productId: string, userId: string): Promise<Links> {
    return this.http.request(
      'GET',
      `/things/v1/products/${pathSegment(productId, 'productId')}/users/${pathSegment(userId, 'userId')}/links`,
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
    return this.http.request(
      'DELETE',
      `/things/v1/trial/products/${pathSegment(productId, 'productId')}`,
    );
  }

  putScenarioSet(productId: string, set: ScenarioSetInput): Promise<ScenarioSet> {
    return this.http.request(
      'PUT',
      `/things/v1/products/${pathSegment(productId, 'productId')}/scenario-set`,
      {
        body: set,
        schema: scenarioSetSchema,
      },
    );
  }

  getScenarioSet(productId: string): Promise<ScenarioSet> {
    return this.http.request(
      'GET',
      `/things/v1/products/${pathSegment(productId, 'productId')}/scenario-set`,
      {
        schema: scenarioSetSchema,
      },
    );
  }

  deleteScenarioSet(productId: string): Promise<void> {
    return this.http.request(
      'DELETE',
      `/things/v1/products/${pathSegment(productId, 'productId')}/scenario-set`,
    );
  }
}
