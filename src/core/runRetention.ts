// Which stored runs to delete so that the editor's run history stays within its size bound: oldest first, until the
// rest fits. The newest run is always kept (it was just made, and a person is looking at it) even when it alone is
// over the bound. Pure: the caller measures sizes and deletes.

export interface StoredRunSize {
  id: string;
  /** Epoch ms the run was stored (finished). */
  storedAt: number;
  bytes: number;
}

export function runsToRemove(runs: readonly StoredRunSize[], maxBytes: number): string[] {
  const newestFirst = [...runs].sort((a, b) => b.storedAt - a.storedAt || (a.id < b.id ? 1 : -1));
  let total = newestFirst.reduce((n, r) => n + Math.max(0, r.bytes), 0);
  const remove: string[] = [];
  for (let i = newestFirst.length - 1; i >= 1 && total > maxBytes; i--) {
    const r = newestFirst[i] as StoredRunSize;
    remove.push(r.id);
    total -= Math.max(0, r.bytes);
  }
  return remove;
}
