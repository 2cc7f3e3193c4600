// The BLE bench's own operations: the station's adapters and the BLE process, UI scans, the
// GATT explorer, link requests and HCI traces.
import { parseBtsnoop } from '../../ble/hci/btsnoop';
import { listSerialPorts, SerialListError } from '../../ble/hci/serial-ports';
import { extractTrace } from '../../ble/hci/trace-store';
import { adapterLabel, adapterTraceDir } from '../../ble/radio/multi-adapter-central';
import type { bleEvents, bleOperations } from '../contracts/ble';
import { AppFailure } from '../errors';
import type { Explorer } from '../../usecases/bench/explorer';
import type { HostSupervisor } from '../../usecases/bench/host-supervisor';
import { traceDirOf } from '../../usecases/station-files';
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
      'ble:listLinks': () => supervisor.links(),
      'ble:planAdapters': ({ adapters }) => supervisor.plan(adapters),
      'ble:setAdapters': ({ adapters, dropLinks }) => supervisor.setAdapters(adapters, dropLinks),
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
    },
    sources: {
      'ble:status': (handler) => listen(supervisor, 'status', handler),
      'ble:scanBatch': (handler) => listen(scans, 'batch', handler),
      'ble:links': (handler) => listen(supervisor, 'links', handler),
      'ble:gattLog': (handler) => listen(supervisor, 'log', handler),
      'ble:link': (handler) => listen(supervisor, 'link', handler),
      'ble:pairingPrompt': (handler) => listen(supervisor, 'prompt', handler),
    },
  };
}
