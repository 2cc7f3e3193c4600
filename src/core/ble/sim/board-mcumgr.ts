// A simulated board's MCUmgr server (docs/mcumgr/protocol.md): the OS, image and settings
// groups, two image slots under an MCUboot-like bootloader that swaps a tested image in on
// reset and reverts it on the next unless it was confirmed, and a settings store whose saved
// values live in flash (the bench's state file) across reboots.
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
import type { McumgrSpec } from './board-schema';
import type { Service } from './board-service';

/** An image in a slot, as flash keeps it: what MCUmgr lists of it. */
interface SlotImage {
  version: string;
  /** SHA-256 TLV, hex. */
  hash: string;
  size: number;
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
}

interface Upload {
  sha: string;
  length: number;
  offset: number;
  data: Uint8Array;
}

/** A board-specific failure answered in the request's version's form. */
class Refusal extends Error {
  constructor(
    readonly group: McumgrGroupName,
    readonly words: string,
  ) {
    super(words);
  }
}

const PROBLEM_RESULT: Record<ImageProblem, string> = {
  'not-an-image': 'invalid image header magic',
  header: 'invalid image header',
  truncated: 'invalid length',
  tlv: 'invalid TLV',
  'no-hash': 'hash not found',
  corrupt: 'invalid hash',
};

/** Version 1 has only the protocol's codes: each group failure becomes the nearest of them. */
const GENERAL_FOR: Record<string, string> = {
  'no free slot': 'bad state',
  'image already pending': 'bad state',
  'key not found': 'no such entry',
  'hash not found': 'no such entry',
  'no image': 'no such entry',
};

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
    if (flash.pending && flash.secondary) {
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
      // A request the handlers did not foresee is answered, as firmware would, not thrown
      // into the board's ATT server.
      if (!(error instanceof Refusal)) return reply({ rc: generalResult('unknown error') });
      if (header.version === 1)
        return reply({
          err: { group: MCUMGR_GROUP[error.group], rc: groupResult(error.group, error.words) },
        });
      return reply({
        rc: generalResult(GENERAL_FOR[error.words] ?? 'invalid value'),
        rsn: error.words,
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
        if (header.command === os.params && read)
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
        image: 0,
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
        image: 0,
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

  private setState(body: McumgrBody): McumgrBody {
    const hash = isBytes(body.hash) ? hex(body.hash) : undefined;
    const confirm = body.confirm === true;
    const { primary, secondary } = this.flash;
    if (confirm && (hash === undefined || hash === primary.hash)) {
      this.flash.confirmed = true;
    } else if (hash === undefined) {
      throw new Refusal('image', 'invalid hash');
    } else if (hash === primary.hash) {
      throw new Refusal('image', 'setting test to active slot denied');
    } else if (secondary && hash === secondary.hash) {
      this.flash.pending = confirm ? 'permanent' : 'test';
    } else {
      throw new Refusal('image', 'hash not found');
    }
    this.host.persist(structuredClone(this.flash));
    return this.state();
  }

  private receiveChunk(body: McumgrBody): McumgrBody {
    const off = body.off;
    const data = body.data;
    if (typeof off !== 'number' || !isBytes(data)) throw new Refusal('image', 'invalid offset');
    if (off === 0) {
      const sha = isBytes(body.sha) ? hex(body.sha) : '';
      // The same upload again after a dropped link: answer where it stands (docs/mcumgr/image.md).
      if (this.upload && sha && this.upload.sha === sha) return { off: this.upload.offset };
      const length = body.len;
      if (typeof length !== 'number' || length <= 0) throw new Refusal('image', 'invalid length');
      if (this.flash.pending) throw new Refusal('image', 'no free slot');
      if (length > this.spec.slotSize) throw new Refusal('image', 'image too large');
      if (data.length < 4 || Buffer.from(data).readUInt32LE(0) !== MCUBOOT_IMAGE_MAGIC)
        throw new Refusal('image', 'invalid image header magic');
      delete this.flash.secondary;
      this.host.persist(structuredClone(this.flash));
      this.upload = { sha, length, offset: 0, data: new Uint8Array(length) };
    }
    const upload = this.upload;
    if (!upload) throw new Refusal('image', 'invalid offset');
    if (off !== upload.offset) return { off: upload.offset };
    if (off + data.length > upload.length) throw new Refusal('image', 'image data overrun');
    upload.data.set(data, off);
    upload.offset += data.length;
    if (upload.offset < upload.length) return { off: upload.offset };
    return this.finishUpload(upload);
  }

  private finishUpload(upload: Upload): McumgrBody {
    this.upload = undefined;
    if (this.spec.faults.corruptUpload) upload.data[upload.length >> 1]! ^= 0x01;
    try {
      const image = readMcubootImage(upload.data);
      this.flash.secondary = {
        version: image.versionText,
        hash: hex(image.hash),
        size: upload.length,
      };
    } catch (error) {
      if (error instanceof ImageFileError)
        throw new Refusal('image', PROBLEM_RESULT[error.problem]);
      throw error;
    }
    this.host.persist(structuredClone(this.flash));
    return { off: upload.length, match: true };
  }

  private erase(): McumgrBody {
    if (this.flash.pending) throw new Refusal('image', 'no free slot');
    delete this.flash.secondary;
    this.upload = undefined;
    this.host.persist(structuredClone(this.flash));
    return {};
  }

  private settings(
    command: number,
    read: boolean,
    body: McumgrBody,
    ids: (typeof MCUMGR_COMMAND)['settings'],
  ): McumgrBody | typeof NO_ANSWER | undefined {
    const name = typeof body.name === 'string' ? body.name : undefined;
    if (command === ids.readWrite || command === ids.delete) {
      if (!name) throw new Refusal('settings', 'key not found');
      if (name.length > 255) throw new Refusal('settings', 'key too long');
    }
    if (command === ids.readWrite && read) {
      const value = this.live.get(name!);
      if (!value) throw new Refusal('settings', 'key not found');
      return { val: value };
    }
    if (command === ids.readWrite) {
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
