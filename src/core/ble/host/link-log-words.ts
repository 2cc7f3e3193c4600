// What the BLE process's link log says, in words: a link request and the link after it, and a
// GATT error with the characteristic named as the explorer shows it (src/core/ble/host/link-book.ts).
import { attErrorOf, BleError } from '../port';
import { ATT_ERROR, describeLengthRefusal } from '../att/codes';
import type { LinkInfo, LinkRequest } from '../link-parameters';
import { withCharacteristicName } from '../names/resolver';

/** How a write the adapter could not confirm reads wherever it is shown. */
export const NOT_CONFIRMED = 'not confirmed by the board (native adapter)';

const REQUEST_LOG: Record<LinkRequest['kind'], string> = {
  connectionParameters: 'asked for connection parameters',
  phy: 'asked for a PHY',
  dataLength: 'asked for a data length',
  pair: 'paired',
  rssi: 'read the RSSI',
};

/** A link request and the link's timing and PHY after it, in the words of the log. */
export function describeLinkRequest(kind: LinkRequest['kind'], link: LinkInfo): string {
  return `${REQUEST_LOG[kind]}: interval ${link.intervalMs} ms, latency ${link.latency}, timeout ${link.supervisionTimeoutMs} ms, PHY ${link.txPhy}/${link.rxPhy}${link.dataLength === undefined ? '' : `, data length ${link.dataLength} octets`}, security level ${link.securityLevel}`;
}

/**
 * Names the characteristic the way the explorer shows it (its name beside the UUID) and, for
 * a write refused as the wrong length, says the characteristic's longest value against the
 * bytes written, in the error's own text, so every place that shows it says the same.
 */
export function explainGattError(
  err: unknown,
  characteristicUuid: string,
  facts: { name?: string; maxLength?: number },
  written: number | undefined,
): void {
  if (!(err instanceof BleError)) return;
  err.message = withCharacteristicName(err.message, characteristicUuid, facts.name);
  if (written !== undefined && attErrorOf(err)?.code === ATT_ERROR.invalidAttributeValueLength)
    err.message = `${err.message}: ${describeLengthRefusal(written, facts.maxLength)}`;
}
