// Reconcile's look at a stock Zephyr board (an MCUmgr settings profile): the profile's PSDI
// key read back through MCUmgr settings (docs/provisioning-protocol.md, "MCUmgr settings
// profiles"). A read answers the live value, which may be written but never saved; so a blank
// board whose key holds the record's PSDI is reset once and read again: what survives a reset
// is what its flash holds.
import type { ProvisioningRecord } from '../audit/records';
import { McumgrClient } from '../ble/mcumgr/client';
import { reset } from '../ble/mcumgr/os-group';
import { normalizeUuid, type Advertisement, type BleCentral } from '../ble/port';
import { STATUS, type McumgrSettingsProfile } from '../ble/provisioning-profile';
import type { BoardFinding } from './board-finding';
import { readPsdiSetting } from './psdi-setting';
import { withStepTimeout, type resolveTiming } from './steps';
import { findBoard } from './verify';

type Timing = ReturnType<typeof resolveTiming>;

export async function inspectSettingsBoard(
  central: BleCentral,
  record: ProvisioningRecord,
  profile: McumgrSettingsProfile,
  timing: Timing,
): Promise<BoardFinding> {
  const productService = normalizeUuid(record.serviceUuid);
  for (let resetDone = false; ; resetDone = true) {
    const ad = await findBoard(
      central,
      record.boardAddress,
      [productService, profile.service],
      timing.select.timeoutMs,
    );
    if (!ad) return { kind: 'not-found' };
    const product = ad.serviceUuids.includes(productService);
    const mayBeLiveOnly = (held: string | undefined) =>
      !product && !resetDone && held === record.psdi;
    const held = await readPsdiKey(central, ad, profile, timing, mayBeLiveOnly);
    if (mayBeLiveOnly(held)) continue;
    if (held === undefined) {
      if (product)
        throw new Error(
          `board ${record.boardAddress} advertises the product but its setting ${profile.keys.psdi} is unset`,
        );
      return { kind: 'blank', advertisement: ad, status: STATUS.blank };
    }
    if (held !== record.psdi) return { kind: 'different-psdi', advertisement: ad, psdi: held };
    return product
      ? { kind: 'carries-psdi', advertisement: ad, psdi: held }
      : { kind: 'blank', advertisement: ad, status: STATUS.blank, devicePsdi: held };
  }
}

/** The PSDI key's value; with `resetIf` true of it, the board is reset before the link ends. */
async function readPsdiKey(
  central: BleCentral,
  ad: Advertisement,
  profile: McumgrSettingsProfile,
  timing: Timing,
  resetIf: (held: string | undefined) => boolean,
): Promise<string | undefined> {
  const link = await withStepTimeout(
    central.connect(ad.id, { timeoutMs: timing.connect.timeoutMs }),
    'reconcile',
    timing.connect.timeoutMs,
  );
  const down = new Promise<void>((resolve) => link.onDisconnect(() => resolve()));
  let client: McumgrClient | undefined;
  try {
    client = await McumgrClient.open(link, { timeoutMs: timing.read.timeoutMs });
    const held = await readPsdiSetting(client, profile);
    if (resetIf(held)) {
      await reset(client);
      await withStepTimeout(down, 'reconcile', timing.connect.timeoutMs);
    }
    return held;
  } finally {
    await client?.close();
    await link.disconnect().catch(() => undefined);
  }
}
