import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { cspMetaPlugin } from './src/core/content-security-policy';

// The same renderer, built for the bench server (`npm run web`) instead of an Electron window.
export default defineConfig({
  root: 'src/renderer',
  base: './',
  plugins: [react(), cspMetaPlugin()],
  build: { outDir: '../../out/web', emptyOutDir: true },
});
