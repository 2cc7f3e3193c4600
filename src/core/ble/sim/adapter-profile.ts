// What the simulated bench's LE controller can do, as data: how many links it holds, how it
// times them and how much ACL it buffers. Real adapters differ in exactly these numbers, and they
// decide how fast a batch can go; the defaults are a typical USB dongle's (docs/decisions.md,
// "The simulated bench's controller").
import { z } from 'zod';

const address = z
  .string()
  .regex(
    /^(?:[0-9a-f]{2}:){5}[0-9a-f]{2}$/,
    'must be a Bluetooth address such as 00:1a:7d:da:71:01',
  );

/**
 * Which address the controller has (docs/decisions.md, "One identity per dongle"): `public`, its
 * `address` answered to Read BD_ADDR; `zephyrStatic`, none (Read BD_ADDR answers zeros, as
 * Zephyr's hci_uart/hci_usb on an nRF52840 dongle do) but a static one answered to Zephyr's
 * Read Static Addresses: `address` with its two top bits set; `none`, no address and no vendor
 * commands, so the host makes its own.
 */
export const CONTROLLER_ADDRESSING = ['public', 'zephyrStatic', 'none'] as const;

export const adapterProfileSchema = z.object({
  /** The controller's address: its public one, or the base of its static one (`addressing`). */
  address: address.default('00:1a:7d:da:71:01'),
  addressing: z.enum(CONTROLLER_ADDRESSING).default('public'),
  /** Simultaneous LE links; one more LE Create Connection is refused with 0x09. */
  maxConnections: z.number().int().min(1).max(32).default(5),
  /**
   * The connection interval the controller picks, clamped into the range the host asks for
   * (noble asks for 7.5–22.5 ms). ATT traffic moves only at connection events.
   */
  connectionIntervalMs: z
    .number()
    .min(7.5)
    .max(4000)
    .refine((ms) => Number.isInteger(ms / 1.25), 'must be a multiple of 1.25 ms')
    .default(15),
  /** The supervision timeout the controller applies when the host asks for a shorter one. */
  supervisionTimeoutMs: z.number().int().min(100).max(32_000).default(420),
  /** LE Read Buffer Size: the host's ACL packets are at most this long... */
  aclBufferSize: z.number().int().min(27).max(251).default(27),
  /** ...and at most this many are in the controller at once (Number Of Completed Packets frees them). */
  aclBufferCount: z.number().int().min(1).max(64).default(8),
  /** LE data length: payload octets of one link-layer data PDU (27 without Data Length Extension). */
  dataLength: z.number().int().min(27).max(251).default(27),
  /**
   * Whether the controller measures signal strength, or reports 127 ("RSSI is not available",
   * Vol 4, Part E, 7.7.65.2 and 7.5.4) in every advertising report and Read RSSI, as BlueZ's
   * btvirt does.
   */
  rssi: z.enum(['measured', 'notAvailable']).default('measured'),
  /** Link-layer data PDUs each side can send in one connection event. */
  pdusPerEvent: z.number().int().min(1).max(32).default(4),
});

export type AdapterProfile = z.output<typeof adapterProfileSchema>;
export type AdapterProfileInput = z.input<typeof adapterProfileSchema>;

export const DEFAULT_ADAPTER_PROFILE: AdapterProfile = adapterProfileSchema.parse({});
