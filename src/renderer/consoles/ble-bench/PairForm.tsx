// How to pair a link, asked per pairing as bumble-pair's flags or nRF Connect for Desktop's
// pairing dialog ask it: the IO capability the station claims, Secure Connections, bonding and
// MITM. It starts at the station's unattended policy, so Pair as it comes pairs as before
// (docs/decisions.md, "Pairing as a phone does"); every field is sent, so what was asked is
// what the form shows.
import { useState } from 'react';
import { Checkbox } from '../../components/Checkbox';
import { SelectField } from '../../components/SelectField';
import { IO_CAPABILITY_NAMES } from '../../../core/ble/link-parameters';

type IoCapability = (typeof IO_CAPABILITY_NAMES)[number];

/** The names of the Core Specification's IO capabilities (Vol 3, Part H, 2.3.2). */
const IO_LABELS: Record<IoCapability, string> = {
  displayOnly: 'DisplayOnly',
  displayYesNo: 'DisplayYesNo',
  keyboardOnly: 'KeyboardOnly',
  noInputNoOutput: 'NoInputNoOutput',
  keyboardDisplay: 'KeyboardDisplay',
};

interface PairChoice {
  io: IoCapability;
  sc: boolean;
  bond: boolean;
  mitm: boolean;
}

export function PairForm({
  board,
  paired,
  busy,
  onPair,
}: {
  /** The board as the card names it. */
  board: string;
  /** The link is encrypted already: a pair request would answer the link as it is. */
  paired: boolean;
  busy: boolean;
  onPair: (choice: PairChoice) => void;
}) {
  const [choice, setChoice] = useState<PairChoice>({
    io: 'noInputNoOutput',
    sc: true,
    bond: true,
    mitm: false,
  });
  const set = (change: Partial<PairChoice>) => setChoice((c) => ({ ...c, ...change }));
  return (
    <form
      className="inline-form ble-pair"
      aria-label="Pairing"
      onSubmit={(event) => {
        event.preventDefault();
        onPair(choice);
      }}
    >
      <SelectField
        label="IO capability"
        value={choice.io}
        options={IO_CAPABILITY_NAMES.map((io) => ({ value: io, label: IO_LABELS[io] }))}
        onChange={(io) => set({ io })}
      />
      <Checkbox label="Secure Connections" checked={choice.sc} onChange={(sc) => set({ sc })} />
      <Checkbox label="Bond" checked={choice.bond} onChange={(bond) => set({ bond })} />
      <Checkbox label="MITM" checked={choice.mitm} onChange={(mitm) => set({ mitm })} />
      <button
        type="submit"
        disabled={busy || paired}
        title={paired ? 'The link is encrypted already' : undefined}
      >
        {paired ? 'Paired' : 'Pair'}
      </button>
      {paired && (
        // The outcome in the card's own flow, in every window: the pairing prompt leaves as it
        // ends, so nothing covers the scan list (docs/decisions/app-and-ui.md, "Paired, in the
        // flow").
        <span role="status" className="good" data-testid="link-paired">
          Paired with {board}.
        </span>
      )}
    </form>
  );
}
