// Each e2e file gets its own bench server (port 0, fresh data dir) and its own browser context
// (fresh cookies, storage and permissions) in the Chromium the project shares
// (test/e2e/chromium-server.ts). A failing test leaves a screenshot under test-results/.
//
// The simulated bench's adapters emulate a dongle with Data Length Extension
// (test/helpers/fast-adapter.ts) unless a file asks for the default one (`adapter: 'default'`).
//
// A new e2e file: `const bench = useBench();` at the top (`prepareDataDir` to seed the data
// folder first), then `bench().page` in tests; a download's content is `downloadedBytes`. It
// never launches a browser of its own, and keeps to its own server, data folder and context:
// no fixed ports, no shared files.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  chromium,
  type Browser,
  type BrowserContext,
  type Download,
  type Locator,
  type Page,
} from 'playwright-core';
import { afterAll, beforeAll, beforeEach, expect, inject } from 'vitest';
import type { BenchServer } from '../../src/server/bench-server';
import { bundled } from '../helpers/bundled';
import { withFastAdapter } from '../helpers/fast-adapter';

const VIEWPORT = { width: 1280, height: 800 };
const SMALL = { width: 1024, height: 640 };
/**
 * The two window sizes an engineer uses (docs/decisions.md, "Layout, start page and fonts"). A
 * flow runs once, at `FLOW_SIZE`, and looks at both sizes at its checkpoints (`atEachSize`).
 */
type WindowSize = typeof SMALL | typeof VIEWPORT;
/** Where a flow runs: the smaller window, where something cut or out of view shows first. */
export const FLOW_SIZE = SMALL;

/**
 * A checkpoint of a flow that runs once (docs/decisions/tooling.md, "Eighth round"): `check`
 * runs at 1280×800, then at 1024×640 — what must be in view, what is cut, the picture — and the
 * window is left at `FLOW_SIZE` for the flow to go on. What a size changes is its layout, not
 * what the app does, so the flow's steps need not run twice.
 */
export async function atEachSize(
  page: Page,
  check: (size: WindowSize) => Promise<void>,
): Promise<void> {
  for (const size of [VIEWPORT, SMALL]) {
    await page.setViewportSize(size);
    await check(size);
  }
}
const RESULTS_DIR = resolve('test-results');

/** The sidebar's entry for a page, by its label. */
export function nav(page: Page, label: string): Locator {
  return page
    .getByRole('navigation', { name: 'Areas' })
    .getByRole('button', { name: label, exact: true });
}

/** A picture for a person to look at: `test-results/<name>-<width>x<height>.png`. */
export async function shoot(page: Page, name: string, fullPage = false): Promise<void> {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const { width, height } = page.viewportSize() ?? VIEWPORT;
  await page.screenshot({ path: join(RESULTS_DIR, `${name}-${width}x${height}.png`), fullPage });
}
export interface Bench {
  url: string;
  /** The app's data folder (its audit.sqlite, settings), to seed state while it runs. */
  dataDir: string;
  context: BrowserContext;
  page: Page;
  /**
   * Uncaught errors and CSP violations in the page (the bench server sends the app's own policy):
   * a test ends by expecting none.
   */
  pageErrors: string[];
}

export interface BenchOptions {
  /** Runs on the fresh data dir before the app starts, to begin from a given state. */
  prepareDataDir?: (dataDir: string) => void;
  /** The simulated bench's controller: the fast one unless `default` (no sim-adapter.json). */
  adapter?: 'fast' | 'default';
}

