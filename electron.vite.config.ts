import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';
import { cspMetaPlugin } from './src/core/content-security-policy';

// Native addons and server-side packages stay external (listed in `dependencies`).
export default defineConfig({
  main: {
    // The BLE process is its own entry: Electron starts it as a utility process (ble-utility.ts).
    // So is the SQLite audit log's worker thread (sqlite-worker-store.ts loads it beside index).
    build: {
      rollupOptions: {
        input: {
          index: resolve('src/main/index.ts'),
          'ble-host': resolve('src/core/ble/host/host-main.ts'),
          'sqlite-worker': resolve('src/core/audit/sqlite-worker.ts'),
        },
      },
    },
  },
  // A sandboxed preload can only require('electron'): bundle zod and the contract into one
  // CommonJS file.
  preload: {
    build: {
      externalizeDeps: false,
      rollupOptions: {
        input: { index: resolve('src/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: 'src/renderer',
    build: { rollupOptions: { input: { index: resolve('src/renderer/index.html') } } },
    plugins: [react(), cspMetaPlugin()],
  },
});
