// The BLE bench: the BLE process (started on first use), UI scans, the GATT explorer, the
// simulated bench's controls, provisioning and the audit log. Failures from the radio, the
// board files and the workflow become contract errors that say which step or field.
import { EventEmitter } from 'node:events';
import { basename } from 'node:path';
import { ThingsClient } from '../../platform/things/client';
import type { AppErrorBody } from '../contract';
import type { bleEvents, bleOperations, SimBoard } from '../contracts/ble';
import { AppFailure } from '../errors';
import { Explorer } from '../ble/explorer';
import { HostSupervisor, traceDirOf, type HostLauncher } from '../ble/host-supervisor';
import { AuditSettings } from '../audit-settings';
import { ProvisioningService } from '../provisioning/provisioning-service';
import { ScanFeed } from '../ble/scan-feed';
import { NameStore } from '../ble/name-store';
import { withBoardNames } from '../ble/board-names';
import { parseBtsnoop } from '../../ble/hci/btsnoop';
import { listSerialPorts, SerialListError } from '../../ble/hci/serial-ports';
import { extractTrace } from '../../ble/hci/trace-store';
import { adapterLabel, adapterTraceDir } from '../../ble/multi-central';
import type { BoardView } from '../../ble/sim/board';
import { SIM_BOARDS_DIR } from '../../ble/sim/board-file';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { auditExport, type AuditExport } from './audit-export';
import type { AppContext, AreaEvents, AreaHandlers } from './context';

type Handlers = AreaHandlers<typeof bleOperations>;

