// The HCI tap fed HCI packets laid out as in the Core Specification: what it forwards, what it
// records, what it reports and in which order relative to the `data` noble receives.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ATT_ERROR, ATT_OP } from '../../../../src/core/ble/att/codes';
import { HCI_ERROR, SMP_FAILURE } from '../../../../src/core/ble/hci/codes';
import type { HciDevice, HciSocket } from '../../../../src/core/ble/hci/socket';
import { HciTap } from '../../../../src/core/ble/hci/tap';
import type {
  AdvertisingReport,
  AttErrorReport,
  SecurityFailure,
} from '../../../../src/core/ble/hci/tap-reports';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');

/** The socket below the tap: records the calls it gets, sends what the test gives it. */
class FakeSocket extends EventEmitter implements HciSocket {
  calls: string[] = [];
  written: Buffer[] = [];
  bindRaw(deviceId?: number) {
    this.calls.push(`bindRaw(${deviceId})`);
    return deviceId ?? 0;
  }
  bindUser(deviceId?: number) {
    this.calls.push(`bindUser(${deviceId})`);
    return deviceId ?? 0;
  }
  bindControl() {
    this.calls.push('bindControl');
  }
  isDevUp() {
    this.calls.push('isDevUp');
    return true;
  }
  setFilter(filter: Buffer) {
    this.calls.push(`setFilter(${filter.toString('hex')})`);
  }
  start() {
    this.calls.push('start');
  }
  stop() {
    this.calls.push('stop');
  }
  write(packet: Buffer) {
    this.written.push(packet);
  }
  getDeviceList(): HciDevice[] {
    this.calls.push('getDeviceList');
    return [
      {
        devId: 0,
        devUp: true,
        idVendor: null,
        idProduct: null,
        busNumber: null,
        deviceAddress: null,
      },
    ];
  }
  /** A packet from the controller. */
  receive(packet: Buffer) {
    this.emit('data', packet);
  }
}

// LE Connection Complete (Vol 4, Part E, 7.7.65.1): status 0, handle 0x0040, central, public
// peer aa:bb:cc:dd:ee:ff (little-endian on the wire), interval 0x0028, latency 0, timeout 0x01f4.
const LE_CONNECTION_COMPLETE = hex('04 3e 13 01 00 4000 00 00 ffeeddccbbaa 2800 0000 f401 00');
// LE Enhanced Connection Complete (7.7.65.10): handle 0x0041, random peer 11:22:33:44:55:66.
const LE_ENHANCED_CONNECTION_COMPLETE = hex(
  '04 3e 1f 0a 00 4100 00 01 665544332211 000000000000 000000000000 1800 0000 c800 00',
);
// ATT Read Request for attribute 0x0003 (L2CAP length 3, CID 0x0004) in two ACL fragments:
// a first (PB 0b00) with the L2CAP header, a continuation (PB 0b01) with the ATT PDU.
const READ_REQ_START = hex('02 4000 0400 0300 0400');
const READ_REQ_CONT = hex('02 4010 0300 0a 0300');
// The board's Error Response (Vol 3, Part F, 3.4.1.1): Read Request, 0x0003, Insufficient
// Authentication, in a first automatically flushable fragment (PB 0b10) and a continuation.
const ERROR_RSP_START = hex('02 4020 0600 0500 0400 01 0a');
const ERROR_RSP_CONT = hex('02 4010 0300 0300 05');
// LE Start Encryption on 0x0040 (7.8.24): random, EDIV, LTK.
const LE_START_ENCRYPTION = hex(`01 1920 1c 4000 ${'00'.repeat(8)} 0000 ${'11'.repeat(16)}`);
const START_ENCRYPTION_PENDING = hex('04 0f 04 00 01 1920'); // Command Status, success
const ENCRYPTION_ON = hex('04 08 04 00 4000 01'); // Encryption Change (7.7.8): on
// A Write Request to 0x0005 in one fragment, refused with Write Not Permitted.
const WRITE_REQ = hex('02 4000 0800 0400 0400 12 0500 0102');
const WRITE_ERROR_RSP = hex('02 4020 0900 0500 0400 01 12 0500 03');
// SMP Pairing Failed (Vol 3, Part H, 3.5.5), CID 0x0006, reason Unspecified.
const PAIRING_FAILED = hex('02 4020 0600 0200 0600 05 08');
const DISCONNECTION_COMPLETE = hex('04 05 04 00 4000 13'); // 7.7.5: remote user terminated

