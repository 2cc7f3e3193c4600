// Entry of the BLE process. Started by the app as a Node child (`fork`, IPC with advanced
// serialization) or, in Electron, as a utility process (`process.parentPort`); its config is
// the first argument, as JSON.
import { hostConfigSchema, type HostMessage, type Request } from './protocol';
import { runHost, type ParentPort } from './host-process';
import { errorMessage } from '../../errors/message';

interface ElectronParentPort {
  on(event: 'message', listener: (event: { data: Request }) => void): void;
  postMessage(message: HostMessage): void;
}

function parentPort(): ParentPort {
  const electron = (process as { parentPort?: ElectronParentPort }).parentPort;
  if (electron)
    return {
      send: (message) => electron.postMessage(message),
      onMessage: (handler) => electron.on('message', (event) => handler(event.data)),
    };
  if (!process.send) throw new Error('the BLE process must be started with an IPC channel');
  return {
    send: (message) => process.send?.(message),
    onMessage: (handler) => process.on('message', (message) => handler(message as Request)),
  };
}

const config = hostConfigSchema.parse(JSON.parse(process.argv[2] ?? '{}'));
const parent = parentPort();
// The app going away ends this process too; it must never outlive the window.
process.on('disconnect', () => process.exit(0));
runHost(config, parent).catch((err: unknown) => {
  console.error('The BLE process could not start:', err);
  // Said to the app too, before exiting: "exited with code 70" does not tell the user what to fix.
  const exit = () => process.exit(70);
  const said: HostMessage = { type: 'event', event: 'startFailed', message: errorMessage(err) };
  if (process.send) process.send(said, exit);
  else exit();
});
