// Reads board description files into one definition per simulated board: checks the file
// against the schema and its cross-references (profiles, notification targets), expands trays
// (`count`) into numbered boards, and names the file and field of every problem.
import { readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { RESOURCES_DIR } from '../../resources';
import { MCUMGR_SERVICE_UUID } from '../mcumgr/service';
import { formatUuid } from '../port';
import {
  profileSchemaFor,
  provisioningProfileSchema,
  type ProvisioningProfile,
} from '../provisioning-profile';
import {
  boardFileSchema,
  describeIssues,
  formatPath,
  type BoardSpec,
  type McumgrSpec,
  type NotificationPayload,
} from './board-schema';
import { hashSeed } from './random';

/** resources/ at the repository root (also where packaged builds put it). */
const DEFAULT_PROFILES_DIR = join(RESOURCES_DIR, 'profiles');
export const SIM_BOARDS_DIR = join(RESOURCES_DIR, 'sim');

export class BoardFileError extends Error {
  override name = 'BoardFileError';
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(problems.map((p) => `${file}: ${p}`).join('\n'));
  }
}

export interface CharacteristicDefinition {
  uuid: string;
  name?: string;
  properties: BoardSpec['gatt'][number]['characteristics'][number]['properties'];
  value: Uint8Array;
  maxLength: number;
  /** Absent or an absent access: open. */
  permissions?: BoardSpec['gatt'][number]['characteristics'][number]['permissions'];
}

export interface ServiceDefinition {
  uuid: string;
  name?: string;
  characteristics: CharacteristicDefinition[];
}

interface NotificationDefinition {
  service: string;
  characteristic: string;
  payload: NotificationPayload;
}

/** One simulated board, ready for `SimBoard`. UUIDs are normalised (lowercase, no dashes). */
export interface BoardDefinition {
  /** Also noble's peripheral id: the address as 12 lowercase hex digits. */
  id: string;
  address: string;
  addressType: 'public' | 'random';
  name: string;
  /** The file (or label) the board came from. */
  source: string;
  advertising: BoardSpec['advertising'];
  services: ServiceDefinition[];
  provisioning?: { profile: ProvisioningProfile; derivedPsdi?: string; rebootMs: number };
  mcumgr?: McumgrSpec;
  periodic: (NotificationDefinition & { intervalMs: number })[];
  buttons: (NotificationDefinition & { id: string })[];
  latency: BoardSpec['latency'];
  mtu: number;
  pairing: BoardSpec['pairing'];
  security: BoardSpec['security'];
  faults: BoardSpec['faults'];
}

/** GATT profiles by id, read from a folder of profile JSON files. */
export function loadProfiles(dir: string = DEFAULT_PROFILES_DIR): Map<string, ProvisioningProfile> {
  const profiles = new Map<string, ProvisioningProfile>();
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const text = readFileSync(join(dir, file), 'utf8');
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      throw new BoardFileError(file, [`not JSON: ${(err as Error).message}`]);
    }
    // A settings profile has no GATT service to simulate: such a board declares
    // `mcumgr.identityKeys` instead (docs/mcumgr/settings.md).
    if (profileSchemaFor(json) !== provisioningProfileSchema) continue;
    const parsed = provisioningProfileSchema.safeParse(json);
    if (!parsed.success) throw new BoardFileError(file, describeIssues(parsed.error.issues));
    profiles.set(parsed.data.id, parsed.data);
  }
  return profiles;
}

export interface ParseBoardsOptions {
  /** Named in errors and kept on each board. */
  source: string;
  /** Resolves `provisioning.profile` ids; read lazily from DEFAULT_PROFILES_DIR if absent. */
  profiles?: () => Map<string, ProvisioningProfile>;
}

/** Parses a board file's text (`{ "boards": [...] }`). Throws `BoardFileError`. */
export function parseBoardFile(text: string, options: ParseBoardsOptions): BoardDefinition[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new BoardFileError(options.source, [`not JSON: ${(err as Error).message}`]);
  }
  return boardsFromJson(json, options);
}

export function readBoardFile(
  path: string,
  options: Omit<ParseBoardsOptions, 'source'> = {},
): BoardDefinition[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new BoardFileError(basename(path), [`cannot be read: ${(err as Error).message}`]);
  }
  return parseBoardFile(text, { ...options, source: basename(path) });
}

