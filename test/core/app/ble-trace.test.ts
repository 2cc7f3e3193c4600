// "HCI trace" through the app's contract: the btsnoop file of a time window, cut from the
// traces a TraceWriter left in the data folder's traces/, with field-named errors for a bad
// window.
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { traceDirOf } from '../../../src/core/usecases/station-files';
import type { HciTrace } from '../../../src/core/app/contracts/ble';
import { startApp, type AppService } from '../../../src/core/app/service';
import { parseBtsnoop } from '../../../src/core/ble/hci/btsnoop';
import { TraceWriter } from '../../../src/core/ble/hci/trace-store';
import { MemoryCredentialStore } from '../../../src/core/secrets/credential-store';

const T0 = Date.UTC(2026, 10, 23, 22, 0, 0);
const dataDir = mkdtempSync(join(tmpdir(), 'app-trace-'));
let app: AppService | undefined;

beforeAll(async () => {
  app = await startApp({
    dataDir,
    credentials: new MemoryCredentialStore(),
    keychain: { kind: 'memory', reason: 'test' },
    version: '0.0.0-test',
    webhookPort: 0,
  });
  // Two BLE process sessions: the first rotated into a second file.
  const clock = { at: T0 };
  const first = new TraceWriter(traceDirOf(dataDir), { now: () => clock.at, maxFileBytes: 4096 });
  for (let n = 0; n < 6; n += 1) {
    first.record('received', advertisingReport(n, 1000));
    clock.at += 1000;
  }
  first.close();
  const second = new TraceWriter(traceDirOf(dataDir), { now: () => clock.at });
  second.record('sent', Buffer.from([0x01, 0x03, 0x0c, 0x00]));
  second.close();
  // A session that kept its keys, a minute later: LE Enable Encryption with the LTK.
  clock.at = T0 + 60_000;
  const kept = new TraceWriter(traceDirOf(dataDir), { now: () => clock.at, keepKeys: true });
  kept.record('sent', Buffer.concat([Buffer.from('0119201c400011223344556677883412', 'hex'), LTK]));
  kept.close();
});

const LTK = Buffer.from('0f1e2d3c4b5a69788796a5b4c3d2e1f0', 'hex');
afterAll(() => app?.close());

/** An LE Advertising Report event of `size` bytes whose last byte is `n`. */
function advertisingReport(n: number, size: number): Buffer {
  const p = Buffer.alloc(size);
  p.set([0x04, 0x3e, size - 3, 0x02]);
  p[size - 1] = n;
  return p;
}

async function invoke(input: unknown) {
  if (!app) throw new Error('the app did not start');
  return app.invoke('ble:exportTrace', input);
}

describe('ble:exportTrace', () => {
  it('answers the btsnoop file of the window, across files and sessions, in time order', async () => {
    const result = await invoke({ from: T0 + 2000, to: T0 + 6000, label: 'provisioning-12' });
    expect(result.ok).toBe(true);
    const trace = (result as { value: HciTrace }).value;
    expect(trace.fileName).toBe('devicebench-hci-provisioning-12-2026-11-23-22-00-02.btsnoop');
    const file = Buffer.from(trace.data, 'base64');
    expect(file.length).toBe(trace.bytes);
    const { records, trailingBytes } = parseBtsnoop(file);
    expect(trailingBytes).toBe(0);
    expect(trace.packets).toBe(5);
    expect(records.map((r) => [r.timestampUs / 1000 - T0, r.direction, r.data.length])).toEqual([
      [2000, 'received', 1000],
      [3000, 'received', 1000],
      [4000, 'received', 1000],
      [5000, 'received', 1000],
      [6000, 'sent', 4],
    ]);
  });

  it('answers a file with no packets for a window without traffic', async () => {
    const result = await invoke({ from: T0 - 60_000, to: T0 - 1 });
    expect(result).toMatchObject({ ok: true, value: { packets: 0, bytes: 16 } });
    const trace = (result as { value: HciTrace }).value;
    expect(trace.fileName).toBe('devicebench-hci-window-2026-11-23-21-59-00.btsnoop');
    expect(parseBtsnoop(Buffer.from(trace.data, 'base64')).records).toEqual([]);
  });

  it('names the field of a bad window', async () => {
    const reversed = await invoke({ from: T0, to: T0 - 1 });
    expect(reversed).toMatchObject({
      ok: false,
      error: {
        code: 'invalid_input',
        fields: [{ field: 'to', message: 'must not be before from' }],
      },
    });
    const missing = await invoke({ to: T0 });
    expect(missing).toMatchObject({ ok: false, error: { fields: [{ field: 'from' }] } });
    const label = await invoke({ from: T0, to: T0, label: '../x' });
    expect(label).toMatchObject({ ok: false, error: { fields: [{ field: 'label' }] } });
  });
});

describe('ble:traceSettings and the keys of an exported trace', () => {
  const exportKeys = async () => {
    const result = await invoke({ from: T0 + 59_000, to: T0 + 61_000 });
    const trace = (result as { value: HciTrace }).value;
    return { ...trace, holdsLtk: Buffer.from(trace.data, 'base64').includes(LTK) };
  };

  it('redacts the link keys unless the user keeps them, and says which it did', async () => {
    expect(await app!.invoke('ble:traceSettings', {})).toEqual({
      ok: true,
      value: { keepKeys: false },
    });
    expect(await exportKeys()).toMatchObject({ holdsLtk: false, keysRedacted: 1, keysInClear: 0 });

    const saved = await app!.invoke('ble:saveTraceSettings', { keepKeys: true });
    expect(saved).toEqual({ ok: true, value: { keepKeys: true } });
    expect(statSync(join(dataDir, 'trace-settings.json')).mode & 0o777).toBe(0o600);
    expect(await exportKeys()).toMatchObject({ holdsLtk: true, keysRedacted: 0, keysInClear: 1 });

    await app!.invoke('ble:saveTraceSettings', { keepKeys: false });
    expect((await exportKeys()).holdsLtk).toBe(false);
  });

  it('names the field of a bad setting', async () => {
    expect(await app!.invoke('ble:saveTraceSettings', { keepKeys: 'yes' })).toMatchObject({
      ok: false,
      error: {
        code: 'invalid_input',
        fields: [{ field: 'keepKeys', message: 'must be true or false' }],
      },
    });
  });
});
