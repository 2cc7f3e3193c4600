// A simulated board's MCUmgr server (docs/mcumgr/protocol.md): the OS, image and settings
// groups, two image slots under an MCUboot-like bootloader that swaps a tested image in on
// reset and reverts it on the next unless it was confirmed, and a settings store whose saved
// values live in flash (the bench's state file) across reboots. Its answers are Zephyr 3.4's
// (`img_mgmt`, `settings_mgmt`), held to a real Zephyr board by the differential suite
// (docs/decisions/simulated-bench.md).
import { createHash } from 'node:crypto';
import { MCUMGR_CHARACTERISTIC_UUID, MCUMGR_SERVICE_UUID } from '../mcumgr/service';
import {
  MCUMGR_OP,
  McumgrReassembler,
  decodeFrame,
  encodeFrame,
  type McumgrBody,
  type McumgrFrame,
} from '../mcumgr/frame';
import {
  MCUMGR_COMMAND,
  MCUMGR_GROUP,
  generalResult,
  groupResult,
  type McumgrGroupName,
} from '../mcumgr/groups';
import {
  ImageFileError,
  MCUBOOT_IMAGE_MAGIC,
  readMcubootImage,
  type ImageProblem,
} from '../mcumgr/image-file';
import { normalizeUuid, uuidProblem } from '../port';
import { ZEPHYR_SETTINGS_KEY_MAX } from '../mcumgr/groups';
import type { McumgrSpec } from './board-schema';
import type { Service } from './board-service';

/** An image in a slot, as flash keeps it: what MCUmgr lists of it. */
interface SlotImage {
  version: string;
  /** SHA-256 TLV, hex. */
  hash: string;
  size: number;
  /**
   * The payload does not hash to its SHA-256 TLV. Zephyr's `img_mgmt` takes such an upload and
   * lists the TLV's hash (it checks no image without CONFIG_IMG_ENABLE_IMAGE_CHECK); MCUboot
   * refuses to boot it.
   */
  corrupt?: boolean;
}

/** What the board keeps in flash: its slots, MCUboot's flags and the saved settings. */
export interface McumgrFlash {
  primary: SlotImage;
  secondary?: SlotImage;
  /** MCUboot's image-ok flag of the primary slot. */
  confirmed: boolean;
  /** The secondary slot is marked to be swapped in at the next boot, once or for good. */
  pending?: 'test' | 'permanent';
  /** Saved settings, values as hex. */
  settings: Record<string, string>;
}

/** What the server needs of the board it runs on. */
export interface McumgrHost {
  /** Sends one answer frame as notifications (if the central subscribed). */
  send(frame: Uint8Array): void;
  /** Reboots the board after `ms`; the board calls `boot()` as it comes back. */
  reboot(ms: number): void;
  /** Synchronously, as flash. */
  persist(flash: McumgrFlash): void;
  /** Every MCUmgr buffer is taken: a request that comes now is dropped unanswered. */
  full(): boolean;
}

interface Upload {
  sha: string;
  length: number;
  offset: number;
  data: Uint8Array;
}

/** A group's failure, answered in the request's version's form. */
class Refusal extends Error {
  constructor(
    readonly group: McumgrGroupName,
    readonly words: string,
  ) {
    super(words);
  }
}

/** A request the handler could not decode: the protocol's own code in either version. */
class Malformed extends Error {}

const PROBLEM_RESULT: Record<ImageProblem, string> = {
  'not-an-image': 'invalid image header magic',
  header: 'invalid image header',
  truncated: 'invalid length',
  tlv: 'invalid TLV',
  'no-hash': 'hash not found',
  corrupt: 'invalid hash',
};

/**
 * Version 1 has only the protocol's codes: each group's failure becomes one of them as Zephyr's
 * groups translate it (`img_mgmt_translate_error_code`, `settings_mgmt_translate_error_code`);
 * any other is "unknown error". No `rsn`: Zephyr sends none unless built verbose.
 */
const GENERAL_FOR: Partial<Record<McumgrGroupName, Record<string, string>>> = {
  image: {
    'no image': 'no such entry',
    'no TLVs': 'no such entry',
    'no free slot': 'bad state',
    'current version is newer': 'bad state',
    'image already pending': 'bad state',
    'no free memory': 'out of memory',
    'invalid slot': 'invalid value',
    'invalid page offset': 'invalid value',
    'invalid offset': 'invalid value',
    'invalid length': 'invalid value',
    'invalid image header': 'invalid value',
    'invalid hash': 'invalid value',
    'invalid flash address': 'invalid value',
  },
  settings: {
    'key too long': 'invalid value',
    'key not found': 'no such entry',
    'read not supported': 'no such entry',
  },
};

