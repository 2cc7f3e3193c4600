// MCUmgr's management groups, their commands and their result codes in words, defined once for
// the client and the simulated board's server (docs/mcumgr/os.md, image.md, settings.md).

/** Group ids (the header's Group ID). */
export const MCUMGR_GROUP = { os: 0, image: 1, settings: 3 } as const;

export type McumgrGroupName = keyof typeof MCUMGR_GROUP;

/** Command ids per group (the header's Command ID); the OP field says read or write. */
export const MCUMGR_COMMAND = {
  os: { echo: 0, reset: 5, params: 6 },
  /** Slot info (6) is newer Zephyr's, with CONFIG_MCUMGR_GRP_IMG_SLOT_INFO. */
  image: { state: 0, upload: 1, erase: 5, slotInfo: 6 },
  /** Read and write share id 0 and load and save share id 3: the OP tells them apart. */
  settings: { readWrite: 0, delete: 1, commit: 2, loadSave: 3 },
} as const;

/**
 * The protocol's own result codes (`rc` in a version 1 answer, and what a handler that fails
 * before its group speaks answers in either version).
 */
const GENERAL_RESULTS = [
  'ok',
  'unknown error',
  'out of memory',
  'invalid value',
  'timed out',
  'no such entry',
  'bad state',
  'message too large',
  'not supported',
  'corrupt',
  'busy',
  'access denied',
  'protocol version too old',
  'protocol version too new',
];

/** Each group's own result codes, answered as `err: {group, rc}` in version 2. */
const GROUP_RESULTS: Record<number, readonly string[]> = {
  [MCUMGR_GROUP.os]: [
    'ok',
    'unknown error',
    'invalid format',
    'query yields no answer',
    'RTC not set',
    'RTC command failed',
    'query response value not valid',
  ],
  [MCUMGR_GROUP.image]: [
    'ok',
    'unknown error',
    'flash configuration query failed',
    'no image',
    'no TLVs',
    'invalid TLV',
    'multiple hash TLVs',
    'invalid TLV size',
    'hash not found',
    'no free slot',
    'flash open failed',
    'flash read failed',
    'flash write failed',
    'flash erase failed',
    'invalid slot',
    'no free memory',
    'flash context already set',
    'flash context not set',
    'flash area device null',
    'invalid page offset',
    'invalid offset',
    'invalid length',
    'invalid image header',
    'invalid image header magic',
    'invalid hash',
    'invalid flash address',
    'version get failed',
    'current version is newer',
    'image already pending',
    'invalid image vector table',
    'image too large',
    'image data overrun',
    'image confirmation denied',
    'setting test to active slot denied',
    'active slot not known',
  ],
  [MCUMGR_GROUP.settings]: [
    'ok',
    'unknown error',
    'key too long',
    'key not found',
    'read not supported',
    'root key not found',
    'write not supported',
    'delete not supported',
    'save not supported',
  ],
};

/** Result codes by name, for the simulated server (the index in the tables above). */
export function groupResult(group: McumgrGroupName, words: string): number {
  const rc = GROUP_RESULTS[MCUMGR_GROUP[group]]!.indexOf(words);
  if (rc < 0) throw new Error(`${group} group has no result "${words}"`);
  return rc;
}

export function generalResult(words: string): number {
  const rc = GENERAL_RESULTS.indexOf(words);
  if (rc < 0) throw new Error(`MCUmgr has no result "${words}"`);
  return rc;
}

function groupLabel(group: number): string {
  const name = Object.entries(MCUMGR_GROUP).find(([, id]) => id === group)?.[0];
  return name ? `${name} group` : `group ${group}`;
}

const hex = (rc: number) => `0x${rc.toString(16).padStart(2, '0')}`;

/**
 * The longest key a stock Zephyr's settings group takes: it answers "key too long" to a name of
 * CONFIG_MCUMGR_GRP_SETTINGS_NAME_LEN (32 by default) characters or more, its buffer holding
 * the terminating NUL too (docs/mcumgr/settings.md).
 */
export const ZEPHYR_SETTINGS_KEY_MAX = 31;

/**
 * What a person can do about a group's result, where Zephyr's configuration decides it:
 * keyed by the group and the result's words.
 */
const GROUP_ADVICE: Record<string, string> = {
  [`${MCUMGR_GROUP.settings} key too long`]: `a stock Zephyr takes keys of at most ${ZEPHYR_SETTINGS_KEY_MAX} characters: CONFIG_MCUMGR_GRP_SETTINGS_NAME_LEN, 32 by default, counts the NUL`,
};

/** "image group: 0x09 no free slot"; a code outside the table says so instead of guessing. */
export function describeGroupResult(group: number, rc: number): string {
  const words = GROUP_RESULTS[group]?.[rc];
  const advice = words && GROUP_ADVICE[`${group} ${words}`];
  return `${groupLabel(group)}: ${hex(rc)} ${words ?? 'unknown result'}${advice ? ` (${advice})` : ''}`;
}

/** "MCUmgr: 0x08 not supported"; 256 and up are the board's own (per-user) codes. */
export function describeGeneralResult(rc: number): string {
  const words = GENERAL_RESULTS[rc] ?? (rc >= 256 ? 'board-defined error' : 'unknown result');
  return `MCUmgr: ${hex(rc)} ${words}`;
}
