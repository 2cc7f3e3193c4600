// The Electron launcher of the BLE process, with Electron faked: the built entry started as a
// utility process with its config, messages both ways, and its exit reported once as a reason.
import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';

const fake = vi.hoisted(() => ({ child: undefined as unknown, fork: undefined as unknown }));

vi.mock('electron', async () => {
  const { EventEmitter: Emitter } = await import('node:events');
  const fork = vi.fn(() => {
    const child = Object.assign(new Emitter(), {
      pid: 4242,
      postMessage: vi.fn(),
      kill: vi.fn(() => true),
    });
    fake.child = child;
    return child;
  });
  fake.fork = fork;
  return { utilityProcess: { fork } };
});

const { launchBleUtility } = await import('../../src/main/ble-utility');
type Request = Parameters<ReturnType<typeof launchBleUtility>['send']>[0];

describe('BLE utility process', () => {
  it('starts ble-host.js beside main with the config and relays messages and exit', () => {
    const channel = launchBleUtility({ adapters: ['hci0'] });
    const fork = fake.fork as ReturnType<typeof vi.fn>;
    const [entry, args, options] = fork.mock.calls[0] as [
      string,
      string[],
      { serviceName: string },
    ];
    expect(entry).toMatch(/[/\\]ble-host\.js$/);
    expect(JSON.parse(args[0]!)).toEqual({ adapters: ['hci0'] });
    expect(options.serviceName).toBe('DeviceBench BLE');
    expect(channel.pid).toBe(4242);

    const child = fake.child as EventEmitter & { postMessage: ReturnType<typeof vi.fn> };
    const request: Request = {
      type: 'request',
      id: 1,
      target: 'central',
      method: 'stopScan',
      input: { scanId: 's' },
    };
    channel.send(request);
    expect(child.postMessage).toHaveBeenCalledWith(request);

    const received: unknown[] = [];
    channel.onMessage((m) => received.push(m));
    child.emit('message', { type: 'event', event: 'state', state: 'poweredOff' });
    expect(received).toEqual([{ type: 'event', event: 'state', state: 'poweredOff' }]);

    const exits: string[] = [];
    channel.onExit((reason) => exits.push(reason));
    child.emit('exit', 134);
    expect(exits).toEqual(['exited with code 134']);
  });
});