/** The header MCUboot puts first: an upload's first chunk carries at least this much. */
const IMAGE_HEADER_SIZE = 32;
const SHA256_SIZE = 32;

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const isBytes = (v: unknown): v is Uint8Array => v instanceof Uint8Array;

export function factoryFlash(spec: McumgrSpec, boardName: string): McumgrFlash {
  return {
    primary: {
      version: spec.version,
      hash: createHash('sha256').update(`${boardName} ${spec.version}`).digest('hex'),
      size: 64 * 1024,
    },
    confirmed: true,
    settings: Object.fromEntries(
      Object.entries(spec.settings).map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('hex')]),
    ),
  };
}

/** The product identity the firmware read from its settings at boot. */
export interface SettingsIdentity {
  serviceUuid: string;
  psdiServiceUuid: string;
  psdiCharacteristicUuid: string;
  psdi: string;
}

/** A UUID setting as firmware would take it: 16 bytes, or text in any UUID form. */
function uuidSetting(value: Uint8Array): string | undefined {
  if (value.length === 16) return hex(value);
  const text = Buffer.from(value).toString('utf8');
  return uuidProblem(text) === undefined && normalizeUuid(text).length === 32
    ? normalizeUuid(text)
    : undefined;
}

/** A request the board took but never answered (it went down first). */
const NO_ANSWER = Symbol('no answer');

export class BoardMcumgr {
  private flash: McumgrFlash;
  private booted: SettingsIdentity | undefined;
  private live = new Map<string, Uint8Array>();
  private upload: Upload | undefined;
  private readonly joiner = new McumgrReassembler();

  constructor(
    private readonly spec: McumgrSpec,
    flash: McumgrFlash,
    private readonly host: McumgrHost,
  ) {
    this.flash = structuredClone(flash);
    this.loadSettings();
    this.booted = this.readIdentity();
  }

  /** What the firmware read at its last boot; settings written since count from the next. */
  get identity(): SettingsIdentity | undefined {
    return this.booted;
  }

  private readIdentity(): SettingsIdentity | undefined {
    const keys = this.spec.identityKeys;
    if (!keys) return undefined;
    const value = (key: string) => this.live.get(key);
    const serviceUuid = value(keys.serviceUuid);
    const psdiService = value(keys.psdiServiceUuid);
    const psdiCharacteristic = value(keys.psdiCharacteristicUuid);
    const psdi = value(keys.psdi);
    if (!serviceUuid || !psdiService || !psdiCharacteristic || !psdi?.length) return undefined;
    const uuids = [
      uuidSetting(serviceUuid),
      uuidSetting(psdiService),
      uuidSetting(psdiCharacteristic),
    ];
    if (uuids.some((u) => u === undefined)) return undefined;
    return {
      serviceUuid: uuids[0]!,
      psdiServiceUuid: uuids[1]!,
      psdiCharacteristicUuid: uuids[2]!,
      psdi: Buffer.from(psdi).toString('utf8'),
    };
  }

  service(): Service {
    return {
      uuid: MCUMGR_SERVICE_UUID,
      name: 'MCUmgr',
      characteristics: [
        {
          uuid: MCUMGR_CHARACTERISTIC_UUID,
          name: 'SMP',
          properties: ['writeWithoutResponse', 'notify'],
          value: new Uint8Array(),
          maxLength: 512,
          ...(this.spec.security !== 'open' && {
            permissions: { write: this.spec.security, subscribe: this.spec.security },
          }),
          write: (data) => {
            this.receive(data);
            return { ok: true, data: new Uint8Array() };
          },
        },
      ],
    };
  }

  /** The board's link went down: a half-received request goes with it; an upload stays. */
  linkDown(): void {
    this.joiner.reset();
  }

