// The connect step with its retries, the same for every kind of board writer
// (docs/provisioning-protocol.md, "The tool's steps").
import type { BleCentral, BleConnection } from '../ble/port';
import { CancelledError, StepFailure } from './step-failures';
import { delay, withStepTimeout, type ProvisionTiming, type StepReporter } from './steps';

export async function connectBoard(options: {
  central: BleCentral;
  boardId: string;
  timing: ProvisionTiming;
  reporter: StepReporter;
  signal: AbortSignal | undefined;
}): Promise<BleConnection> {
  const { central, timing, reporter } = options;
  const tries = timing.connect.retries + 1;
  for (let attempt = 1; ; attempt++) {
    try {
      return await reporter.run(
        'connect',
        attempt,
        () =>
          withStepTimeout(
            central.connect(options.boardId, { timeoutMs: timing.connect.timeoutMs }),
            'connect',
            timing.connect.timeoutMs,
          ),
        () => attempt < tries,
      );
    } catch (err) {
      if (attempt >= tries) throw new StepFailure('connect', attempt, false, err);
      if (options.signal?.aborted) throw new CancelledError();
      await delay(timing.retryDelayMs * attempt);
    }
  }
}
