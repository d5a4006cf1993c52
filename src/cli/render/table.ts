// Plain text tables: columns padded to their widest cell, two spaces apart, right-aligned where asked.

/** The table's lines: the header, optionally a rule under it, then the rows (no trailing spaces). */
export function tableLines(
  header: string[],
  rows: string[][],
  align: ReadonlyArray<'l' | 'r'>,
  opts: { rule?: boolean } = {},
): string[] {
  const width = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (align[i] === 'r' ? c.padStart(width[i] ?? 0) : c.padEnd(width[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...(opts.rule ? [width.map((w) => '-'.repeat(w)).join('  ')] : []), ...rows.map(line)];
}

/** A header, a rule, the rows; the columns in `rightAligned` padded on the left. */
export function renderTable(header: string[], rows: string[][], rightAligned: ReadonlySet<number> = new Set()): string {
  const align = header.map((_, i) => (rightAligned.has(i) ? 'r' : 'l') as 'l' | 'r');
  return tableLines(header, rows, align, { rule: true }).join('\n') + '\n';
}
