// One Chromium for the whole e2e project (Vitest's globalSetup, vitest.config.ts): launching it
// took a second or more per file. Each file connects to it and works in a browser context of
// its own, which has its own cookies, storage and permissions as a fresh profile would
// (test/e2e/fixture.ts); the browser's own profile is a throwaway folder Playwright makes.
import { chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared Chromium's Playwright endpoint (`chromium.connect`). */
    chromiumEndpoint: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await chromium.launchServer({
    executablePath: '/usr/bin/chromium',
    headless: true,
    // Loopback only. Without the background-networking flags Chromium floods a closed network
    // with refused connections.
    host: '127.0.0.1',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  project.provide('chromiumEndpoint', server.wsEndpoint());
  return () => server.close();
}
