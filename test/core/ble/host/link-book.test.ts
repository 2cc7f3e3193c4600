// The BLE process holds the links (docs/decisions.md, "The BLE process holds the links"): through
// a real BLE process over the simulated bench, every link is listed with its board, its GATT
// table and its log; an explorer link the board dropped stays listed and reconnects under the
// same id with its log and its subscriptions renewed; Clear log clears it in the process;
// another user's dropped link leaves the list; an adapter is added and
// removed beside the others, dropping only its own links, a connect under way among them.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BleHost, forkHost } from '../../../../src/core/ble/host/ble-host';
import type { BoardLink, GattLogEntry } from '../../../../src/core/ble/link-record';
import type { Advertisement } from '../../../../src/core/ble/port';
import { remoteCentral } from '../../../../src/core/ble/host/remote-central';

const BOARDS = resolve('resources/sim/nrf52-devkit.json');
let host: BleHost;
const logged: GattLogEntry[] = [];
const lists: BoardLink[][] = [];

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'link-book-'));
  host = await BleHost.start(
    forkHost({
      adapters: ['sim'],
      boardFiles: [BOARDS],
      stateFile: join(dir, 'sim-state.json'),
      traceDir: join(dir, 'traces'),
    }),
  );
  host.onLinks({ log: (entry) => logged.push(entry), links: (links) => lists.push(links) });
});
afterAll(() => host.stop());

async function board(): Promise<Advertisement> {
  let stop: () => Promise<void> = async () => {};
  const ad = await new Promise<Advertisement>((found, reject) => {
    remoteCentral(host, 'cli')
      .startScan({ name: 'nRF52' }, found)
      .then((h) => (stop = h.stop), reject);
  });
  await stop();
  return ad;
}

/** Waits until the process's list says what `check` wants of the link. */
async function until(check: (links: BoardLink[]) => boolean): Promise<BoardLink[]> {
  await expect.poll(() => check(host.links), { timeout: 10_000 }).toBe(true);
  return host.links;
}

const PROVISIONING = '8f1d0000-6b4e-4c5a-9d3e-2a7c5b1e0f00';

