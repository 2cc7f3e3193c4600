import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The same renderer, built for the bench server (`npm run web`) instead of an Electron window.
export default defineConfig({
  root: 'src/renderer',
  base: './',
  plugins: [react()],
  build: { outDir: '../../out/web', emptyOutDir: true },
});
