// One formatter pair for a change from trace A to B (src/core/format/changes.ts): the readable form the compare
// webview shows and the aligned form of `kernel-runner compare`'s tables.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatRatio, formatSignedNs } from '../../../src/core/format/index';

const CLI = { align: true, missing: '-' } as const;

test('a signed duration: sign first, true minus and ±0 when readable; ASCII and aligned decimals in CLI tables', () => {
  assert.equal(formatSignedNs(1_200_000), '+1.20 ms');
  assert.equal(formatSignedNs(-350), '−350 ns');
  assert.equal(formatSignedNs(0), '±0');
  assert.equal(formatSignedNs(null), '–');
  assert.equal(formatSignedNs(Number.NaN), '–');
  assert.equal(formatSignedNs(1200, CLI), '+1.20 µs');
  assert.equal(formatSignedNs(-812, CLI), '-812 ns');
  assert.equal(formatSignedNs(-150, CLI), '-150 ns');
  assert.equal(formatSignedNs(0, CLI), '0 ns');
  assert.equal(formatSignedNs(null, CLI), '-');
});

test('a ratio B / A: with its percentage when readable, short in CLI tables', () => {
  assert.equal(formatRatio(1.25), '1.25× (+25%)');
  assert.equal(formatRatio(0.5), '0.50× (−50%)');
  assert.equal(formatRatio(3), '3.00× (+200%)');
  assert.equal(formatRatio(1.05), '1.05× (+5.0%)');
  assert.equal(formatRatio(1), '1.00× (±0%)');
  assert.equal(formatRatio(12.5), '12.5× (+1150%)');
  assert.equal(formatRatio(undefined), '–');
  assert.equal(formatRatio(1.25, CLI), '1.25x');
  assert.equal(formatRatio(0.77, CLI), '0.77x');
  assert.equal(formatRatio(null, CLI), '-');
});
