// Roofline per benchmark case: a rocprofv3 counter collection with rocTX ranges (marker trace) puts each
// dispatch's counters in the range it ran in, and each range gets its own points.
import test from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { summarizePath } from '../../../src/trace/index';
import { tempDir } from './helpers';

const HEADER =
  'Correlation_Id,Dispatch_Id,Agent_Id,Queue_Id,Process_Id,Thread_Id,Grid_Size,Kernel_Id,Kernel_Name,Workgroup_Size,LDS_Block_Size,Scratch_Size,VGPR_Count,Accum_VGPR_Count,SGPR_Count,Counter_Name,Counter_Value,Start_Timestamp,End_Timestamp';

test("counter dispatches in two rocTX ranges: a roofline per range, with the means of that range's dispatches", async () => {
  const dir = tempDir('roof-ranges');
  const rows: string[] = [];
  // case A: dispatches 1 and 2 (L1 accesses 100 and 300); case B: dispatch 3 (1000); all of kernel k
  const dispatches: Array<[number, number, number]> = [
    [1, 1000, 100],
    [2, 2000, 300],
    [3, 11000, 1000],
  ];
  for (const [d, start, l1] of dispatches) {
    rows.push(
      `${d},${d},"Agent 2",1,77,77,1024,5,"k(float*)",64,0,0,8,0,16,TCP_TOTAL_CACHE_ACCESSES_sum,${l1},${start},${start + 500}`,
    );
    rows.push(`${d},${d},"Agent 2",1,77,77,1024,5,"k(float*)",64,0,0,8,0,16,SQ_WAVES,16,${start},${start + 500}`);
  }
  writeFileSync(path.join(dir, '77_counter_collection.csv'), [HEADER, ...rows].join('\n') + '\n');
  writeFileSync(
    path.join(dir, '77_marker_api_trace.csv'),
    [
      '"Domain","Function","Process_Id","Thread_Id","Correlation_Id","Start_Timestamp","End_Timestamp"',
      '"MARKER_CORE_RANGE_API","case A",77,77,100,900,9000',
      '"MARKER_CORE_RANGE_API","case B",77,77,101,10000,20000',
    ].join('\n') + '\n',
  );
  const s = await summarizePath(dir);
  const r = s.roofline;
  assert.ok(r);
  assert.equal(r.kernels[0]?.dispatches, 3);
  assert.equal(r.kernels[0]?.l1Bytes, (1400 * 64) / 3);
  const ranges = new Map(r.ranges.map((g) => [g.name, g.kernels]));
  assert.deepEqual([...ranges.keys()].sort(), ['case A', 'case B']);
  assert.equal(ranges.get('case A')?.[0]?.dispatches, 2);
  assert.equal(ranges.get('case A')?.[0]?.l1Bytes, 200 * 64);
  assert.equal(ranges.get('case B')?.[0]?.dispatches, 1);
  assert.equal(ranges.get('case B')?.[0]?.l1Bytes, 1000 * 64);
  assert.deepEqual(s.speedOfLight?.ranges.map((g) => [g.name, g.kernels[0]?.dispatches]).sort(), [
    ['case A', 2],
    ['case B', 1],
  ]);
  // no sysinfo: peaks unknown, said so
  assert.equal(r.peaksFrom, 'spec');
  assert.ok(r.missing.some((m) => m.quantity === 'peaks' && m.counters[0] === 'sysinfo.csv'));
});
