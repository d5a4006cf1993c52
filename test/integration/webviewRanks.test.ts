// The results webview (src/webview/render.ts bundled with esbuild, in Debian's Chromium through playwright-core) on
// a real multi-process profile: the rocprofv3 stand-in traces a job of four rank processes (LOCAL_RANK 0..3, each
// opening two rocTX ranges whose names are hostile markup), summarizePath reads it per rank, and the page shows the
// imbalance line first, one row a rank with the slowest marked (the stand-in's middle rank), the compute time per
// case and rank with each case's slowest marked, and one labelled timeline row per GPU. Names stay text.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import type { TraceRank } from '../../src/core/protocol/traceSummary';
import { summarizePath, type TraceSummary } from '../../src/trace/index';
import { tempDirsRemovedAfter } from '../support/tempDirs';
import { launchChromium, renderTraceBundle } from '../support/webviewBrowser';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const chromiumPath = process.env.KR_CHROMIUM ?? '/usr/bin/chromium';
const haveChromium = existsSync(chromiumPath);
if (!haveChromium)
  console.error(`webviewRanks.test.ts: ${chromiumPath} is missing, so the rank table is NOT tested in a browser`);
const tempDir = tempDirsRemovedAfter('kr-webview-ranks-');

const HOSTILE_CASE = '<img src=x onerror="window.__pwned=1">case & one';
const CLOSING_CASE = '</td></tr><script>window.__pwned=2</script>';

/** Four rank processes, each opening the two ranges (the stand-in's recording libroctx64.so, built with cc). */
const APP = `
import os, subprocess, sys
CHILD = r'''
import ctypes, sys
lib = ctypes.CDLL("libroctx64.so")
for name in sys.argv[1:]:
    lib.roctxRangePushA(name.encode())
    lib.roctxRangePop()
'''
ranks = [subprocess.Popen([sys.executable, "-c", CHILD, ${JSON.stringify(HOSTILE_CASE)}, ${JSON.stringify(CLOSING_CASE)}],
                          env={**os.environ, "LOCAL_RANK": str(r)}) for r in range(4)]
sys.exit(max(p.wait() for p in ranks))
`;

async function fourRankProfile(): Promise<TraceSummary> {
  const dir = tempDir('job');
  writeFileSync(path.join(dir, 'app.py'), APP);
  const out = path.join(dir, 'out');
  execFileSync(
    path.join(repoRoot, 'test/bin/rocprofv3'),
    [
      '-d',
      out,
      '-o',
      'ranks/%pid%',
      '--kernel-trace',
      '--memory-copy-trace',
      '--marker-trace',
      '--hip-trace',
      '-f',
      'csv',
      '--',
      'python3',
      'app.py',
    ],
    { cwd: dir, env: { ...process.env, KR_FAKE_ROCPROF_GPUS: '4', KR_FAKE_ROCPROF_NOISE: 'none' }, stdio: 'pipe' },
  );
  return summarizePath(path.join(out, 'ranks'));
}

