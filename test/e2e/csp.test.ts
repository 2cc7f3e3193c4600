// One Content-Security-Policy (docs/decisions.md, "Hardening"), enforced by the bench server's
// header and by the <meta> in the built index.html alone (as a file:// page in Electron gets it),
// each reporting a violation for an inline script instead of running it.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  CONTENT_SECURITY_POLICY,
  contentSecurityPolicy,
} from '../../src/core/content-security-policy';
import { useBench } from './fixture';

const bench = useBench();
const BUILT_INDEX = resolve('out/web/index.html');

// Strings, because this file is type-checked for Node, without the DOM's types.
const RECORD_VIOLATIONS = `window.__violations = [];
  document.addEventListener('securitypolicyviolation', (e) =>
    window.__violations.push({ directive: e.effectiveDirective, blocked: e.blockedURI }));`;
const INJECT_INLINE_SCRIPT = `(() => {
  const script = document.createElement('script');
  script.textContent = 'window.__inlineRan = true';
  document.body.append(script);
})()`;

async function inlineScriptIsRefused(page: Page): Promise<void> {
  await page.evaluate(INJECT_INLINE_SCRIPT);
  await expect
    .poll(() => page.evaluate('window.__violations') as Promise<{ directive: string }[]>)
    .toContainEqual({ directive: 'script-src-elem', blocked: 'inline' });
  expect(await page.evaluate('window.__inlineRan === true')).toBe(false);
}

describe('content security policy', () => {
  it('the bench server sends the one policy, and an inline script is reported, not run', async () => {
    const { page, url, pageErrors } = bench();
    const response = await page.goto(url);
    expect(response?.headers()['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    await page.evaluate(RECORD_VIOLATIONS);
    await inlineScriptIsRefused(page);
    expect(pageErrors.join('\n')).toContain('Content Security Policy');
  });

  it('the built index.html carries the same policy in a <meta>, which alone refuses an inline script', async () => {
    const html = readFileSync(BUILT_INDEX, 'utf8');
    const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1];
    expect(meta?.replace(/&#39;/g, "'")).toBe(contentSecurityPolicy({ meta: true }));
    expect(html.indexOf('Content-Security-Policy')).toBeLessThan(html.indexOf('<script'));

    const page = await bench().context.newPage();
    try {
      await page.addInitScript(RECORD_VIOLATIONS);
      await page.goto(pathToFileURL(BUILT_INDEX).href);
      await inlineScriptIsRefused(page);
    } finally {
      await page.close();
    }
  });
});
