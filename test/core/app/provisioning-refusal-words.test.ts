// A provisioning run's failed pairing through the app's contract layer: the window's words are
// at most two sentences, say the step as pairing and name only what the window offers, and the
// full words (the board's reason, the step it happened under) travel as `details`; any other
// provisioning failure keeps its words as they were (issue 45, point 3).
import { describe, expect, it } from 'vitest';
import { toAppError } from '../../../src/core/app/errors';
import { withBleErrors } from '../../../src/core/app/handlers/ble-errors';
import { ProvisionError } from '../../../src/core/provisioning/steps';
import { FatalStepError, PairingStepError } from '../../../src/core/provisioning/step-failures';
import { PAIRING_FAILED, progressOf } from '../../../src/core/usecases/provisioning/batch-events';

const board = { id: 'b1', address: 'e8:2b:7c:00:20:01' };
const REASON =
  'pairing failed: the board refused pairing: 0x04 confirm value failed — the passkey did not match: check the number and pair again; no PSDI was reserved';

async function bodyOf(failure: FatalStepError) {
  const handlers = withBleErrors({
    run: async () => {
      throw new ProvisionError(failure.step, failure.message, board, { cause: failure });
    },
  });
  try {
    await handlers.run();
  } catch (err) {
    return toAppError(err);
  }
  throw new Error('the handler did not fail');
}

describe('a provisioning run’s refusal in the window’s words', () => {
  it('says a failed pairing in two sentences, with the full words as details', async () => {
    const body = await bodyOf(new PairingStepError('pair', REASON, 1));
    expect(body.code).toBe('device');
    expect(body.message.startsWith('pair: ')).toBe(true);
    expect(body.message.split(/\.\s/).length).toBeLessThanOrEqual(2);
    expect(body.message).toContain('the link card’s pairing form');
    expect(body.message).not.toMatch(/--passkey|--io-capability|discover/);
    expect(body.details).toBe(`pair: ${REASON}`);
  });

  it('keeps any other failure as it was, with no details', async () => {
    const body = await bodyOf(new FatalStepError('connect', 'no connection within 10000 ms', 1));
    expect(body).toMatchObject({
      code: 'device',
      message: 'connect: no connection within 10000 ms',
    });
    expect(body.details).toBeUndefined();
  });

  it('says a batch board’s failed pairing the same way, under the pair step, details apart', () => {
    const failed = (pairing?: true) =>
      progressOf('run-1', {
        type: 'step-failed',
        board,
        step: 'pair',
        attempt: 1,
        at: 0,
        durationMs: 5,
        error: REASON,
        willRetry: false,
        ...(pairing && { pairing }),
      });
    expect(failed(true)).toMatchObject({
      step: 'pair',
      phase: 'failed',
      message: PAIRING_FAILED,
      details: REASON,
    });
    expect(failed()).toMatchObject({ message: REASON });
    expect(failed().details).toBeUndefined();
  });
});
