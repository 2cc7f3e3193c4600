// The window's fences, with Electron replaced by recording fakes: renderer isolation, the CSP,
// popups and navigation.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

type Listener = (...args: unknown[]) => void;

const fake = vi.hoisted(() => {
  const created: FakeWindow[] = [];
  class FakeWindow {
    readonly listeners = new Map<string, Listener>();
    openHandler: ((details: { url: string }) => { action: string }) | undefined;
    readonly webContents = {
      setWindowOpenHandler: (handler: FakeWindow['openHandler']) => {
        this.openHandler = handler;
      },
      on: (name: string, listener: Listener) => {
        this.listeners.set(name, listener);
      },
    };
    readonly loadURL = vi.fn(async () => {});
    readonly loadFile = vi.fn(async () => {});
    readonly once = vi.fn();
    constructor(readonly options: { webPreferences: Record<string, unknown> }) {
      created.push(this);
    }
  }
  return {
    created,
    FakeWindow,
    onHeadersReceived: vi.fn(),
    setPermissionRequestHandler: vi.fn(),
    openExternal: vi.fn(async () => {}),
  };
});

vi.mock('electron', () => ({
  BrowserWindow: fake.FakeWindow,
  session: {
    defaultSession: {
      webRequest: { onHeadersReceived: fake.onHeadersReceived },
      setPermissionRequestHandler: fake.setPermissionRequestHandler,
    },
  },
  shell: { openExternal: fake.openExternal },
}));

const { appUrl, createMainWindow, hardenSession } = await import('../../src/main/window');

const DEV = 'http://localhost:5173';
const BUILT_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self' ws://127.0.0.1:* http://127.0.0.1:*; object-src 'none'; base-uri 'none'; " +
  "frame-ancestors 'none'";

beforeEach(() => {
  delete process.env['ELECTRON_RENDERER_URL'];
  fake.created.length = 0;
  vi.clearAllMocks();
});
afterEach(() => {
  delete process.env['ELECTRON_RENDERER_URL'];
});

function navigate(window: InstanceType<typeof fake.FakeWindow>, url: string): boolean {
  const event = { url, preventDefault: vi.fn() };
  window.listeners.get('will-navigate')?.(event, url);
  return event.preventDefault.mock.calls.length === 0;
}

describe('the main window', () => {
  it('isolates the renderer: sandbox, context isolation, no Node, web security', () => {
    const { options } = createMainWindow() as unknown as InstanceType<typeof fake.FakeWindow>;
    expect(options.webPreferences).toMatchObject({
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      webSecurity: true,
    });
    expect(options.webPreferences['preload']).toMatch(/[/\\]preload[/\\]index\.cjs$/);
  });

  it('loads the built renderer from disk, or the dev server while developing', () => {
    const built = createMainWindow() as unknown as InstanceType<typeof fake.FakeWindow>;
    expect(built.loadFile).toHaveBeenCalledWith(
      expect.stringMatching(/[/\\]renderer[/\\]index\.html$/),
    );
    expect(built.loadURL).not.toHaveBeenCalled();

    process.env['ELECTRON_RENDERER_URL'] = DEV;
    const dev = createMainWindow() as unknown as InstanceType<typeof fake.FakeWindow>;
    expect(dev.loadURL).toHaveBeenCalledWith(DEV);
    expect(dev.loadFile).not.toHaveBeenCalled();
  });

  it('denies every popup and sends only https links to the browser', () => {
    const window = createMainWindow() as unknown as InstanceType<typeof fake.FakeWindow>;
    const open = (url: string) => window.openHandler?.({ url });

    expect(open('https://developers.example.com/docs')).toEqual({ action: 'deny' });
    expect(fake.openExternal).toHaveBeenCalledExactlyOnceWith(
      'https://developers.example.com/docs',
    );

    for (const url of [
      'http://example.com',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'not a url',
    ]) {
      expect(open(url)).toEqual({ action: 'deny' });
    }
    expect(fake.openExternal).toHaveBeenCalledTimes(1);
  });

  it('blocks navigation anywhere but the built app itself', () => {
    const window = createMainWindow() as unknown as InstanceType<typeof fake.FakeWindow>;
    expect(navigate(window, appUrl())).toBe(true);
    expect(navigate(window, `${appUrl()}#/provisioning`)).toBe(true);
    expect(navigate(window, 'https://evil.example/')).toBe(false);
    expect(navigate(window, 'file:///etc/passwd')).toBe(false);
    expect(navigate(window, 'http://127.0.0.1:8080/')).toBe(false);
  });

  it('blocks navigation away from the dev server origin while developing', () => {
    process.env['ELECTRON_RENDERER_URL'] = DEV;
    const window = createMainWindow() as unknown as InstanceType<typeof fake.FakeWindow>;
    expect(navigate(window, `${DEV}/settings`)).toBe(true);
    expect(navigate(window, 'http://localhost:5174/')).toBe(false);
    expect(navigate(window, 'https://evil.example/')).toBe(false);
  });
});

describe('the session', () => {
  function csp(): string[] {
    const listener = fake.onHeadersReceived.mock.calls[0]?.[0] as Listener;
    const callback = vi.fn();
    listener({ url: 'file:///app/index.html', responseHeaders: { 'X-Kept': ['yes'] } }, callback);
    const { responseHeaders } = callback.mock.calls[0]?.[0] as {
      responseHeaders: Record<string, string[]>;
    };
    expect(responseHeaders['X-Kept']).toEqual(['yes']);
    return responseHeaders['Content-Security-Policy'] ?? [];
  }

  it('sets the strict CSP on every response', () => {
    hardenSession();
    expect(csp()).toEqual([BUILT_CSP]);
  });

  it('lets the vite dev server in, and only it, while developing', () => {
    process.env['ELECTRON_RENDERER_URL'] = DEV;
    hardenSession();
    const [policy] = csp();
    expect(policy).toContain(`script-src 'self' 'unsafe-inline' ${DEV};`);
    expect(policy).toContain(
      `connect-src 'self' ws://127.0.0.1:* http://127.0.0.1:* ${DEV} ws://localhost:5173;`,
    );
    expect(policy).toContain("object-src 'none'");
  });

  it('refuses every permission request', () => {
    hardenSession();
    const handler = fake.setPermissionRequestHandler.mock.calls[0]?.[0] as Listener;
    const callback = vi.fn();
    handler({}, 'media', callback);
    expect(callback).toHaveBeenCalledWith(false);
  });
});