function rig() {
  const inner = new FakeSocket();
  const recorded: [string, string][] = [];
  const tap = new HciTap(inner, (direction, packet) =>
    recorded.push([direction, Buffer.from(packet).toString('hex')]),
  );
  const log: string[] = [];
  const attErrors: AttErrorReport[] = [];
  const failures: SecurityFailure[] = [];
  tap.on('data', (packet) => log.push(`data ${packet.toString('hex')}`));
  tap.on('attError', (report) => {
    attErrors.push(report);
    log.push(`attError ${report.code}`);
  });
  tap.on('securityFailed', (failure) => {
    failures.push(failure);
    log.push(`securityFailed ${failure.stage} ${failure.code}`);
  });
  return { inner, tap, recorded, log, attErrors, failures };
}

describe('HciTap', () => {
  it('forwards every socket call and packet unchanged, and records both directions', () => {
    const { inner, tap, recorded, log } = rig();
    expect(tap.bindRaw(1)).toBe(1);
    expect(tap.bindUser(2)).toBe(2);
    tap.bindControl();
    expect(tap.isDevUp()).toBe(true);
    tap.setFilter(hex('1600000020c10000000000400000'));
    tap.start();
    expect(tap.getDeviceList()).toHaveLength(1);
    tap.stop();
    expect(inner.calls).toEqual([
      'bindRaw(1)',
      'bindUser(2)',
      'bindControl',
      'isDevUp',
      'setFilter(1600000020c10000000000400000)',
      'start',
      'getDeviceList',
      'stop',
    ]);
    const reset = hex('01 030c 00');
    tap.write(reset);
    expect(inner.written).toEqual([reset]);
    expect(inner.written[0]).toBe(reset);
    inner.receive(hex('04 0e 04 01 030c 00'));
    expect(log).toEqual(['data 040e0401030c00']);
    expect(recorded).toEqual([
      ['sent', '01030c00'],
      ['received', '040e0401030c00'],
    ]);
    const failure = new Error('socket closed');
    const errors: Error[] = [];
    tap.on('error', (err) => errors.push(err));
    inner.emit('error', failure);
    expect(errors).toEqual([failure]);
  });

  it('reassembles L2CAP from ACL fragments and reports the Error Response before noble gets it', () => {
    const { inner, tap, log, attErrors, recorded } = rig();
    inner.receive(LE_CONNECTION_COMPLETE);
    tap.write(READ_REQ_START);
    tap.write(READ_REQ_CONT);
    inner.receive(ERROR_RSP_START);
    expect(attErrors).toEqual([]);
    inner.receive(ERROR_RSP_CONT);
    expect(attErrors).toEqual([
      {
        peripheralId: 'aabbccddeeff',
        address: 'aa:bb:cc:dd:ee:ff',
        connectionHandle: 0x0040,
        request: ATT_OP.readReq,
        attHandle: 0x0003,
        code: ATT_ERROR.insufficientAuthentication,
        encrypted: false,
      },
    ]);
    expect(log.slice(1)).toEqual([
      `data ${ERROR_RSP_START.toString('hex')}`,
      `attError ${ATT_ERROR.insufficientAuthentication}`,
      `data ${ERROR_RSP_CONT.toString('hex')}`,
    ]);
    expect(recorded.map(([d]) => d)).toEqual(['received', 'sent', 'sent', 'received', 'received']);
    expect(tap.counts).toEqual({ malformed: 0, unknownLink: 0, unmatchedError: 0 });
  });

  it('knows the link is encrypted after Encryption Change, and names the refused write', () => {
    const { inner, tap, attErrors, failures } = rig();
    inner.receive(LE_CONNECTION_COMPLETE);
    tap.write(LE_START_ENCRYPTION);
    inner.receive(START_ENCRYPTION_PENDING);
    inner.receive(ENCRYPTION_ON);
    tap.write(WRITE_REQ);
    inner.receive(WRITE_ERROR_RSP);
    expect(failures).toEqual([]);
    expect(attErrors).toEqual([
      expect.objectContaining({
        request: ATT_OP.writeReq,
        attHandle: 0x0005,
        code: ATT_ERROR.writeNotPermitted,
        encrypted: true,
      }),
    ]);
  });

  it('reports the link of an Enhanced Connection Complete', () => {
    const { inner, tap, attErrors } = rig();
    inner.receive(LE_ENHANCED_CONNECTION_COMPLETE);
    tap.write(hex('02 4100 0700 0300 0400 0a 0900'));
    inner.receive(hex('02 4120 0900 0500 0400 01 0a 0900 02'));
    expect(attErrors).toEqual([
      expect.objectContaining({
        peripheralId: '112233445566',
        address: '11:22:33:44:55:66',
        connectionHandle: 0x0041,
        code: ATT_ERROR.readNotPermitted,
      }),
    ]);
  });

  it('reports SMP Pairing Failed either way and refused encryption, before the packet', () => {
    const { inner, tap, log, failures } = rig();
    inner.receive(LE_CONNECTION_COMPLETE);
    inner.receive(PAIRING_FAILED);
    tap.write(hex('02 4000 0600 0200 0600 05 03'));
    tap.write(LE_START_ENCRYPTION);
    inner.receive(hex('04 0f 04 0c 01 1920')); // Command Status: Command Disallowed
    tap.write(LE_START_ENCRYPTION);
    inner.receive(START_ENCRYPTION_PENDING);
    inner.receive(hex('04 08 04 06 4000 00')); // Encryption Change: PIN or Key Missing
    const base = { peripheralId: 'aabbccddeeff', connectionHandle: 0x0040 };
    expect(failures).toEqual([
      { ...base, stage: 'pairing', code: SMP_FAILURE.unspecifiedReason, byBoard: true },
      { ...base, stage: 'pairing', code: SMP_FAILURE.authenticationRequirements, byBoard: false },
      { ...base, stage: 'encryption', code: HCI_ERROR.commandDisallowed, byBoard: false },
      { ...base, stage: 'encryption', code: HCI_ERROR.pinOrKeyMissing, byBoard: false },
    ]);
    expect(log.slice(1, 3)).toEqual([
      `securityFailed pairing ${SMP_FAILURE.unspecifiedReason}`,
      `data ${PAIRING_FAILED.toString('hex')}`,
    ]);
  });

  it('counts junk and passes it on without throwing', () => {
    const { inner, tap, log, attErrors } = rig();
    const junk = [
      hex('ff 00 01'), // no such packet type
      Buffer.alloc(0),
      hex('04 3e 05 01'), // parameter length says 5, one byte follows
      hex('02 4010 0300 0a 0300'), // a continuation with no start
      hex('02 4000 0900 0500'), // ACL length says 9, two bytes follow
    ];
    for (const packet of junk) expect(() => inner.receive(packet)).not.toThrow();
    expect(() => tap.write(hex('01 0c'))).not.toThrow();
    expect(log).toEqual(junk.map((p) => `data ${p.toString('hex')}`));
    expect(tap.counts.malformed).toBe(junk.length + 1);
    // The next well-formed traffic is read as before.
    inner.receive(LE_CONNECTION_COMPLETE);
    tap.write(READ_REQ_START);
    tap.write(READ_REQ_CONT);
    inner.receive(ERROR_RSP_START);
    inner.receive(ERROR_RSP_CONT);
    expect(attErrors).toHaveLength(1);
  });

  it('forgets a link at Disconnection Complete and drops its half-received frame', () => {
    const { inner, tap, attErrors } = rig();
    inner.receive(LE_CONNECTION_COMPLETE);
    inner.receive(ERROR_RSP_START);
    inner.receive(DISCONNECTION_COMPLETE);
    inner.receive(ERROR_RSP_CONT);
    expect(tap.counts.malformed).toBe(1);
    inner.receive(hex('02 4020 0900 0500 0400 01 0a 0300 05'));
    expect(attErrors).toEqual([]);
    expect(tap.counts.unknownLink).toBe(1);
  });

  it('counts an Error Response that answers no request in flight, and still reports it', () => {
    const { inner, tap, attErrors } = rig();
    inner.receive(LE_CONNECTION_COMPLETE);
    inner.receive(WRITE_ERROR_RSP);
    expect(attErrors).toHaveLength(1);
    expect(tap.counts.unmatchedError).toBe(1);
  });

  it("keeps the adapter's listeners when noble drops every listener of its socket", () => {
    const { inner, tap, log, attErrors } = rig();
    tap.removeAllListeners();
    inner.receive(LE_CONNECTION_COMPLETE);
    tap.write(READ_REQ_START);
    tap.write(READ_REQ_CONT);
    inner.receive(ERROR_RSP_START);
    inner.receive(ERROR_RSP_CONT);
    expect(attErrors).toHaveLength(1);
    expect(log).toEqual([`attError ${ATT_ERROR.insufficientAuthentication}`]);
    tap.removeAllListeners('attError');
    expect(tap.listenerCount('attError')).toBe(0);
  });

  it('reports each LE Advertising Report with its AD bytes before noble reads the event', () => {
    const { inner, tap, log } = rig();
    const reports: AdvertisingReport[] = [];
    tap.on('advertisingReport', (report) => {
      reports.push(report);
      log.push(`advertisingReport ${report.eventType}`);
    });
    // Vol 4, Part E, 7.7.65.2: two reports, an ADV_IND from 01:02:03:04:05:06 with flags,
    // and a SCAN_RSP from the same board with its name, each with its RSSI.
    const event = hex(
      '04 3e 1e 02 02' +
        ' 00 00 060504030201 03 020106 c5' +
        ' 04 00 060504030201 05 0409414243 c5',
    );
    inner.receive(event);
    expect(reports).toEqual([
      { eventType: 0, peripheralId: '010203040506', data: Uint8Array.from([2, 1, 6]) },
      {
        eventType: 4,
        peripheralId: '010203040506',
        data: Uint8Array.from([4, 9, 0x41, 0x42, 0x43]),
      },
    ]);
    expect(log).toEqual([
      'advertisingReport 0',
      'advertisingReport 4',
      `data ${event.toString('hex')}`,
    ]);

    // A report whose data runs past the event is counted malformed and passed on unreported.
    inner.receive(hex('04 3e 0d 02 01 00 00 060504030201 09 0201'));
    expect(reports).toHaveLength(2);
    expect(tap.counts.malformed).toBe(1);
  });
});

