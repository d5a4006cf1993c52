import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  formatBandwidth,
  formatBytes,
  formatCount,
  formatDim,
  formatElapsed,
  formatMeanErr,
  formatNs,
  formatPercent,
  formatScore,
  formatSeconds,
  formatTimeLeft,
  formatWait,
} from '../../../src/core/format/index';

const CLI = { align: true, missing: '-' } as const;

test('durations: three significant digits by default, in the unit that suits them', () => {
  assert.deepEqual(
    [812, 12345.6, 4_560_000, 1_200_000_000, 0, 1.5, 99.95].map((ns) => formatNs(ns)),
    ['812 ns', '12.3 µs', '4.56 ms', '1.20 s', '0.00 ns', '1.50 ns', '100.0 ns'],
  );
  assert.equal(formatNs(-2500), '-2.50 µs');
  for (const missing of [null, undefined, NaN, Infinity]) assert.equal(formatNs(missing), '–');
  assert.equal(formatNs(null, { missing: 'n/a' }), 'n/a');
});

test('durations: the aligned CLI form has fixed decimals per unit', () => {
  assert.deepEqual(
    [999, 1500, 2_580_371, 1_342_822_760, 5].map((ns) => formatNs(ns, CLI)),
    ['999 ns', '1.50 µs', '2.58 ms', '1.343 s', '5 ns'],
  );
  assert.equal(formatNs(null, CLI), '-');
  assert.equal(formatNs(123_456, { decimals: 3 }), '123.456 µs');
  assert.equal(formatNs(812.4, { decimals: 3 }), '812 ns');
});

test('seconds: wall times and scores', () => {
  assert.equal(formatSeconds(2.405536843), '2.41 s');
  assert.equal(formatSeconds(0.0123), '12.3 ms');
  assert.equal(formatSeconds(undefined), '–');
  assert.equal(formatScore(20e-6), '20.000 µs');
  assert.equal(formatScore(4.21e-3), '4.210 ms');
  assert.equal(formatScore(812e-9), '812 ns');
  assert.equal(formatScore(1.5), '1.500 s');
  assert.equal(formatSeconds(123.4567e-6, { decimals: 3 }), '123.457 µs');
});

test('mean ± err', () => {
  assert.equal(formatMeanErr(2500, 12), '2.50 µs ± 12.0 ns');
  assert.equal(formatMeanErr(2500, undefined), '2.50 µs');
  assert.equal(formatMeanErr(undefined, 12), '–');
  assert.equal(formatMeanErr(2500, 12, CLI), '2.50 µs ± 12 ns');
});

test('bytes, percentages, counts, bandwidth, dimensions', () => {
  assert.deepEqual(
    [0, 1023, 1024, 5 * 1024 * 1024, 300 * 1024 * 1024].map((b) => formatBytes(b)),
    ['0 B', '1023 B', '1.0 KiB', '5.0 MiB', '300 MiB'],
  );
  assert.deepEqual(
    [512, 65536, 4_000_000_000, 300 * 1024 * 1024].map((b) => formatBytes(b, CLI)),
    ['512 B', '64.0 KiB', '3.7 GiB', '300.0 MiB'],
  );
  assert.equal(formatBytes(null, CLI), '-');
  assert.equal(formatBytes(NaN), '–');
  assert.equal(formatPercent(42.123), '42.1%');
  assert.equal(formatPercent(1.5), '1.50%');
  assert.equal(formatPercent(1.5, CLI), '1.5%');
  assert.equal(formatPercent(null, CLI), '-');
  assert.equal(formatCount(1_234_567), '1,234,567');
  assert.equal(formatCount(undefined), '–');
  assert.equal(formatBandwidth(50), '50.0 GB/s');
  assert.equal(formatBandwidth(null, CLI), '-');
  assert.equal(formatDim([4096, 1, 1]), '4096');
  assert.equal(formatDim([64, 4, 1]), '64×4×1');
  assert.equal(formatDim(null), '–');
});

test('clocks, waits and time left', () => {
  assert.deepEqual(
    [0, 999, 7_000, 65_432, 754_000, 4_500_000, -5].map((ms) => formatElapsed(ms)),
    ['0:00', '0:00', '0:07', '1:05', '12:34', '75:00', '0:00'],
  );
  assert.equal(formatElapsed(65_432, { padMinutes: true }), '01:05');
  assert.equal(formatElapsed(4_500_000, { padMinutes: true }), '75:00');
  assert.deepEqual([0, 2_600, 119_000, 150_000, 3_900_000, 7_200_000].map(formatWait), [
    '1 s',
    '3 s',
    '119 s',
    '3 min',
    '65 min',
    '2 h 0 min',
  ]);
  assert.deepEqual([10_000, 12 * 60_000, 5 * 3_600_000, 3 * 86_400_000, -30 * 60_000].map(formatTimeLeft), [
    '1 min',
    '12 min',
    '5 h',
    '3 days',
    '30 min',
  ]);
});

