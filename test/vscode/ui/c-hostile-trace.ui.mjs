/* global document */
// A trace whose kernel names are hostile (script tags, attribute breakouts, a 3,000-character template), opened
// with "Open Trace…" from the palette: the webview shows every name literally and runs nothing.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assert, horizontalLayout, openTrace, openWorkbench, shot, webviewFrame } from './workbench.mjs';

const HEADER =
  '"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"';
const LONG = `void gemm_kernel<${'ck::Tuple<ck::tensor_layout::gemm::RowMajor, float, 256>, '.repeat(52)}int>(float const*, float*)`;
export const NAMES = [
  '<script>document.title="pwned-script";alert("script")</script>',
  '"><img src=x onerror="alert(\'img\')">',
  '\'); alert("quote"); //',
  '<svg onload=alert("svg")>',
  LONG,
];

function hostileCsv() {
  const q = (s) => `"${s.replace(/"/g, '""')}"`;
  const rows = NAMES.map((name, i) => {
    const start = 1_000_000 + i * 10_000;
    return [
      '"KERNEL_DISPATCH"',
      '"Agent 1"',
      1,
      1,
      1,
      i + 1,
      i + 1,
      q(name),
      i + 1,
      start,
      start + 5000 + i * 1000,
      0,
      0,
      8,
      0,
      16,
      256,
      1,
      1,
      1024,
      1,
      1,
    ].join(',');
  });
  return [HEADER, ...rows].join('\n') + '\n';
}

// A --pmc run (counter_collection.csv, ROCm 7 layout) with hostile kernel and counter names, a pseudo-row and a
// row that cannot be read: the counters table, the pseudo-row note and the warning show them all as text.
const COUNTER_HEADER =
  '"Correlation_Id","Dispatch_Id","Agent_Id","Queue_Id","Process_Id","Thread_Id","Grid_Size","Kernel_Id","Kernel_Name","Workgroup_Size","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Counter_Name","Counter_Value","Start_Timestamp","End_Timestamp"';
export const COUNTER_NAMES = ['<img src=x onerror="alert(\'counter\')">', 'SQ_WAVES"><script>alert(1)</script>'];

function hostileCounterCsv() {
  const q = (s) => `"${s.replace(/"/g, '""')}"`;
  const rows = [];
  [...NAMES.slice(0, 4), '<barrier packet>'].forEach((name, i) => {
    const start = 2_000_000 + i * 10_000;
    for (const counter of COUNTER_NAMES)
      rows.push(
        [
          i + 1,
          i + 1,
          '"Agent 1"',
          1,
          7,
          7,
          1024,
          i + 1,
          q(name),
          256,
          0,
          0,
          8,
          0,
          16,
          q(counter),
          100 + i,
          start,
          start + 4000,
        ].join(','),
      );
  });
  rows.push('99,99,"Agent 1",1,7,7,1024,1,"broken",256,0,0,8,0,16,"SQ_WAVES",not-a-number,1,2');
  return [COUNTER_HEADER, ...rows].join('\n') + '\n';
}

