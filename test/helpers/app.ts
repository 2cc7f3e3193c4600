// Starts the app's service on a fresh data dir for one test file, with secrets in memory and
// the webhook receiver on a free port, and calls its operations the way the UI does.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { AppErrorBody } from '../../src/core/app/contract';
import type { ScannedDevice } from '../../src/core/usecases/bench/bench-schema';
import { startApp, type AppOptions, type AppService } from '../../src/core/app/service';
import { MemoryCredentialStore } from '../../src/core/secrets/credential-store';

export interface AppHarness {
  app: AppService;
  /** The app's data folder (a temp dir of this test file). */
  dataDir: string;
  /** The operation's value; throws with the error body when it fails. */
  ok<T>(name: string, input?: unknown): Promise<T>;
  /** The operation's error; throws when it succeeds. */
  fails(name: string, input: unknown): Promise<AppErrorBody>;
}

export function useApp(
  prefix: string,
  {
    prepareDataDir,
    ...options
  }: Pick<AppOptions, 'chooseExportFile'> & {
    /** Runs on the fresh data folder before the app starts, to begin from a given state. */
    prepareDataDir?: (dataDir: string) => void;
  } = {},
): () => AppHarness {
  let app: AppService | undefined;
  const dataDir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  beforeAll(async () => {
    prepareDataDir?.(dataDir);
    app = await startApp({
      dataDir,
      credentials: new MemoryCredentialStore(),
      keychain: { kind: 'memory', reason: 'test' },
      version: '0.0.0-test',
      webhookPort: 0,
      ...options,
    });
  });
  afterAll(() => app?.close());
  return () => {
    const running = app;
    if (!running) throw new Error('the app is not running (beforeAll failed?)');
    return {
      app: running,
      dataDir,
      async ok<T>(name: string, input: unknown = {}) {
        const result = await running.invoke(name, input);
        if (!result.ok) throw new Error(`${name}: ${JSON.stringify(result.error)}`);
        return result.value as T;
      },
      async fails(name: string, input: unknown) {
        const result = await running.invoke(name, input);
        if (result.ok) throw new Error(`${name} should have failed`);
        return result.error;
      },
    };
  };
}

/** Scans until a board whose name contains `name` is heard, then stops. */
export async function scanFor(harness: AppHarness, name: string): Promise<ScannedDevice> {
  const found = new Promise<ScannedDevice>((resolve) => {
    const off = harness.app.subscribe('ble:scanBatch', (batch) => {
      const device = (batch as { devices: ScannedDevice[] }).devices.find((d) =>
        d.localName?.includes(name),
      );
      if (device) {
        off();
        resolve(device);
      }
    });
  });
  const { scanId } = await harness.ok<{ scanId: string }>('ble:startScan', {});
  const device = await found;
  await harness.ok('ble:stopScan', { scanId });
  return device;
}
