// The entry's lifecycle with Electron, the service and the keychain faked: one instance, start
// order, and a quit that waits for the service to close.
import { EventEmitter } from 'node:events';
import { beforeEach, describe, expect, it, vi } from 'vitest';

const fake = vi.hoisted(() => ({
  app: undefined as unknown as EventEmitter & { quit: () => void; whenReady: () => Promise<void> },
  lock: true,
  startFails: false,
  windows: [] as unknown[],
  closeService: undefined as unknown as () => void,
  order: [] as string[],
}));

vi.mock('electron', async () => {
  const { EventEmitter: Emitter } = await import('node:events');
  const app = Object.assign(new Emitter(), {
    requestSingleInstanceLock: vi.fn(() => fake.lock),
    whenReady: vi.fn(async () => {}),
    getPath: vi.fn((name: string) => `/home/bench/.config/DeviceBench#${name}`),
    getVersion: vi.fn(() => '1.2.3'),
    quit: vi.fn(() => {
      const event = { preventDefault: vi.fn() };
      app.emit('will-quit', event);
      fake.order.push(event.preventDefault.mock.calls.length ? 'quit held' : 'quit');
    }),
  });
  fake.app = app as unknown as typeof fake.app;
  return {
    app,
    BrowserWindow: { getAllWindows: () => fake.windows },
    dialog: {
      showErrorBox: vi.fn((title: string) => fake.order.push(`error box: ${title}`)),
      showSaveDialog: vi.fn(),
    },
  };
});

vi.mock('../../src/core/secrets/keychain', () => ({
  openKeychain: vi.fn(async () => {
    fake.order.push('keychain');
    return {
      store: { kind: 'store' },
      status: { kind: 'memory', reason: 'No OS keychain is available.' },
    };
  }),
}));

vi.mock('../../src/core/app/service', () => ({
  startApp: vi.fn(async () => {
    fake.order.push('service');
    if (fake.startFails) throw new Error('The data directory is read-only.');
    return {
      close: () => {
        fake.order.push('closing');
        return new Promise<void>((resolve) => {
          fake.closeService = () => {
            fake.order.push('closed');
            resolve();
          };
        });
      },
    };
  }),
}));

vi.mock('../../src/main/ipc', () => ({
  bindIpc: vi.fn(() => {
    fake.order.push('ipc');
    return () => fake.order.push('unbind');
  }),
}));

vi.mock('../../src/main/window', () => ({
  hardenSession: vi.fn(() => fake.order.push('session')),
  createMainWindow: vi.fn(() => fake.order.push('window')),
}));

async function launch(): Promise<void> {
  vi.resetModules();
  await import('../../src/main/index');
  await vi.waitFor(() => expect(fake.order.at(-1)).toMatch(/window|quit/));
}

beforeEach(() => {
  // A test that failed midway must not leave its will-quit handler on the shared app.
  fake.app?.removeAllListeners();
  fake.windows = [];
  fake.lock = true;
  fake.startFails = false;
  fake.order.length = 0;
  vi.clearAllMocks();
  vi.spyOn(console, 'warn').mockImplementation(() => {});
});

describe('the Electron entry', () => {
  it('starts keychain, service, IPC and window in that order with the user data dir', async () => {
    await launch();
    expect(fake.order).toEqual(['session', 'keychain', 'service', 'ipc', 'window']);
    const { startApp } = await import('../../src/core/app/service');
    expect(startApp).toHaveBeenLastCalledWith({
      dataDir: '/home/bench/.config/DeviceBench#userData',
      credentials: { kind: 'store' },
      keychain: { kind: 'memory', reason: 'No OS keychain is available.' },
      version: '1.2.3',
      bleHost: expect.any(Function),
      chooseExportFile: expect.any(Function),
    });
  });

  it('holds the quit until the service has closed, then quits', async () => {
    await launch();
    fake.order.length = 0;

    fake.app.quit();
    fake.app.quit();
    await vi.waitFor(() => expect(fake.order).toContain('closing'));
    expect(fake.order).toEqual(['quit held', 'quit held', 'unbind', 'closing']);

    fake.closeService();
    await vi.waitFor(() => expect(fake.order.at(-1)).toBe('quit'));
    expect(fake.order.slice(4)).toEqual(['closed', 'quit']);
  });

  it('leaves when another instance already runs', async () => {
    fake.lock = false;
    await launch();
    expect(fake.order).toEqual(['quit']);
    expect(fake.app.whenReady).not.toHaveBeenCalled();
  });

  it('tells the user why it could not start, then quits', async () => {
    fake.startFails = true;
    await launch();
    await vi.waitFor(() => expect(fake.order.at(-1)).toBe('quit'));
    expect(fake.order).toEqual([
      'session',
      'keychain',
      'service',
      'error box: DeviceBench could not start',
      'quit held',
      'quit',
    ]);
  });

  it("asks where to save an export in the save dialog, over the window, in the user's documents", async () => {
    await launch();
    const { startApp } = await import('../../src/core/app/service');
    const { dialog } = await import('electron');
    const [options] = vi.mocked(startApp).mock.lastCall!;
    const choose = options.chooseExportFile!;
    const save = vi.mocked(dialog.showSaveDialog);
    const dialogOptions = {
      defaultPath: expect.stringMatching(/DeviceBench#documents[/\\]audit\.csv$/),
      filters: [{ name: 'CSV', extensions: ['csv'] }],
    };

    save.mockResolvedValueOnce({ canceled: false, filePath: '/home/bench/audit.csv' });
    await expect(choose('audit.csv')).resolves.toBe('/home/bench/audit.csv');
    expect(save).toHaveBeenLastCalledWith(dialogOptions);

    const window = { id: 1 };
    fake.windows = [window];
    save.mockResolvedValueOnce({ canceled: true, filePath: '' });
    await expect(choose('audit.csv')).resolves.toBeUndefined();
    expect(save).toHaveBeenLastCalledWith(window, dialogOptions);
  });
});
