// The login console end to end on the emulator: the guided flow from a minted code to revoke,
// the clock moved 31 days so verify fails with `access_token invalid`, a refresh that brings
// the token back, the ID token inspector naming the server's reason, and curl with secrets masked;
// and every secret typed into a request kept off the screen and out of the data folder. Each
// flow runs once; where the masked texts show, and the pictures, are looked at in both window
// sizes.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { atEachSize, expectText, FLOW_SIZE, nav, shoot, useBench } from './fixture';

const bench = useBench();

describe('login console', () => {
  it('runs the guided flow, expires the token with the clock, refreshes it and revokes it', async () => {
    const { page, pageErrors, context } = bench();
    await page.getByRole('button', { name: 'Login & profile' }).click();
    const flow = page.getByTestId('guided-flow');
    await flow.waitFor();
    const exchange = (label: string) => flow.getByRole('figure', { name: `${label} exchange` });
    const step = async (label: string, status: number) => {
      await flow.getByRole('button', { name: label, exact: true }).click();
      await expectText(exchange(label).getByTestId('login-status'), `HTTP ${status}`);
    };

    await flow.getByRole('button', { name: 'Mint code' }).click();
    await expect
      .poll(() => flow.getByLabel('Code', { exact: true }).inputValue())
      .toMatch(/\S{20}/);
    await expectText(flow.getByTestId('token-state'), 'No access token yet');

    await step('Issue tokens', 200);
    const issued = exchange('Issue tokens');
    await expectText(issued.getByTestId('login-response-body'), '"id_token"');
    await expectText(issued, 'code_verifier=');
    await expectText(flow.getByTestId('token-state'), 'Access token is valid');
    expect(await flow.locator('.login-diagram li[aria-current="step"]').innerText()).toContain(
      'Valid',
    );

    await step('Verify access token', 200);
    await expectText(exchange('Verify access token'), '"scope": "openid profile"');
    await step('Get user information', 200);
    await step('Get profile', 200);
    await expectText(exchange('Get profile'), '"displayName": "Login user"');
    // No official account is linked to the channel yet.
    await step('Get friendship status', 403);

    // Copy as curl masks the channel secret unless asked.
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await issued.getByRole('button', { name: 'Copy Issue tokens as curl' }).click();
    await expectText(issued.getByTestId('curl-note'), 'Copied, secrets masked');
    const masked = (await page.evaluate('navigator.clipboard.readText()')) as string;
    expect(masked).toMatch(/^curl -i -X POST 'http:\/\/127\.0\.0\.1:\d+\/oauth2\/v2\.1\/token'/);
    expect(masked).toMatch(/client_secret=•••• [0-9a-f]{4}/);
    await issued.getByLabel('include secrets').check();
    await issued.getByRole('button', { name: 'Copy Issue tokens as curl' }).click();
    await expectText(issued.getByTestId('curl-note'), 'Copied with secrets');
    const revealed = (await page.evaluate('navigator.clipboard.readText()')) as string;
    expect(revealed).toMatch(/client_secret=[0-9a-f]{32}/);

    // 31 days later the access token has expired.
    await flow.getByRole('button', { name: 'Advance clock 31 days' }).click();
    await expectText(flow.getByTestId('token-state'), 'Access token is expired');
    expect(await flow.locator('.login-diagram li[aria-current="step"]').innerText()).toContain(
      'Expired',
    );
    await step('Verify access token', 400);
    const failed = exchange('Verify access token').getByTestId('login-response-body');
    await expectText(failed, '"error": "invalid_request"');
    await expectText(failed, '"error_description": "access_token invalid"');

    // The inspector checks the flow's ID token locally and names the server's reason.
    const inspector = page.getByTestId('id-token-inspector');
    await inspector.getByRole('button', { name: 'Inspect' }).click();
    await expectText(inspector.getByTestId('id-token-verdict'), 'Fails: IdToken expired.');
    await expectText(inspector.getByTestId('id-token-payload'), '"amr"');

    // Refresh brings a new, valid access token; verify succeeds again.
    await step('Refresh access token', 200);
    await expectText(exchange('Refresh access token'), '"expires_in": 2592000');
    await expectText(flow.getByTestId('token-state'), 'Access token is valid');
    await step('Verify access token', 200);

    await step('Revoke access token', 200);
    await expectText(exchange('Revoke access token'), '(empty body)');
    await expectText(flow.getByTestId('token-state'), 'Access token is revoked');
    await step('Verify access token', 400);

    expect(pageErrors).toEqual([]);
  });

  it('sends any operation from its own form and names a missing field', async () => {
    const { page, pageErrors } = bench();
    const ops = page.getByTestId('login-operations');
    await ops.getByLabel('Operation', { exact: true }).selectOption('verifyIdToken');
    await ops.getByLabel('id_token', { exact: true }).fill('not-a-jwt');
    await ops.getByRole('button', { name: 'Send' }).click();
    await expectText(ops.getByTestId('login-status'), 'HTTP 400');
    await expectText(ops.getByTestId('login-response-body'), 'Invalid IdToken.');

    await ops.getByLabel('Operation', { exact: true }).selectOption('verify');
    await ops.getByLabel('access_token', { exact: true }).fill('');
    await ops.getByRole('button', { name: 'Send' }).click();
    await expectText(ops.locator('.field-error'), 'is required');
    expect(pageErrors).toEqual([]);
  });
});

