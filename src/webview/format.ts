// Number formatting shared by the results webview and the host's output channel. Pure (no DOM, no Node).

/** Nanoseconds as a readable duration with 3 significant digits: 812 ns, 12.3 µs, 4.56 ms, 1.20 s. */
export function formatNs(ns: number | null | undefined): string {
  if (ns === null || ns === undefined || !Number.isFinite(ns)) return '–';
  const abs = Math.abs(ns);
  if (abs < 1e3) return `${trim(ns)} ns`;
  if (abs < 1e6) return `${trim(ns / 1e3)} µs`;
  if (abs < 1e9) return `${trim(ns / 1e6)} ms`;
  return `${trim(ns / 1e9)} s`;
}

/** Seconds (process wall time) as a readable duration. */
export function formatSeconds(s: number | null | undefined): string {
  if (s === null || s === undefined || !Number.isFinite(s)) return '–';
  return formatNs(s * 1e9);
}

function trim(v: number): string {
  const a = Math.abs(v);
  const digits = a >= 100 ? 0 : a >= 10 ? 1 : 2;
  return v.toFixed(digits);
}

export function formatPercent(p: number | null | undefined): string {
  if (p === null || p === undefined || !Number.isFinite(p)) return '–';
  return `${p >= 10 ? p.toFixed(1) : p.toFixed(2)}%`;
}

export function formatBytes(b: number | null | undefined): string {
  if (b === null || b === undefined || !Number.isFinite(b)) return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = b;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${v} B` : `${v >= 100 ? v.toFixed(0) : v.toFixed(1)} ${units[u]}`;
}

export function formatCount(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  return n.toLocaleString('en-US');
}

/** `mean ± err` of a benchmark case, in the unit that suits the mean. */
export function formatMeanErr(meanNs: number | undefined, errNs: number | undefined): string {
  if (meanNs === undefined) return '–';
  return errNs === undefined ? formatNs(meanNs) : `${formatNs(meanNs)} ± ${formatNs(errNs)}`;
}

export function formatDim(d: readonly [number, number, number] | null): string {
  if (!d) return '–';
  return d[1] === 1 && d[2] === 1 ? String(d[0]) : `${d[0]}×${d[1]}×${d[2]}`;
}
