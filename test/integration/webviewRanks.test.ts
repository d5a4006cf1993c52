// The results webview (src/webview/render.ts bundled with esbuild, in Debian's Chromium through playwright-core) on
// a real multi-process profile: the rocprofv3 stand-in traces a job of four rank processes (LOCAL_RANK 0..3, each
// opening two rocTX ranges whose names are hostile markup), summarizePath reads it per rank, and the page shows the
// imbalance line first, one row a rank with the slowest marked (the stand-in's middle rank), the compute time per
// case and rank with each case's slowest marked, and one labelled timeline row per GPU. Names stay text.
// GPU-to-GPU copies on MI300x8-like jobs of the stand-in: eight ranks on eight GPUs (each rank's pairs are its GPU's
// row of the matrix: no per-rank pairs table, copies out in the rank table, the matrix's GPUs named by rank), and
// sixteen ranks two to a GPU (the pairs say who sent: the longest 16 shown, the rest behind a closed disclosure).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import type { TraceRank } from '../../src/core/protocol/traceSummary';
import { summarizePath, type TraceSummary } from '../../src/trace/index';
import { formatBytes, formatNs } from '../../src/webview/format';
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

/** `ranks` rank processes, each opening the ranges `cases` (the stand-in's recording libroctx64.so, built with cc). */
const app = (ranks: number, cases: string[]): string => `
import os, subprocess, sys
CHILD = r'''
import ctypes, sys
lib = ctypes.CDLL("libroctx64.so")
for name in sys.argv[1:]:
    lib.roctxRangePushA(name.encode())
    lib.roctxRangePop()
'''
ranks = [subprocess.Popen([sys.executable, "-c", CHILD, *${JSON.stringify(cases)}],
                          env={**os.environ, "LOCAL_RANK": str(r)}) for r in range(${ranks})]
sys.exit(max(p.wait() for p in ranks))
`;