describe(
  'webview: a multi-process profile read per rank',
  { skip: haveChromium ? false : `${chromiumPath} is missing` },
  () => {
    let browser: Browser;
    let page: Page;
    let summary: TraceSummary;

    before(async () => {
      summary = await fourRankProfile();
      browser = await launchChromium(chromiumPath);
      page = await browser.newPage();
      await page.setContent('<!doctype html><html><body></body></html>');
      await page.addScriptTag({ content: await renderTraceBundle('replace') });
      await page.evaluate(
        (x) => (globalThis as unknown as { renderForTest(v: unknown): void }).renderForTest(x),
        summary as unknown,
      );
    });

    after(async () => {
      await browser?.close();
    });

    test('the imbalance line comes first, then one row a rank with the slowest marked alone', async () => {
      const ranks = summary.ranks;
      assert.ok(ranks, 'the summary is per rank');
      assert.equal(ranks.imbalance[0]?.slowestRank, 1, "the stand-in's middle rank of four computes longest");
      const page1 = (await page.evaluate(`(() => {
      const trace = document.querySelector('.trace');
      const first = trace.firstElementChild;
      const rows = [...document.querySelectorAll('table.rank-table tbody tr')].map((tr) => ({
        rank: tr.getAttribute('data-rank'),
        slowest: tr.classList.contains('slowest'),
        marks: tr.querySelectorAll('.slowest-mark').length,
        cells: [...tr.children].map((td) => td.textContent),
      }));
      return { firstClass: first.className, line: first.querySelector('.imbalance-line')?.textContent, rows };
    })()`)) as {
        firstClass: string;
        line: string;
        rows: Array<{ rank: string; slowest: boolean; marks: number; cells: string[] }>;
      };
      assert.equal(page1.firstClass, 'ranks', 'the per-rank part is the first thing of the trace');
      assert.equal(page1.line, ranks.imbalanceLine);
      assert.deepEqual(
        page1.rows.map((r) => r.rank),
        ['0', '1', '2', '3', ''],
        'ranks in order, then the launcher',
      );
      assert.deepEqual(
        page1.rows.filter((r) => r.slowest || r.marks > 0).map((r) => [r.rank, r.marks]),
        [['1', 1]],
      );
      for (const r of page1.rows.slice(0, 4)) {
        const own: TraceRank = ranks.processes.find((p) => String(p.rank) === r.rank)!;
        assert.equal(r.cells[1], `GPU ${own.device}`);
        assert.ok(own.communicationNs > 0 && own.computeNs > 0);
        assert.equal(r.cells[7], own.topKernels[0]!.shortName);
      }
      assert.deepEqual(page1.rows[4]!.cells, ['no GPU work', '–', '–', '–', '–', '–', '–', '–']);
    });

    test('per case: compute time per rank, the slowest marked; hostile case names stay text', async () => {
      const cases =
        (await page.evaluate(`(() => [...document.querySelectorAll('table.rank-cases tbody tr')].map((tr) => ({
      name: tr.getAttribute('data-case'),
      first: tr.children[0].textContent,
      slowest: tr.children[1].textContent,
      marked: [...tr.querySelectorAll('td')].findIndex((td) => td.querySelector('.slowest-mark')),
    })))()`)) as Array<{ name: string; first: string; slowest: string; marked: number }>;
      assert.deepEqual(cases.map((c) => c.name).sort(), [HOSTILE_CASE, CLOSING_CASE].sort());
      for (const c of cases) {
        assert.equal(c.first, c.name, 'the name is shown as text');
        assert.equal(c.slowest, 'rank 1');
        assert.equal(c.marked, 3 + 1, "the mark is in rank 1's cell (after case, slowest, over median)");
      }
      const injected = (await page.evaluate(
        `({ pwned: window.__pwned ?? null, imgs: document.querySelectorAll('img').length, scripts: document.body.querySelectorAll('script').length })`,
      )) as { pwned: unknown; imgs: number; scripts: number };
      assert.deepEqual(injected, { pwned: null, imgs: 0, scripts: 0 }, 'no markup from a case name ran or was built');
    });

    test("GPU-to-GPU copies: each rank's pairs in a table, the profile's matrix by source and destination", async () => {
      const ranks = summary.ranks!.processes.filter((p) => p.rank !== null);
      const seen = (await page.evaluate(`(() => ({
      pairs: [...document.querySelectorAll('table.rank-pairs tbody tr')].map((tr) => ({
        rank: tr.getAttribute('data-rank'),
        cells: [...tr.children].map((td) => td.textContent),
      })),
      head: [...document.querySelectorAll('table.peer-matrix thead th')].map((th) => th.textContent),
      matrix: [...document.querySelectorAll('table.peer-matrix tbody tr')].map((tr) => [...tr.children].map((td) => td.textContent)),
    }))()`)) as { pairs: Array<{ rank: string; cells: string[] }>; head: string[]; matrix: string[][] };
      // four ranks, each sending to the three others (the stand-in's all-to-all), from its own GPU
      assert.equal(seen.pairs.length, 12);
      for (const r of ranks) {
        const own = seen.pairs.filter((p) => p.rank === String(r.rank));
        assert.deepEqual(
          own.map((p) => [p.cells[1], p.cells[2], p.cells[3]]),
          [0, 1, 2, 3].filter((d) => d !== r.device).map((d) => [`GPU ${r.device}`, `GPU ${d}`, '2']),
        );
        assert.equal(own[0]!.cells[0], `rank ${r.rank}`, 'the rank named on its first pair');
        assert.deepEqual(
          own.map((p) => p.cells[4]),
          ['–', '–', '–'],
          'CSV records no sizes',
        );
      }
      assert.deepEqual(seen.head, ['from \\ to', 'GPU 0', 'GPU 1', 'GPU 2', 'GPU 3']);
      assert.deepEqual(
        seen.matrix.map((row) => row.map((c) => (c === '–' ? '–' : c.startsWith('GPU') ? c : 'time'))),
        [0, 1, 2, 3].map((src) => [`GPU ${src}`, ...[0, 1, 2, 3].map((dst) => (dst === src ? '–' : 'time'))]),
      );
    });

    test('GPU busy over time: one labelled row per GPU, named by its rank', async () => {
      const labels = (await page.evaluate(
        `[...document.querySelectorAll('figure.timeline .timeline-rows .timeline-agent')].map((d) => d.textContent)`,
      )) as string[];
      const agents = summary.timeline!.agents.map((a) => a.agentId);
      assert.equal(labels.length, 4);
      assert.equal(agents.length, 4);
      for (const p of summary.ranks!.processes.filter((x) => x.rank !== null))
        assert.ok(labels.includes(`${p.agentIds[0]} · rank ${p.rank}`), labels.join(' | '));
    });

    // last: it renders another summary in the page
    test('agent ids that are markup stay text in the pairs and in the matrix (one row a pair then)', async () => {
      const hostile = structuredClone(summary);
      const rank0 = hostile.ranks!.processes[0]!;
      const bad = {
        ...rank0.peerCopies![0]!,
        srcAgentId: HOSTILE_CASE,
        srcGpu: null,
        dstAgentId: CLOSING_CASE,
        dstGpu: null,
      };
      rank0.peerCopies = [bad];
      hostile.peerCopies = [bad, ...hostile.peerCopies!.slice(1)];
      await page.evaluate(
        (x) => (globalThis as unknown as { renderForTest(v: unknown): void }).renderForTest(x),
        hostile as unknown,
      );
      const seen = (await page.evaluate(`(() => ({
      pair: [...document.querySelector('table.rank-pairs tbody tr').children].map((td) => td.textContent),
      list: [...document.querySelector('table.peer-copies tbody tr').children].map((td) => td.textContent),
      matrix: document.querySelectorAll('table.peer-matrix').length,
      pwned: window.__pwned ?? null,
      imgs: document.querySelectorAll('img').length,
      scripts: document.body.querySelectorAll('script').length,
    }))()`)) as { pair: string[]; list: string[]; matrix: number; pwned: unknown; imgs: number; scripts: number };
      assert.deepEqual(seen.pair.slice(0, 3), [`rank ${rank0.rank}`, HOSTILE_CASE, CLOSING_CASE]);
      assert.deepEqual(seen.list.slice(0, 2), [HOSTILE_CASE, CLOSING_CASE]);
      assert.equal(seen.matrix, 0, 'an end that is not a known GPU: no matrix');
      assert.deepEqual(
        [seen.pwned, seen.imgs, seen.scripts],
        [null, 0, 0],
        'no markup from an agent id ran or was built',
      );
    });
  },
);
