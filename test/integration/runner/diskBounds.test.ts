// Bounded disk, with real runners and real programs: the event log of short lines costs at most about twice the
// output; a job's stored output stops at --max-job-output (live events and the profiler's stderr log together) with
// a note live and in the result, while the program runs to its end; `serve --max-data` deletes the oldest finished
// jobs at start, and the newest stay.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import yauzl from 'yauzl';
import { expandOutput, outputEventSchema, resultEventSchema } from '../../../src/core/protocol/api';
import {
  post,
  readSse,
  repoRoot,
  startTestRunner,
  submitAndRead,
  tempDir,
  terminal,
  testBin,
  waitFor,
  builtCli,
} from './helpers';

const MiB = 1024 * 1024;

/** Prints about `mb` MB of short lines: stdout in blocks, stderr with rocprof-style noise between its own lines. */
function shortLines(mb: number, end = 'done'): string {
  return `
import sys
out = "".join(f"{i % 1000}\\n" for i in range(60000))
err = "".join(("W20250710 21:33:25.713947 1401 simple_timer.cpp:55] [rocprofv3] tool init\\n" if i % 3 else f"e{i}\\n") for i in range(3000))
size, k = 0, 0
while size < ${mb} * 1000000:
    sys.stdout.write(out); sys.stderr.write(err); size += len(out) + len(err); k += 1
sys.stdout.flush(); sys.stderr.flush()
sys.stderr.write(f"bytes {size} blocks {k}\\n")
print("${end}")
`;
}

function dirBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(path.join(entry.parentPath, entry.name)).size;
  }
  return total;
}

function zipEntryText(buf: Buffer, suffix: string): Promise<string> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buf, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error('no zip'));
      zip.on('entry', (entry: yauzl.Entry) => {
        if (!entry.fileName.endsWith(suffix)) return zip.readEntry();
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e ?? new Error('no stream'));
          const parts: Buffer[] = [];
          stream
            .on('data', (c: Buffer) => parts.push(c))
            .on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
        });
      });
      zip.on('end', () => reject(new Error(`no ${suffix} in the zip`)));
      zip.readEntry();
    });
  });
}

describe('the event log of short lines', () => {
  test('costs at most about twice the bytes the program wrote, and every line is in it once', async () => {
    const runner = await startTestRunner();
    try {
      const events = await submitAndRead(`${runner.url}/script/CPU/test`, {
        fileName: 'short.py',
        content: shortLines(5),
        extensions: true,
      });
      const result = resultEventSchema.parse(terminal(events).data);
      const run = result.results[0]!.runs.test!.run!;
      assert.equal(run.exit_code, 0);
      const [, wrote, blocks] = /bytes (\d+) blocks (\d+)/.exec(run.stderr) ?? [];
      const written = Number(wrote);
      assert.ok(written > 5_000_000, `the program wrote ${written} bytes`);
      const lines = events
        .filter((e) => e.event === 'output')
        .flatMap((e) => expandOutput(outputEventSchema.parse(e.data)));
      assert.equal(
        lines.filter((l) => l.stream === 'stdout').length,
        Number(blocks) * 60000 + 1,
        'every stdout line once',
      );
      assert.equal(
        lines.filter((l) => l.stream === 'stderr').length,
        Number(blocks) * 3000 + 1,
        'every stderr line once',
      );
      const outBytes = lines.reduce((n, l) => n + Buffer.byteLength(l.text) + 1, 0);
      assert.ok(outBytes >= written, `every byte arrived as a line (${outBytes} of ${written})`);
      assert.ok(
        lines.filter((l) => l.noise).length > 0 && lines.some((l) => !l.noise && l.stream === 'stderr'),
        'noise and program lines both classified',
      );
      const jobDir = path.join(runner.dataDir, 'jobs', String((events[0]!.data as { job_id: number }).job_id));
      const log = statSync(path.join(jobDir, 'events.sse')).size;
      assert.ok(
        log <= 2 * written,
        `event log ${log} bytes for ${written} bytes of output (${(log / written).toFixed(2)}x)`,
      );
      assert.ok(dirBytes(jobDir) <= 2 * written + MiB, `job folder ${dirBytes(jobDir)} bytes`);
    } finally {
      await runner.dispose();
    }
  });
});