  /** MCUboot at power-up: swap in a pending image, or revert one that was never confirmed. */
  boot(): void {
    const { flash } = this;
    if (flash.pending && flash.secondary?.corrupt) {
      // MCUboot checks the image's hash before it swaps: a bad one is erased, the old one runs.
      delete flash.secondary;
    } else if (flash.pending && flash.secondary) {
      const failed = flash.pending === 'test' && this.spec.faults.testImageFails;
      if (!failed) {
        const running = flash.primary;
        flash.primary = flash.secondary;
        flash.secondary = running;
        flash.confirmed = flash.pending === 'permanent';
      }
      // A test image that crashed before confirming: MCUboot swapped it back; net, unchanged.
    } else if (!flash.confirmed && flash.secondary) {
      const reverted = flash.primary;
      flash.primary = flash.secondary;
      flash.secondary = reverted;
      flash.confirmed = true;
    }
    delete flash.pending;
    this.upload = undefined;
    this.joiner.reset();
    this.loadSettings();
    this.booted = this.readIdentity();
    this.host.persist(structuredClone(flash));
  }

  private loadSettings(): void {
    this.live = new Map(
      Object.entries(this.flash.settings).map(([k, v]) => [k, Buffer.from(v, 'hex')]),
    );
  }

  private receive(data: Uint8Array): void {
    let frames: Uint8Array[];
    try {
      frames = this.joiner.push(data);
    } catch {
      this.joiner.reset();
      return;
    }
    for (const bytes of frames) {
      let frame: McumgrFrame;
      try {
        frame = decodeFrame(bytes);
      } catch {
        continue; // Zephyr drops a request it cannot parse
      }
      if (frame.header.op !== MCUMGR_OP.read && frame.header.op !== MCUMGR_OP.write) continue;
      // Zephyr's SMP transport finds no free net_buf and drops the write (smp_bt.c).
      if (this.host.full()) continue;
      const answer = this.answer(frame);
      if (answer) this.host.send(answer);
    }
  }

  /** The answer frame, or undefined when the board goes down before answering. */
  private answer(frame: McumgrFrame): Uint8Array | undefined {
    const { header } = frame;
    const reply = (body: McumgrBody) =>
      encodeFrame({ ...header, op: header.op === MCUMGR_OP.read ? 1 : 3 }, body);
    try {
      const body = this.handle(frame);
      if (body === NO_ANSWER) return undefined;
      return reply(body ?? { rc: generalResult('not supported') });
    } catch (error) {
      if (error instanceof Malformed) return reply({ rc: generalResult('invalid value') });
      // A request the handlers did not foresee is answered, as firmware would, not thrown
      // into the board's ATT server.
      if (!(error instanceof Refusal)) return reply({ rc: generalResult('unknown error') });
      if (header.version === 1)
        return reply({
          err: { group: MCUMGR_GROUP[error.group], rc: groupResult(error.group, error.words) },
        });
      return reply({
        rc: generalResult(GENERAL_FOR[error.group]?.[error.words] ?? 'unknown error'),
      });
    }
  }

  /** The answer's body, or undefined for a command this board does not have. */
  private handle({ header, body }: McumgrFrame): McumgrBody | typeof NO_ANSWER | undefined {
    const read = header.op === MCUMGR_OP.read;
    const { os, image, settings } = MCUMGR_COMMAND;
    switch (header.group) {
      case MCUMGR_GROUP.os:
        if (header.command === os.echo && !read) return { r: String(body.d ?? '') };
        if (header.command === os.params && read && this.spec.params)
          return { buf_size: this.spec.bufferSize, buf_count: this.spec.bufferCount };
        if (header.command === os.reset && !read) {
          this.host.reboot(this.spec.resetMs);
          return {};
        }
        return undefined;
      case MCUMGR_GROUP.image:
        if (header.command === image.state) return read ? this.state() : this.setState(body);
        if (header.command === image.upload && !read) return this.receiveChunk(body);
        if (header.command === image.erase && !read) return this.erase();
        if (header.command === image.slotInfo && read && this.spec.slotInfo) return this.slotInfo();
        return undefined;
      case MCUMGR_GROUP.settings:
        return this.settings(header.command, read, body, settings);
      default:
        return undefined;
    }
  }

  private state(): McumgrBody {
    const { primary, secondary, confirmed, pending } = this.flash;
    const images: McumgrBody[] = [
      {
        slot: 0,
        version: primary.version,
        hash: Buffer.from(primary.hash, 'hex'),
        bootable: true,
        pending: false,
        confirmed,
        active: true,
        permanent: false,
      },
    ];
    if (secondary)
      images.push({
        slot: 1,
        version: secondary.version,
        hash: Buffer.from(secondary.hash, 'hex'),
        bootable: true,
        pending: pending !== undefined,
        confirmed: false,
        active: false,
        permanent: pending === 'permanent',
      });
    return { images, splitStatus: 0 };
  }