export function boardsFromJson(json: unknown, options: ParseBoardsOptions): BoardDefinition[] {
  const parsed = boardFileSchema.safeParse(json);
  if (!parsed.success)
    throw new BoardFileError(options.source, describeIssues(parsed.error.issues));
  const problems: string[] = [];
  const boards: BoardDefinition[] = [];
  let profiles: Map<string, ProvisioningProfile> | undefined;
  const profileById = (id: string) => {
    profiles ??= (options.profiles ?? (() => loadProfiles()))();
    return profiles.get(id);
  };
  parsed.data.boards.forEach((spec, index) => {
    const before = problems.length;
    const report = (path: PropertyKey[], message: string) =>
      problems.push(`${formatPath(['boards', index, ...path])}: ${message}`);
    const defs = expandBoard(spec, options.source, report, profileById);
    if (problems.length === before) boards.push(...defs);
  });
  const seen = new Map<string, string>();
  for (const board of boards) {
    const other = seen.get(board.id);
    if (other)
      problems.push(`address ${board.address} is used by both "${other}" and "${board.name}"`);
    seen.set(board.id, board.name);
  }
  if (problems.length) throw new BoardFileError(options.source, problems);
  return boards;
}

type Report = (path: PropertyKey[], message: string) => void;

function expandBoard(
  spec: BoardSpec,
  source: string,
  report: Report,
  profileById: (id: string) => ProvisioningProfile | undefined,
): BoardDefinition[] {
  const services = spec.gatt.map<ServiceDefinition>((service) => ({
    uuid: service.uuid,
    name: service.name,
    characteristics: service.characteristics.map((c) => ({
      uuid: c.uuid,
      name: c.name,
      properties: c.properties,
      value:
        c.value?.hex !== undefined
          ? Buffer.from(c.value.hex, 'hex')
          : Buffer.from(c.value?.utf8 ?? '', 'utf8'),
      maxLength: c.maxLength,
      permissions: c.permissions,
    })),
  }));
  checkGatt(services, report);

  let provisioning: BoardDefinition['provisioning'];
  if (spec.provisioning) {
    const ref = spec.provisioning.profile;
    const profile = typeof ref === 'string' ? profileById(ref) : ref;
    if (!profile) {
      report(['provisioning', 'profile'], `no provisioning profile "${ref as string}"`);
    } else {
      if (profile.psdi.source === 'tool' && spec.provisioning.derivedPsdi !== undefined)
        report(
          ['provisioning', 'derivedPsdi'],
          `only for profiles whose firmware derives the PSDI ("${profile.id}" has the tool write it)`,
        );
      const clash = services.findIndex((s) => s.uuid === profile.service);
      if (clash >= 0)
        report(['gatt', clash, 'uuid'], `is the provisioning service of profile "${profile.id}"`);
      provisioning = {
        profile,
        derivedPsdi:
          profile.psdi.source === 'device'
            ? (spec.provisioning.derivedPsdi ?? '{address}')
            : undefined,
        rebootMs: spec.provisioning.rebootMs,
      };
    }
  }

  if (spec.mcumgr) {
    const clash = services.findIndex((s) => s.uuid === MCUMGR_SERVICE_UUID);
    if (clash >= 0) report(['gatt', clash, 'uuid'], 'is the MCUmgr service the board adds itself');
  }

  const target = (
    n: { service?: string; characteristic: string },
    path: PropertyKey[],
  ): string | undefined => {
    const holders = services.filter(
      (s) =>
        (!n.service || s.uuid === n.service) &&
        s.characteristics.some((c) => c.uuid === n.characteristic),
    );
    if (holders.length !== 1) {
      report(
        [...path, 'characteristic'],
        holders.length ? 'is in several services: give `service`' : `is not in the board's gatt`,
      );
      return undefined;
    }
    const holder = holders[0]!;
    const props = holder.characteristics.find((c) => c.uuid === n.characteristic)!.properties;
    if (!props.includes('notify') && !props.includes('indicate'))
      report([...path, 'characteristic'], 'needs the notify or indicate property');
    return holder.uuid;
  };
  const periodic = spec.notifications.periodic.flatMap((p, i) => {
    const service = target(p, ['notifications', 'periodic', i]);
    return service
      ? [
          {
            service,
            characteristic: p.characteristic,
            payload: p.payload,
            intervalMs: p.intervalMs,
          },
        ]
      : [];
  });
  const buttonIds = new Set<string>();
  const buttons = spec.notifications.buttons.flatMap((b, i) => {
    if (buttonIds.has(b.id))
      report(['notifications', 'buttons', i, 'id'], `"${b.id}" is used twice`);
    buttonIds.add(b.id);
    const service = target(b, ['notifications', 'buttons', i]);
    return service
      ? [{ id: b.id, service, characteristic: b.characteristic, payload: b.payload }]
      : [];
  });

  const base = spec.address ?? generatedAddress(spec.name);
  const width = spec.count > 1 ? Math.max(2, String(spec.count).length) : 1;
  const boards: BoardDefinition[] = [];
  for (let i = 0; i < spec.count; i++) {
    const n = String(i + 1).padStart(width, '0');
    const name = spec.name.includes('{n}')
      ? spec.name.replaceAll('{n}', n)
      : spec.count > 1
        ? `${spec.name} ${n}`
        : spec.name;
    if (Buffer.byteLength(name) > 29) {
      report(['name'], `"${name}" is longer than the 29 bytes an advertisement holds`);
      break;
    }
    const address = offsetAddress(base, i);
    const id = address.replaceAll(':', '');
    let boardProvisioning = provisioning;
    if (provisioning?.derivedPsdi !== undefined) {
      const psdi = provisioning.derivedPsdi.replaceAll('{address}', id.toUpperCase());
      if (Buffer.byteLength(psdi) > provisioning.profile.psdi.maxBytes) {
        report(
          ['provisioning', 'derivedPsdi'],
          `"${psdi}" is longer than the profile's ${provisioning.profile.psdi.maxBytes} bytes`,
        );
        break;
      }
      boardProvisioning = { ...provisioning, derivedPsdi: psdi };
    }
    boards.push({
      id,
      address,
      addressType: spec.addressType,
      name,
      source,
      advertising: spec.advertising,
      services,
      provisioning: boardProvisioning,
      periodic,
      buttons,
      latency: spec.latency,
      mtu: spec.mtu,
      pairing: spec.pairing,
      security: spec.security,
      faults: spec.faults,
      mcumgr: spec.mcumgr,
    });
  }
  return boards;
}

