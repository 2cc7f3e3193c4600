// A data table's column headings. The row buttons' column is named only for screen readers:
// on screen the buttons say what they do.
interface TableHeadProps {
  columns: readonly string[];
  /** Adds the last column, holding each row's buttons. */
  rowActions?: boolean;
}

export function TableHead({ columns, rowActions = false }: TableHeadProps) {
  return (
    <thead>
      <tr>
        {columns.map((column) => (
          <th key={column} scope="col">
            {column}
          </th>
        ))}
        {rowActions && (
          <th scope="col">
            <span className="offscreen">Actions</span>
          </th>
        )}
      </tr>
    </thead>
  );
}
