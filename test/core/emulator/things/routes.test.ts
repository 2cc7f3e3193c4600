// The device service emulator, through HTTP: every endpoint, every documented status.
import { beforeEach, describe, expect, it } from 'vitest';
import { useEmulator } from '../../../helpers/emulator';

const emu = useEmulator();
const UUID_A = '0000aaaa-0000-1000-8000-00805f9b34fb';
const UUID_B = '0000bbbb-0000-1000-8000-00805f9b34fb';

async function newChannel() {
  const { body } = await emu().admin('POST', '/channels', { name: 'Other' });
  return (body as { channelAccessToken: string }).channelAccessToken;
}

// Each test works on a channel of its own, so the 10-product limit of one never touches another.
let token = '';
beforeEach(async () => {
  token = await newChannel();
});
const call = (method: string, path: string, body?: unknown, t: string | null = token) =>
  emu().call(method, path, body, t);

async function createProduct(name = 'Lamp', t = token) {
  const res = await call('POST', '/things/v1/trial/products', { name }, t);
  expect(res.status).toBe(200);
  return res.body as { id: string; serviceUuid: string; channelId: number };
}

const validSet = {
  autoClose: true,
  suppressionInterval: 5000,
  scenarios: [
    {
      trigger: { type: 'IMMEDIATE' },
      actions: [
        { type: 'GATT_WRITE', serviceUuid: UUID_A, characteristicUuid: UUID_B, data: 'AQI=' },
        { type: 'SLEEP', sleepMillis: 100 },
        { type: 'GATT_READ', serviceUuid: UUID_A, characteristicUuid: UUID_B },
      ],
    },
    {
      trigger: { type: 'BLE_NOTIFICATION', serviceUuid: UUID_A, characteristicUuid: UUID_B },
      actions: [],
    },
  ],
};

describe('trial products', () => {
  it('creates a BLE trial product with auto-numbered UUIDs on the caller channel', async () => {
    const token = await newChannel();
    const a = await createProduct('Lamp', token);
    const b = await createProduct('Fan', token);
    expect(a).toMatchObject({ name: 'Lamp', type: 'BLE' });
    expect(typeof a.channelId).toBe('number');
    for (const key of ['serviceUuid', 'psdiServiceUuid', 'psdiCharacteristicUuid'])
      expect((a as unknown as Record<string, string>)[key]).toMatch(
        /^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/,
      );
    expect(a.serviceUuid).not.toBe(b.serviceUuid);
    expect(a.id).not.toBe(b.id);
  });

  it('hands every product the platform PSDI pair its starter firmware serves', async () => {
    const platformPair = {
      psdiServiceUuid: 'e625601e-9e55-4597-a598-76018a0d293d',
      psdiCharacteristicUuid: '26e2b12b-85f0-4f3f-9fdd-91d114270e6e',
    };
    const other = await newChannel();
    const created = [await createProduct('Lamp'), await createProduct('Fan', other)];
    for (const product of created) expect(product).toMatchObject(platformPair);
    const listed = await call('GET', '/things/v1/trial/products', undefined, other);
    expect(listed.body).toEqual([expect.objectContaining({ name: 'Fan', ...platformPair })]);
  });

  it('lists only the caller channel products, oldest first', async () => {
    const token = await newChannel();
    await createProduct('One', token);
    await createProduct('Two', token);
    const res = await call('GET', '/things/v1/trial/products', undefined, token);
    expect(res.status).toBe(200);
    expect((res.body as { name: string }[]).map((p) => p.name)).toEqual(['One', 'Two']);
  });

  it('lists what is there after every create and delete', async () => {
    const names = async () =>
      ((await call('GET', '/things/v1/trial/products')).body as { name: string }[]).map(
        (p) => p.name,
      );
    expect(await names()).toEqual([]);
    const a = await createProduct('A');
    expect(await names()).toEqual(['A']);
    await createProduct('B');
    expect(await names()).toEqual(['A', 'B']);
    await call('DELETE', `/things/v1/trial/products/${a.id}`);
    expect(await names()).toEqual(['B']);
  });

  it('answers 400 naming the field when name is missing or empty', async () => {
    for (const body of [{}, { name: '' }, { name: 42 }]) {
      const res = await call('POST', '/things/v1/trial/products', body);
      expect(res.status).toBe(400);
      expect((res.body as { message: string }).message).toContain('name');
    }
  });

  it('refuses the 11th trial product on a channel with 403, and counts per channel', async () => {
    const token = await newChannel();
    for (let i = 1; i <= 10; i++) await createProduct(`P${i}`, token);
    const res = await call('POST', '/things/v1/trial/products', { name: 'P11' }, token);
    expect(res.status).toBe(403);
    expect((res.body as { message: string }).message).toMatch(/maximum/i);
    const list = await call('GET', '/things/v1/trial/products', undefined, token);
    expect(list.body).toHaveLength(10);
    // another channel is unaffected
    expect(
      (await call('POST', '/things/v1/trial/products', { name: 'x' }, await newChannel())).status,
    ).toBe(200);
  });

  it('deletes with 204, then 404; another channel cannot delete it', async () => {
    const product = await createProduct();
    const other = await newChannel();
    expect(
      (await call('DELETE', `/things/v1/trial/products/${product.id}`, undefined, other)).status,
    ).toBe(404);
    expect((await call('DELETE', `/things/v1/trial/products/${product.id}`)).status).toBe(204);
    expect((await call('DELETE', `/things/v1/trial/products/${product.id}`)).status).toBe(404);
    expect((await call('DELETE', '/things/v1/trial/products/nope')).status).toBe(404);
  });
});

