// The counters the readers keep per dispatch (a module of its own: the trace worker needs the list, not the rest
// of the roofline's derivation and its protocol schemas).
import type { ArchFamily } from './arch';
import { countersRead } from './formulas';
import { solCounters } from './speedOfLight';

let used: Set<string> | null = null;

/** Every counter a roofline or speed-of-light formula reads, on any arch (what the readers keep). */
export function countersUsed(): ReadonlySet<string> {
  if (used) return used;
  const all = new Set<string>();
  for (const f of ['gfx90a', 'gfx942', 'gfx950', 'other'] as ArchFamily[]) {
    for (const c of countersRead(f)) all.add(c);
    for (const c of solCounters(f)) all.add(c);
  }
  used = all;
  return all;
}
