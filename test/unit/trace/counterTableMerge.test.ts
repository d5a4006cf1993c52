// CounterTableBuilder.merge() against the rows it stands for: a table fed the long-layout rows one by one
// (dispatchOf and set) must equal tables built from parts of those rows, each part's table merged in order into
// one sink. The first merge into an empty sink takes the part's arrays over as they are (a file read in one pass);
// the later ones find their dispatches in it, so the rows below cut dispatches across parts and include what a
// dispatch's lookup can get wrong: durations that differ per pass (several samples, median), NaN durations
// (untimed rows), a Dispatch_Id under two kernel names, wide-layout dispatches (never joined by long rows), and
// rows that come straight to the sink after the merges.
import test from 'node:test';
import assert from 'node:assert/strict';
import { CounterTableBuilder, type CounterTable } from '../../../src/trace/counters/counterTable';
import { seededRandom } from './helpers';

interface Row {
  key: number;
  name: string;
  ns: number;
  counter: string;
  value: number;
}

const COUNTERS = ['A', 'B', 'C', 'D'];

function rowsOf(seed: number): Row[] {
  const next = seededRandom(seed);
  const rows: Row[] = [];
  for (let d = 1; d <= 60; d++) {
    const name = `k${d % 4}`;
    const passes = d % 5 === 0 ? 3 : 1;
    for (let pass = 0; pass < passes; pass++) {
      // passes of other lengths and durations: the median weighs each duration by its rows
      const ns = d % 11 === 0 ? NaN : 1000 + d * 10 + ([0, 7, -5, 12][Math.floor(next() * 4)] as number);
      for (const counter of COUNTERS.slice(0, 1 + Math.floor(next() * 4)))
        rows.push({ key: d, name, ns, counter, value: Math.floor(next() * 1000) });
    }
    // the same Dispatch_Id under another kernel name: a dispatch of its own
    if (d % 13 === 0) rows.push({ key: d, name: 'other', ns: 5, counter: 'A', value: d });
  }
  // a later pass over some dispatches (their rows come again, far from the first)
  for (let d = 3; d <= 60; d += 9)
    rows.push({ key: d, name: `k${d % 4}`, ns: 2000 + d, counter: 'B', value: Math.floor(next() * 1000) });
  return rows;
}

function feed(into: CounterTableBuilder, rows: Row[]): void {
  for (const r of rows) into.set(into.dispatchOf(r.key, r.name, r.ns), r.counter, r.value);
}

function plain(t: CounterTable): object {
  return {
    names: t.names,
    durations: [...t.durations],
    keys: [...t.keys],
    columns: [...t.columns].map(([name, values]) => [name, [...values]]),
  };
}

test('merged parts of long-layout rows equal the rows one by one: cuts anywhere, passes, NaN durations, rows after', () => {
  for (let seed = 1; seed <= 40; seed++) {
    const rows = rowsOf(seed);
    const next = seededRandom(100 + seed);
    const cuts = [
      0,
      ...[0, 0, 0, 0, 0, 0].map(() => Math.floor(next() * rows.length)).sort((a, b) => a - b),
      rows.length,
    ];
    // the last cut's rows come straight to the sink after the merges
    const direct = Math.floor(rows.length - next() * 40);
    const whole = new CounterTableBuilder();
    feed(whole, rows);

    const sink = new CounterTableBuilder();
    for (let i = 0; i + 1 < cuts.length; i++) {
      const part = new CounterTableBuilder();
      feed(part, rows.slice(Math.min(cuts[i] as number, direct), Math.min(cuts[i + 1] as number, direct)));
      sink.merge(part.part());
    }
    feed(sink, rows.slice(direct));
    assert.deepStrictEqual(plain(sink.build()), plain(whole.build()), `seed ${seed}, cuts ${cuts}, direct ${direct}`);
  }
});

test('a whole file as one part: the empty sink takes it over, and later parts and rows still find its dispatches', () => {
  const rows = rowsOf(7);
  const whole = new CounterTableBuilder();
  feed(whole, rows);
  const first = new CounterTableBuilder();
  feed(first, rows);
  const sink = new CounterTableBuilder();
  sink.merge(first.part());
  assert.deepStrictEqual(plain(sink.build()), plain(whole.build()));

  // another pass of the same program: the same dispatches, other durations and values
  const again = rows.map((r) => ({ ...r, ns: r.ns + 3, value: r.value + 1 }));
  const second = new CounterTableBuilder();
  feed(second, again.slice(0, 100));
  sink.merge(second.part());
  feed(sink, again.slice(100));
  feed(whole, again);
  const t = sink.build();
  assert.deepStrictEqual(plain(t), plain(whole.build()));
  // the second pass joined the first's dispatches (no new ones), and moved their medians
  assert.equal(t.names.length, first.size);
  assert.notDeepEqual([...t.durations], [...first.build().durations]);
});

test('wide-layout dispatches in the sink are never joined by long-layout rows of the same key', () => {
  const rows = rowsOf(9);
  const whole = new CounterTableBuilder();
  const sink = new CounterTableBuilder();
  for (const b of [whole, sink]) b.set(b.addDispatch('k1', 777, 1), 'A', 1);
  feed(whole, rows);
  const part = new CounterTableBuilder();
  feed(part, rows);
  sink.merge(part.part());
  const t = sink.build();
  assert.deepStrictEqual(plain(t), plain(whole.build()));
  assert.equal(t.durations[0], 777, 'the wide dispatch keeps its own duration');
  assert.equal(t.names.filter((n, i) => n === 'k1' && t.keys[i] === 1).length, 2, 'key 1 twice: wide and long');
});