describe('scenario sets', () => {
  it('creates at revision 1, increments on each change, keeps createdAt and scenario ids sent back', async () => {
    const { id } = await createProduct();
    const first = await call('PUT', `/things/v1/products/${id}/scenario-set`, validSet);
    expect(first.status).toBe(200);
    const set1 = first.body as {
      revision: number;
      createdAt: number;
      updatedAt: number;
      productId: string;
      scenarios: { id: string }[];
    };
    expect(set1).toMatchObject({
      productId: id,
      revision: 1,
      autoClose: true,
      suppressionInterval: 5000,
    });
    expect(set1.scenarios.every((s) => typeof s.id === 'string' && s.id.length > 0)).toBe(true);
    expect(set1.updatedAt).toBe(set1.createdAt);

    await emu().admin('POST', '/clock/advance', { ms: 60_000 });
    const second = await call('PUT', `/things/v1/products/${id}/scenario-set`, {
      ...validSet,
      autoClose: false,
      suppressionInterval: 0,
      scenarios: [
        { ...validSet.scenarios[0], id: set1.scenarios[0]!.id },
        { ...validSet.scenarios[1], id: 'made-up' },
      ],
    });
    const set2 = second.body as typeof set1;
    expect(set2.revision).toBe(2);
    expect(set2.createdAt).toBe(set1.createdAt);
    expect(set2.updatedAt).toBeGreaterThanOrEqual(set1.createdAt + 60_000);
    expect(set2.scenarios[0]!.id).toBe(set1.scenarios[0]!.id);
    expect(set2.scenarios[1]!.id).not.toBe('made-up');

    const got = await call('GET', `/things/v1/products/${id}/scenario-set`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(set2);
  });

  it('GET and DELETE answer 404 when there is no set; DELETE answers 204 when there is', async () => {
    const { id } = await createProduct();
    expect((await call('GET', `/things/v1/products/${id}/scenario-set`)).status).toBe(404);
    expect((await call('DELETE', `/things/v1/products/${id}/scenario-set`)).status).toBe(404);
    await call('PUT', `/things/v1/products/${id}/scenario-set`, validSet);
    expect((await call('DELETE', `/things/v1/products/${id}/scenario-set`)).status).toBe(204);
    expect((await call('GET', `/things/v1/products/${id}/scenario-set`)).status).toBe(404);
  });

  it('answers 404 for a missing product or another channel product', async () => {
    const { id } = await createProduct();
    const other = await newChannel();
    for (const [method, body] of [['GET'], ['PUT', validSet], ['DELETE']] as const) {
      expect(
        (await call(method, `/things/v1/products/${id}/scenario-set`, body, other)).status,
      ).toBe(404);
      expect((await call(method, '/things/v1/products/missing/scenario-set', body)).status).toBe(
        404,
      );
    }
  });

  const scenario = (trigger: object, actions: object[] = []) => ({
    autoClose: true,
    suppressionInterval: 0,
    scenarios: [{ trigger, actions }],
  });
  const badSets: [string, unknown, string][] = [
    ['not an object', [1, 2], '(body)'],
    ['autoClose missing', { suppressionInterval: 0, scenarios: [] }, 'autoClose'],
    [
      'negative suppressionInterval',
      { autoClose: true, suppressionInterval: -1, scenarios: [] },
      'suppressionInterval',
    ],
    ['scenarios missing', { autoClose: true, suppressionInterval: 0 }, 'scenarios'],
    ['unknown trigger type', scenario({ type: 'ON_TIMER' }), 'scenarios[0].trigger.type'],
    [
      'UUIDs on IMMEDIATE',
      scenario({ type: 'IMMEDIATE', serviceUuid: UUID_A }),
      'scenarios[0].trigger.serviceUuid',
    ],
    [
      'notification without UUIDs',
      scenario({ type: 'BLE_NOTIFICATION', serviceUuid: UUID_A }),
      'scenarios[0].trigger.characteristicUuid',
    ],
    [
      '16-bit UUID',
      scenario({ type: 'BLE_NOTIFICATION', serviceUuid: '180f', characteristicUuid: UUID_B }),
      'scenarios[0].trigger.serviceUuid',
    ],
    [
      'actions missing',
      { autoClose: true, suppressionInterval: 0, scenarios: [{ trigger: { type: 'IMMEDIATE' } }] },
      'scenarios[0].actions',
    ],
    [
      'unknown action type',
      scenario({ type: 'IMMEDIATE' }, [{ type: 'GATT_NOTIFY' }]),
      'scenarios[0].actions[0].type',
    ],
    [
      'SLEEP without sleepMillis',
      scenario({ type: 'IMMEDIATE' }, [{ type: 'SLEEP' }]),
      'scenarios[0].actions[0].sleepMillis',
    ],
    [
      'sleepMillis on GATT_READ',
      scenario({ type: 'IMMEDIATE' }, [
        { type: 'GATT_READ', serviceUuid: UUID_A, characteristicUuid: UUID_B, sleepMillis: 5 },
      ]),
      'scenarios[0].actions[0].sleepMillis',
    ],
    [
      'UUIDs on SLEEP',
      scenario({ type: 'IMMEDIATE' }, [{ type: 'SLEEP', sleepMillis: 5, serviceUuid: UUID_A }]),
      'scenarios[0].actions[0].serviceUuid',
    ],
    [
      'GATT_READ without characteristic',
      scenario({ type: 'IMMEDIATE' }, [{ type: 'GATT_READ', serviceUuid: UUID_A }]),
      'scenarios[0].actions[0].characteristicUuid',
    ],
    [
      'data on GATT_READ',
      scenario({ type: 'IMMEDIATE' }, [
        { type: 'GATT_READ', serviceUuid: UUID_A, characteristicUuid: UUID_B, data: 'AA==' },
      ]),
      'scenarios[0].actions[0].data',
    ],
    [
      'GATT_WRITE without data',
      scenario({ type: 'IMMEDIATE' }, [
        { type: 'GATT_WRITE', serviceUuid: UUID_A, characteristicUuid: UUID_B },
      ]),
      'scenarios[0].actions[0].data',
    ],
    [
      'data not base64',
      scenario({ type: 'IMMEDIATE' }, [
        {
          type: 'GATT_WRITE',
          serviceUuid: UUID_A,
          characteristicUuid: UUID_B,
          data: 'not base64!',
        },
      ]),
      'scenarios[0].actions[0].data',
    ],
    [
      'malformed action UUID',
      scenario({ type: 'IMMEDIATE' }, [
        { type: 'GATT_READ', serviceUuid: 'zzzz', characteristicUuid: UUID_B },
      ]),
      'scenarios[0].actions[0].serviceUuid',
    ],
  ];

  it.each(badSets)('answers 400 naming the field: %s', async (_label, body, field) => {
    const { id } = await createProduct();
    const res = await call('PUT', `/things/v1/products/${id}/scenario-set`, body);
    expect(res.status).toBe(400);
    const answer = res.body as { message: string; details: { property: string }[] };
    expect(answer.message).toContain(field);
    expect(answer.details.map((d) => d.property)).toContain(field);
    // nothing was stored
    expect((await call('GET', `/things/v1/products/${id}/scenario-set`)).status).toBe(404);
  });

  // Bounds the platform leaves open (docs/decisions.md, "Validation that reads like a person"),
  // sent as raw JSON text so the numbers reach the emulator exactly as written.
  const rawSet = (suppressionInterval: string, sleepMillis: string) =>
    `{"autoClose":true,"suppressionInterval":${suppressionInterval},"scenarios":[{"trigger":{"type":"IMMEDIATE"},"actions":[{"type":"SLEEP","sleepMillis":${sleepMillis}}]}]}`;
  it.each([
    [
      'a 1000-day SLEEP',
      rawSet('0', '86400000000'),
      'scenarios[0].actions[0].sleepMillis',
      'must be between 0 and 3600000 milliseconds',
    ],
    [
      'a fractional SLEEP',
      rawSet('0', '1.5'),
      'scenarios[0].actions[0].sleepMillis',
      'must be a whole number of milliseconds',
    ],
    [
      'suppressionInterval 1e+23',
      rawSet('1e+23', '100'),
      'suppressionInterval',
      'must be between 0 and 86400000 milliseconds',
    ],
    [
      'suppressionInterval past 2^53',
      rawSet('9007199254740993', '100'),
      'suppressionInterval',
      'must be between 0 and 86400000 milliseconds',
    ],
  ])('refuses %s in plain words, naming the property', async (_label, body, property, rule) => {
    const { id } = await createProduct();
    const res = await call('PUT', `/things/v1/products/${id}/scenario-set`, body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      message: `Invalid value: ${property}: ${rule}`,
      details: [{ property, message: rule }],
    });
    expect((await call('GET', `/things/v1/products/${id}/scenario-set`)).status).toBe(404);
  });

  it('takes a SLEEP of exactly one hour and a suppressionInterval of one day', async () => {
    const { id } = await createProduct();
    const res = await call(
      'PUT',
      `/things/v1/products/${id}/scenario-set`,
      rawSet('86400000', '3600000'),
    );
    expect(res.status).toBe(200);
  });

  it('a rejected update leaves the stored revision as it was', async () => {
    const { id } = await createProduct();
    await call('PUT', `/things/v1/products/${id}/scenario-set`, validSet);
    const bad = await call('PUT', `/things/v1/products/${id}/scenario-set`, {
      ...validSet,
      autoClose: 'yes',
    });
    expect(bad.status).toBe(400);
    const got = await call('GET', `/things/v1/products/${id}/scenario-set`);
    expect((got.body as { revision: number }).revision).toBe(1);
  });

  it('goes away with its product', async () => {
    const { id } = await createProduct();
    await call('PUT', `/things/v1/products/${id}/scenario-set`, validSet);
    await call('DELETE', `/things/v1/trial/products/${id}`);
    expect((await call('GET', `/things/v1/products/${id}/scenario-set`)).status).toBe(404);
  });
});

