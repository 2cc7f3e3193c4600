// The BLE bench's own operations: the station's adapters and the BLE process, UI scans, the
// GATT explorer, link requests and HCI traces.
import type { bleEvents, bleOperations } from '../contracts/ble';
import type { Explorer } from '../../usecases/bench/explorer';
import type { HostSupervisor } from '../../usecases/bench/host-supervisor';
import {
  adapterBonds,
  forgetAdapterBonds,
  resetAdapterBonds,
} from '../../usecases/bench/adapter-bonds';
import { serialPorts } from '../../usecases/bench/station';
import { adapterTrace } from '../../usecases/bench/traces';
import { readTraceSettings } from '../../usecases/bench/trace-settings';
import type { ScanFeed } from '../../usecases/bench/scan-feed';
import type { AppContext, AreaEvents, AreaHandlers } from './context';
import { listen } from './listen';

export function bleHandlers(
  ctx: AppContext,
  supervisor: HostSupervisor,
  scans: ScanFeed,
  explorer: Explorer,
): {
  handlers: AreaHandlers<typeof bleOperations>;
  sources: AreaEvents<typeof bleEvents>;
} {
  return {
    handlers: {
      'ble:listSerialPorts': () => serialPorts(),
      'ble:getStatus': () => supervisor.statusAfterStart(),
      'ble:listLinks': () => supervisor.links(),
      'ble:planAdapters': ({ adapters, remove }) => supervisor.plan(adapters, remove),
      'ble:setAdapters': ({ adapters, dropLinks }) => supervisor.setAdapters(adapters, dropLinks),
      'ble:removeAdapter': ({ id, dropLinks }) => supervisor.removeAdapter(id, dropLinks),
      'ble:restartHost': () => supervisor.restart(),
      'ble:startScan': async (filter) => ({ scanId: await scans.start(filter) }),
      'ble:stopScan': async ({ scanId }) => {
        await scans.stop(scanId);
        return { stopped: true as const };
      },
      'ble:connect': ({ deviceId, mtu }) => explorer.connect(deviceId, { mtu }),
      'ble:reconnect': ({ connectionId, mtu }) => explorer.reconnect(connectionId, mtu),
      'ble:disconnect': ({ connectionId }) => explorer.disconnect(connectionId),
      'ble:clearLog': ({ connectionId }) => explorer.clearLog(connectionId),
      'ble:updateConnection': ({ connectionId, parameters }) =>
        explorer.requestLink(connectionId, { kind: 'connectionParameters', parameters }),
      'ble:setPhy': ({ connectionId, phy }) =>
        explorer.requestLink(connectionId, { kind: 'phy', phy }),
      'ble:pair': ({ connectionId, ...options }) =>
        explorer.requestLink(connectionId, { kind: 'pair', ...options }),
      'ble:readRssi': ({ connectionId }) => explorer.requestLink(connectionId, { kind: 'rssi' }),
      'ble:answerPairing': async (answer) => {
        await (await supervisor.ensure()).call('answerPairing', answer);
        return { answered: true as const };
      },
      'ble:listPairingPrompts': () => supervisor.pairingPrompts(),
      'ble:read': ({ connectionId, serviceUuid, characteristicUuid }) =>
        explorer.read(connectionId, serviceUuid, characteristicUuid),
      'ble:write': ({ connectionId, serviceUuid, characteristicUuid, data, withoutResponse }) =>
        explorer.write(connectionId, serviceUuid, characteristicUuid, data, withoutResponse),
      'ble:subscribe': ({ connectionId, serviceUuid, characteristicUuid }) =>
        explorer.subscribe(connectionId, serviceUuid, characteristicUuid),
      'ble:unsubscribe': ({ connectionId, serviceUuid, characteristicUuid }) =>
        explorer.unsubscribe(connectionId, serviceUuid, characteristicUuid),
      'ble:listBonds': () => adapterBonds(supervisor),
      'ble:forgetBonds': (which) => forgetAdapterBonds(supervisor, which),
      'ble:resetBonds': () => resetAdapterBonds(supervisor),
      'ble:exportTrace': async (request) => {
        const { keepKeys } = await readTraceSettings(ctx.options.dataDir);
        const trace = adapterTrace(ctx.options.dataDir, supervisor.adapterList(), {
          ...request,
          keepKeys,
        });
        return {
          fileName: trace.fileName,
          data: trace.file.toString('base64'),
          packets: trace.packets,
          bytes: trace.file.length,
          keysRedacted: trace.redacted,
          keysInClear: trace.keysInClear,
        };
      },
      'ble:traceSettings': () => readTraceSettings(ctx.options.dataDir),
      'ble:saveTraceSettings': (settings) => supervisor.saveTraceSettings(settings),
    },
    sources: {
      'ble:status': (handler) => listen(supervisor, 'status', handler),
      'ble:scanBatch': (handler) => listen(scans, 'batch', handler),
      'ble:links': (handler) => listen(supervisor, 'links', handler),
      'ble:gattLog': (handler) => listen(supervisor, 'log', handler),
      'ble:link': (handler) => listen(supervisor, 'link', handler),
      'ble:pairingPrompt': (handler) => listen(supervisor, 'prompt', handler),
      'ble:bonds': (handler) => {
        // A BLE process that stopped meanwhile has no bonds to list: its restart is a
        // `ble:status`, on which the bench lists them again.
        const changed = () => void adapterBonds(supervisor).then(handler, () => undefined);
        supervisor.on('bonds', changed);
        return () => supervisor.off('bonds', changed);
      },
    },
  };
}