export async function startBle(
  ctx: AppContext,
  launch?: HostLauncher,
): Promise<{
  handlers: Handlers;
  sources: AreaEvents<typeof bleEvents>;
  supervisor: HostSupervisor;
  provisioning: ProvisioningService;
  exports: AuditExport;
}> {
  const supervisor = await HostSupervisor.open(ctx.options.dataDir, launch);
  const scans = new ScanFeed(supervisor);
  const explorer = new Explorer(supervisor);
  const provisioning = await ProvisioningService.open({
    dataDir: ctx.options.dataDir,
    audit: await AuditSettings.open(ctx.options.dataDir, ctx.options.credentials),
    supervisor,
    scans,
    things: async () => new ThingsClient(await ctx.envs.activeTarget(), ctx.options.http),
  });
  ctx.onClose(async () => {
    await provisioning.stopAll().catch(() => undefined);
    await scans.stopAll();
    await explorer.closeAll();
    await supervisor.stop();
    await provisioning.close();
  });

  const exports = auditExport(ctx, () => provisioning.store());
  const boards = async () => (await supervisor.sim('boards', {})).map(toSimBoard);
  // Every page showing the bench's boards and faults follows changes made from any of them.
  const simChanges = new EventEmitter<{ boards: [SimBoard[]] }>();
  const changed = <T>(result: T): T => {
    void boards().then(
      (list) => simChanges.emit('boards', list),
      () => undefined,
    );
    return result;
  };
  const names = new NameStore(ctx.options.dataDir);

  const handlers: Handlers = {
    'ble:listSerialPorts': async () => {
      try {
        return await listSerialPorts();
      } catch (err) {
        if (err instanceof SerialListError)
          throw new AppFailure({ code: 'device', message: err.message });
        throw err;
      }
    },
    'ble:getStatus': () => supervisor.statusAfterStart(),
    'ble:setAdapters': ({ adapters }) => supervisor.setAdapters(adapters),
    'ble:restartHost': () => supervisor.restart(),
    'ble:startScan': async (filter) => ({ scanId: await scans.start(filter) }),
    'ble:stopScan': async ({ scanId }) => {
      await scans.stop(scanId);
      return { stopped: true as const };
    },
    'ble:connect': async ({ deviceId, mtu }) => {
      const connection = await explorer.connect(deviceId, { mtu });
      return {
        ...connection,
        services: await withBoardNames(supervisor, deviceId, connection.services),
      };
    },
    'ble:reconnect': async ({ connectionId, mtu }) => {
      const connection = await explorer.reconnect(connectionId, mtu);
      return {
        ...connection,
        services: await withBoardNames(supervisor, connection.deviceId, connection.services),
      };
    },
    'ble:disconnect': ({ connectionId }) => explorer.disconnect(connectionId),
    'ble:updateConnection': ({ connectionId, parameters }) =>
      explorer.requestLink(connectionId, { kind: 'connectionParameters', parameters }),
    'ble:setPhy': ({ connectionId, phy }) =>
      explorer.requestLink(connectionId, { kind: 'phy', phy }),
    'ble:pair': ({ connectionId }) => explorer.requestLink(connectionId, { kind: 'pair' }),
    'ble:readRssi': ({ connectionId }) => explorer.requestLink(connectionId, { kind: 'rssi' }),
    'ble:read': ({ connectionId, serviceUuid, characteristicUuid }) =>
      explorer.read(connectionId, serviceUuid, characteristicUuid),
    'ble:write': ({ connectionId, serviceUuid, characteristicUuid, data, withoutResponse }) =>
      explorer.write(connectionId, serviceUuid, characteristicUuid, data, withoutResponse),
    'ble:subscribe': ({ connectionId, serviceUuid, characteristicUuid }) =>
      explorer.subscribe(connectionId, serviceUuid, characteristicUuid),
    'ble:unsubscribe': ({ connectionId, serviceUuid, characteristicUuid }) =>
      explorer.unsubscribe(connectionId, serviceUuid, characteristicUuid),
    'ble:exportTrace': async ({ from, to, label, adapter = 0 }) => {
      const spec = supervisor.adapterList()[adapter];
      if (spec === undefined)
        throw AppFailure.field('adapter', `the station has no adapter ${adapter + 1}`);
      const dir = adapterTraceDir(traceDirOf(ctx.options.dataDir), adapter, spec);
      const file = extractTrace(dir, { from, to });
      const stamp = new Date(from).toISOString().slice(0, 19).replace(/[:T]/g, '-');
      // Named for the adapter once there are several, so two traces of one window differ.
      const which = supervisor.adapterList().length > 1 ? `-${adapterLabel(adapter, spec)}` : '';
      return {
        fileName: `devicebench-hci-${label ?? 'window'}${which}-${stamp}.btsnoop`,
        data: file.toString('base64'),
        packets: parseBtsnoop(file).records.length,
        bytes: file.length,
      };
    },

    'names:get': ({ scope }) => names.get(scope),
    'names:setName': ({ scope, uuid, name }) => names.setName(scope, uuid, name),
    'names:setFormat': ({ scope, uuid, format }) => names.setFormat(scope, uuid, format),

    'sim:listBoards': boards,
    'sim:listBoardFiles': async () => {
      const files = (await readdir(SIM_BOARDS_DIR)).filter((f) => f.endsWith('.json')).sort();
      return Promise.all(
        files.map(async (name) => ({
          name,
          description: describeFile(await readFile(join(SIM_BOARDS_DIR, name), 'utf8')),
        })),
      );
    },
    'sim:loadBuiltIn': async ({ name }) => {
      if (basename(name) !== name || !name.endsWith('.json'))
        throw AppFailure.field('name', 'must be the name of a file in resources/sim');
      const loaded = await supervisor.sim('loadBoardFile', { path: join(SIM_BOARDS_DIR, name) });
      return changed(loaded.map(toSimBoard));
    },
    'sim:loadBoards': async ({ fileName, text }) =>
      changed((await supervisor.sim('loadBoards', { text, source: fileName })).map(toSimBoard)),
    'sim:removeBoard': async ({ boardId }) => {
      await supervisor.sim('removeBoard', { boardId });
      return changed({ removed: true as const });
    },
    'sim:pressButton': async ({ boardId }) => {
      await supervisor.sim('pressButton', { boardId });
      return { pressed: true as const };
    },
    'sim:setFaults': async ({ boardId, ...faults }) => {
      const current = (await boards()).find((b) => b.id === boardId);
      if (!current) throw AppFailure.field('boardId', `no board ${boardId} on the bench`);
      const { dropLinkCharacteristic, refuseAccess, ...rest } = { ...current.faults, ...faults };
      const dropOn =
        faults.dropLinkCharacteristic === null ? undefined : (dropLinkCharacteristic ?? undefined);
      const refused = faults.refuseAccess === null ? undefined : (refuseAccess ?? undefined);
      return changed(
        toSimBoard(
          await supervisor.sim('setFaults', {
            boardId,
            faults: {
              refuseConnection: rest.refuseConnection,
              dropLinkDuringWrite: rest.dropLinkDuringWrite
                ? { characteristic: dropOn, afterWrites: rest.dropLinkAfterWrites }
                : undefined,
              slowLink: rest.slowLinkFactor > 1 ? rest.slowLinkFactor : undefined,
              refusePairing: rest.refusePairing,
              refuseAccess: refused,
            },
          }),
        ),
      );
    },
    'sim:factoryReset': async ({ boardId }) =>
      changed(toSimBoard(await supervisor.sim('factoryReset', { boardId }))),

    'provisioning:listProfiles': async () =>
      provisioning.profiles().map(({ profile, source }) => profileView(profile, source)),
    'provisioning:loadProfile': async ({ fileName, text }) => {
      const { profile, source } = await provisioning.loadProfile(fileName, text);
      return profileView(profile, source);
    },
    'provisioning:getPlan': ({ productId }) => provisioning.plan(productId),
    'provisioning:savePlan': (plan) => provisioning.savePlan(plan),
    'provisioning:nextPsdi': (plan) => provisioning.nextPsdi(plan),
    'provisioning:provisionOne': ({ productId, deviceId }) =>
      provisioning.provisionOne(productId, deviceId),
    'provisioning:startBatch': (input) => provisioning.startBatch(input),
    'provisioning:stopBatch': ({ runId }) => provisioning.stopBatch(runId),
    'provisioning:listBatches': async () => provisioning.listBatches(),
    'provisioning:listUnfinished': async () => provisioning.listUnfinished(),
    'provisioning:reconcile': ({ recordId, action }) => provisioning.reconcile(recordId, action),

    'audit:search': async (query) => (await provisioning.store()).search(query),
    'audit:releasePsdi': ({ recordId, reason }) => provisioning.releasePsdi(recordId, reason),
    'audit:exportCsv': (input) => exports.saveCsv(input),
  };

  return {
    supervisor,
    provisioning,
    exports,
    handlers: withBleErrors(handlers),
    sources: {
      'ble:status': (handler) => on(supervisor, 'status', handler),
      'ble:scanBatch': (handler) => on(scans, 'batch', handler),
      'ble:gattLog': (handler) => on(explorer, 'log', handler),
      'ble:link': (handler) => on(explorer, 'link', handler),
      'sim:boards': (handler) => on(simChanges, 'boards', handler),
      'provisioning:progress': (handler) => on(provisioning, 'progress', handler),
      'provisioning:batch': (handler) => on(provisioning, 'batch', handler),
      'audit:exportProgress': (handler) => exports.onProgress(handler),
    },
  };
}