  private slotInfo(): McumgrBody {
    const size = this.spec.slotSize;
    return {
      images: [
        {
          image: 0,
          slots: [
            { slot: 0, size },
            { slot: 1, size },
          ],
        },
      ],
    };
  }

  /**
   * Test or confirm, as Zephyr's `img_mgmt_set_next_boot_slot` decides: the slot named by its
   * hash (the running one when a confirm names none), then what the next boot already holds.
   */
  private setState(body: McumgrBody): McumgrBody {
    if (body.hash !== undefined && !isBytes(body.hash)) throw new Malformed();
    if (body.confirm !== undefined && typeof body.confirm !== 'boolean') throw new Malformed();
    const confirm = body.confirm === true;
    const { primary, secondary, pending } = this.flash;
    let slot: 0 | 1;
    if (!body.hash || body.hash.length === 0) {
      if (!confirm) throw new Refusal('image', 'invalid hash');
      slot = 0;
    } else if (body.hash.length !== SHA256_SIZE) {
      throw new Refusal('image', 'invalid hash');
    } else if (hex(body.hash) === primary.hash) {
      slot = 0;
    } else if (secondary && hex(body.hash) === secondary.hash) {
      slot = 1;
    } else {
      throw new Refusal('image', 'hash not found');
    }
    if (!confirm && slot === 0) throw new Refusal('image', 'setting test to active slot denied');
    if (pending === 'test') {
      // Testing the image already on test again is nothing; anything else changes the test.
      if (confirm || slot !== 1) throw new Refusal('image', 'image already pending');
    } else if (!this.flash.confirmed && secondary) {
      // Running an image on test: the next boot reverts, unless the running one is confirmed.
      if (!confirm) throw new Refusal('image', 'image already pending');
      if (slot === 0) this.flash.confirmed = true;
    } else if (pending === 'permanent') {
      if (!(confirm && slot === 1)) throw new Refusal('image', 'image already pending');
    } else if (slot === 1) {
      this.flash.pending = confirm ? 'permanent' : 'test';
    } else {
      this.flash.confirmed = true;
    }
    this.host.persist(structuredClone(this.flash));
    return this.state();
  }

  /** Slot 1 holds what the next boot needs: an image on test or confirmed, or the one to revert to. */
  private secondaryInUse(): boolean {
    return this.flash.pending !== undefined || (!this.flash.confirmed && !!this.flash.secondary);
  }

  /** One chunk, checked in the order of Zephyr's `img_mgmt_upload_inspect`. */
  private receiveChunk(body: McumgrBody): McumgrBody {
    const { off, data, len, sha } = body;
    if (off === undefined) throw new Refusal('image', 'invalid offset');
    if (typeof off !== 'number' || !isBytes(data)) throw new Malformed();
    if (off === 0) {
      if (data.length < IMAGE_HEADER_SIZE) throw new Refusal('image', 'invalid image header');
      if (typeof len !== 'number') throw new Refusal('image', 'invalid length');
      if (Buffer.from(data).readUInt32LE(0) !== MCUBOOT_IMAGE_MAGIC)
        throw new Refusal('image', 'invalid image header magic');
      const digest = isBytes(sha) ? hex(sha) : '';
      if (digest.length > SHA256_SIZE * 2) throw new Refusal('image', 'invalid hash');
      // The same upload again after a dropped link: answer where it stands (docs/mcumgr/image.md).
      if (this.upload && digest && this.upload.sha === digest) return { off: this.upload.offset };
      if (this.secondaryInUse()) throw new Refusal('image', 'no free slot');
      if (len > this.spec.slotSize) throw new Refusal('image', 'image too large');
      delete this.flash.secondary;
      this.host.persist(structuredClone(this.flash));
      this.upload = { sha: digest, length: len, offset: 0, data: new Uint8Array(len) };
    }
    const upload = this.upload;
    // A chunk at another offset (or with no upload begun) is dropped; the answer says where
    // the board wants the next one.
    if (!upload || off !== upload.offset) return { off: upload?.offset ?? 0 };
    if (off + data.length > upload.length) throw new Refusal('image', 'image data overrun');
    upload.data.set(data, off);
    upload.offset += data.length;
    if (upload.offset < upload.length) return { off: upload.offset };
    return this.finishUpload(upload);
  }

