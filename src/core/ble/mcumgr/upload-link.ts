// The link an MCUmgr upload asks for before its first chunk, as phones' Device Manager does
// (docs/decisions/ble-and-hci.md, "An upload asks for the link it needs"): the longest data PDUs
// the controller takes (LE Set Data Length), the 2M PHY where both sides have it, and a 7.5–15 ms
// connection interval for the transfer, the previous parameters asked for again after it.
// Each request the controller or the board refuses is said and the upload goes on without it;
// an adapter with no link controls (noble's OS bindings) uploads on the link it has.
import { BleError, failureWords, type BleConnection } from '../port';
import { DATA_LENGTH, type LinkInfo, type LinkRequest } from '../link-parameters';
import type { UploadLink } from './upload-link-info';
import { McumgrError } from './client';

/** The interval range asked for during an upload: the shortest the spec allows up to 15 ms. */
const UPLOAD_INTERVAL_MS = { min: 7.5, max: 15 } as const;

export interface LinkForUpload {
  link: Omit<UploadLink, 'window'>;
  /** Asks for the connection parameters the link had before, when they were changed. */
  restore(): Promise<void>;
}

/** Said when the adapter cannot ask its controller for anything (no HCI access). */
export const NO_LINK_CONTROL = 'link: default (the adapter cannot change it)';

export async function linkForUpload(connection: BleConnection): Promise<LinkForUpload> {
  if (!connection.requestLink)
    return { link: { notes: [NO_LINK_CONTROL] }, restore: async () => {} };
  const notes: string[] = [];
  const ask = async (request: LinkRequest, what: string): Promise<LinkInfo | undefined> => {
    try {
      return await connection.requestLink!(request);
    } catch (error) {
      // A link that went down is the upload's to reconnect; anything else it goes on without.
      if (error instanceof BleError && error.link === 'lost')
        throw new McumgrError('link', `MCUmgr upload: ${failureWords(error)}`, undefined, {
          cause: error,
        });
      notes.push(`${what} not granted: ${failureWords(error)}`);
      return undefined;
    }
  };
  const before = connection.linkInfo?.();
  await ask({ kind: 'dataLength', octets: DATA_LENGTH.max }, 'data length');
  await ask({ kind: 'phy', phy: { tx: '2M', rx: '2M' } }, '2M PHY');
  let restore = async () => {};
  const slow =
    before &&
    (before.intervalMs < UPLOAD_INTERVAL_MS.min ||
      before.intervalMs > UPLOAD_INTERVAL_MS.max ||
      before.latency > 0);
  if (before && slow) {
    const asked = await ask(
      {
        kind: 'connectionParameters',
        parameters: {
          minIntervalMs: UPLOAD_INTERVAL_MS.min,
          maxIntervalMs: UPLOAD_INTERVAL_MS.max,
          latency: 0,
          supervisionTimeoutMs: before.supervisionTimeoutMs,
        },
      },
      'interval',
    );
    if (asked)
      restore = async () => {
        if (!connection.linkInfo?.()) return;
        await connection.requestLink!({
          kind: 'connectionParameters',
          parameters: {
            minIntervalMs: before.intervalMs,
            maxIntervalMs: before.intervalMs,
            latency: before.latency,
            supervisionTimeoutMs: before.supervisionTimeoutMs,
          },
        }).catch(() => undefined);
      };
  }
  const now = connection.linkInfo?.();
  return {
    link: {
      ...(now && { phy: now.txPhy, intervalMs: now.intervalMs }),
      ...(now?.dataLength !== undefined && { dataLength: now.dataLength }),
      notes,
    },
    restore,
  };
}
