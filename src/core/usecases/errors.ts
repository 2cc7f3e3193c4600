// What a use case refuses, in words every front end maps onto its own: the app onto the
// contract's error body (src/core/app/errors.ts), the CLI onto an exit code and the flag to
// change (src/cli/exit.ts). A use case never throws the app's AppFailure, which would tie it to
// the contract (docs/architecture.md, "Layers").

/** A field of the request or the set-up is wrong; each front end names `field` its own way. */
export class SetupError extends Error {
  override name = 'SetupError';
  constructor(
    readonly field: string,
    /** What is wrong with the field, without its name. */
    readonly detail: string,
  ) {
    super(`${field}: ${detail}`);
  }
}

/** The station lacks something the request needs (a token, a secret, the emulator). */
export class NotConfiguredError extends Error {
  override name = 'NotConfiguredError';
}

/** Something the use case must reach (the shared audit log) cannot be reached now. */
export class UnreachableError extends Error {
  override name = 'UnreachableError';
}

/** The platform answered with something the use case cannot use. */
export class PlatformAnswerError extends Error {
  override name = 'PlatformAnswerError';
}
