// A simulated board's provisioning, as the firmware of its profile would run it: the
// provisioning service's characteristics, the state machine behind them (blank → pending →
// committed, rejected on a bad commit) and, once committed, the PSDI service in its place. The
// board (board.ts) holds the link and the timers; this decides what the writes mean.
import { formatUuid, reportedUuid } from '../port';
import {
  PROFILE_CHARACTERISTIC_NAMES,
  STATUS,
  decodeUuid,
  encodeUuid,
  type ProvisioningProfile,
} from '../provisioning-profile';
import { ATT_ERROR } from '../att/codes';
import type { AttResult } from './att-server';
import type { Characteristic, Service } from './board-service';
import type { BoardDefinition } from './board-file';

/** The permission that asks a link for each LE security mode 1 level. */
const LEVEL_PERMISSION = { 1: 'open', 2: 'encrypt', 3: 'authenticate', 4: 'sc' } as const;

export type ProvisioningStatus = 'blank' | 'pending' | 'committed' | 'rejected';

/** The product identity a committed board holds, as flash would. UUIDs dashed. */
export interface CommittedIdentity {
  serviceUuid: string;
  psdiServiceUuid: string;
  psdiCharacteristicUuid: string;
  psdi: string;
  committedAt: number;
}

type UuidField = 'serviceUuid' | 'psdiServiceUuid' | 'psdiCharacteristicUuid';
export type Written = Partial<Record<UuidField | 'psdi', string>>;

/** The provisioning part of a board's view (board.ts `BoardView`). */
export interface ProvisioningView {
  profileId: string;
  psdiSource: 'tool' | 'device';
  status: ProvisioningStatus;
  /** What was written and not yet committed (UUIDs dashed). */
  written: Written;
  committed?: CommittedIdentity;
}

/** What the provisioning needs of the board it runs on. */
export interface ProvisioningHost {
  now(): number;
  /** Synchronously, as flash: the new identity on commit, `null` on a factory reset. */
  persist(identity: CommittedIdentity | null): void;
  /** After every status set (`changed` false when it was already that status). */
  statusChanged(status: ProvisioningStatus, changed: boolean): void;
  /** A commit was accepted: the board reboots after `rebootMs`. */
  committed(rebootMs: number): void;
}

export class BoardProvisioning {
  private status: ProvisioningStatus = 'blank';
  private written: Written = {};
  private identity: CommittedIdentity | undefined;

  constructor(
    private readonly spec: NonNullable<BoardDefinition['provisioning']>,
    committed: CommittedIdentity | undefined,
    private readonly host: ProvisioningHost,
  ) {
    if (committed) {
      this.identity = committed;
      this.status = 'committed';
    }
  }

  /** The service UUIDs to advertise: the product's once committed, the profile's before. */
  advertised(): string[] {
    return this.identity ? [reportedUuid(this.identity.serviceUuid)] : [this.spec.profile.service];
  }

  /** The service for the current state: the PSDI service once committed, else provisioning. */
  service(): Service {
    if (!this.identity) return this.provisioningService(this.spec.profile, this.spec.derivedPsdi);
    const psdi = Buffer.from(this.identity.psdi, 'utf8');
    return {
      uuid: reportedUuid(this.identity.psdiServiceUuid),
      name: 'PSDI',
      characteristics: [
        {
          uuid: reportedUuid(this.identity.psdiCharacteristicUuid),
          name: 'PSDI',
          properties: ['read'],
          permissions: { read: this.spec.profile.psdi.readPermission },
          value: psdi,
          maxLength: psdi.length,
          read: () => psdi,
        },
      ],
    };
  }

  /** Forgets what was written and committed, as the firmware's reset would. */
  /**
   * What another process's copy of this board committed (or erased) in the shared flash: taken
   * as the board's own, nothing written back (docs/decisions/security-and-hardening.md, "One
   * data folder, several processes").
   */
  adopt(committed: CommittedIdentity | undefined): void {
    this.identity = committed;
    this.written = {};
    this.status = committed ? 'committed' : 'blank';
  }

  reset(): void {
    const wasCommitted = this.identity !== undefined;
    this.identity = undefined;
    this.written = {};
    this.status = 'blank';
    if (wasCommitted) this.host.persist(null);
  }

  view(): ProvisioningView {
    const dashed = (w: Written): Written =>
      Object.fromEntries(Object.entries(w).map(([k, v]) => [k, k === 'psdi' ? v : formatUuid(v)]));
    return {
      profileId: this.spec.profile.id,
      psdiSource: this.spec.profile.psdi.source,
      status: this.status,
      written: dashed(this.written),
      committed: this.identity,
    };
  }

