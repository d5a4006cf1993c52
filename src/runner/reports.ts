// The markdown report of one FullResult (the `reports` of a result event): what ran, what passed, timings.
import { decodePopcornBase64 } from '../core/reportEncoding';
import type { EvalResult, FullResult, SubmissionMode } from '../core/protocol/api';

function readableReport(encoded: string): string {
  try {
    return decodePopcornBase64(encoded).trimEnd();
  } catch {
    return `(the evaluator's report is not valid +* base64; ${encoded.length} characters as sent)\n${encoded.slice(0, 2000)}`;
  }
}

function fence(text: string): string {
  const body = text.endsWith('\n') ? text : text + '\n';
  const ticks = body.includes('```') ? '````' : '```';
  return `${ticks}\n${body}${ticks}\n`;
}

function micros(ns: string | undefined): string {
  const v = Number(ns);
  return Number.isFinite(v) ? (v / 1000).toFixed(v < 10_000 ? 2 : 1) : '?';
}

function runSection(key: string, ev: EvalResult): string {
  let out = '';
  const comp = ev.compilation;
  if (comp && !comp.success) {
    out += `### ❌ ${key}: compilation failed\n\n\`${comp.command}\` exited with ${comp.exit_code}\n\n`;
    if (comp.stderr.trim()) out += fence(comp.stderr.trimEnd());
    return out;
  }
  const run = ev.run;
  if (!run) return `### ${key}: did not run\n`;
  const icon = run.passed ? '✅' : '❌';
  out += `### ${icon} ${key}: ${run.passed ? 'passed' : 'failed'} (exit ${run.exit_code}, ${run.duration.toFixed(2)} s)\n\n`;
  const r = run.result;
  const tests = Number(r['test-count']);
  if (Number.isInteger(tests) && tests > 0) {
    const passed = Array.from({ length: tests }, (_, i) => r[`test.${i}.status`]).filter((s) => s === 'pass').length;
    out += `${passed}/${tests} tests passed\n\n`;
    for (let i = 0; i < tests; i++) {
      const status = r[`test.${i}.status`] ?? '?';
      const detail = status === 'pass' ? '' : ` — ${r[`test.${i}.error`] ?? r[`test.${i}.message`] ?? ''}`;
      out += `- ${status === 'pass' ? '✅' : '❌'} \`${r[`test.${i}.spec`] ?? i}\`${detail}\n`;
    }
    out += '\n';
  }
  const benches = Number(r['benchmark-count']);
  if (Number.isInteger(benches) && benches > 0 && !key.startsWith('profile')) {
    out += '| case | mean µs | std µs | best µs | worst µs | runs |\n|---|---|---|---|---|---|\n';
    for (let i = 0; i < benches; i++) {
      const spec = r[`benchmark.${i}.spec`] ?? String(i);
      if (r[`benchmark.${i}.status`] === 'fail') {
        out += `| \`${spec}\` | ❌ ${r[`benchmark.${i}.error`] ?? 'failed'} | | | | |\n`;
        continue;
      }
      out += `| \`${spec}\` | ${micros(r[`benchmark.${i}.mean`])} | ${micros(r[`benchmark.${i}.std`])} | ${micros(r[`benchmark.${i}.best`])} | ${micros(r[`benchmark.${i}.worst`])} | ${r[`benchmark.${i}.runs`] ?? '?'} |\n`;
    }
    out += '\n';
  }
  for (let i = 0; Number.isInteger(benches) && i < benches; i++) {
    const report = r[`benchmark.${i}.report`];
    if (report) out += `Report \`${r[`benchmark.${i}.spec`] ?? i}\`:\n\n${fence(readableReport(report))}\n`;
  }
  if (ev.profile) {
    const k = ev.profile.summary?.kernels?.[0];
    if (k) out += `Top kernel: \`${k.shortName}\` ${k.calls} call(s), ${(k.totalNs / 1000).toFixed(1)} µs total\n\n`;
    if (ev.profile.download_url) out += `Trace: ${ev.profile.download_url}\n\n`;
  }
  if (!run.passed) {
    if (run.stderr.trim()) out += `#### stderr\n\n${fence(run.stderr.trimEnd())}\n`;
    if (run.stdout.trim()) out += `#### stdout\n\n${fence(run.stdout.trimEnd())}\n`;
  }
  return out;
}

export function buildReport(opts: {
  leaderboard: string;
  mode: SubmissionMode;
  gpu: string;
  fileName: string;
  secret: boolean;
  result: FullResult;
  score: number | null;
}): string {
  const { result } = opts;
  let out = `## ${opts.leaderboard} · ${opts.mode} on ${opts.gpu}${opts.secret ? ' (secret seed)' : ''} · \`${opts.fileName}\`\n\n`;
  if (!result.success) out += `❌ ${result.error}\n\n`;
  for (const [key, ev] of Object.entries(result.runs)) out += runSection(key, ev);
  if (opts.score !== null) out += `**Score:** ${(opts.score * 1e6).toFixed(3)} µs\n`;
  return out.trimEnd() + '\n';
}
