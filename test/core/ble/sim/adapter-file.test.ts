// The controller a data folder's simulated bench emulates (`sim-adapter.json`): its fields reach
// every controller of the bench (LE Read Buffer Size answers them), a controller's own profile
// still wins, no file means the defaults, and a file that is not one is refused naming the file
// and the field (docs/decisions/simulated-bench.md, "The controller a data folder emulates").
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AdapterProfileInput } from '../../../../src/core/ble/sim/adapter-profile';
import { SimBenchError, SimulatedBench } from '../../../../src/core/ble/sim/bench';
import { ManualSimClock } from '../../../../src/core/ble/sim/manual-clock';

const benches: SimulatedBench[] = [];
afterEach(() => {
  for (const bench of benches.splice(0)) bench.close();
});

function adapterFile(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'sim-adapter-')), 'sim-adapter.json');
  writeFileSync(file, text);
  return file;
}

function bench(file?: string): SimulatedBench {
  const opened = new SimulatedBench({ clock: new ManualSimClock(0), adapterFile: file });
  benches.push(opened);
  return opened;
}

/** LE Read Buffer Size's answer: the ACL packet length and count the controller announces. */
async function bufferSize(bench: SimulatedBench, profile: AdapterProfileInput = {}) {
  const controller = bench.createController(profile);
  const received: Buffer[] = [];
  controller.on('data', (packet: Buffer) => received.push(packet));
  controller.start();
  controller.write(Buffer.from('01022000', 'hex'));
  await new Promise((resolve) => setImmediate(resolve));
  const answer = received.at(-1)!;
  return { length: answer.readUInt16LE(7), count: answer[9] };
}

describe("a data folder's sim-adapter.json", () => {
  it('gives every controller of the bench its numbers, the rest at their defaults', async () => {
    const file = adapterFile(JSON.stringify({ aclBufferSize: 251, dataLength: 251 }));
    expect(await bufferSize(bench(file))).toEqual({ length: 251, count: 8 });
    expect(bench(file).controllerProfile).toEqual({ aclBufferSize: 251, dataLength: 251 });
  });

  it("lets a controller's own profile win over the file", async () => {
    const file = adapterFile(JSON.stringify({ aclBufferSize: 251, aclBufferCount: 12 }));
    expect(await bufferSize(bench(file), { aclBufferCount: 4 })).toEqual({
      length: 251,
      count: 4,
    });
  });

  it('leaves the defaults when there is none', async () => {
    expect(await bufferSize(bench(join(tmpdir(), 'no-such-folder', 'sim-adapter.json')))).toEqual({
      length: 27,
      count: 8,
    });
  });

  it('refuses a file that is not one, naming the file and each field', () => {
    const refused = (text: string) => {
      try {
        bench(adapterFile(text));
      } catch (err) {
        expect(err).toBeInstanceOf(SimBenchError);
        return (err as Error).message;
      }
      throw new Error('the bench opened');
    };
    expect(refused('{"dataLength": 300, "pdusPerEvent": 0}').split('\n')).toEqual([
      expect.stringMatching(/^sim-adapter\.json: dataLength: .*251/),
      expect.stringMatching(/^sim-adapter\.json: pdusPerEvent: .*1/),
    ]);
    expect(refused('{"dataLenght": 251}')).toBe(
      'sim-adapter.json: dataLenght: is not a known field',
    );
    expect(refused('{"connectionIntervalMs": 8}')).toBe(
      'sim-adapter.json: connectionIntervalMs: must be a multiple of 1.25 ms',
    );
    expect(refused('dataLength: 251')).toMatch(/^sim-adapter\.json: not JSON: /);
  });
});