/** Every text node, title, aria-label and placeholder of the page (input values are what was typed). */
const PAGE_TEXT = `(() => {
  const parts = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) parts.push(n.textContent);
  for (const el of document.querySelectorAll('[title], [aria-label], [placeholder]'))
    parts.push(el.getAttribute('title'), el.getAttribute('aria-label'), el.getAttribute('placeholder'));
  return parts.filter(Boolean).join('\\n');
})()`;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

describe('secrets in requests', () => {
  it('masks every typed token as "•••• last4" on screen, in curl and keeps it out of the data folder', async () => {
    const { page, pageErrors, context, dataDir } = bench();
    await page.setViewportSize(FLOW_SIZE);
    // Tokens a person pastes: URL-unsafe characters included, each with its own last four.
    const secret = (name: string, last4: string) => `e2e+${name}/Fjr8x=Q2${last4}`;
    const tokens = {
      verify: secret('verify', 'nrV_'),
      bearer: secret('bearer', 'bR3a'),
      revoke: secret('revoke', 'rVk9'),
      code: secret('code', 'c0De'),
      verifier: secret('verifier', 'vF1r'),
      deauthorize: secret('deauth', 'dA7u'),
    };
    await nav(page, 'Login & profile').click();
    const ops = page.getByTestId('login-operations');
    const send = async (operation: string, fields: Record<string, string>, shown: string[]) => {
      await ops.getByLabel('Operation', { exact: true }).selectOption(operation);
      for (const [label, value] of Object.entries(fields))
        await ops.getByLabel(label, { exact: true }).fill(value);
      await ops.getByRole('button', { name: 'Send' }).click();
      const exchange = ops.getByTestId('login-exchange');
      for (const text of shown) await expectText(exchange, text);
    };

    await send('verify', { access_token: tokens.verify }, [
      'GET /oauth2/v2.1/verify?access_token=•••• nrV_',
    ]);
    // The status bar shows the same request, masked the same way, in view.
    const last = page.getByTestId('status-activity');
    await expectText(last, 'GET /oauth2/v2.1/verify?access_token=•••• nrV_');
    await atEachSize(page, async (size) => {
      const box = await last.boundingBox();
      expect(box && box.y + box.height).toBeLessThanOrEqual(size.height);
      await shoot(page, 'secret-masked-status-bar');
    });

    await send('profile', { 'Access token (Bearer)': tokens.bearer }, [
      'authorization: Bearer •••• bR3a',
    ]);
    await send('revoke', { access_token: tokens.revoke }, ['access_token=•••• rVk9']);
    await send('issue', { code: tokens.code, 'code_verifier (optional)': tokens.verifier }, [
      'code=•••• c0De',
      'code_verifier=•••• vF1r',
    ]);
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await ops.getByRole('button', { name: 'Copy Issue access token as curl' }).click();
    await expectText(ops.getByTestId('curl-note'), 'Copied, secrets masked');
    const curl = (await page.evaluate('navigator.clipboard.readText()')) as string;
    expect(curl).toContain('code=•••• c0De');
    await send('deauthorize', { userAccessToken: tokens.deauthorize }, [
      '"userAccessToken":"•••• dA7u"',
    ]);
    await atEachSize(page, () => shoot(page, 'secret-masked-exchange'));

    // No page shows any of them: every page's text nodes and labels, the Emulator's activity
    // log (the request history) included.
    const pages = page.getByRole('navigation', { name: 'Areas' }).getByRole('button');
    const shownSomewhere: string[] = [curl];
    for (let i = 0; i < (await pages.count()); i++) {
      await pages.nth(i).click();
      await page.waitForTimeout(150);
      shownSomewhere.push((await page.evaluate(PAGE_TEXT)) as string);
    }
    await nav(page, 'Emulator').click();
    await expectText(page.getByTestId('activity-log'), 'access_token=•••• nrV_');
    shownSomewhere.push((await page.evaluate(PAGE_TEXT)) as string);
    const folder = filesUnder(dataDir).map((file) => readFileSync(file).toString('latin1'));
    for (const token of Object.values(tokens)) {
      const forms = [token, encodeURIComponent(token)];
      for (const text of [...shownSomewhere, ...folder])
        for (const form of forms) expect(text).not.toContain(form);
    }
    expect(shownSomewhere.join('\n')).not.toContain('%E2%80%A2');
    expect(pageErrors).toEqual([]);
  });
  it('masks the tokens an answer issued on every page and in every file, and copies them unshown', async () => {
    const { page, pageErrors, context, dataDir } = bench();
    await page.setViewportSize(FLOW_SIZE);
    await nav(page, 'Login & profile').click();
    const flow = page.getByTestId('guided-flow');
    await flow.getByRole('button', { name: 'Mint code' }).click();
    await expect
      .poll(() => flow.getByLabel('Code', { exact: true }).inputValue())
      .toMatch(/\S{20}/);
    const code = await flow.getByLabel('Code', { exact: true }).inputValue();
    await flow.getByRole('button', { name: 'Issue tokens', exact: true }).click();
    const issued = flow.getByRole('figure', { name: 'Issue tokens exchange' });
    await expectText(issued.getByTestId('login-status'), 'HTTP 200');

    // "Copy" hands over each whole credential without drawing it.
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const tokens: Record<string, string> = {};
    for (const name of ['access_token', 'refresh_token', 'id_token']) {
      await issued.getByRole('button', { name: `Copy ${name} from Issue tokens` }).click();
      tokens[name] = (await page.evaluate('navigator.clipboard.readText()')) as string;
      expect(tokens[name]).toMatch(/^\S{20,}$/);
      await expectText(
        issued.getByTestId('login-response-body'),
        `"${name}": "•••• ${tokens[name]!.slice(-4)}"`,
      );
    }
    // The flow still sends the real token: verify answers 200.
    await flow.getByRole('button', { name: 'Verify access token', exact: true }).click();
    await expectText(
      flow
        .getByRole('figure', { name: 'Verify access token exchange' })
        .getByTestId('login-status'),
      'HTTP 200',
    );
    await expectText(
      flow.getByRole('figure', { name: 'Verify access token exchange' }),
      `access_token=•••• ${tokens.access_token!.slice(-4)}`,
    );
    await atEachSize(page, async (size) => {
      const response = await issued.getByTestId('login-response-body').boundingBox();
      expect(response && response.x + response.width).toBeLessThanOrEqual(size.width);
      await shoot(page, 'secret-masked-answer');
    });

    const shownSomewhere: string[] = [];
    const pages = page.getByRole('navigation', { name: 'Areas' }).getByRole('button');
    for (let i = 0; i < (await pages.count()); i++) {
      await pages.nth(i).click();
      await page.waitForTimeout(150);
      shownSomewhere.push((await page.evaluate(PAGE_TEXT)) as string);
    }
    await nav(page, 'Login & profile').click();
    shownSomewhere.push((await page.evaluate(PAGE_TEXT)) as string);
    // The emulator's own database holds what it issued, as the platform's does; every other
    // file of the data folder is the app's and must not.
    const folder = filesUnder(dataDir)
      .filter((file) => !/emulator\.sqlite/.test(file))
      .map((file) => readFileSync(file).toString('latin1'));
    expect(folder.length).toBeGreaterThan(0);
    for (const secret of [...Object.values(tokens), code])
      for (const text of [...shownSomewhere, ...folder])
        for (const form of [secret, encodeURIComponent(secret)]) expect(text).not.toContain(form);
    expect(pageErrors).toEqual([]);
  });
});
