// The one DeviceBench window and the fences around it: a sandboxed renderer that can reach only
// the preload's bridge, a strict CSP, no popups, and no navigation away from the app.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BrowserWindow, session, shell } from 'electron';
import { contentSecurityPolicy } from '../core/content-security-policy';

/** The vite dev server while developing (`electron-vite dev`), unset in a built app. */
function devServerUrl(): string | undefined {
  return process.env['ELECTRON_RENDERER_URL'] || undefined;
}

function rendererFile(): string {
  return join(import.meta.dirname, '../renderer/index.html');
}

/** The address the window loads: the dev server, or the built renderer on disk. */
export function appUrl(): string {
  return devServerUrl() ?? pathToFileURL(rendererFile()).href;
}

/**
 * Whether a URL is the app itself: same origin as the dev server, or the built index.html
 * (any query or hash). Everything else is foreign content.
 */
export function isAppUrl(url: string): boolean {
  const app = new URL(appUrl());
  let candidate: URL;
  try {
    candidate = new URL(url);
  } catch {
    return false;
  }
  if (app.protocol === 'file:')
    return candidate.protocol === 'file:' && candidate.pathname === app.pathname;
  return candidate.origin === app.origin;
}

/** The renderer's policy (src/core/content-security-policy.ts), with the dev server let in. */
function policy(): string {
  const dev = devServerUrl();
  return contentSecurityPolicy({ devOrigin: dev ? new URL(dev).origin : undefined });
}

/** Applies the CSP to every response and refuses every permission request (camera, USB, …). */
export function hardenSession(): void {
  const header = policy();
  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({
      responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [header] },
    });
  });
  session.defaultSession.setPermissionRequestHandler((_webContents, _permission, callback) =>
    callback(false),
  );
}

/** Only web links leave the app, and they open in the user's browser. */
function openExternally(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return;
  }
  if (parsed.protocol === 'https:') void shell.openExternal(parsed.href);
}

export function createMainWindow(): BrowserWindow {
  const window = new BrowserWindow({
    width: 1280,
    height: 820,
    minWidth: 900,
    minHeight: 600,
    show: false,
    title: 'DeviceBench',
    autoHideMenuBar: true,
    webPreferences: {
      // A sandboxed preload must be CommonJS: Electron runs it without an ES module loader.
      preload: join(import.meta.dirname, '../preload/index.cjs'),
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      webSecurity: true,
    },
  });

  window.once('ready-to-show', () => window.show());
  window.webContents.setWindowOpenHandler(({ url }) => {
    openExternally(url);
    return { action: 'deny' };
  });
  window.webContents.on('will-navigate', (event) => {
    if (!isAppUrl(event.url)) event.preventDefault();
  });

  const dev = devServerUrl();
  const loading = dev ? window.loadURL(dev) : window.loadFile(rendererFile());
  loading.catch((err: unknown) => console.error('DeviceBench could not load its window:', err));
  return window;
}
