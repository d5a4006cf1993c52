/* global document */
// A multi-GPU profile in the results panel: the rocprofv3 stand-in traces a job of eight rank processes (LOCAL_RANK
// 0..7, as GPU MODE's distributed problems start theirs, each opening two rocTX ranges), its per-process CSV sets
// zipped and opened with "Open Trace…". The panel shows the imbalance line first, one row a rank with the stand-in's
// slow rank (rank 3) marked alone, compute per case and rank, and one labelled timeline row per GPU.
// Then the same from the editor: the bundled multi-process example (alltoall_py) profiled on MI300x8 by the embedded
// runner of a machine with eight MI300X (a stand-in rocminfo on its PATH), end to end (l-ranks-profile.mjs).
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { ZipArchive } from 'archiver';
import { profileOnEightGpus } from './l-ranks-profile.mjs';
import { assert, openTrace, openWorkbench, shot, webviewFrame } from './workbench.mjs';

const RANKS = 8;
const APP = `
import os, subprocess, sys
CHILD = r'''
import ctypes
lib = ctypes.CDLL("libroctx64.so")
for name in (b"benchmark 0", b"benchmark 1"):
    lib.roctxRangePushA(name)
    lib.roctxRangePop()
'''
ranks = [subprocess.Popen([sys.executable, "-c", CHILD], env={**os.environ, "LOCAL_RANK": str(r)}) for r in range(${RANKS})]
sys.exit(max(p.wait() for p in ranks))
`;

async function rankProfileZip(root, dir) {
  writeFileSync(join(dir, 'app.py'), APP);
  const out = join(dir, 'out');
  const r = spawnSync(
    join(root, 'test/bin/rocprofv3'),
    ['-d', out, '-o', 'ranks/%pid%', '--kernel-trace', '--memory-copy-trace', '--marker-trace', '--hip-trace'].concat([
      '-f',
      'csv',
      '--',
      'python3',
      'app.py',
    ]),
    {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, KR_FAKE_ROCPROF_GPUS: String(RANKS), KR_FAKE_ROCPROF_NOISE: 'none' },
    },
  );
  assert(r.status === 0, `the stand-in profiled the job: ${r.stderr}`);
  const zip = join(dir, 'alltoall-ranks-profile.zip');
  const archive = new ZipArchive({ zlib: { level: 1 } });
  const stream = createWriteStream(zip);
  archive.pipe(stream);
  archive.directory(join(out, 'ranks'), false);
  await archive.finalize();
  if (!stream.writableFinished) await once(stream, 'finish');
  return zip;
}

export const tests = {
  async 'a multi-GPU profile: the imbalance line, the rank table with the slowest marked, a timeline row per GPU'({
    page,
    workbenchUrl,
    outputDir,
    workspace,
    root,
  }) {
    const dir = join(workspace, 'ranks-trace');
    mkdirSync(dir, { recursive: true });
    const zip = await rankProfileZip(root, dir);
    await openWorkbench(page, workbenchUrl());
    await openTrace(page, zip);
    const frame = await webviewFrame(page, 'table.rank-table tbody tr');
    const seen = await frame.evaluate(() => ({
      first: document.querySelector('.trace')?.firstElementChild?.className,
      line: document.querySelector('.imbalance-line')?.textContent ?? '',
      rows: [...document.querySelectorAll('table.rank-table tbody tr')].map((tr) => ({
        rank: tr.getAttribute('data-rank'),
        gpu: tr.children[1]?.textContent,
        marked: tr.querySelectorAll('.slowest-mark').length,
      })),
      cases: [...document.querySelectorAll('table.rank-cases tbody tr')].map((tr) => [
        tr.getAttribute('data-case'),
        tr.children[1]?.textContent,
      ]),
      timelineRows: [...document.querySelectorAll('figure.timeline .timeline-rows .timeline-agent')].map(
        (d) => d.textContent,
      ),
    }));
    assert(seen.first === 'ranks', `the per-rank part first: ${seen.first}`);
    assert(/^8 ranks: rank 3 \(GPU 3\) is the slowest/.test(seen.line), `imbalance line: ${seen.line}`);
    const ranked = seen.rows.filter((r) => r.rank !== '');
    assert(
      JSON.stringify(ranked.map((r) => [r.rank, r.gpu])) ===
        JSON.stringify(Array.from({ length: RANKS }, (_, i) => [String(i), `GPU ${i}`])),
      `one row a rank on its GPU: ${JSON.stringify(seen.rows)}`,
    );
    assert(
      JSON.stringify(seen.rows.filter((r) => r.marked > 0).map((r) => r.rank)) === '["3"]',
      `rank 3 alone marked slowest: ${JSON.stringify(seen.rows)}`,
    );
    assert(
      JSON.stringify(seen.cases) ===
        JSON.stringify([
          ['benchmark 0', 'rank 3'],
          ['benchmark 1', 'rank 3'],
        ]),
      `cases: ${JSON.stringify(seen.cases)}`,
    );
    assert(
      seen.timelineRows.length === RANKS && seen.timelineRows.every((t) => /^Agent \d+ · rank \d$/.test(t)),
      `a labelled timeline row per GPU: ${JSON.stringify(seen.timelineRows)}`,
    );
    await frame.locator('table.rank-table').scrollIntoViewIfNeeded();
    await shot(page, outputDir, 'ranks-panel');
    await frame.locator('figure.timeline').scrollIntoViewIfNeeded();
    await shot(page, outputDir, 'ranks-timeline');
  },
  'profile the bundled alltoall_py on MI300x8 from the editor: rank table, busy per GPU, "slowest rank 3" on the lens':
    profileOnEightGpus,
};
