// The CLI's one error boundary (src/cli/error-boundary.ts), as child processes: a failure is one
// line of words with its exit code, DEVICEBENCH_DEBUG=1 adds the stack; and the test helper
// (run-cli.ts) that fails any CLI test whose output holds a stack trace.
import { describe, expect, it } from 'vitest';
import { finished, runCli, stackFrameIn, startCli } from './run-cli';

describe('stackFrameIn', () => {
  it('finds the frames Node prints, and not words that merely say "at"', () => {
    const frames = [
      '    at answerBody (/work/src/core/ble/mcumgr/client.ts:310:11)',
      '    at async McumgrClient.request (file:///work/out/cli-test-1/main.js:4410:7)',
      '    at file:///work/out/cli-test-1/main.js:3:9',
      '    at new Promise (<anonymous>)',
      '    at process.processTicksAndRejections (node:internal/process/task_queues:105:5)',
    ];
    for (const frame of frames)
      expect(stackFrameIn(`McumgrError: settings group: 0x01 unknown error\n${frame}\n`)).toBe(
        frame,
      );
    for (const words of [
      'FAIL CLI Zephyr (e8:2f:9a:00:50:01) failed at write: the board answered ATT error 0x05',
      'link dropped at 12:30:01',
      '  Board 1 commit attempt 1: no answer within 150 ms (retrying)',
      'devicebench: e8:2f:9a:00:50:01: settings get devicebench/nothing: settings group: 0x03 key not found',
    ])
      expect(stackFrameIn(words)).toBeUndefined();
  });
});

describe('the CLI error boundary', { timeout: 60_000 }, () => {
  it('says a failure in one line with its exit code; DEVICEBENCH_DEBUG=1 adds where it happened', async () => {
    const args = ['scan', '--for', '0'];
    const [plain, debug] = await Promise.all([
      runCli(args),
      runCli(args, { DEVICEBENCH_DEBUG: '1' }, { stackTraces: 'expected' }),
    ]);
    expect(plain.code).toBe(2);
    expect(plain.stderr).toBe(
      'devicebench: --for: must be more than 0 seconds\n(devicebench <command> --help shows the flags)\n',
    );
    expect(debug.code).toBe(2);
    expect(debug.stderr).toContain('devicebench: --for: must be more than 0 seconds');
    expect(debug.stderr).toContain('UsageError: --for: must be more than 0 seconds');
    expect(stackFrameIn(debug.stderr)).toBeDefined();
  });

  it('fails a test whose CLI output holds a stack trace it did not ask for', async () => {
    const child = startCli(['scan', '--for', '0'], { DEVICEBENCH_DEBUG: '1' });
    await expect(finished(child)).rejects.toThrow(
      /devicebench scan --for 0 printed a stack trace on stderr .*: at /,
    );
  });
});

describe('a CLI child the test never waits for', { timeout: 60_000 }, () => {
  it.fails('still fails the test when it printed a stack trace', async () => {
    const child = startCli(['scan', '--for', '0'], { DEVICEBENCH_DEBUG: '1' });
    await new Promise((resolve) => child.on('close', resolve));
  });
});
