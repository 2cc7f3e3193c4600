// Electron entry: one instance, the keychain, the app service (with its embedded emulator), the
// IPC binding and the window; on quit the service is closed before the process exits.
import { join } from 'node:path';
import { app, BrowserWindow, dialog } from 'electron';
import { startApp } from '../core/app/service';
import { errorMessage } from '../core/errors/message';
import { openKeychain } from '../core/secrets/keychain';
import { launchBleUtility } from './ble-utility';
import { bindIpc } from './ipc';
import { createMainWindow, hardenSession } from './window';

type Stop = () => Promise<void>;

async function start(): Promise<Stop> {
  hardenSession();
  const { store, status } = await openKeychain();
  if (status.kind === 'memory') console.warn(status.reason);
  const service = await startApp({
    dataDir: app.getPath('userData'),
    credentials: store,
    keychain: status,
    version: app.getVersion(),
    bleHost: launchBleUtility,
    chooseExportFile,
  });
  const unbind = bindIpc(service);
  createMainWindow();
  return async () => {
    unbind();
    await service.close();
  };
}

/** The only place an export's path comes from: the user, in the main process's save dialog. */
async function chooseExportFile(fileName: string): Promise<string | undefined> {
  const options = {
    defaultPath: join(app.getPath('documents'), fileName),
    filters: [{ name: 'CSV', extensions: ['csv'] }],
  };
  const [window] = BrowserWindow.getAllWindows();
  const result = await (window
    ? dialog.showSaveDialog(window, options)
    : dialog.showSaveDialog(options));
  return result.canceled ? undefined : result.filePath;
}

function focusOrCreateWindow(): void {
  const [window] = BrowserWindow.getAllWindows();
  if (!window) {
    createMainWindow();
    return;
  }
  if (window.isMinimized()) window.restore();
  window.focus();
}

function run(): void {
  let ready = false;
  const started: Promise<Stop | undefined> = app
    .whenReady()
    .then(start)
    .then(
      (stop) => {
        ready = true;
        return stop;
      },
      (err: unknown) => {
        dialog.showErrorBox('DeviceBench could not start', errorMessage(err));
        app.quit();
        return undefined;
      },
    );

  // The app lives in a window; embedded webviews are never part of it.
  app.on('web-contents-created', (_event, contents) => {
    contents.on('will-attach-webview', (event) => event.preventDefault());
  });
  app.on('second-instance', () => {
    if (ready) focusOrCreateWindow();
  });
  app.on('activate', () => {
    if (ready && BrowserWindow.getAllWindows().length === 0) createMainWindow();
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });

  // will-quit comes after every window has closed; hold the exit until the service (emulator
  // server, open files) has shut down, then quit for real.
  let stopping = false;
  let stopped = false;
  app.on('will-quit', (event) => {
    if (stopped) return;
    event.preventDefault();
    if (stopping) return;
    stopping = true;
    started
      .then((stop) => stop?.())
      .catch((err: unknown) => console.error('DeviceBench did not shut down cleanly:', err))
      .finally(() => {
        stopped = true;
        app.quit();
      });
  });
}

if (app.requestSingleInstanceLock()) run();
else app.quit();