  /**
   * The last chunk: the slot now holds what MCUmgr will list, read from the image's header and
   * TLVs as `img_mgmt` reads them, without checking the payload against its hash (MCUboot does,
   * at boot). Zephyr answers the offset alone (no `match` without CONFIG_IMG_ENABLE_IMAGE_CHECK).
   */
  private finishUpload(upload: Upload): McumgrBody {
    this.upload = undefined;
    const received = Uint8Array.from(upload.data);
    if (this.spec.faults.corruptUpload) upload.data[upload.length >> 1]! ^= 0x01;
    try {
      const image = readMcubootImage(upload.data);
      this.flash.secondary = {
        version: image.versionText,
        hash: hex(image.hash),
        size: upload.length,
      };
    } catch (error) {
      if (!(error instanceof ImageFileError)) throw error;
      if (error.problem !== 'corrupt') throw new Refusal('image', PROBLEM_RESULT[error.problem]);
      // The fault changed one payload byte: the header and the TLVs read as they were sent.
      const image = readMcubootImage(received);
      this.flash.secondary = {
        version: image.versionText,
        hash: hex(image.hash),
        size: upload.length,
        corrupt: true,
      };
    }
    this.host.persist(structuredClone(this.flash));
    return { off: upload.length };
  }

  /**
   * Erases slot 1, as Zephyr 3.4's `img_mgmt_erase`: refused while the next boot needs it, and
   * an already empty slot answered "unknown error" (its emptiness check's 1 passed on as the
   * result).
   */
  private erase(): McumgrBody {
    if (this.secondaryInUse()) throw new Refusal('image', 'no free slot');
    const empty = !this.flash.secondary && !this.upload;
    delete this.flash.secondary;
    this.upload = undefined;
    this.host.persist(structuredClone(this.flash));
    if (empty) throw new Refusal('image', 'unknown error');
    return {};
  }

  /**
   * Whether the firmware has a settings handler for the key's subtree: the subtrees of the keys
   * the board file names (its identity keys and factory settings); a board file that names none
   * stands for firmware with a handler for every key.
   */
  private handles(name: string): boolean {
    const named = [
      ...Object.values(this.spec.identityKeys ?? {}),
      ...Object.keys(this.spec.settings),
    ];
    const subtree = (key: string) => key.split('/')[0];
    return named.length === 0 || named.some((key) => subtree(key) === subtree(name));
  }

  private settings(
    command: number,
    read: boolean,
    body: McumgrBody,
    ids: (typeof MCUMGR_COMMAND)['settings'],
  ): McumgrBody | typeof NO_ANSWER | undefined {
    const name = typeof body.name === 'string' ? body.name : undefined;
    if (command === ids.readWrite || command === ids.delete) {
      // settings_mgmt refuses a request without a name before any group code.
      if (!name) throw new Malformed();
      if (name.length > ZEPHYR_SETTINGS_KEY_MAX) throw new Refusal('settings', 'key too long');
    }
    if (command === ids.readWrite && read) {
      const value = this.live.get(name!);
      if (!value) throw new Refusal('settings', 'key not found');
      return { val: value };
    }
    if (command === ids.readWrite) {
      // settings_runtime_set finds no handler for the key's subtree: -EINVAL, "key not found".
      if (!this.handles(name!)) throw new Refusal('settings', 'key not found');
      if (!isBytes(body.val) || this.spec.faults.refuseSettingsWrites)
        throw new Refusal('settings', 'write not supported');
      this.live.set(name!, Uint8Array.from(body.val));
      return {};
    }
    if (command === ids.delete && !read) {
      this.live.delete(name!);
      delete this.flash.settings[name!];
      this.host.persist(structuredClone(this.flash));
      return {};
    }
    if (command === ids.commit && !read) return {};
    if (command === ids.loadSave && read) {
      this.loadSettings();
      return {};
    }
    if (command === ids.loadSave) {
      if (!this.spec.faults.settingsNotKept)
        this.flash.settings = Object.fromEntries([...this.live].map(([k, v]) => [k, hex(v)]));
      this.host.persist(structuredClone(this.flash));
      if (this.spec.faults.saveAnswerLost) {
        this.host.reboot(this.spec.resetMs);
        return NO_ANSWER;
      }
      return {};
    }
    return undefined;
  }
}
