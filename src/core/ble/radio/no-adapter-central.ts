// The central for an adapter that is missing or cannot be opened: every call says why, so opening
// a station never rejects for a missing adapter (open-central.ts) and the reason reaches the user.
import {
  BleError,
  type AdapterState,
  type Advertisement,
  type BleCentral,
  type BleConnection,
  type ScanFilter,
  type ScanHandle,
} from '../port';

/** A central for a machine with no usable adapter: every call says why. */
export class NoAdapterCentral implements BleCentral {
  constructor(readonly reason: string) {}

  state(): AdapterState {
    return 'noAdapter';
  }

  stateReason(): string {
    return this.reason;
  }

  onStateChange(): () => void {
    return () => undefined;
  }

  async startScan(
    _filter: ScanFilter,
    _onAdvertisement: (ad: Advertisement) => void,
  ): Promise<ScanHandle> {
    throw new BleError('adapter', `no Bluetooth adapter: ${this.reason}`);
  }

  async connect(id: string): Promise<BleConnection> {
    throw new BleError('adapter', `no Bluetooth adapter: ${this.reason}`, id);
  }

  async close(): Promise<void> {}
}
