// Sizes on the command line: "256MiB", "20GB", "512M", "1.5 GiB", "1000000" (bytes). K/M/G/T alone are binary
// (as `du`, `ulimit` and Slurm read them); "KB/MB/GB/TB" are decimal, "KiB/MiB/GiB/TiB" binary.
const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kib: 1024,
  kb: 1e3,
  m: 1024 ** 2,
  mib: 1024 ** 2,
  mb: 1e6,
  g: 1024 ** 3,
  gib: 1024 ** 3,
  gb: 1e9,
  t: 1024 ** 4,
  tib: 1024 ** 4,
  tb: 1e12,
};

/** Bytes, or undefined when `text` is not a size. */
export function parseSize(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  if (!m) return undefined;
  const unit = UNITS[(m[2] as string).toLowerCase()];
  if (unit === undefined) return undefined;
  const bytes = Math.round(Number(m[1]) * unit);
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}