// The copies core/format replaced, as they were (git history): the shared functions must print what they printed.
const before = {
  webviewNs(ns: number | null | undefined): string {
    if (ns === null || ns === undefined || !Number.isFinite(ns)) return '–';
    const trim = (v: number) => v.toFixed(Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2);
    const abs = Math.abs(ns);
    if (abs < 1e3) return `${trim(ns)} ns`;
    if (abs < 1e6) return `${trim(ns / 1e3)} µs`;
    if (abs < 1e9) return `${trim(ns / 1e6)} ms`;
    return `${trim(ns / 1e9)} s`;
  },
  cliNs(ns: number | null): string {
    if (ns === null || !Number.isFinite(ns)) return '-';
    const a = Math.abs(ns);
    if (a < 1e3) return `${ns.toFixed(0)} ns`;
    if (a < 1e6) return `${(ns / 1e3).toFixed(2)} µs`;
    if (a < 1e9) return `${(ns / 1e6).toFixed(2)} ms`;
    return `${(ns / 1e9).toFixed(3)} s`;
  },
  score(seconds: number): string {
    const abs = Math.abs(seconds);
    if (abs < 1e-6) return `${(seconds * 1e9).toFixed(0)} ns`;
    if (abs < 1e-3) return `${(seconds * 1e6).toFixed(3)} µs`;
    if (abs < 1) return `${(seconds * 1e3).toFixed(3)} ms`;
    return `${seconds.toFixed(3)} s`;
  },
  bytes(b: number, cli: boolean): string {
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let v = b;
    let u = 0;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return u === 0 ? `${v} B` : `${cli || v < 100 ? v.toFixed(1) : v.toFixed(0)} ${units[u]}`;
  },
  webviewPercent: (p: number) => `${p >= 10 ? p.toFixed(1) : p.toFixed(2)}%`,
  cliPercent: (p: number) => `${p.toFixed(1)}%`,
  statusBarElapsed(ms: number): string {
    const s = Math.max(0, Math.floor(ms / 1000));
    return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
  },
  submitElapsed(ms: number): string {
    const s = Math.floor(ms / 1000);
    return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
  },
  wait(ms: number): string {
    const s = Math.max(1, Math.round(ms / 1000));
    if (s < 120) return `${s} s`;
    const min = Math.round(s / 60);
    return min < 120 ? `${min} min` : `${Math.floor(min / 60)} h ${min % 60} min`;
  },
  timeLeft(ms: number): string {
    const abs = Math.abs(ms);
    const min = Math.round(abs / 60_000);
    if (min < 60) return `${Math.max(1, min)} min`;
    const h = Math.round(abs / 3_600_000);
    if (h < 48) return `${h} h`;
    return `${Math.round(abs / 86_400_000)} days`;
  },
};

/** Values across every unit boundary, with the short decimal forms JSON carries (where rounding ties live). */
function samples(): number[] {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const out = [
    0, 1, 999, 999.5, 1000, 999_999, 1e6, 1e9, 1e-9, 1e-6, 1e-3, 0.0009995, 0.04465, 1023, 1024, 102_400, -1500,
  ];
  for (let i = 0; i < 20_000; i++) {
    const v = 10 ** (-10 + random() * 22);
    out.push(v, Number(v.toPrecision(4)), Number(v.toPrecision(6)), Math.round(v));
  }
  return out;
}

test('the replaced copies print exactly what they printed', () => {
  for (const v of samples()) {
    assert.equal(formatNs(v), before.webviewNs(v), `webview formatNs(${v})`);
    assert.equal(formatNs(v, CLI), before.cliNs(v), `CLI formatNs(${v})`);
    assert.equal(formatScore(v), before.score(v), `formatScore(${v})`);
    assert.equal(formatScore(-v), before.score(-v), `formatScore(${-v})`);
    assert.equal(formatTimeLeft(v), before.timeLeft(v), `formatTimeLeft(${v})`);
    const p = v % 100;
    assert.equal(formatPercent(p), before.webviewPercent(p), `webview formatPercent(${p})`);
    assert.equal(formatPercent(p, CLI), before.cliPercent(p), `CLI pct(${p})`);
  }
  for (const odd of [NaN, Infinity, -Infinity]) assert.equal(formatScore(odd), before.score(odd));
});

test('the replaced copies of sizes and durations print exactly what they printed (values >= 0)', () => {
  for (const v of samples().filter((x) => x >= 0)) {
    assert.equal(
      formatBytes(Math.round(v)),
      before.bytes(Math.round(v), false),
      `webview formatBytes(${Math.round(v)})`,
    );
    assert.equal(
      formatBytes(Math.round(v), CLI),
      before.bytes(Math.round(v), true),
      `CLI formatBytes(${Math.round(v)})`,
    );
    assert.equal(formatElapsed(v), before.statusBarElapsed(v), `status bar formatElapsed(${v})`);
    assert.equal(formatElapsed(v, { padMinutes: true }), before.submitElapsed(v), `submit elapsed(${v})`);
    assert.equal(formatWait(v), before.wait(v), `formatWait(${v})`);
  }
});
