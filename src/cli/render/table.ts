// A plain text table: a header, a rule, rows; columns padded to their widest cell, right-aligned where asked.
export function renderTable(header: string[], rows: string[][], rightAligned: ReadonlySet<number> = new Set()): string {
  const width = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (rightAligned.has(i) ? c.padStart(width[i] ?? 0) : c.padEnd(width[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), width.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n') + '\n';
}
