// Dispatch id -> kernel name from the same run's kernel trace (its Dispatch_Id and Kernel_Name columns only), so
// samples are told per kernel rather than per dispatch.
import { streamCsv } from '../csvFile';
import type { CsvRow } from '../csvScanner';
import type { FileSource } from '../sources';
import { keyText } from './latin1Keys';

/** Dispatches remembered; a run with more names the rest by dispatch id (with a warning). */
export const MAX_DISPATCHES = 4_000_000;

export interface DispatchNames {
  names: Map<number, string>;
  /** Dispatches past MAX_DISPATCHES, not remembered. */
  dropped: number;
}

export async function readDispatchNames(sources: readonly FileSource[]): Promise<DispatchNames> {
  const names = new Map<number, string>();
  const interned = new Map<string, string>();
  let dropped = 0;
  for (const source of sources) {
    await streamCsv(source, (c) => {
      const iId = c.find('Dispatch_Id');
      const iName = c.find('Kernel_Name');
      return (row: CsvRow) => {
        if (iId < 0 || iName < 0 || row.fieldCount <= Math.max(iId, iName)) return;
        const id = row.values[iId] as number;
        if (!(id >= 0)) return;
        if (names.size >= MAX_DISPATCHES && !names.has(id)) {
          dropped++;
          return;
        }
        const raw = row.buf.toString('latin1', row.starts[iName], row.ends[iName]);
        let name = interned.get(raw);
        if (name === undefined) {
          name = keyText(row.escaped[iName] ? raw.replaceAll('""', '"') : raw);
          interned.set(raw, name);
        }
        names.set(id, name);
      };
    });
  }
  return { names, dropped };
}