export const tests = {
  async 'hostile kernel names are shown literally and run nothing'({ page, workbenchUrl, outputDir, workspace, root }) {
    assert(LONG.length >= 3000, `long name is ${LONG.length} chars`);
    const dir = join(workspace, 'hostile-trace');
    mkdirSync(dir, { recursive: true });
    const csv = join(dir, 'hostile_kernel_trace.csv');
    writeFileSync(csv, hostileCsv());

    const dialogs = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await openWorkbench(page, workbenchUrl());
    await openTrace(page, csv);

    const frame = await webviewFrame(page, 'table.kernels tbody tr');
    const names = await frame
      .locator('table.kernels .kernel-name')
      .evaluateAll((els) => els.map((e) => ({ text: e.textContent, title: e.getAttribute('title') })));
    for (const n of NAMES) {
      assert(
        names.some((x) => x.title === n),
        `full name kept literally in the hover title: ${n.slice(0, 60)}`,
      );
    }
    // The short names shown are exactly the trace toolkit's (what `kernel-runner summarize --json` prints), as text.
    const cli = spawnSync(process.execPath, [join(root, 'dist/cli.cjs'), 'summarize', csv, '--json'], {
      encoding: 'utf8',
    });
    const expected = JSON.parse(cli.stdout).kernels.map((k) => k.shortName);
    assert(
      JSON.stringify(names.map((x) => x.text)) === JSON.stringify(expected),
      `shown ${JSON.stringify(names.map((x) => x.text))} vs ${JSON.stringify(expected)}`,
    );
    assert(
      expected.some((n) => /[<>"]/.test(n)),
      `some short name still carries markup characters: ${JSON.stringify(expected)}`,
    );
    const counts = await frame.evaluate(() => ({
      // VS Code adds its own script to every webview; none may carry data from the trace.
      injectedScripts: [...document.querySelectorAll('script')].filter((e) =>
        /alert|pwned/.test(e.textContent + (e.getAttribute('src') ?? '')),
      ).length,
      ourScripts: [...document.querySelectorAll('script[src$="webview.js"]')].length,
      imgs: document.querySelectorAll('img').length,
      svgs: document.querySelectorAll('svg:not(.timeline-chart)').length,
      handlers: [...document.querySelectorAll('*')].filter((e) =>
        [...e.attributes].some((a) => a.name.startsWith('on')),
      ).length,
      title: document.title,
    }));
    assert(counts.injectedScripts === 0 && counts.ourScripts === 1, `scripts: ${JSON.stringify(counts)}`);
    assert(
      counts.imgs === 0 && counts.svgs === 0 && counts.handlers === 0,
      `no injected elements: ${JSON.stringify(counts)}`,
    );
    assert(!counts.title.includes('pwned'), `document title untouched: ${counts.title}`);
    assert(dialogs.length === 0, `no alert ran: ${dialogs.join(', ')}`);
    // Keyboard: the full name of a truncated kernel is reachable by Tab (focusable, with its title).
    const focusable = await frame.locator('table.kernels .kernel-name[tabindex="0"]').count();
    assert(focusable === NAMES.length, `focusable names: ${focusable}`);
    // Layout: the 3,000-character name and the number columns do not widen the page in this narrow panel; the
    // table scrolls in its own box (reachable by Tab) and the page keeps its left edge.
    const layout = await horizontalLayout(frame);
    assert(
      layout.pageOverflowPx <= 1,
      `page scrolls sideways by ${layout.pageOverflowPx}px: ${JSON.stringify(layout)}`,
    );
    assert(
      layout.tables > 0 && layout.tablesInScroller === layout.tables,
      `every table in a focusable scroller: ${JSON.stringify(layout)}`,
    );
    await frame.locator('table.kernels').scrollIntoViewIfNeeded();
    await shot(page, outputDir, 'hostile-trace');
  },
  async 'hostile counter names, pseudo-rows and warnings of a --pmc run are shown as text'({
    page,
    workbenchUrl,
    outputDir,
    workspace,
  }) {
    const dir = join(workspace, 'hostile-counters');
    mkdirSync(dir, { recursive: true });
    const csv = join(dir, 'hostile_counter_collection.csv');
    writeFileSync(csv, hostileCounterCsv());
    const dialogs = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await openWorkbench(page, workbenchUrl());
    await openTrace(page, csv);
    const frame = await webviewFrame(page, 'table.counters tbody tr');
    const shown = await frame.evaluate(() => ({
      kernels: [...document.querySelectorAll('table.counters .kernel-name')].map((e) => e.getAttribute('title')),
      counters: [...document.querySelectorAll('table.counters code')].map((e) => e.textContent),
      pseudo: document.querySelector('.pseudo-rows')?.textContent ?? '',
      warnings: [...document.querySelectorAll('.trace-warnings li')].map((e) => e.textContent),
      imgs: document.querySelectorAll('img').length,
      handlers: [...document.querySelectorAll('*')].filter((e) =>
        [...e.attributes].some((a) => a.name.startsWith('on')),
      ).length,
      injectedScripts: [...document.querySelectorAll('script')].filter((e) =>
        /alert|pwned/.test(e.textContent + (e.getAttribute('src') ?? '')),
      ).length,
    }));
    for (const n of NAMES.slice(0, 4))
      assert(shown.kernels.includes(n), `kernel shown literally: ${n}; got ${JSON.stringify(shown.kernels)}`);
    for (const c of COUNTER_NAMES)
      assert(
        shown.counters.filter((x) => x === c).length === 4,
        `counter shown literally per kernel: ${c}; got ${JSON.stringify(shown.counters)}`,
      );
    assert(shown.pseudo.includes('<barrier packet>'), `pseudo-row listed apart: ${shown.pseudo}`);
    assert(
      shown.warnings.some((w) =>
        /hostile_counter_collection\.csv: 1 row\(s\) .* skipped \(the first on line 12\)/.test(w ?? ''),
      ),
      `warning shown: ${JSON.stringify(shown.warnings)}`,
    );
    assert(
      shown.imgs === 0 && shown.handlers === 0 && shown.injectedScripts === 0,
      `nothing injected: ${JSON.stringify(shown)}`,
    );
    assert(dialogs.length === 0, `no alert ran: ${dialogs.join(', ')}`);
    await frame.locator('table.counters').scrollIntoViewIfNeeded();
    await shot(page, outputDir, 'hostile-counters');
  },
};