describe('HciTap when noble throws on a packet', () => {
  function throwingNoble(inner: FakeSocket & { recover?: (why: string) => void }) {
    const tap = new HciTap(inner);
    const given: string[] = [];
    tap.on('data', (packet) => {
      given.push(packet.toString('hex'));
      if (packet[0] === 0x02) throw new RangeError('The value of "offset" is out of range.');
    });
    return { tap, given };
  }

  it('hands the start-over to a socket that can reset its controller, and nothing else', () => {
    const reasons: string[] = [];
    const inner = Object.assign(new FakeSocket(), {
      recover: (why: string) => reasons.push(why),
    });
    const { given } = throwingNoble(inner);
    inner.receive(LE_CONNECTION_COMPLETE);
    expect(() => inner.receive(READ_REQ_START)).not.toThrow();
    expect(reasons).toEqual([
      'the host stack could not read a packet (The value of "offset" is out of range.)',
    ]);
    expect(given).toHaveLength(2);
    expect(inner.written).toEqual([]);
  });

  it('ends every link itself on a socket that cannot: Disconnect out, Disconnection Complete up', () => {
    const inner = new FakeSocket();
    const { given } = throwingNoble(inner);
    inner.receive(LE_CONNECTION_COMPLETE);
    expect(() => inner.receive(READ_REQ_START)).not.toThrow();
    // HCI Disconnect (7.1.6) of 0x0040, remote user terminated; Disconnection Complete, hardware failure.
    expect(inner.written.map((p) => p.toString('hex'))).toEqual(['01060403400013']);
    expect(given.at(-1)).toBe('04050400400003');
  });
});
