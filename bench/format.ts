// Plain-text output shared by the benchmarks: aligned tables and numbers people can read.

/** Rows of cells, first column left-aligned, the rest right-aligned, two spaces apart. */
export function table(rows: string[][], indent = '  '): string[] {
  const widths: number[] = [];
  for (const row of rows)
    row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map(
    (row) =>
      indent +
      row
        .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
        .join('  ')
        .trimEnd(),
  );
}

export function count(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

export function ms(n: number): string {
  return n.toFixed(2);
}

export function percent(fraction: number): string {
  return `${Math.round(fraction * 100)}%`;
}
