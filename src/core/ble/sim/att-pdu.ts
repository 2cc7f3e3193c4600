// The ATT server's PDUs and refusals (Bluetooth Core Specification v5.3, Vol 3, Part F, 3.3
// and 3.4): little-endian fields, the Error Response, and the checks every request starts with.
import { ATT_ERROR, ATT_OP } from '../att/codes';

/** An error the request ends with: the code and the handle the Error Response names. */
export class AttFailure {
  constructor(
    readonly code: number,
    readonly handle: number,
  ) {}
}

export const u16 = (pdu: Uint8Array, at: number) => pdu[at]! | (pdu[at + 1]! << 8);

export function pdu(...parts: (number | Uint8Array)[]): Uint8Array {
  const bytes: number[] = [];
  for (const p of parts) {
    if (typeof p === 'number') bytes.push(p);
    else bytes.push(...p);
  }
  return Uint8Array.from(bytes);
}

export const le16 = (n: number) => Uint8Array.of(n & 0xff, (n >> 8) & 0xff);

export function errorRsp(request: number, handle: number, code: number): Uint8Array {
  return pdu(ATT_OP.errorRsp, request, le16(handle), code);
}

/** Commands have bit 6 of the opcode set (Vol 3, Part F, 3.3.1). */
export function isCommand(opcode: number): boolean {
  return (opcode & 0x40) !== 0;
}

export function hex(type: number): string {
  return type.toString(16).padStart(4, '0');
}

export function expectLength(req: Uint8Array, length: number): void {
  if (req.length !== length) throw new AttFailure(ATT_ERROR.invalidPdu, 0);
}

/** Handle 0 and a start after the end are Invalid Handle, naming the start (Vol 3, Part F, 3.4.3.1). */
export function checkRange(start: number, end: number): void {
  if (start === 0 || start > end) throw new AttFailure(ATT_ERROR.invalidHandle, start);
}