function on<T>(
  emitter: {
    on(event: string, h: (p: T) => void): unknown;
    off(event: string, h: (p: T) => void): unknown;
  },
  event: string,
  handler: (payload: T) => void,
): () => void {
  emitter.on(event, handler);
  return () => emitter.off(event, handler);
}

function describeFile(text: string): string | undefined {
  try {
    const json = JSON.parse(text) as { description?: unknown };
    return typeof json.description === 'string' ? json.description : undefined;
  } catch {
    return undefined;
  }
}

function toSimBoard(view: BoardView): SimBoard {
  return {
    id: view.id,
    address: view.address,
    name: view.name,
    source: view.source,
    connected: view.connected,
    advertising: {
      serviceUuids: view.advertising.serviceUuids,
      intervalMs: view.advertising.intervalMs,
    },
    provisioned: view.provisioning?.committed && {
      serviceUuid: view.provisioning.committed.serviceUuid,
      psdiServiceUuid: view.provisioning.committed.psdiServiceUuid,
      psdiCharacteristicUuid: view.provisioning.committed.psdiCharacteristicUuid,
      psdi: view.provisioning.committed.psdi,
    },
    profileId: view.provisioning?.profileId,
    hasButton: view.buttons.length > 0,
    faults: {
      refuseConnection: Boolean(view.faults.refuseConnection),
      dropLinkDuringWrite: Boolean(view.faults.dropLinkDuringWrite),
      dropLinkAfterWrites: view.faults.dropLinkDuringWrite?.afterWrites ?? 0,
      dropLinkCharacteristic: view.faults.dropLinkDuringWrite?.characteristic,
      slowLinkFactor: view.faults.slowLink ?? 1,
      refusePairing: view.faults.refusePairing ?? false,
      refuseAccess: view.faults.refuseAccess,
    },
  };
}

function profileView(
  profile: {
    id: string;
    name: string;
    description?: string;
    service: string;
    psdi: { source: 'tool' | 'device' };
  },
  source: string,
) {
  return {
    id: profile.id,
    name: profile.name,
    description: profile.description,
    source,
    psdiSource: profile.psdi.source,
    service: profile.service,
  };
}

/** Errors named by class name: they may have crossed from the BLE process, which keeps only the name. */
function bleError(err: unknown): AppFailure | unknown {
  if (!(err instanceof Error) || err instanceof AppFailure) return err;
  const body = ((): AppErrorBody | undefined => {
    switch (err.name) {
      case 'BoardFileError':
      case 'ProfileError':
      case 'SimBenchError':
        return { code: 'invalid_input', message: err.message, fields: fieldsOf(err) };
      case 'PsdiError': {
        const field = (err as { field?: string }).field;
        return {
          code: 'invalid_input',
          message: err.message,
          fields: field ? [{ field, message: err.message }] : undefined,
        };
      }
      case 'BleError':
      case 'NotAllowedError':
        return {
          code: 'device',
          message: `${(err as { step?: string }).step ?? 'BLE'}: ${err.message}`,
        };
      case 'ProvisionError':
      case 'ProvisionMismatchError':
      case 'ProvisionCancelledError': {
        // The screen names the board already: say the step and the cause, once.
        const { step, detail } = err as { step?: string; detail?: string };
        return { code: 'device', message: detail ? `${step}: ${detail}` : err.message };
      }
      default:
        return undefined;
    }
  })();
  return body ? new AppFailure(body) : err;
}

function fieldsOf(err: Error): AppErrorBody['fields'] {
  const issues = (err as { issues?: { path: string; message: string }[] }).issues;
  if (!issues) return undefined;
  return issues.map((i) => ({ field: i.path || 'file', message: i.message }));
}

/** Handlers whose BLE, board-file and provisioning failures become contract errors. */
export function withBleErrors<H extends object>(handlers: H): H {
  const wrapped: Record<string, (input: never) => Promise<unknown>> = {};
  for (const [name, handler] of Object.entries(handlers) as [
    string,
    (input: never) => Promise<unknown>,
  ][])
    wrapped[name] = async (input) => {
      try {
        return await handler(input);
      } catch (err) {
        throw bleError(err);
      }
    };
  return wrapped as H;
}
