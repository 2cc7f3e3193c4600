// The address an adapter introduces itself with on the air, and where it came from: the
// controller's public address, or, for a controller without one (Zephyr's hci_uart/hci_usb on
// an nRF52840 dongle answer Read BD_ADDR with 00:00:00:00:00:00), a static random address — the
// controller's own (Zephyr's Read Static Addresses) or one generated once and kept for the
// adapter in the data folder (docs/decisions.md, "One identity per dongle"). Browser-safe: the
// contract and the adapter card read it.
import { z } from 'zod';

const IDENTITY_SOURCES = [
  'public',
  'controllerStatic',
  'generatedKept',
  'generatedSession',
] as const;
export type IdentitySource = (typeof IDENTITY_SOURCES)[number];

export const adapterIdentitySchema = z.object({
  /** "aa:bb:cc:dd:ee:ff", most significant octet first. */
  address: z.string().regex(/^(?:[0-9a-f]{2}:){5}[0-9a-f]{2}$/),
  type: z.enum(['public', 'random']),
  source: z.enum(IDENTITY_SOURCES),
});
export type AdapterIdentity = z.infer<typeof adapterIdentitySchema>;

/** Where an identity came from, in the words the adapter card and the CLI use. */
export const IDENTITY_SOURCE_LABEL: Readonly<Record<IdentitySource, string>> = {
  public: 'public',
  controllerStatic: 'static (controller)',
  generatedKept: 'static (generated, kept)',
  generatedSession: 'static (generated, this session only)',
};

/** "c0:1a:7d:da:71:01 · static (controller)": one identity in one line. */
export function describeIdentity(identity: AdapterIdentity): string {
  return `${identity.address} · ${IDENTITY_SOURCE_LABEL[identity.source]}`;
}
