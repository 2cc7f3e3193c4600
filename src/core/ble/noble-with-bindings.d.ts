// Types for noble's `with-bindings` entry (it ships none): a Noble instance over any binding.
declare module '@abandonware/noble/with-bindings' {
  import type { EventEmitter } from 'node:events';
  import type { Peripheral } from '@abandonware/noble';

  /** The part of a Noble instance DeviceBench uses; the module's own types describe the singleton. */
  export interface NobleInstance extends EventEmitter {
    /** Reading it initialises the binding, which may throw; noble-central.ts reads `_state` instead. */
    readonly state: string;
    readonly _state: string;
    /** The adapter's address once the binding read it ("unknown" before). */
    readonly address: string;
    startScanningAsync(serviceUuids?: string[], allowDuplicates?: boolean): Promise<void>;
    stopScanningAsync(): Promise<void>;
    on(event: 'discover', listener: (peripheral: Peripheral) => void): this;
    on(event: 'stateChange', listener: (state: string) => void): this;
    on(event: 'warning', listener: (message: string) => void): this;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }

  const withBindings: (bindings: EventEmitter) => NobleInstance;
  export = withBindings;
}
