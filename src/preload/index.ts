// Gives the renderer `window.devicebench`: the contract's operations and events over IPC, and
// nothing else. ipcRenderer itself never crosses the bridge, nor do IPC event objects (they
// carry `sender`, which is ipcRenderer).
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { buildBridge, type Transport } from '../core/app/api';
import { IPC_EVENT_CHANNEL } from '../core/app/contract';

const transport: Transport = {
  invoke: (name, input) => ipcRenderer.invoke(name, input),
  subscribe(event, handler) {
    const listener = (_ipc: IpcRendererEvent, name: unknown, payload: unknown) => {
      if (name === event) handler(payload);
    };
    ipcRenderer.on(IPC_EVENT_CHANNEL, listener);
    return () => {
      ipcRenderer.removeListener(IPC_EVENT_CHANNEL, listener);
    };
  },
};

contextBridge.exposeInMainWorld('devicebench', buildBridge(transport));