describe('--max-job-output', () => {
  test('output past the limit is cut with a note, live and in the result; the program runs to its end', async () => {
    const runner = await startTestRunner({ maxJobOutputBytes: 1 * MiB });
    try {
      const events = await submitAndRead(`${runner.url}/script/CPU/test`, {
        fileName: 'flood.py',
        content: shortLines(6, 'the end'),
        extensions: true,
      });
      const job = (events[0]!.data as { job_id: number }).job_id;
      const result = resultEventSchema.parse(terminal(events).data);
      const run = result.results[0]!.runs.test!.run!;
      assert.equal(run.exit_code, 0, 'the program was not stopped');
      assert.match(run.stdout, /the end\n$/, "the result keeps the output's tail");
      assert.match(
        run.stderr,
        /output cut: this job reached its limit of 1\.0 MiB of stored output \(--max-job-output\)/,
      );
      const lines = events
        .filter((e) => e.event === 'output')
        .flatMap((e) => expandOutput(outputEventSchema.parse(e.data)));
      const cut = lines.findIndex((l) => l.text.startsWith('[kernel-runner] output cut'));
      assert.equal(cut, lines.length - 1, 'the note is the last live line, and nothing follows it');
      assert.ok(!lines.some((l) => l.text === 'the end'), 'nothing past the limit was stored');
      const log = statSync(path.join(runner.dataDir, 'jobs', String(job), 'events.sse')).size;
      assert.ok(log <= 1.2 * MiB, `event log ${log} bytes`);
    } finally {
      await runner.dispose();
    }
  });

  test("profile mode: the profiler's stderr log takes from the same budget and ends with the note", async () => {
    const env = { ...process.env, PATH: `${testBin}${path.delimiter}${process.env.PATH ?? ''}` };
    const runner = await startTestRunner({
      profiler: 'rocprofv3',
      env,
      maxJobOutputBytes: 1 * MiB,
      inlineTraceBytes: 0,
    });
    try {
      const events = await submitAndRead(`${runner.url}/script/CPU/profile`, {
        fileName: 'flood.py',
        content: shortLines(3),
        extensions: true,
      });
      const ev = resultEventSchema.parse(terminal(events).data).results[0]!.runs['profile.0']!;
      assert.equal(ev.run!.exit_code, 0);
      assert.match(ev.run!.stderr, /output cut/);
      const link = ev.profile?.download_url ?? /what the profiler wrote is at (\S+)/.exec(ev.run!.stderr)?.[1];
      assert.ok(link, ev.run!.stderr);
      const zip = Buffer.from(await (await fetch(link)).arrayBuffer());
      const stderrLog = await zipEntryText(zip, 'stderr.log');
      assert.ok(Buffer.byteLength(stderrLog) <= 1 * MiB, `stderr.log ${Buffer.byteLength(stderrLog)} bytes`);
      assert.match(stderrLog, /output cut: this job reached its limit/);
      assert.doesNotMatch(stderrLog, /^bytes \d+$/m, 'the end of the stderr was not stored');
    } finally {
      await runner.dispose();
    }
  });
});

describe('serve --max-data', () => {
  test('at start, the oldest finished jobs go until the data dir is within its budget; the newest stay', async () => {
    const dataDir = tempDir('kr-maxdata-');
    const first = await startTestRunner({ dataDir });
    const ids: number[] = [];
    try {
      for (let i = 0; i < 4; i++) {
        const res = await post(`${first.url}/script/CPU/test`, {
          fileName: `j${i}.py`,
          content: shortLines(0.4),
          extensions: true,
        });
        const events = await readSse(res);
        ids.push((events[0]!.data as { job_id: number }).job_id);
      }
    } finally {
      await first.close();
    }
    const sizes = ids.map((id) => dirBytes(path.join(dataDir, 'jobs', String(id))));
    assert.ok(
      sizes.every((s) => s > 300_000),
      `each job keeps its output: ${sizes.join(', ')}`,
    );
    const budget = sizes[2]! + sizes[3]! + 10_000; // room for the newest two only
    const child = spawn(
      process.execPath,
      [
        builtCli(),
        'serve',
        '--port',
        '0',
        '--no-token',
        '--data-dir',
        dataDir,
        '--profiler',
        'none',
        '--max-data',
        String(budget),
      ],
      {
        cwd: repoRoot,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let err = '';
    child.stderr!.setEncoding('utf8').on('data', (t: string) => (err += t));
    try {
      const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
      const url = /listening on (http:\/\/\S+)/.exec(line)?.[1];
      assert.ok(url, line + err);
      // its line comes once the sweep is over, the API's records included (the folders go first, one by one)
      await waitFor('the start sweep', () => (/retention: deleted/.test(err) ? true : undefined));
      assert.deepEqual(
        ids.map((id) => existsSync(path.join(dataDir, 'jobs', String(id)))),
        [false, false, true, true],
      );
      assert.equal((await fetch(`${url}/jobs/${ids[0]}`)).status, 404, 'a deleted job is gone from the API too');
      assert.equal((await fetch(`${url}/jobs/${ids[3]}`)).status, 200);
      assert.match(err, /retention: deleted 2 old job\(s\)/);
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    const bad = spawn(
      process.execPath,
      [builtCli(), 'serve', '--port', '0', '--no-token', '--data-dir', dataDir, '--max-data', 'lots'],
      { cwd: repoRoot },
    );
    let badErr = '';
    bad.stderr.setEncoding('utf8').on('data', (t: string) => (badErr += t));
    const [code] = (await once(bad, 'exit')) as [number];
    assert.equal(code, 2);
    assert.match(badErr, /--max-data takes a size of at least 1\.0 MiB such as 256MiB, 20GB or 512M, not "lots"/);
  });
});