  private provisioningService(
    profile: ProvisioningProfile,
    derivedPsdi: string | undefined,
  ): Service {
    const ch = profile.characteristics;
    const uuidLength = profile.uuidEncoding === 'bytes' ? 16 : 36;
    const uuidCharacteristic = (field: UuidField, name: string): Characteristic => ({
      uuid: ch[field],
      name,
      properties: ['read', 'write'],
      value: new Uint8Array(),
      maxLength: uuidLength,
      read: () => {
        const v = this.written[field];
        return v ? encodeUuid(profile, v) : new Uint8Array();
      },
      write: (data) => {
        let uuid: string;
        try {
          uuid = decodeUuid(profile, data);
          if (uuid.length !== 32) throw new Error('not 128-bit');
        } catch {
          return { ok: false, code: ATT_ERROR.invalidAttributeValueLength };
        }
        return this.store(field, uuid);
      },
    });
    const psdiCharacteristic: Characteristic =
      profile.psdi.source === 'device'
        ? {
            uuid: ch.psdi,
            name: 'PSDI (derived)',
            properties: ['read'],
            value: new Uint8Array(),
            maxLength: profile.psdi.maxBytes,
            read: () => Buffer.from(derivedPsdi ?? '', 'utf8'),
          }
        : {
            uuid: ch.psdi,
            name: 'PSDI',
            properties: ['read', 'write'],
            value: new Uint8Array(),
            maxLength: profile.psdi.maxBytes,
            read: () => Buffer.from(this.written.psdi ?? '', 'utf8'),
            write: (data) => {
              const text = new TextDecoder('utf-8', { fatal: true });
              let psdi: string;
              try {
                psdi = text.decode(data);
              } catch {
                return { ok: false, code: ATT_ERROR.application };
              }
              if (!psdi) return { ok: false, code: ATT_ERROR.invalidAttributeValueLength };
              return this.store('psdi', psdi);
            },
          };
    // A product that needs a level guards its provisioning service at it too, as firmware built
    // for phones does (BT_GATT_PERM_*_LESC): nobody rewrites its identity over a weaker link.
    const guard = LEVEL_PERMISSION[profile.security.level];
    const guarded = (c: Characteristic): Characteristic =>
      guard === 'open' ? c : { ...c, permissions: { read: guard, write: guard } };
    return {
      uuid: profile.service,
      name: `Provisioning (${profile.id})`,
      characteristics: (
        [
          uuidCharacteristic('serviceUuid', PROFILE_CHARACTERISTIC_NAMES.serviceUuid),
          uuidCharacteristic('psdiServiceUuid', PROFILE_CHARACTERISTIC_NAMES.psdiServiceUuid),
          uuidCharacteristic(
            'psdiCharacteristicUuid',
            PROFILE_CHARACTERISTIC_NAMES.psdiCharacteristicUuid,
          ),
          psdiCharacteristic,
          {
            uuid: ch.control,
            name: PROFILE_CHARACTERISTIC_NAMES.control,
            properties: ['write'],
            value: new Uint8Array(),
            maxLength: 20,
            write: (data) => this.control(profile, data, derivedPsdi),
          },
          {
            uuid: ch.status,
            name: 'Status',
            properties: ['read', 'notify'],
            value: new Uint8Array(),
            maxLength: 1,
            read: () => Uint8Array.of(STATUS[this.status]),
          },
        ] satisfies Characteristic[]
      ).map(guarded),
    };
  }

  private store(field: keyof Written, value: string): AttResult {
    this.written = { ...this.written, [field]: value };
    this.setStatus('pending');
    return { ok: true, data: new Uint8Array() };
  }

  private control(
    profile: ProvisioningProfile,
    data: Uint8Array,
    derivedPsdi: string | undefined,
  ): AttResult {
    if (Buffer.from(data).toString('hex') !== profile.commit.value)
      return { ok: false, code: ATT_ERROR.application };
    const w = this.written;
    const psdi = profile.psdi.source === 'device' ? derivedPsdi : w.psdi;
    if (!w.serviceUuid || !w.psdiServiceUuid || !w.psdiCharacteristicUuid || !psdi) {
      this.setStatus('rejected');
      return { ok: false, code: ATT_ERROR.application };
    }
    const identity: CommittedIdentity = {
      serviceUuid: formatUuid(w.serviceUuid),
      psdiServiceUuid: formatUuid(w.psdiServiceUuid),
      psdiCharacteristicUuid: formatUuid(w.psdiCharacteristicUuid),
      psdi,
      committedAt: this.host.now(),
    };
    // Flash first: a crash after this line must find the board provisioned.
    this.host.persist(identity);
    this.identity = identity;
    this.written = {};
    this.setStatus('committed');
    this.host.committed(this.spec.rebootMs);
    return { ok: true, data: new Uint8Array() };
  }

  private setStatus(status: ProvisioningStatus): void {
    const changed = status !== this.status;
    this.status = status;
    this.host.statusChanged(status, changed);
  }
}
