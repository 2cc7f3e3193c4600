import { describe, expect, it } from 'vitest';
import { causeMessage, errorMessage } from '../../../src/core/errors/message';

describe('errorMessage', () => {
  it('reads an Error by its message and anything else as text', () => {
    expect(errorMessage(new Error('board gone'))).toBe('board gone');
    expect(errorMessage('plain')).toBe('plain');
    expect(errorMessage(42)).toBe('42');
  });
});

describe('causeMessage', () => {
  it('reads the cause fetch wraps, or the error itself without one', () => {
    const wrapped = new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED') });
    expect(causeMessage(wrapped)).toBe('connect ECONNREFUSED');
    expect(causeMessage(new Error('alone'))).toBe('alone');
    expect(causeMessage(undefined)).toBe('undefined');
  });
});
