// How the scenario form's inputs turn what the draft holds into text and typed text back into
// draft values: numbers kept as typed until they are whole, UUIDs completed to the platform's
// form, bytes shown in the chosen format and stored as base64.
import { fullUuid, uuidProblem } from '../../../core/ble/port';
import { bytesToBase64, formatBytes, parseBase64, parseBytes } from '../../../core/bytes';
import { parseWholeNumber } from '../../../core/whole-number';
import type { BytesText } from '../BytesInput';
import type { Json } from '../../lib/scenario-draft';

export function asText(value: Json | undefined): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * A whole number typed exactly becomes that number; anything else ("1e+23", "1.5", past 2^53)
 * is kept as typed, so the draft cannot be saved and the input says why.
 */
export function fromNumberText(text: string): Json | undefined {
  if (text.trim() === '') return undefined;
  const parsed = parseWholeNumber(text);
  return parsed.ok ? parsed.value : text;
}

/**
 * A 128-bit UUID in any form (undashed, upper case, braces), as the platform wants it: dashed
 * and lower case. Done while typing only for a complete 128-bit UUID, so typing one digit by
 * digit is never cut short; a 16- or 32-bit one is expanded when the field is left.
 */
export function completeUuid(text: string): string | undefined {
  if (uuidProblem(text) !== undefined || text.replace(/[^0-9a-f]/gi, '').length < 32)
    return undefined;
  return fullUuid(text);
}

export function shortUuid(text: string): string | undefined {
  return text.trim() === '' || uuidProblem(text) !== undefined ? undefined : fullUuid(text);
}

/** What the form shows for a stored base64 value: hex, or the value itself when it is not base64. */
export function shownBytes(data: string, format: BytesText['format']): BytesText {
  const parsed = parseBase64(data);
  if (!parsed.ok) return { format: 'base64', text: data };
  const text = formatBytes(parsed.bytes, format);
  return text === undefined
    ? { format: 'hex', text: formatBytes(parsed.bytes, 'hex') ?? '' }
    : { format, text };
}

/** What the draft stores for typed bytes: base64, or the text as typed while it is not bytes. */
export function storedBytes(value: BytesText): string {
  const parsed = parseBytes(value.text, value.format);
  return parsed.ok && parsed.bytes.length > 0 ? bytesToBase64(parsed.bytes) : value.text;
}
