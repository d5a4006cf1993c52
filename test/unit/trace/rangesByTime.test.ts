// rocTX ranges without correlation, on rocprofv3's real layouts: dispatches carry the Thread_Id of the thread that
// enqueued them (the HIP runtime's), not the one that pushed the ranges, so they are matched by GPU start time
// within the process; a counter-only run (ROCm 7 counter_collection with timestamps, marker trace, no kernel
// trace) gets its ranges; roctxProfilerPause/Resume (Domain MARKER_CONTROL_API, as generateCSV.cpp writes them)
// are listed as profiler control with the kernels that started in a paused window.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { summarizePath } from '../../../src/trace/index';
import { renderTraceTables } from '../../../src/cli/render/traceTables';
import { fixture, parseCsvReference } from './helpers';
import { A, B, C, LAUNCHES, PID, writeRun } from './rangeRuns';
import { tempDirsRemovedAfter } from '../../support/tempDirs';

const tempDir = tempDirsRemovedAfter('kr-trace-ranges17-');
const API_HEADER = '"Domain","Function","Process_Id","Thread_Id","Correlation_Id","Start_Timestamp","End_Timestamp"';

test('no API trace, dispatches on the HIP runtime thread: put in the range open in the process when they started, the rule said', async () => {
  const dir = tempDir('other-thread');
  // every dispatch recorded on thread 4243 (no range is ever pushed there); kernels that start inside a range
  const launches = LAUNCHES.map((l, i) => ({
    ...l,
    tid: 4243,
    gpu: (i < 3 ? [1500 + i * 10, 1505 + i * 10] : i === 3 ? [3300, 3340] : l.gpu) as [number, number],
  }));
  writeRun(dir, { hip: false, launches });
  const s = await summarizePath(dir);
  const k = Object.fromEntries(s.markers.map((m) => [m.name, m.kernels.map((x) => [x.name, x.calls, x.totalNs])]));
  // 1500-1525: inside `benchmark 0` [1000, 2000] (worker [1100, 1400] has closed); 3300: `inner` [3200, 3500]
  assert.deepEqual(k['benchmark 0: n: 1024; seed: 1'], [
    [B, 2, 10],
    [A, 1, 5],
  ]);
  assert.deepEqual(k.inner, [[A, 1, 40]]);
  assert.deepEqual(k.worker, []);
  assert.deepEqual(s.rangeAttribution, { by: 'gpu-overlap', dispatches: 8, inRanges: 4, otherThread: 4 });
  const w = s.warnings.find((x) => x.startsWith('rocTX ranges: no API trace to correlate'));
  assert.ok(w, s.warnings.join('\n'));
  assert.match(
    w,
    /by GPU time within the process .* 4 of 8 dispatches; 0 in a range of the dispatch's own Thread_Id, 4 with none open there in a range of another thread/,
  );
  assert.match(
    renderTraceTables(s),
    /4 of 8 dispatches were launched inside a range, put there by GPU time within the process, 4 of them in a range of another thread/,
  );
});

test("a dispatch whose own thread has a range open stays in it, even when another thread's range started later", async () => {
  const dir = tempDir('own-thread');
  // thread 100's `benchmark 0` [1000, 2000] and thread 200's `worker` [1100, 1400] both open at 1200
  const launches = [
    { corr: 1, tid: 100, at: 1000, kernel: A, gpu: [1200, 1210] as [number, number] },
    { corr: 2, tid: 300, at: 1000, kernel: C, gpu: [1200, 1220] as [number, number] },
  ];
  writeRun(dir, { hip: false, launches });
  const s = await summarizePath(dir);
  const k = Object.fromEntries(s.markers.map((m) => [m.name, m.kernels.map((x) => [x.name, x.calls])]));
  assert.deepEqual(k['benchmark 0: n: 1024; seed: 1'], [[A, 1]]);
  // thread 300 has no range: the innermost range open in the process (worker, the later start)
  assert.deepEqual(k.worker, [[C, 1]]);
  assert.deepEqual(s.rangeAttribution, { by: 'gpu-overlap', dispatches: 2, inRanges: 2, otherThread: 1 });
});

