// In Electron the BLE process is a utility process: a native crash in noble ends it, not the
// window, and the app reports it and can start another. It runs the same entry as the Node
// child used by the bench server and the tests, built beside main as ble-host.js.
import { fileURLToPath } from 'node:url';
import { utilityProcess } from 'electron';
import type { HostChannel, HostConfig, HostMessage } from '../core/ble/host/protocol';

export function launchBleUtility(config: HostConfig): HostChannel {
  const entry = fileURLToPath(new URL('./ble-host.js', import.meta.url));
  const child = utilityProcess.fork(entry, [JSON.stringify(config)], {
    serviceName: 'DeviceBench BLE',
    stdio: 'inherit',
  });
  const exitHandlers: ((reason: string) => void)[] = [];
  child.on('exit', (code) => {
    for (const handler of exitHandlers) handler(`exited with code ${code}`);
  });
  return {
    get pid() {
      return child.pid;
    },
    send: (message) => child.postMessage(message),
    onMessage: (handler) => child.on('message', (message: HostMessage) => handler(message)),
    onExit: (handler) => exitHandlers.push(handler),
    kill: () => void child.kill(),
  };
}