function checkGatt(services: ServiceDefinition[], report: Report): void {
  const serviceUuids = new Set<string>();
  services.forEach((service, si) => {
    if (serviceUuids.has(service.uuid))
      report(['gatt', si, 'uuid'], `${formatUuid(service.uuid)} is used twice`);
    serviceUuids.add(service.uuid);
    const chars = new Set<string>();
    service.characteristics.forEach((c, ci) => {
      if (chars.has(c.uuid))
        report(
          ['gatt', si, 'characteristics', ci, 'uuid'],
          `${formatUuid(c.uuid)} is used twice in this service`,
        );
      chars.add(c.uuid);
      const can = (...ps: CharacteristicDefinition['properties']) =>
        ps.some((p) => c.properties.includes(p));
      if (c.permissions?.read && !can('read'))
        report(
          ['gatt', si, 'characteristics', ci, 'permissions', 'read'],
          'the characteristic has no read property',
        );
      if (c.permissions?.write && !can('write', 'writeWithoutResponse'))
        report(
          ['gatt', si, 'characteristics', ci, 'permissions', 'write'],
          'the characteristic has no write or writeWithoutResponse property',
        );
      if (c.permissions?.subscribe && !can('notify', 'indicate'))
        report(
          ['gatt', si, 'characteristics', ci, 'permissions', 'subscribe'],
          'the characteristic neither notifies nor indicates',
        );
      if (c.value.length > c.maxLength)
        report(
          ['gatt', si, 'characteristics', ci, 'value'],
          `is ${c.value.length} bytes, longer than maxLength ${c.maxLength}`,
        );
    });
  });
}

/** A static random address (top bits 11) derived from the name, so it is the same every run. */
function generatedAddress(name: string): string {
  const a = hashSeed('address', name);
  const b = hashSeed('address-low', name);
  const bytes = [
    0xc0 | ((a >>> 24) & 0x3f),
    (a >>> 16) & 0xff,
    (a >>> 8) & 0xff,
    a & 0xff,
    (b >>> 8) & 0xff,
    0,
  ];
  return bytes.map((x) => x.toString(16).padStart(2, '0')).join(':');
}

/** The address `offset` boards further along a tray (counting in the low 24 bits). */
function offsetAddress(address: string, offset: number): string {
  const bytes = address.split(':').map((h) => parseInt(h, 16));
  const low = (((bytes[3]! << 16) | (bytes[4]! << 8) | bytes[5]!) + offset) & 0xffffff;
  const out = [
    bytes[0]!,
    bytes[1]!,
    bytes[2]!,
    (low >>> 16) & 0xff,
    (low >>> 8) & 0xff,
    low & 0xff,
  ];
  return out.map((x) => x.toString(16).padStart(2, '0')).join(':');
}
