// The IPC binding over the real app service (temp data dir, in-memory secrets, embedded
// emulator), with ipcMain and the window replaced by recording fakes.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { operations, type Result } from '../../src/core/app/contract';
import { startApp, type AppService } from '../../src/core/app/service';
import { MemoryCredentialStore } from '../../src/core/secrets/credential-store';

type Handler = (event: unknown, input: unknown) => Promise<Result<unknown>>;

const fake = vi.hoisted(() => {
  const handlers = new Map<string, Handler>();
  const windows: { webContents: FakeContents }[] = [];
  class FakeContents {
    readonly send = vi.fn();
    constructor(
      private url: string,
      private destroyed = false,
    ) {}
    getURL = () => this.url;
    isDestroyed = () => this.destroyed;
  }
  return {
    handlers,
    windows,
    FakeContents,
    ipcMain: {
      handle: vi.fn((name: string, handler: Handler) => {
        if (handlers.has(name)) throw new Error(`second handler for ${name}`);
        handlers.set(name, handler);
      }),
      removeHandler: vi.fn((name: string) => handlers.delete(name)),
    },
  };
});

vi.mock('electron', () => ({
  ipcMain: fake.ipcMain,
  BrowserWindow: { getAllWindows: () => fake.windows },
  session: {},
  shell: {},
}));

const { bindIpc } = await import('../../src/main/ipc');
const { IPC_EVENT_CHANNEL: EVENT_CHANNEL } = await import('../../src/core/app/contract');
const { appUrl } = await import('../../src/main/window');

const fromApp = () => ({ senderFrame: { url: `${appUrl()}#/products` } });

function call(name: string, input: unknown, event: unknown = fromApp()): Promise<Result<unknown>> {
  const handler = fake.handlers.get(name);
  if (!handler) throw new Error(`${name} is not bound`);
  return handler(event, input);
}

describe('IPC over the real app service', () => {
  let dataDir: string;
  let service: AppService;
  let unbind: () => void;
  const appWindow = { webContents: new fake.FakeContents('') };

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'devicebench-ipc-'));
    service = await startApp({
      dataDir,
      credentials: new MemoryCredentialStore(),
      keychain: { kind: 'memory', reason: 'tests' },
      version: '0.0.0-test',
    });
    appWindow.webContents = new fake.FakeContents(appUrl());
    fake.windows.push(appWindow);
    unbind = bindIpc(service);
  });

  afterAll(async () => {
    unbind?.();
    fake.windows.length = 0;
    await service?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('binds every contract operation and nothing else', () => {
    expect([...fake.handlers.keys()].sort()).toEqual(Object.keys(operations).sort());
  });

  it('answers bad input with the field name and changes nothing', async () => {
    const result = await call('things:createTrialProduct', { name: '' });
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', fields: [expect.objectContaining({ field: 'name' })] },
    });
    expect(await call('things:listTrialProducts', {})).toEqual({ ok: true, value: [] });
  });

  it('runs a valid call and pushes the emulator activity it caused to the window', async () => {
    const created = await call('things:createTrialProduct', { name: 'Bench board' });
    expect(created).toMatchObject({ ok: true, value: { name: 'Bench board' } });

    const listed = await call('things:listTrialProducts', undefined);
    expect(listed.ok && listed.value).toHaveLength(1);

    await vi.waitFor(() =>
      expect(appWindow.webContents.send).toHaveBeenCalledWith(
        EVENT_CHANNEL,
        'emulator:activity',
        expect.objectContaining({ method: 'POST', status: expect.any(Number) }),
      ),
    );
  });

  it('refuses calls from frames that are not the app', async () => {
    for (const event of [
      { senderFrame: { url: 'https://evil.example/' } },
      { senderFrame: { url: 'file:///tmp/other.html' } },
      { senderFrame: null },
    ]) {
      await expect(call('things:createTrialProduct', { name: 'Injected' }, event)).rejects.toThrow(
        /only the DeviceBench window/,
      );
    }
    const listed = await call('things:listTrialProducts', {});
    expect(listed.ok && listed.value).toHaveLength(1);
  });
});

describe('event forwarding and unbinding', () => {
  const subscribers = new Map<string, (payload: unknown) => void>();
  const unsubscribed = vi.fn();
  const service: AppService = {
    invoke: vi.fn(async () => ({ ok: true as const, value: {} })),
    subscribe: (event, handler) => {
      subscribers.set(event, handler);
      return () => unsubscribed(event);
    },
    downloadAuditCsv: vi.fn(),
    close: async () => {},
  };

  beforeEach(() => {
    fake.handlers.clear();
    fake.windows.length = 0;
    subscribers.clear();
    unsubscribed.mockClear();
  });

  it('sends each event to the app window only', () => {
    const app = { webContents: new fake.FakeContents(appUrl()) };
    const foreign = { webContents: new fake.FakeContents('https://evil.example/') };
    const closed = { webContents: new fake.FakeContents(appUrl(), true) };
    fake.windows.push(app, foreign, closed);
    const unbind = bindIpc(service);

    const payload = { seq: 1, method: 'GET', path: '/v2/bot/info' };
    subscribers.get('emulator:activity')?.(payload);

    expect(app.webContents.send).toHaveBeenCalledExactlyOnceWith(
      EVENT_CHANNEL,
      'emulator:activity',
      payload,
    );
    expect(foreign.webContents.send).not.toHaveBeenCalled();
    expect(closed.webContents.send).not.toHaveBeenCalled();
    unbind();
  });

  it('removes every handler and subscription when unbound', () => {
    const unbind = bindIpc(service);
    expect(fake.handlers.size).toBe(Object.keys(operations).length);
    unbind();
    expect(fake.handlers.size).toBe(0);
    expect(unsubscribed).toHaveBeenCalledWith('emulator:activity');
  });
});
