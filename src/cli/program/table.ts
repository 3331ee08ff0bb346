/**
 * A table as lines: each column as wide as its widest cell, two spaces between columns,
 * no trailing blanks. The cells are what the caller escaped (`terminalLine`): a cell with a
 * line break or a control would break the columns.
 */
export function tableLines(rows: readonly (readonly string[])[]): string[] {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) =>
    r
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd(),
  );
}
