// Whether the station's HCI traces keep the link keys, as the data folder's
// `trace-settings.json` and the app's contract carry it (browser-safe: zod only). Off unless the
// user turns it on: a trace with keys lets anyone who has it decrypt the link
// (docs/decisions/ble-and-hci.md, "Keys in traces").
import { z } from 'zod';

export const traceSettingsSchema = z.object({
  /** Write the link keys into the traces as they cross the HCI, and keep them in exports. */
  keepKeys: z.boolean({ error: 'must be true or false' }).default(false),
});
export type TraceSettings = z.output<typeof traceSettingsSchema>;