/** Registers the file's hooks; the returned function gives the running bench inside tests. */
export function useBench(options: BenchOptions = {}): () => Bench {
  let dataDir: string;
  let server: BenchServer | undefined;
  let browser: Browser | undefined;
  let bench: Bench | undefined;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'devicebench-e2e-data-'));
    if (options.adapter !== 'default') withFastAdapter(dataDir);
    options.prepareDataDir?.(dataDir);
    // From the run's bundle (test/cli/cli-bundle.ts): Node loads one file where Vitest would
    // transform the app's every module for each file, and the BLE process and the audit log's
    // worker it starts are the bundle's too, not tsx compiling the sources again.
    const { startBenchServer } = (await import(
      bundled('bench-server')
    )) as typeof import('../../src/server/bench-server');
    const starting = startBenchServer({ dataDir, staticDir: resolve('out/web'), port: 0 });
    browser = await chromium.connect(inject('chromiumEndpoint'));
    server = await starting;
    const context = await browser.newContext({ viewport: VIEWPORT });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' && message.text().includes('Content Security Policy'))
        pageErrors.push(message.text());
    });
    await page.goto(server.url);
    bench = { url: server.url, dataDir, context, page, pageErrors };
  });

  beforeEach(({ task, onTestFailed }) => {
    onTestFailed(async () => {
      if (!bench) return;
      mkdirSync(RESULTS_DIR, { recursive: true });
      const name = `${task.file.name}-${task.name}`.replace(/[^a-z0-9]+/gi, '-');
      await bench.page.screenshot({ path: join(RESULTS_DIR, `${name}.png`), fullPage: true });
    });
  });

  afterAll(async () => {
    // Closing a connected browser closes this file's contexts and leaves the shared one running.
    await browser?.close();
    await server?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  return () => {
    if (!bench) throw new Error('the bench is not running (beforeAll failed?)');
    return bench;
  };
}

/**
 * Creates a product in the Device service console (which must be open) the way a person does,
 * and gives its row once the list shows it.
 */
export async function createProduct(page: Page, name: string): Promise<Locator> {
  await page.getByLabel('New product name').fill(name);
  await page.getByRole('button', { name: 'Create product' }).click();
  const row = page.getByTestId('product-row').filter({ hasText: name });
  await row.waitFor();
  return row;
}

/** A download's bytes. The shared Chromium is a remote one to Playwright: it copies the file here. */
export async function downloadedBytes(download: Download): Promise<Buffer> {
  const dir = mkdtempSync(join(tmpdir(), 'devicebench-e2e-download-'));
  try {
    const file = join(dir, 'download');
    await download.saveAs(file);
    return readFileSync(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Waits until the locator's text contains `expected` (playwright-core has no auto-waiting expect). */
export async function expectText(locator: Locator, expected: string): Promise<void> {
  await expect.poll(() => locator.innerText(), { timeout: 10_000 }).toContain(expected);
}

/**
 * Runs in the page (as plain JS: the tests' TypeScript has no DOM types): the page scrolling
 * sideways, a box scrolling sideways, or visible text (an input's value included) wider than
 * its box and hidden with neither an ellipsis nor the full text in a title.
 */
const CLIPPED_TEXT = `(() => {
  const found = [];
  const root = document.documentElement;
  if (root.scrollWidth > root.clientWidth)
    found.push('the page scrolls sideways (' + root.scrollWidth + ' > ' + root.clientWidth + ')');
  const name = (el) => el.tagName.toLowerCase() + '.' + [...el.classList].join('.') + ' "' +
    String(el.value ?? el.textContent ?? '').trim().slice(0, 60) + '"';
  // The page's own scroll boxes too: main scrolls up and down, so a page wider than the window
  // scrolls main sideways, not the document.
  for (const el of document.querySelectorAll('main, main *, aside, aside *')) {
    if (el.closest('.offscreen, [aria-hidden="true"]')) continue;
    const rect = el.getBoundingClientRect();
    if (rect.width === 0 || rect.height === 0) continue;
    if (el.scrollWidth <= el.clientWidth + 1) continue;
    const style = getComputedStyle(el);
    if (el.matches('input:not([type=checkbox]):not([type=radio]):not([type=file])')) {
      if (document.activeElement !== el) found.push('value cut: ' + name(el));
      continue;
    }
    if (el.matches('select, textarea')) continue;
    if (style.overflowX === 'auto' || style.overflowX === 'scroll') {
      found.push('scrolls sideways: ' + name(el));
      continue;
    }
    const ownText = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    const hides = style.overflowX === 'hidden' || style.overflowX === 'clip';
    if (ownText && hides && style.textOverflow !== 'ellipsis' && !el.title)
      found.push('text cut: ' + name(el));
  }
  return found;
})()`;

/** What a person would see cut at the current window size; an empty list is a page that fits. */
export function clippedText(page: Page): Promise<string[]> {
  return page.evaluate(CLIPPED_TEXT) as Promise<string[]>;
}

/** Whether the locator's box lies wholly inside the window. */
export async function inView(page: Page, locator: Locator): Promise<boolean> {
  const box = await locator.boundingBox();
  const size = page.viewportSize();
  if (!box || !size) return false;
  return (
    box.y >= 0 && box.y + box.height <= size.height && box.x >= 0 && box.x + box.width <= size.width
  );
}

/**
 * The Scenarios page's dry run with `product` and `board` chosen, and `set` imported into the
 * editor as a file (valid): the run panel.
 */
export async function chooseRun(
  page: Page,
  product: string,
  board: string,
  set: { name: string; json: object },
): Promise<Locator> {
  await nav(page, 'Scenarios').click();
  const panel = page.getByTestId('run-panel');
  const productSelect = panel.locator('label', { hasText: 'Product' }).locator('select');
  const option = productSelect.locator('option', { hasText: product });
  await option.waitFor({ state: 'attached' });
  await productSelect.selectOption((await option.getAttribute('value')) ?? '');
  const boardSelect = panel.getByTestId('run-board');
  const chosen = boardSelect.locator('option', { hasText: board });
  await chosen.waitFor({ state: 'attached' });
  await boardSelect.selectOption((await chosen.getAttribute('value')) ?? '');
  const editor = page.getByTestId('scenario-editor');
  await editor.getByTestId('import-file').setInputFiles({
    name: set.name,
    mimeType: 'application/json',
    buffer: Buffer.from(JSON.stringify(set.json)),
  });
  await expectText(editor.getByTestId('validation-summary'), 'valid');
  return panel;
}

/** The audit log's records whose text holds `text`, as another window would search them. */
export async function auditRecords<T>(page: Page, text: string): Promise<T[]> {
  const answer = await page.evaluate(
    async (body) =>
      (
        await fetch('/api/ops/audit:search', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        })
      ).json(),
    JSON.stringify({ text, limit: 50 }),
  );
  return (answer as { value: { items: T[] } }).value.items;
}

/** One contract operation, as another window or the CLI would call it: its HTTP status. */
export async function opStatus(page: Page, name: string, input: object): Promise<number> {
  return page.evaluate(
    async ([path, body]) =>
      (
        await fetch(path, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        })
      ).status,
    [`/api/ops/${name}`, JSON.stringify(input)] as const,
  );
}

/**
 * The Zephyr Secure board (resources/sim/zephyr-secure.json) as `name` at `address`, or a tray
 * of `count` from there, as a board file: a file's flow pairs boards of its own, since a board
 * bonded before would be encrypted with its bond and ask nothing.
 */
export function secureBoardFile(name: string, address: string, count?: number): Buffer {
  const file = JSON.parse(readFileSync('resources/sim/zephyr-secure.json', 'utf8'));
  const board = { ...file.boards[0], name, address, ...(count && { count }) };
  return Buffer.from(JSON.stringify({ boards: [board] }));
}

/**
 * Loads `secureBoardFile` on the BLE bench page (opened first) the way a person does, and waits
 * for its (last) board on the simulated bench.
 */
export async function loadSecureBoards(
  page: Page,
  name: string,
  address: string,
  count?: number,
): Promise<void> {
  await nav(page, 'BLE bench').click();
  const sim = page.getByTestId('sim-bench');
  await sim.getByTestId('board-file').setInputFiles({
    name: `${name.toLowerCase().replace(/\W+/g, '-')}.json`,
    mimeType: 'application/json',
    buffer: secureBoardFile(name, address, count),
  });
  const last = count ? `${name} ${String(count).padStart(2, '0')}` : name;
  await sim.getByTestId('sim-board').filter({ hasText: last }).waitFor();
}

/**
 * Opens Provisioning and plans `product` with `secureProfileFile`, loaded from a file the way a
 * person does: the plan, once it shows the profile.
 */
export async function planSecureProfile(page: Page, product: string): Promise<Locator> {
  await nav(page, 'Provisioning').click();
  const plan = page.getByTestId('prov-plan');
  await plan.getByLabel('Product').selectOption({ label: product });
  await plan.getByTestId('profile-file').setInputFiles({
    name: 'secure.json',
    mimeType: 'application/json',
    buffer: secureProfileFile(),
  });
  await expectText(plan, 'authenticated LE Secure Connections');
  await expect
    .poll(() => plan.getByLabel('Provisioning profile').inputValue())
    .toBe('devicebench-v1-sc');
  return plan;
}

/** devicebench-v1's layout, for a product that needs level 4 and reads its PSDI there. */
function secureProfileFile(): Buffer {
  const v1 = JSON.parse(readFileSync('resources/profiles/devicebench-v1.json', 'utf8'));
  return Buffer.from(
    JSON.stringify({
      ...v1,
      id: 'devicebench-v1-sc',
      name: 'DeviceBench v1 over authenticated LE Secure Connections',
      psdi: { ...v1.psdi, readPermission: 'sc' },
      security: { level: 4 },
    }),
  );
}