describe('devices and links', () => {
  const userId = `U${'a'.repeat(32)}`;

  it('registers a device through the admin API, then gets it by id and its links by product and user', async () => {
    const product = await createProduct('Thermo');
    const reg = await emu().admin('POST', '/things/devices', {
      productId: product.id,
      productSpecificDeviceId: 'PSDI-0001',
      userId,
    });
    expect(reg.status).toBe(201);
    const { device } = reg.body as { device: { id: string } };

    const got = await call('GET', `/things/v1/devices/${device.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      id: device.id,
      productId: product.id,
      productSpecificDeviceId: 'PSDI-0001',
    });

    const links = await call('GET', `/things/v1/products/${product.id}/users/${userId}/links`);
    expect(links.status).toBe(200);
    expect(links.body).toEqual({
      items: [{ userId, device: got.body, deviceDisplayName: 'Thermo' }],
    });
  });

  it('answers an empty list for a user with no link', async () => {
    const product = await createProduct();
    const res = await call(
      'GET',
      `/things/v1/products/${product.id}/users/U${'b'.repeat(32)}/links`,
    );
    expect(res).toMatchObject({ status: 200, body: { items: [] } });
  });

  it('answers 400 for a userId that does not match U[0-9a-f]{32}', async () => {
    const product = await createProduct();
    for (const bad of ['U123', `u${'a'.repeat(32)}`, `U${'A'.repeat(32)}`]) {
      const res = await call('GET', `/things/v1/products/${product.id}/users/${bad}/links`);
      expect(res.status).toBe(400);
      expect((res.body as { message: string }).message).toContain('userId');
    }
  });

  it('answers 404 for an unknown device, an unknown product, or another channel', async () => {
    const product = await createProduct();
    const reg = await emu().admin('POST', '/things/devices', {
      productId: product.id,
      productSpecificDeviceId: 'X1',
    });
    const { device } = reg.body as { device: { id: string } };
    const other = await newChannel();
    expect((await call('GET', '/things/v1/devices/nope')).status).toBe(404);
    expect((await call('GET', `/things/v1/devices/${device.id}`, undefined, other)).status).toBe(
      404,
    );
    expect((await call('GET', `/things/v1/products/missing/users/${userId}/links`)).status).toBe(
      404,
    );
    expect(
      (
        await call(
          'GET',
          `/things/v1/products/${product.id}/users/${userId}/links`,
          undefined,
          other,
        )
      ).status,
    ).toBe(404);
  });

  it('admin refuses the same PSDI twice for one product and names the field', async () => {
    const product = await createProduct();
    const body = { productId: product.id, productSpecificDeviceId: 'DUP' };
    expect((await emu().admin('POST', '/things/devices', body)).status).toBe(201);
    const again = await emu().admin('POST', '/things/devices', body);
    expect(again.status).toBe(409);
    expect((again.body as { message: string }).message).toContain('productSpecificDeviceId');
    const missing = await emu().admin('POST', '/things/devices', { productId: product.id });
    expect(missing.status).toBe(400);
    expect((missing.body as { message: string }).message).toContain('productSpecificDeviceId');
  });
});

describe('authentication', () => {
  it.each([
    ['GET', '/things/v1/trial/products'],
    ['POST', '/things/v1/trial/products'],
    ['DELETE', '/things/v1/trial/products/1'],
    ['GET', '/things/v1/devices/1'],
    ['GET', `/things/v1/products/1/users/U${'a'.repeat(32)}/links`],
    ['PUT', '/things/v1/products/1/scenario-set'],
    ['GET', '/things/v1/products/1/scenario-set'],
    ['DELETE', '/things/v1/products/1/scenario-set'],
  ])('%s %s answers 401 without a token and with an unknown one', async (method, path) => {
    const body = method === 'POST' || method === 'PUT' ? { name: 'x' } : undefined;
    expect((await call(method, path, body, null)).status).toBe(401);
    const res = await call(method, path, body, 'not-a-token');
    expect(res.status).toBe(401);
    expect((res.body as { message: string }).message).toMatch(/Authentication failed/);
  });
});
