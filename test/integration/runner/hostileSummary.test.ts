// Issue 27 item 6: a profile job whose output is hostile (here 400,000 PC samples, each a distinct instruction, line
// and stall reason, written by the job itself into rocprofv3's output folder) is summarised by `serve` in a worker
// thread with a time limit (made small here through the runner's summaryLimits option): the job's result says the
// summary was cut short and why, the archive is still downloadable, and the service answers /health all along.
// /health is polled from the submission to the result; its latencies are printed, bounded only generously.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { EXTENSIONS_HEADER, resultEventSchema, type ProfileResult } from '../../../src/core/protocol/api';
import { readSse, startTestRunner, terminal, testBin, type TestRunner } from './helpers';

const env = {
  ...process.env,
  PATH: `${testBin}${path.delimiter}${process.env.PATH ?? ''}`,
  KR_FAKE_ROCPROF_NOISE: 'none',
};

// what test/support/hostileProfiles.ts writeDistinctPcSamples writes, from inside the job
const HOSTILE = `
import os
out = os.path.join(os.getcwd(), "profile.0.trace", "hostile")
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "100_kernel_trace.csv"), "w") as f:
    f.write('"Kind","Agent_Id","Queue_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","Dispatch_Id"\\n')
    f.write('"KERNEL_DISPATCH",1,1,1,"hostile_kernel()",1,1000,900000000,1\\n')
with open(os.path.join(out, "100_pc_sampling_stochastic.csv"), "w") as f:
    f.write('"Sample_Timestamp","Exec_Mask","Dispatch_Id","Instruction","Instruction_Comment","Correlation_Id","Wave_Issued_Instruction","Instruction_Type","Stall_Reason","Wave_Count"\\n')
    f.writelines(f'{1000 + i},18446744073709551615,1,"v_add_f32_e32 v{i}, v2, v3","/work/k{i}.hip:{i + 1}",1,0,"VALU","STALL_{i}",4\\n' for i in range(400000))
print("hostile output written", flush=True)
`;

describe('a hostile profile output summarised by serve (stand-in rocprofv3)', () => {
  let runner: TestRunner;
  before(async () => {
    runner = await startTestRunner({ profiler: 'auto', env, summaryLimits: { timeMs: 1000 } });
  });
  after(async () => {
    await runner.dispose();
  });

  test('the summary is cut short at its time limit, the archive downloads, /health answers meanwhile', async () => {
    const fd = new FormData();
    fd.append('file', new Blob([new TextEncoder().encode(HOSTILE)]), 'hostile.py');
    const res = await fetch(`${runner.url}/script/CPU/profile`, {
      method: 'POST',
      body: fd,
      headers: { [EXTENSIONS_HEADER]: '1' },
    });
    if (res.status !== 200) assert.fail(`${res.status}: ${await res.text()}`);

    // /health, one request after another, until the job's result has come
    let finished = false;
    const latencies: number[] = [];
    const polling = (async () => {
      while (!finished) {
        const t0 = performance.now();
        const h = await fetch(`${runner.url}/health`);
        assert.equal(h.status, 200);
        await h.arrayBuffer();
        latencies.push(performance.now() - t0);
      }
    })();
    let events;
    try {
      events = await readSse(res);
    } finally {
      finished = true;
      await polling;
    }
    const result = resultEventSchema.parse(terminal(events).data);
    const ev = result.results[0]!.runs['profile.0']!;
    assert.equal(ev.run?.passed, true, ev.run?.stderr);
    const profile = ev.profile as ProfileResult;
    assert.match(profile.summaryCutShort ?? '', /cut short: it took longer than the runner's limit of 1 s/);
    assert.equal(profile.summary, undefined, 'no half-made summary');
    assert.match(ev.run?.stderr ?? '', /the trace summary was cut short/);

    const download = await fetch(profile.download_url!);
    assert.equal(download.status, 200);
    const zip = Buffer.from(await download.arrayBuffer());
    assert.ok(zip.includes('100_pc_sampling_stochastic.csv'), 'the hostile file is in the archive');

    const max = Math.max(...latencies);
    console.log(`/health: ${latencies.length} answers while the job ran and was summarised, max ${max.toFixed(0)} ms`);
    assert.ok(latencies.length > 0);
    // generous: a loaded 2-core machine; the stall this replaces was up to 16 s
    assert.ok(max < 10_000, `/health took ${max.toFixed(0)} ms`);
  });
});
