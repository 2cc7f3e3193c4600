// Firmware on the board of a BLE bench card: each call is the firmware use case
// (src/core/usecases/firmware.ts) on the link the card holds, connected again under the same
// id when it has dropped (after a reset), so the card follows the board through its reboot.
// One call at a time per link: MCUmgr boards take one request at a time, and a reset in the
// middle of an upload would only confuse both.
import { EventEmitter } from 'node:events';
import { attachLink } from '../../ble/host/remote-central';
import { ImageFileError, readMcubootImage, type McubootImage } from '../../ble/mcumgr/image-file';
import type { BleConnection } from '../../ble/port';
import { MCUMGR_CHARACTERISTIC_UUID } from '../../ble/mcumgr/service';
import {
  confirmFirmware,
  echoBoard,
  flashImage,
  boardSlots,
  resetBoard,
  testFirmware,
  type HeldBoard,
} from '../../usecases/firmware';
import { SetupError } from '../errors';
import { busyDetail } from './firmware-busy';
import type { ImageSlot } from '../../ble/mcumgr/image-group';
import type { HostSupervisor } from './host-supervisor';
import type { UploadLink } from '../../ble/mcumgr/upload-link-info';

/** How long a dropped board may take to come back (a reset, a reboot into a new image). */
const RECONNECT_TIMEOUT_MS = 15_000;

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

export interface FirmwareProgress {
  connectionId: string;
  offset: number;
  total: number;
  bytesPerSecond: number;
  resumedFrom: number;
  reconnects: number;
  link: UploadLink;
}

/** An image file as base64, read and checked; refused at `image` naming what is wrong. */
export function imageFromBase64(base64: string): McubootImage {
  try {
    return readMcubootImage(Buffer.from(base64, 'base64'));
  } catch (err) {
    if (err instanceof ImageFileError) throw new SetupError('image', err.message);
    throw err;
  }
}

export function imageInfo(image: McubootImage) {
  return { version: image.versionText, hash: hex(image.hash), bytes: image.bytes.length };
}

export class BoardFirmware extends EventEmitter<{
  progress: [FirmwareProgress];
  /** What runs on a link now (none: it ended), for every window's panel. */
  busy: [{ connectionId: string; running?: string }];
  /** A link's slots as a call just read them. */
  slots: [{ connectionId: string; slots: ImageSlot[] }];
}> {
  /** What runs on each link now, by connection id. */
  private readonly running = new Map<string, string>();
  /** The upload running on each link, to stop it (`cancelUpload`). */
  private readonly uploads = new Map<string, AbortController>();

  constructor(private readonly supervisor: HostSupervisor) {
    super();
  }

  slots(connectionId: string) {
    return this.onBoard(connectionId, 'a slot list', async (board) => ({
      slots: await boardSlots(board),
    }));
  }

  upload(connectionId: string, image: McubootImage) {
    return this.onBoard(connectionId, 'an upload', async (board) => {
      let reconnects = 0;
      // Where the board said the upload stood after the last chunk it took.
      let offset = 0;
      const cancel = new AbortController();
      this.uploads.set(connectionId, cancel);
      // The link's GATT log says the upload in one line, not each SMP chunk in base64.
      const host = await this.supervisor.ensure();
      const quiet = (summary?: string) =>
        host
          .call('quietLog', {
            connectionId,
            characteristicUuid: MCUMGR_CHARACTERISTIC_UUID,
            summary,
          })
          .catch(() => undefined);
      await quiet();
      const result = await flashImage(board, image, {
        onReconnect: (n) => (reconnects = n),
        onProgress: (p) => {
          offset = p.offset;
          this.emit('progress', { connectionId, ...p, reconnects });
        },
        signal: cancel.signal,
      })
        .catch(async (error: unknown) => {
          if (!cancel.signal.aborted || error !== cancel.signal.reason) throw error;
          return undefined;
        })
        .finally(async () => {
          this.uploads.delete(connectionId);
          await quiet(`MCUmgr upload of ${image.versionText}`);
        });
      if (!result) {
        // The board keeps what it took: the next upload of this image resumes at `offset`.
        return {
          cancelled: true as const,
          image: imageInfo(image),
          slots: await boardSlots(board),
          offset,
          total: image.bytes.length,
        };
      }
      return {
        cancelled: false as const,
        image: imageInfo(image),
        slots: result.slots,
        resumedFrom: result.resumedFrom,
        sent: result.sent,
        elapsedMs: result.elapsedMs,
        kilobytesPerSecond: result.kilobytesPerSecond,
        reconnects: result.reconnects,
        link: result.link,
      };
    });
  }

  /** Stops the link's upload before its next chunk; false when none runs. */
  cancelUpload(connectionId: string): boolean {
    const upload = this.uploads.get(connectionId);
    upload?.abort();
    return upload !== undefined;
  }

  test(connectionId: string, hash: string) {
    return this.onBoard(connectionId, 'a test', async (board) => ({
      slots: (await testFirmware(board, hash, false)).slots,
    }));
  }

  confirm(connectionId: string) {
    return this.onBoard(connectionId, 'a confirm', async (board) => ({
      slots: await confirmFirmware(board),
    }));
  }

  reset(connectionId: string) {
    return this.onBoard(connectionId, 'a reset', (board) => resetBoard(board));
  }

  echo(connectionId: string, text: string) {
    return this.onBoard(connectionId, 'an echo', async (board) => ({
      text: await echoBoard(board, text),
    }));
  }

  /** Runs `work` on the card's board, refusing a second call on a link that has one running. */
  private async onBoard<T>(
    connectionId: string,
    what: string,
    work: (board: HeldBoard) => Promise<T>,
  ): Promise<T> {
    const busy = this.running.get(connectionId);
    if (busy) throw new SetupError('connectionId', busyDetail(busy));
    this.running.set(connectionId, what);
    this.emit('busy', { connectionId, running: what });
    try {
      const host = await this.supervisor.ensure();
      if (!host.links.some((l) => l.connectionId === connectionId))
        throw new SetupError('connectionId', 'is not an open connection');
      const answer = await work({ link: () => this.link(connectionId) });
      const { slots } = answer as { slots?: ImageSlot[] };
      if (slots) this.emit('slots', { connectionId, slots });
      return answer;
    } finally {
      this.running.delete(connectionId);
      this.emit('busy', { connectionId });
    }
  }

  /** The card's link, connected again (same id, same log) when it has dropped. */
  private async link(connectionId: string): Promise<BleConnection> {
    const host = await this.supervisor.ensure();
    const record = host.links.find((l) => l.connectionId === connectionId);
    if (!record) throw new SetupError('connectionId', 'is not an open connection');
    if (record.state !== 'connected') {
      await host.call('reconnect', { connectionId, timeoutMs: RECONNECT_TIMEOUT_MS });
      await host.call('discover', { connectionId });
    }
    return attachLink(host, connectionId);
  }
}
