// A station's scan for a while: which boards are in range, with the BLE bench's filters, each
// board once at its latest advertisement, strongest first, and each adapter's own address on the
// air as the BLE bench's adapter card shows it (docs/decisions.md, "One identity per dongle").
import { z } from 'zod';
import { RSSI_MAX_DBM, RSSI_MIN_DBM } from '../../bounds';
import { describeIdentity, type AdapterIdentity } from '../../ble/adapter-identity';
import { uuidSchema, type Advertisement } from '../../ble/port';
import type { MultiCentral } from '../../ble/radio/multi-adapter-central';
import { strongerFirst } from '../../ble/rssi';
import { wholeNumberText } from '../../whole-number';

/** A scan's filters: a service UUID, part of the name, the weakest RSSI (whole dBm). */
export const scanFilterSchema = z.object({
  service: uuidSchema.optional(),
  name: z.string().min(1, 'must not be empty').optional(),
  rssi: wholeNumberText({ min: RSSI_MIN_DBM, max: RSSI_MAX_DBM, unit: 'dBm' }).optional(),
});

export interface ScanReport {
  /** Each board heard, strongest first. */
  boards: Advertisement[];
  adapters: {
    spec: string;
    identity: AdapterIdentity | null;
    /** The identity in words, when there is one. */
    described?: string;
  }[];
}

/** Scans until what `until` starts settles (it starts once the scan runs); `heard` is told how many boards so far, on each advertisement. */
export async function scanBoards(
  central: MultiCentral,
  filter: z.output<typeof scanFilterSchema>,
  until: () => Promise<void>,
  heard?: (boards: number) => void,
): Promise<ScanReport> {
  const boards = new Map<string, Advertisement>();
  const scan = await central.startScan(
    {
      serviceUuids: filter.service ? [filter.service] : undefined,
      name: filter.name,
      minRssi: filter.rssi,
    },
    (ad) => {
      boards.set(ad.address, ad);
      heard?.(boards.size);
    },
  );
  await until();
  await scan.stop();
  return {
    boards: [...boards.values()].sort((a, b) => strongerFirst(a.rssi, b.rssi)),
    adapters: central.adapters().map((a) => ({
      spec: a.spec,
      identity: a.identity ?? null,
      described: a.identity && describeIdentity(a.identity),
    })),
  };
}
