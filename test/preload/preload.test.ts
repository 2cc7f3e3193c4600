// What the preload puts in the renderer's world, with contextBridge and ipcRenderer faked.
import { EventEmitter } from 'node:events';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { events, operations } from '../../src/core/app/contract';
import type { DeviceBenchBridge } from '../../src/core/app/api';

const fake = vi.hoisted(() => ({
  exposed: new Map<string, unknown>(),
  renderer: undefined as unknown,
}));

vi.mock('electron', async () => {
  const { EventEmitter: Emitter } = await import('node:events');
  const ipcRenderer = Object.assign(new Emitter(), {
    invoke: vi.fn(async (name: string, input: unknown) => ({ ok: true, value: { name, input } })),
  });
  fake.renderer = ipcRenderer;
  return {
    ipcRenderer,
    contextBridge: {
      exposeInMainWorld: vi.fn((key: string, api: unknown) => {
        if (fake.exposed.has(key)) throw new Error(`${key} exposed twice`);
        fake.exposed.set(key, api);
      }),
    },
  };
});

let bridge: DeviceBenchBridge;
let ipcRenderer: EventEmitter & { invoke: ReturnType<typeof vi.fn> };

beforeAll(async () => {
  await import('../../src/preload/index');
  bridge = fake.exposed.get('devicebench') as DeviceBenchBridge;
  ipcRenderer = fake.renderer as typeof ipcRenderer;
});

describe('the preload', () => {
  it('exposes exactly one object, devicebench', () => {
    expect([...fake.exposed.keys()]).toEqual(['devicebench']);
  });

  it('has one method per contract operation, grouped by namespace, plus on', () => {
    const names = Object.entries(bridge as unknown as Record<string, unknown>).flatMap(
      ([ns, value]) =>
        typeof value === 'function' ? [ns] : Object.keys(value as object).map((m) => `${ns}:${m}`),
    );
    expect(names.sort()).toEqual([...Object.keys(operations), 'on'].sort());
  });

  it('never hands out ipcRenderer or any of its functions', () => {
    const ipcFunctions = new Set<unknown>([
      ipcRenderer,
      ipcRenderer.invoke,
      ipcRenderer.on,
      ipcRenderer.emit,
      ipcRenderer.removeListener,
    ]);
    const seen = new Set<unknown>();
    const walk = (value: unknown): void => {
      if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return;
      if (seen.has(value)) return;
      seen.add(value);
      expect(ipcFunctions.has(value)).toBe(false);
      for (const key of Reflect.ownKeys(value)) walk((value as Record<PropertyKey, unknown>)[key]);
    };
    walk(bridge);
  });

  it('invokes the operation by its contract name', async () => {
    const result = await bridge.things.createTrialProduct({ name: 'Bench board' });
    expect(ipcRenderer.invoke).toHaveBeenCalledWith('things:createTrialProduct', {
      name: 'Bench board',
    });
    expect(result).toEqual({
      ok: true,
      value: { name: 'things:createTrialProduct', input: { name: 'Bench board' } },
    });
  });

  it('delivers only the named event, only its payload, until unsubscribed', () => {
    const [event] = Object.keys(events) as (keyof typeof events)[];
    const handler = vi.fn();
    const unsubscribe = bridge.on(event!, handler);
    const payload = { seq: 1, method: 'GET', path: '/v2/bot/info' };

    ipcRenderer.emit('devicebench:event', { sender: ipcRenderer }, 'some:otherEvent', { seq: 0 });
    ipcRenderer.emit('devicebench:event', { sender: ipcRenderer }, event, payload);
    expect(handler).toHaveBeenCalledExactlyOnceWith(payload);

    unsubscribe();
    expect(ipcRenderer.listenerCount('devicebench:event')).toBe(0);
    ipcRenderer.emit('devicebench:event', { sender: ipcRenderer }, event, payload);
    expect(handler).toHaveBeenCalledTimes(1);
  });
});
