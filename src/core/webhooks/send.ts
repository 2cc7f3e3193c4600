// Sends one webhook as the platform does: the JSON body signed with the channel secret in
// `x-platform-signature`. The emulator's dispatcher uses it for every delivery, and the app to
// deliver straight to a bot's own webhook URL.
import { causeMessage } from '../errors/message';
import { signBody, SIGNATURE_HEADER } from './signature';

/** Real time allowed for the receiver to answer; the platform does not give its own limit. */
const SEND_TIMEOUT_MS = 5_000;

export interface SendOutcome {
  /** SUCCESS for a 2xx answer; anything else, a network error or the timeout is FAILED. */
  status: 'SUCCESS' | 'FAILED';
  responseStatus?: number;
  error?: string;
  /** The signature sent, base64. */
  signature: string;
}

/**
 * POSTs `body`, the exact JSON text to send, signed over those bytes. Never throws: a failure
 * is a FAILED outcome with the reason.
 */
export function postSigned(
  url: string,
  body: string,
  channelSecret: string,
  options: { userAgent?: string } = {},
): Promise<SendOutcome> {
  return postWithSignature(url, body, signBody(body, channelSecret), options);
}

/** As `postSigned`, with the signature already made (the emulator records it before sending). */
export async function postWithSignature(
  url: string,
  body: string,
  signature: string,
  options: { userAgent?: string; signatureHeader?: string } = {},
): Promise<SendOutcome> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json; charset=utf-8',
        [options.signatureHeader ?? SIGNATURE_HEADER]: signature,
        'user-agent': options.userAgent ?? 'DeviceBench',
      },
      body,
      signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
    });
    await response.body?.cancel();
    return response.ok
      ? { status: 'SUCCESS', responseStatus: response.status, signature }
      : {
          status: 'FAILED',
          responseStatus: response.status,
          error: `the receiver answered ${response.status}`,
          signature,
        };
  } catch (err) {
    return {
      status: 'FAILED',
      error: causeMessage(err),
      signature,
    };
  }
}
