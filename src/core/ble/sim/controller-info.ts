// What the simulated controller says of itself, from its adapter profile: its version, the
// commands it has, its buffers and its address — a public one, or none and a static one behind
// Zephyr's vendor commands (adapter-profile.ts `addressing`; docs/decisions.md, "One identity per
// dongle").
import {
  HCI_CMD,
  HCI_ERROR,
  HCI_VERSION,
  ZEPHYR_VS_CMD,
  ZEPHYR_VS_READ_STATIC_ADDRESSES_BIT,
} from '../hci/codes';
import { NO_ADDRESS, bytesOfAddress } from '../hci/own-address';
import type { AdapterProfile } from './adapter-profile';

/** The Bluetooth SIG company identifier of The Linux Foundation, as a virtual controller's. */
const MANUFACTURER = 0x05f1;

/** Zephyr's Read Version Information: Nordic (0x0002), nRF52x (0x0002), a standard controller (0x0001). */
const ZEPHYR_VERSION = { platform: 0x0002, variant: 0x0002, firmware: 0x01 } as const;

/** The static address a `zephyrStatic` controller reports: its profile address, top bits 11. */
function staticAddressOf(profile: AdapterProfile): string {
  const first = (parseInt(profile.address.slice(0, 2), 16) | 0xc0).toString(16);
  return first + profile.address.slice(2);
}

const ok = (...params: Buffer[]) => Buffer.concat([Buffer.of(HCI_ERROR.success), ...params]);

/** The return parameters of an information command, or undefined when `op` is not one. */
export function informationAnswer(op: number, profile: AdapterProfile): Buffer | undefined {
  const zephyr = profile.addressing === 'zephyrStatic';
  switch (op) {
    case HCI_CMD.readLocalVersion: {
      const r = Buffer.alloc(8);
      r.writeUInt8(HCI_VERSION.v5_3, 0);
      r.writeUInt16LE(0x0001, 1);
      r.writeUInt8(HCI_VERSION.v5_3, 3);
      r.writeUInt16LE(MANUFACTURER, 4);
      r.writeUInt16LE(0x0001, 6);
      return ok(r);
    }
    case HCI_CMD.readSupportedCommands:
      // Legacy scanning and connecting only: no extended-advertising bits set.
      return ok(Buffer.alloc(64));
    case HCI_CMD.readLeHostSupported:
      return ok(Buffer.of(0x01, 0x00));
    case HCI_CMD.leReadBufferSize: {
      const r = Buffer.alloc(3);
      r.writeUInt16LE(profile.aclBufferSize, 0);
      r.writeUInt8(profile.aclBufferCount, 2);
      return ok(r);
    }
    case HCI_CMD.readBufferSize: {
      const r = Buffer.alloc(7);
      r.writeUInt16LE(profile.aclBufferSize, 0);
      r.writeUInt16LE(profile.aclBufferCount, 3);
      return ok(r);
    }
    case HCI_CMD.readBdAddr:
      return ok(bytesOfAddress(profile.addressing === 'public' ? profile.address : NO_ADDRESS));
    case ZEPHYR_VS_CMD.readVersionInfo: {
      if (!zephyr) return undefined;
      // Hardware platform and variant, firmware variant, version, revision, build.
      const r = Buffer.alloc(12);
      r.writeUInt16LE(ZEPHYR_VERSION.platform, 0);
      r.writeUInt16LE(ZEPHYR_VERSION.variant, 2);
      r.writeUInt8(ZEPHYR_VERSION.firmware, 4);
      return ok(r);
    }
    case ZEPHYR_VS_CMD.readSupportedCommands: {
      if (!zephyr) return undefined;
      const mask = Buffer.alloc(64);
      // Read Version Information, Read Supported Commands, Read Static Addresses.
      for (const bit of [0, 1, ZEPHYR_VS_READ_STATIC_ADDRESSES_BIT])
        mask[bit >> 3] = (mask[bit >> 3] ?? 0) | (1 << (bit & 7));
      return ok(mask);
    }
    case ZEPHYR_VS_CMD.readStaticAddresses:
      // Num_Addresses, then BD_ADDR and Identity Root (16 octets; unknown here: zeros).
      return zephyr
        ? ok(Buffer.of(1), bytesOfAddress(staticAddressOf(profile)), Buffer.alloc(16))
        : undefined;
    default:
      return undefined;
  }
}
