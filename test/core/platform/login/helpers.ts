// Shared steps for the login tests: form posts, minting codes through the admin API, and a
// full v2.1 or v2.0 login on a channel of the test's own.
import { expect } from 'vitest';
import type { Channel } from '../../../../src/core/emulator/channels';
import type { EmulatorHarness, Answer } from '../../../helpers/emulator';
import type { MintCodeInput, MintedCode } from '../../../../src/core/platform/login/schema';

export const REDIRECT = 'https://app.example/callback';
export const DAY = 86_400_000;

export async function form(
  h: EmulatorHarness,
  path: string,
  fields: Record<string, string | undefined>,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) body.append(k, v);
  const res = await fetch(h.emulator.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: body.toString(),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // keep the text
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

export async function newChannel(
  h: EmulatorHarness,
  settings?: { appType?: string; linkedAccount?: string | null },
): Promise<Channel> {
  const channel = (await h.admin('POST', '/channels', { name: 'Login test' })).body as Channel;
  if (settings) {
    const res = await h.admin('PUT', `/login/channels/${channel.channelId}`, settings);
    expect(res.status).toBe(200);
  }
  return channel;
}

export async function newUser(h: EmulatorHarness, displayName = 'Ada'): Promise<string> {
  return ((await h.admin('POST', '/users', { displayName })).body as { userId: string }).userId;
}

export async function mintCode(
  h: EmulatorHarness,
  channel: Channel,
  input: Partial<MintCodeInput> = {},
): Promise<MintedCode> {
  const res = await h.admin('POST', '/login/codes', {
    channelId: channel.channelId,
    scopes: ['openid', 'profile'],
    redirectUri: REDIRECT,
    ...input,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as MintedCode;
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  scope: string;
  token_type: string;
  id_token?: string;
}

export function issueFields(
  channel: Channel,
  code: MintedCode,
  extra: Record<string, string> = {},
) {
  return {
    grant_type: 'authorization_code',
    code: code.code,
    redirect_uri: REDIRECT,
    client_id: channel.channelId,
    client_secret: channel.channelSecret,
    ...extra,
  };
}

export async function login(
  h: EmulatorHarness,
  channel: Channel,
  input: Partial<MintCodeInput> = {},
  version: '2.0' | '2.1' = '2.1',
): Promise<Tokens & { code: MintedCode }> {
  const code = await mintCode(h, channel, input);
  const path = version === '2.1' ? '/oauth2/v2.1/token' : '/v2/oauth/accessToken';
  const res = await form(h, path, issueFields(channel, code));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { ...(res.body as Tokens), code };
}

export async function verify(h: EmulatorHarness, accessToken: string): Promise<Answer> {
  return h.call(
    'GET',
    `/oauth2/v2.1/verify?access_token=${encodeURIComponent(accessToken)}`,
    undefined,
    null,
  );
}

export async function advance(h: EmulatorHarness, ms: number): Promise<void> {
  expect((await h.admin('POST', '/clock/advance', { ms })).status).toBe(200);
}

export function oauth(error: string, description: string) {
  return { error, error_description: description, message: description };
}
