// The pairing prompts the BLE process holds, as this window shows them: the ones waiting when
// the window opened, then every `ble:pairingPrompt` as a prompt opens, is answered (here or in
// another window) and ends. The BLE process is the source of truth; a window only keeps when
// it heard each one, to count its time down, and which ended ones the person dismissed.
import { useCallback, useEffect, useState } from 'react';
import type { PairingPrompt } from '../../core/ble/link-parameters';
import { useApi } from './api-context';

export interface ShownPrompt {
  prompt: PairingPrompt;
  /** When this window heard the prompt's `remainingMs` (performance.now()). */
  heardAt: number;
}

/** A prompt whose outcome is said in the flow that asked for the pairing, not over the page. */
function leavesAtOnce(prompt: PairingPrompt): boolean {
  return prompt.state === 'paired' || (prompt.state === 'failed' && prompt.inRun === true);
}

export function usePairingPrompts() {
  const api = useApi();
  const [prompts, setPrompts] = useState<ShownPrompt[]>([]);

  const heard = useCallback((prompt: PairingPrompt) => {
    setPrompts((shown) => {
      const others = shown.filter((s) => s.prompt.id !== prompt.id);
      // A pairing that ended well leaves at once: the prompts sit over the page, and its outcome
      // is said where the pairing was asked, in the flow (the link card's "Paired with …", a
      // run's result), not over the scan list (docs/decisions/app-and-ui.md, "Paired, in the
      // flow"). So does one a provisioning run asked for that failed: the run's result says why,
      // and the run has ended it. A state the window heard later (an answer from another
      // window) never goes back.
      return leavesAtOnce(prompt) ? others : [...others, { prompt, heardAt: performance.now() }];
    });
  }, []);

  useEffect(() => {
    let live = true;
    const off = api.on('ble:pairingPrompt', heard);
    void api.ble.listPairingPrompts({}).then(
      (waiting) => {
        if (!live) return;
        setPrompts((shown) => {
          const known = new Set(shown.map((s) => s.prompt.id));
          const now = performance.now();
          return [
            ...waiting
              .filter((p) => !leavesAtOnce(p) && !known.has(p.id))
              .map((prompt) => ({ prompt, heardAt: now })),
            ...shown,
          ];
        });
      },
      // No BLE process yet: nothing waits.
      () => undefined,
    );
    return () => {
      live = false;
      off();
    };
  }, [api, heard]);

  const dismiss = useCallback(
    (id: string) => setPrompts((shown) => shown.filter((s) => s.prompt.id !== id)),
    [],
  );
  return { prompts, dismiss };
}