test('counter-only run (ROCm 7 counter_collection with timestamps) and a marker trace: its dispatches get their ranges', async () => {
  const dir = tempDir('counters');
  const counters = readFileSync(fixture('rocm-systems__sdkdocs__counter_collection.csv'), 'utf8');
  writeFileSync(path.join(dir, '15606_counter_collection.csv'), counters);
  // a range over the first two dispatches' starts, one over the last; on the process's main thread
  const rows = (parseCsvReference(counters).slice(1) as string[][]).map((r) => ({
    name: r[8] as string,
    start: BigInt(r[17] as string),
    end: BigInt(r[18] as string),
  }));
  const [d1, d2, , d4] = rows as [
    (typeof rows)[number],
    (typeof rows)[number],
    (typeof rows)[number],
    (typeof rows)[number],
  ];
  const markers = [
    `"MARKER_CORE_RANGE_API","first two",15606,15606,1,${d1.start - 1000n},${d2.start + 10n}`,
    `"MARKER_CORE_RANGE_API","last",15606,15606,2,${d4.start - 5n},${d4.end + 5n}`,
  ];
  writeFileSync(path.join(dir, '15606_marker_api_trace.csv'), [API_HEADER, ...markers].join('\n') + '\n');
  const s = await summarizePath(dir);
  const k = Object.fromEntries(s.markers.map((m) => [m.name, m.kernels.map((x) => [x.name, x.calls, x.totalNs])]));
  assert.deepEqual(
    k['first two'],
    [d1, d2].map((d) => [d.name, 1, Number(d.end - d.start)]).sort((a, b) => (b[2] as number) - (a[2] as number)),
  );
  assert.deepEqual(k.last, [[d4.name, 1, Number(d4.end - d4.start)]]);
  assert.deepEqual(s.rangeAttribution, { by: 'gpu-overlap', dispatches: 4, inRanges: 3, otherThread: 0 });
  assert.equal(s.markers.find((m) => m.name === 'last')?.kernelAttribution, 'gpu-overlap');
});

test('roctxProfilerPause / Resume: listed as profiler control, not ranges, with the kernels that started while paused', async () => {
  const dir = tempDir('pause');
  writeRun(dir);
  // paused [1350, 3250] (covers the GPU start at 1400) and again from 5350 to the end (the GPU start at 5400)
  const control = [
    `"MARKER_CONTROL_API","roctxProfilerPause",${PID},100,90,1350,1351`,
    `"MARKER_CONTROL_API","roctxProfilerResume",${PID},100,91,3250,3251`,
    `"MARKER_CONTROL_API","roctxProfilerPause",${PID},100,92,5350,5351`,
  ];
  const file = path.join(dir, `${PID}_marker_api_trace.csv`);
  writeFileSync(file, readFileSync(file, 'utf8') + control.join('\n') + '\n');
  const s = await summarizePath(dir);
  assert.ok(!s.markers.some((m) => m.name.startsWith('roctxProfiler')), 'not ranges');
  assert.deepEqual(s.profilerControl, {
    calls: [
      { name: 'roctxProfilerPause', calls: 2 },
      { name: 'roctxProfilerResume', calls: 1 },
    ],
    pausedWindows: [
      { startNs: 1350, endNs: 3250, kernels: [{ name: A, calls: 1, totalNs: 200 }] },
      { startNs: 5350, endNs: null, kernels: [{ name: A, calls: 1, totalNs: 100 }] },
    ],
  });
  // the ranges are what they were without the control calls
  assert.deepEqual(s.rangeAttribution, { by: 'correlation', dispatches: 8, inRanges: 6 });
  const text = renderTraceTables(s);
  assert.match(text, /Profiler control: roctxProfilerPause ×2, roctxProfilerResume ×1/);
  assert.match(text, /paused at \+\S+ \S+ for 1\.90 µs: 1 dispatch of 1 kernel started on the GPU meanwhile/);

  // pause/resume without any range: still listed, windows still filled
  const bare = tempDir('pause-bare');
  writeRun(bare, { ranges: [] });
  writeFileSync(path.join(bare, `${PID}_marker_api_trace.csv`), [API_HEADER, ...control].join('\n') + '\n');
  const t = await summarizePath(bare);
  assert.deepEqual(t.markers, []);
  assert.deepEqual(
    t.profilerControl?.pausedWindows.map((w) => w.kernels.map((x) => x.calls)),
    [[1], [1]],
  );
});