/** A job of `ranks` rank processes on a machine of `gpus` GPUs (LOCAL_RANK r on GPU r mod gpus) traced by the stand-in. */
async function rankProfile(
  ranks: number,
  gpus: number,
  cases: string[],
  format: 'csv' | 'rocpd' = 'csv',
): Promise<TraceSummary> {
  const dir = tempDir('job');
  writeFileSync(path.join(dir, 'app.py'), app(ranks, cases));
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
      format,
      '--',
      'python3',
      'app.py',
    ],
    {
      cwd: dir,
      env: { ...process.env, KR_FAKE_ROCPROF_GPUS: String(gpus), KR_FAKE_ROCPROF_NOISE: 'none' },
      stdio: 'pipe',
    },
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
      summary = await rankProfile(4, 4, [HOSTILE_CASE, CLOSING_CASE]);
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
        assert.equal(r.cells[8], own.topKernels[0]!.shortName);
      }
      assert.deepEqual(page1.rows[4]!.cells, ['no GPU work', '–', '–', '–', '–', '–', '–', '–', '–']);
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

    test('GPU-to-GPU copies, one rank a GPU: copies out per rank, no per-rank pairs, the matrix names each rank', async () => {
      const ranks = summary.ranks!.processes.filter((p) => p.rank !== null);
      const seen = (await page.evaluate(`(() => ({
      pairTables: document.querySelectorAll('table.rank-pairs, details.rank-pairs-more').length,
      out: [...document.querySelectorAll('table.rank-table tbody tr')].map((tr) => [tr.getAttribute('data-rank'), tr.children[7].textContent]),
      head: [...document.querySelectorAll('table.peer-matrix thead th')].map((th) => th.textContent),
      matrix: [...document.querySelectorAll('table.peer-matrix tbody tr')].map((tr) => [...tr.children].map((td) => td.textContent)),
    }))()`)) as { pairTables: number; out: string[][]; head: string[]; matrix: string[][] };
      assert.equal(seen.pairTables, 0, "each rank's pairs are its GPU's row of the matrix: not listed again");
      // four ranks, each sending twice to the three others (the stand-in's all-to-all), from its own GPU
      for (const r of ranks) {
        assert.equal(r.peerCopies?.length, 3);
        assert.deepEqual(r.peerCopiesOut, {
          calls: 6,
          totalNs: r.peerCopies!.reduce((n, c) => n + c.totalNs, 0),
          bytes: null,
        });
        assert.deepEqual(
          seen.out.find(([rank]) => rank === String(r.rank)),
          [String(r.rank), formatNs(r.peerCopiesOut!.totalNs)],
          'copies out: the time (CSV records no sizes)',
        );
      }
      assert.deepEqual(seen.out.at(-1), ['', '–'], 'the launcher copied nothing');
      const gpus = [0, 1, 2, 3].map((g) => `GPU ${g} · rank ${ranks.find((r) => r.device === g)!.rank}`);
      assert.deepEqual(seen.head, ['from \\ to', ...gpus]);
      assert.deepEqual(
        seen.matrix.map((row) => row.map((c, i) => (i === 0 || c === '–' ? c : 'time'))),
        [0, 1, 2, 3].map((src) => [gpus[src], ...[0, 1, 2, 3].map((dst) => (dst === src ? '–' : 'time'))]),
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
      pairs: document.querySelectorAll('table.rank-pairs tbody tr').length,
      more: document.querySelectorAll('details.rank-pairs-more').length,
      list: [...document.querySelector('table.peer-copies tbody tr').children].map((td) => td.textContent),
      matrix: document.querySelectorAll('table.peer-matrix').length,
      pwned: window.__pwned ?? null,
      imgs: document.querySelectorAll('img').length,
      scripts: document.body.querySelectorAll('script').length,
    }))()`)) as {
        pair: string[];
        pairs: number;
        more: number;
        list: string[];
        matrix: number;
        pwned: unknown;
        imgs: number;
        scripts: number;
      };
      // an end that is not a known GPU: no matrix, so each rank's pairs are listed (four, none past the 16 shown)
      assert.deepEqual(seen.pair.slice(0, 3), [`rank ${rank0.rank}`, HOSTILE_CASE, CLOSING_CASE]);
      assert.deepEqual([seen.pairs, seen.more], [1 + 3 * 3, 0]);
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

/** The page's rank tables after rendering `s`. */
async function rankTables(page: Page, s: TraceSummary) {
  await page.evaluate(
    (x) => (globalThis as unknown as { renderForTest(v: unknown): void }).renderForTest(x),
    s as unknown,
  );
  return (await page.evaluate(`(() => {
    const cells = (tr) => [...tr.children].map((td) => td.textContent);
    const more = document.querySelector('details.rank-pairs-more');
    return {
      ranks: [...document.querySelectorAll('table.rank-table tbody tr')].map((tr) => cells(tr)),
      pairs: [...document.querySelectorAll('.rank-pairs-part > .table-scroll table.rank-pairs tbody tr')].map(cells),
      more: more && {
        open: more.open,
        summary: more.querySelector('summary').textContent,
        rows: [...more.querySelectorAll('table.rank-pairs tbody tr')].map(cells),
      },
      pairTables: document.querySelectorAll('table.rank-pairs').length,
      head: [...document.querySelectorAll('table.peer-matrix thead th')].map((th) => th.textContent),
      matrixRows: document.querySelectorAll('table.peer-matrix tbody tr').length,
    };
  })()`)) as {
    ranks: string[][];
    pairs: string[][];
    more: { open: boolean; summary: string; rows: string[][] } | null;
    pairTables: number;
    head: string[];
    matrixRows: number;
  };
}

describe(
  'webview: GPU-to-GPU copies of MI300x8-like jobs',
  { skip: haveChromium ? false : `${chromiumPath} is missing` },
  () => {
    let browser: Browser;
    let page: Page;
    let eight: TraceSummary;
    let sixteen: TraceSummary;

    before(async () => {
      // eight ranks on eight GPUs (rocpd: copies with sizes), sixteen ranks two to a GPU (CSV)
      eight = await rankProfile(8, 8, ['benchmark 0', 'benchmark 1'], 'rocpd');
      sixteen = await rankProfile(16, 8, ['benchmark 0']);
      browser = await launchChromium(chromiumPath);
      page = await browser.newPage();
      await page.setContent('<!doctype html><html><body></body></html>');
      await page.addScriptTag({ content: await renderTraceBundle('replace') });
    });

    after(async () => {
      await browser?.close();
    });

    test("one rank a GPU: the 56 pairs are the matrix's rows, so no per-rank table; copies out per rank", async () => {
      const ranks = eight.ranks!.processes.filter((p) => p.rank !== null);
      assert.equal(ranks.length, 8);
      assert.equal(
        ranks.reduce((n, r) => n + (r.peerCopies?.length ?? 0), 0),
        56,
        'each rank sends to the seven others: the table had 56 rows',
      );
      assert.equal(eight.peerCopies?.length, 56);
      const seen = await rankTables(page, eight);
      assert.deepEqual([seen.pairTables, seen.pairs.length, seen.more], [0, 0, null], 'no per-rank pairs');
      assert.equal(seen.ranks.length, 9, 'eight ranks and the launcher');
      for (const r of ranks) {
        const out = r.peerCopiesOut!;
        assert.equal(out.calls, 14, 'two copies to each of seven GPUs');
        assert.equal(
          out.totalNs,
          r.peerCopies!.reduce((n, c) => n + c.totalNs, 0),
        );
        assert.equal(
          out.bytes,
          r.peerCopies!.reduce((n, c) => n + c.bytes!, 0),
          'rocpd records sizes',
        );
        assert.equal(seen.ranks[r.rank!]![7], `${formatNs(out.totalNs)}${formatBytes(out.bytes)}`, `rank ${r.rank}`);
      }
      assert.deepEqual(seen.head, ['from \\ to', ...ranks.map((r) => `GPU ${r.device} · rank ${r.rank}`)]);
      assert.equal(seen.matrixRows, 8);
    });

    test('two ranks a GPU: the pairs say who sent; the longest 16 shown, the other 96 behind a closed disclosure', async () => {
      const ranks = sixteen.ranks!.processes.filter((p) => p.rank !== null);
      assert.deepEqual(
        ranks.map((r) => r.device),
        [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7],
      );
      const all = ranks.flatMap((r) => r.peerCopies!.map((c) => ({ rank: r.rank, c })));
      assert.equal(all.length, 112);
      const seen = await rankTables(page, sixteen);
      assert.equal(seen.pairs.length, 16);
      assert.ok(seen.more, 'the rest behind a disclosure');
      assert.equal(seen.more.open, false, 'closed at first');
      assert.equal(seen.more.summary, '96 more pairs');
      assert.equal(seen.more.rows.length, 96);
      // the shown rows are the longest: every one at least as long as any behind the disclosure
      const longest = [...all].sort((a, b) => b.c.totalNs - a.c.totalNs);
      assert.deepEqual(
        seen.pairs.map((row) => row[5]),
        longest.slice(0, 16).map((p) => formatNs(p.c.totalNs)),
      );
      assert.ok(longest[15]!.c.totalNs >= longest[16]!.c.totalNs);
      assert.deepEqual(
        [...seen.pairs, ...seen.more.rows].map((row) => row.slice(0, 3).join(' ')).sort(),
        all.map((p) => `rank ${p.rank} GPU ${p.c.srcGpu} GPU ${p.c.dstGpu}`).sort(),
        'every pair once, each row naming its rank',
      );
      // no GPU is one rank's alone: the matrix names none
      assert.deepEqual(seen.head, ['from \\ to', ...[0, 1, 2, 3, 4, 5, 6, 7].map((g) => `GPU ${g}`)]);
      // the keyboard opens it: a native <details>, no script
      await page.focus('details.rank-pairs-more > summary');
      await page.keyboard.press('Enter');
      assert.equal(await page.evaluate(`document.querySelector('details.rank-pairs-more').open`), true);
    });
  },
);
