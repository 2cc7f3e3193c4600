// Electron IPC as a thin adapter over the app service: one handler per contract operation, and
// every contract event pushed to the app's window. The service validates input, so nothing
// here trusts or inspects what the renderer sends, only who sends it.
import { BrowserWindow, ipcMain, type IpcMainInvokeEvent } from 'electron';
import {
  events,
  IPC_EVENT_CHANNEL,
  operations,
  type EventName,
  type OperationName,
} from '../core/app/contract';
import type { AppService } from '../core/app/service';
import { isAppUrl } from './window';

export function bindIpc(service: AppService): () => void {
  const names = Object.keys(operations) as OperationName[];
  for (const name of names) {
    ipcMain.handle(name, async (event: IpcMainInvokeEvent, input: unknown) => {
      assertFromApp(event, name);
      return service.invoke(name, input);
    });
  }

  const unsubscribes = (Object.keys(events) as EventName[]).map((name) =>
    service.subscribe(name, (payload) => broadcast(name, payload)),
  );

  return () => {
    for (const name of names) ipcMain.removeHandler(name);
    for (const unsubscribe of unsubscribes) unsubscribe();
  };
}

// Only the app's own page gets the preload, but a frame that navigated or was injected could
// still hold a channel to main; its calls are refused rather than answered.
function assertFromApp(event: IpcMainInvokeEvent, name: string): void {
  const url = event.senderFrame?.url ?? '';
  if (!isAppUrl(url))
    throw new Error(
      `Refused ${name} from ${url || 'an unknown frame'}: only the DeviceBench window may call it.`,
    );
}

function broadcast(name: EventName, payload: unknown): void {
  for (const window of BrowserWindow.getAllWindows()) {
    const contents = window.webContents;
    if (!contents.isDestroyed() && isAppUrl(contents.getURL()))
      contents.send(IPC_EVENT_CHANNEL, name, payload);
  }
}
