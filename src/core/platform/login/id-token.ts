// ID tokens (docs/platform-api.md#login): HS256 JWTs signed with the channel secret. The checks run
// in one fixed order and the first failure names the `error_description`; the emulator's verify
// endpoint and the console's local inspector both use them, so they always agree.
import { compactVerify, decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import {
  ID_TOKEN_ERRORS,
  idTokenPayloadSchema,
  type IdTokenCheckName,
  type IdTokenPayload,
} from './schema';

const encoder = new TextEncoder();
/** The one algorithm the platform signs ID tokens with (docs/decisions.md, "Login and tokens"). */
export const ID_TOKEN_ALG = 'HS256';

export async function signIdToken(payload: IdTokenPayload, channelSecret: string): Promise<string> {
  return new SignJWT({ ...payload })
    .setProtectedHeader({ alg: ID_TOKEN_ALG, typ: 'JWT' })
    .sign(encoder.encode(channelSecret));
}

export interface IdTokenExpectations {
  /** The issuer the platform signs with. */
  issuer: string;
  /** The channel ID the caller expects as `aud`. */
  clientId: string;
  /** Checked only when given, as the platform's verify endpoint does. */
  nonce?: string;
  userId?: string;
  nowSeconds: number;
}

interface IdTokenCheck {
  name: IdTokenCheckName;
  /** undefined: not checked (an earlier check failed, or nothing was expected). */
  ok: boolean | undefined;
  detail: string;
}

export interface IdTokenReport {
  header?: Record<string, unknown>;
  /** The decoded payload, even when the signature does not match, for inspection. */
  payload?: Record<string, unknown>;
  checks: IdTokenCheck[];
  /** The verified claims when every check passed. */
  claims?: IdTokenPayload;
  /** The `error_description` (docs/platform-api.md#login-errors) of the first failed check. */
  error?: (typeof ID_TOKEN_ERRORS)[IdTokenCheckName];
}

/**
 * Checks an ID token: signature (with the secret of the channel its `aud` names), issuer,
 * expiry, audience, nonce, subject — in that order, the order of the platform's table.
 */
export async function checkIdToken(
  idToken: string,
  secretFor: (audience: string) => string | undefined,
  expect: IdTokenExpectations,
): Promise<IdTokenReport> {
  const report: IdTokenReport = { checks: [] };
  try {
    report.header = decodeProtectedHeader(idToken) as Record<string, unknown>;
    report.payload = decodeJwt(idToken) as Record<string, unknown>;
  } catch {
    // Not a JWT at all; the signature check below says so.
  }
  const checks: [IdTokenCheckName, () => Promise<string | true> | string | true][] = [];
  let claims: IdTokenPayload | undefined;

  checks.push([
    'signature',
    async () => {
      if (!report.header || !report.payload) return 'not a compact JWS with a JSON payload';
      if (report.header.alg !== ID_TOKEN_ALG)
        return `alg is ${String(report.header.alg)}, not ${ID_TOKEN_ALG}`;
      const parsed = idTokenPayloadSchema.safeParse(report.payload);
      if (!parsed.success) return 'the payload lacks iss, sub, aud, exp or iat of the right type';
      const secret = secretFor(parsed.data.aud);
      if (!secret) return `no channel secret known for aud ${parsed.data.aud}`;
      try {
        await compactVerify(idToken, encoder.encode(secret), { algorithms: [ID_TOKEN_ALG] });
      } catch {
        return `the ${ID_TOKEN_ALG} signature does not match the channel secret`;
      }
      claims = parsed.data;
      return true;
    },
  ]);
  const c = () => claims as IdTokenPayload;
  checks.push([
    'issuer',
    () => c().iss === expect.issuer || `iss is ${c().iss}, expected ${expect.issuer}`,
  ]);
  checks.push([
    'expiry',
    () =>
      c().exp > expect.nowSeconds ||
      `exp ${c().exp} is not after now (${expect.nowSeconds}): expired ${expect.nowSeconds - c().exp} s ago`,
  ]);
  checks.push([
    'audience',
    () => c().aud === expect.clientId || `aud is ${c().aud}, expected ${expect.clientId}`,
  ]);
  checks.push([
    'nonce',
    () =>
      expect.nonce === undefined ||
      c().nonce === expect.nonce ||
      `nonce is ${c().nonce === undefined ? 'absent' : c().nonce}, expected ${expect.nonce}`,
  ]);
  checks.push([
    'subject',
    () =>
      expect.userId === undefined ||
      c().sub === expect.userId ||
      `sub is ${c().sub}, expected ${expect.userId}`,
  ]);

  for (const [name, run] of checks) {
    if (report.error) {
      report.checks.push({ name, ok: undefined, detail: 'not checked: an earlier check failed' });
      continue;
    }
    const skipped =
      (name === 'nonce' && expect.nonce === undefined) ||
      (name === 'subject' && expect.userId === undefined);
    const outcome = await run();
    if (outcome === true) {
      report.checks.push({
        name,
        ok: skipped ? undefined : true,
        detail: skipped
          ? `not checked: no expected ${name === 'nonce' ? 'nonce' : 'user_id'} given`
          : 'ok',
      });
    } else {
      report.checks.push({ name, ok: false, detail: outcome });
      report.error = ID_TOKEN_ERRORS[name];
    }
  }
  if (!report.error) report.claims = claims;
  return report;
}
