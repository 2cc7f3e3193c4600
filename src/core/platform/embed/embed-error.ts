// The client SDK's rejection (docs/platform-api.md#iap-client): the simulators of the embedded
// browser's methods reject with it, carrying the SDK's own message words. Browser-safe.

/** Codes are the emulator's choice; the platform gives only the messages. */
export type EmbedErrorCode = 'UNAUTHORIZED' | 'FORBIDDEN' | 'INVALID_ARGUMENT' | 'CANCELED';

export class EmbedError extends Error {
  constructor(
    readonly code: EmbedErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'EmbedError';
  }
}