describe('the BLE process holds the links', { timeout: 60_000 }, () => {
  it('lists an explorer link with its board, GATT table and log, and keeps it through a drop and a reconnect', async () => {
    const ad = await board();
    const { connectionId, mtu } = await host.call('connect', {
      deviceId: ad.id,
      user: 'explorer',
    });
    await host.call('discover', { connectionId });
    await host.call('read', { connectionId, serviceUuid: '180a', characteristicUuid: '2a24' });
    const [link] = await until((l) => l[0]?.services.length !== 0);
    expect(link).toMatchObject({
      connectionId,
      user: 'explorer',
      state: 'connected',
      deviceId: ad.id,
      address: ad.address,
      name: 'DB nRF52 DK',
      adapter: 'sim',
      mtu,
    });
    // The board file's names come with the table, from the process's own bench.
    expect(link!.services.find((s) => s.uuid === '180a')?.name).toBe('Device Information');
    await host.call('subscribe', { connectionId, serviceUuid: '180f', characteristicUuid: '2a19' });
    expect(host.links[0]?.subscriptions).toEqual(['180f/2a19']);

    // A second window loads the same link with its log so far.
    const [loaded] = await host.call('links', {});
    expect(loaded?.log.map((e) => e.kind)).toEqual(['connect', 'discover', 'read', 'subscribe']);
    expect(loaded?.log.find((e) => e.kind === 'read')?.data).toBe(
      Buffer.from('nRF52840-DK').toString('hex'),
    );
    expect(logged.map((e) => e.seq)).toEqual(loaded?.log.map((e) => e.seq));

    // The board drops the link in the middle of a write: the link stays listed, dropped.
    const [board0] = await host.sim('boards', {});
    await host.sim('setFaults', { boardId: board0!.id, faults: { dropLinkDuringWrite: {} } });
    const write = await host
      .call('write', {
        connectionId,
        serviceUuid: PROVISIONING,
        characteristicUuid: (await writable(connectionId)).uuid,
        data: Uint8Array.of(1),
        withoutResponse: false,
      })
      .catch((err: unknown) => err);
    expect(write).toBeInstanceOf(Error);
    const [dropped] = await until((l) => l[0]?.state === 'dropped');
    expect(dropped).toMatchObject({ connectionId, subscriptions: [] });
    expect(dropped?.droppedReason).toBeTruthy();
    const refused = await host
      .call('read', { connectionId, serviceUuid: '180a', characteristicUuid: '2a24' })
      .catch((err: unknown) => err);
    expect((refused as Error).message).toMatch(/no open connection/);

    // Reconnect: the same id, connected again, the log of before kept and continued.
    const again = await host.call('reconnect', { connectionId, mtu: 100 });
    expect(again).toMatchObject({ connectionId, mtu: 100 });
    const [back] = await until((l) => l[0]?.state === 'connected');
    expect(back).toMatchObject({ connectionId, mtu: 100, droppedReason: undefined });
    const [relisted] = await host.call('links', {});
    const kinds = relisted!.log.map((e) => e.kind);
    expect(kinds.slice(0, 4)).toEqual(['connect', 'discover', 'read', 'subscribe']);
    expect(kinds).toContain('disconnect');
    expect(relisted!.log.at(-1)).toMatchObject({
      kind: 'connect',
      message: 'reconnected: MTU 100 (asked for 100)',
    });

    // Once its table is found again, the subscription it had before the drop is renewed.
    await host.call('discover', { connectionId });
    const [renewed] = await until((l) => l[0]?.subscriptions.length === 1);
    expect(renewed?.subscriptions).toEqual(['180f/2a19']);
    const [afterDiscover] = await host.call('links', {});
    expect(afterDiscover!.log.at(-1)).toMatchObject({
      kind: 'subscribe',
      characteristicUuid: '2a19',
      message: 'renewed',
    });

    // Clear log empties the process's log: a window loading it now finds only the mark.
    await host.call('clearLog', { connectionId });
    const [cleared] = await host.call('links', {});
    expect(cleared!.log.map((e) => e.kind)).toEqual(['cleared']);
    expect(logged.at(-1)).toMatchObject({ connectionId, kind: 'cleared' });

    // A link its user ends leaves the list.
    await host.call('disconnect', { connectionId });
    await until((l) => l.length === 0);
  });

  it('keeps an explorer link its user ended with keep, and a Connect to the board goes on on it', async () => {
    const ad = await board();
    const { connectionId } = await host.call('connect', { deviceId: ad.id, user: 'explorer' });
    await host.call('discover', { connectionId });
    await host.call('read', { connectionId, serviceUuid: '180a', characteristicUuid: '2a24' });
    await host.call('disconnect', { connectionId, keep: true });
    const [ended] = await until((l) => l[0]?.state === 'dropped');
    expect(ended).toMatchObject({ connectionId, endedByUser: true, droppedReason: undefined });
    expect(ended!.droppedAt).toBeGreaterThan(0);
    const [loaded] = await host.call('links', {});
    expect(loaded!.log.map((e) => e.kind)).toEqual(['connect', 'discover', 'read', 'disconnect']);

    // Connect from the scan list continues the same link, log kept; no second one is listed.
    await board();
    const again = await host.call('connect', { deviceId: ad.id, user: 'explorer' });
    expect(again.connectionId).toBe(connectionId);
    expect(host.links).toMatchObject([{ connectionId, state: 'connected' }]);
    expect(host.links[0]?.endedByUser).toBeUndefined();
    const [continued] = await host.call('links', {});
    expect(continued!.log.at(-1)).toMatchObject({ kind: 'connect', message: /^reconnected/ });
    expect(continued!.log.some((e) => e.kind === 'read')).toBe(true);

    // Without keep (a failed discover, another user's end), the link leaves the list.
    await host.call('disconnect', { connectionId });
    await until((l) => l.length === 0);
  });

  it("drops another user's dropped link from the list", async () => {
    const ad = await board();
    const link = await remoteCentral(host, 'provisioning').connect(ad.id, { timeoutMs: 5000 });
    const [listed] = await until((l) => l.length === 1);
    expect(listed?.user).toBe('provisioning');
    await link.discover();
    const [board0] = await host.sim('boards', {});
    await host.sim('setFaults', { boardId: board0!.id, faults: { dropLinkDuringWrite: {} } });
    const { connectionId } = listed!;
    await link
      .write(PROVISIONING, (await writable(connectionId)).uuid, Uint8Array.of(1))
      .catch(() => undefined);
    await until((l) => l.length === 0);
  });

  it('adds and removes an adapter beside the others, dropping only its own links', async () => {
    const ad = await board();
    const { connectionId } = await host.call('connect', { deviceId: ad.id, user: 'explorer' });
    const views = await host.call('addAdapter', { spec: 'sim' });
    expect(views.map((v) => v.spec)).toEqual(['sim', 'sim']);
    // Two of one spec, each its own id: what a removal names.
    const [first, second] = views.map((v) => v.id);
    expect(first).not.toEqual(second);
    expect(host.links).toMatchObject([{ connectionId, state: 'connected' }]);
    expect(await host.call('linksOnAdapter', { id: second! })).toEqual([]);
    expect((await host.call('linksOnAdapter', { id: first! })).map((l) => l.connectionId)).toEqual([
      connectionId,
    ]);

    expect(await host.call('removeAdapter', { id: second! })).toEqual([]);
    expect(host.links).toMatchObject([{ connectionId, state: 'connected' }]);
    await expect(host.call('removeAdapter', { id: second! })).rejects.toThrow(
      'that adapter is no longer on the station',
    );

    await host.call('addAdapter', { spec: 'sim' });
    const closed = await host.call('removeAdapter', { id: first! });
    expect(closed.map((l) => l.connectionId)).toEqual([connectionId]);
    await until((l) => l[0]?.state === 'dropped');
    // The board is still on the bench, through the adapter that stays.
    await board();
    await host.call('reconnect', { connectionId });
    const [kept] = await host.call('addAdapter', { spec: 'sim' });
    expect(await host.call('linksOnAdapter', { id: kept!.id })).toMatchObject([{ connectionId }]);
    await host.call('disconnect', { connectionId });
    await until((l) => l.length === 0);
  });

  it('names the link a connect under way on the adapter opens, as its row counts it', async () => {
    const ad = await board();
    const [only] = host.adapters;
    // Asked in the same breath as the Connect, which the process starts first: the row counts
    // the connect as a link in use, so the removal's question names the link it opens.
    const opening = host.call('connect', { deviceId: ad.id, user: 'explorer' });
    const named = await host.call('linksOnAdapter', { id: only!.id });
    const { connectionId } = await opening;
    expect(named.map((l) => l.connectionId)).toEqual([connectionId]);
    await host.call('disconnect', { connectionId });
    await until((l) => l.length === 0);
  });
});

/** The provisioning service's first writable characteristic, from the process's GATT cache. */
async function writable(connectionId: string) {
  let services = host.links.find((l) => l.connectionId === connectionId)?.services ?? [];
  if (!services.length) {
    await host.call('discover', { connectionId });
    services = host.links.find((l) => l.connectionId === connectionId)!.services;
  }
  const service = services.find((s) => s.uuid === PROVISIONING.replace(/-/g, ''));
  const found = service?.characteristics.find((c) => c.properties.includes('write'));
  if (!found) throw new Error('the board has no writable provisioning characteristic');
  return found;
}
