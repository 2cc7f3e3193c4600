// A PSDI in a table's cell: on one line, as it is written to the board and searched for, where a
// narrow column would break "MX-000001" at its hyphen. The contract sets no length for a PSDI
// (../shared/seeds, trial product), so one longer than a column could hold wraps instead.
const ONE_LINE_CHARS = 24;

export function PsdiCell({ psdi }: { psdi: string | undefined }) {
  const oneLine = psdi !== undefined && psdi.length <= ONE_LINE_CHARS;
  return <td className={oneLine ? 'mono nowrap' : 'mono'}>{psdi ?? ''}</td>;
}
