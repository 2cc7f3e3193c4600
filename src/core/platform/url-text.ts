// The one rule for text that reaches a URL (a path segment, a query value): it must be
// well-formed UTF-16. A lone surrogate has no UTF-8 form, so encodeURIComponent throws
// "URI malformed" on it and URLSearchParams silently swaps it for U+FFFD; it is refused first,
// naming the field (docs/decisions.md, "Emulator fidelity and hardening, second pass").
// Browser-safe: the contract's input check uses it too.

/** Matches a lone surrogate (a surrogate code unit not part of a pair). */
const LONE_SURROGATE = /\p{Cs}/u;

export const MALFORMED_TEXT = 'has a lone surrogate: it must be well-formed UTF-16 text';

export function isWellFormedText(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/** Text that cannot be put into a URL; `field` names the input it came from, when known. */
export class MalformedTextError extends Error {
  override name = 'MalformedTextError';
  constructor(readonly field: string) {
    super(`${field}: ${MALFORMED_TEXT}`);
  }
}

/** `value` as one path segment; throws MalformedTextError naming `field` for a lone surrogate. */
export function pathSegment(value: string, field = 'path'): string {
  if (!isWellFormedText(value)) throw new MalformedTextError(field);
  return encodeURIComponent(value);
}
