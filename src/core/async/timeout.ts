// One way to bound a wait. The operation keeps running after a timeout (a promise cannot be
// cancelled); the caller ends it (drops the link, closes the socket). Its late settlement is
// observed here, so a rejection after the timeout cannot surface as an unhandled one.

/** A wait in the words people use for it: "10 s" for whole seconds, else "150 ms". */
export function waitWords(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** Runs `callback` after `ms` unless the returned function is called first. */
export type Schedule = (callback: () => void, ms: number) => () => void;

export const realSchedule: Schedule = (callback, ms) => {
  const timer = setTimeout(callback, ms);
  return () => clearTimeout(timer);
};

/**
 * Settles as `operation` does, or rejects first with the error `onTimeout` returns once `ms` have
 * passed. `onTimeout` may also start ending the operation.
 */
export function withTimeout<T>(
  operation: Promise<T>,
  ms: number,
  onTimeout: () => Error,
  schedule: Schedule = realSchedule,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const cancel = schedule(() => reject(onTimeout()), ms);
    operation.then(
      (value) => {
        cancel();
        resolve(value);
      },
      (err: unknown) => {
        cancel();
        reject(err);
      },
    );
  });
}
