import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { classifyLine, createLineClassifier, stripAnsi, type ClassifiedLine } from '../../../src/core/noise/index';
import { seededRandom as rng } from '../../support/random';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const fixtures = path.resolve(repoRoot, '../shared/fixtures/rocprof');
const fixture = (name: string) => readFileSync(path.join(fixtures, name));

function classifyAll(input: Uint8Array | string | Array<Uint8Array | string>, maxLineBytes?: number): ClassifiedLine[] {
  const lines: ClassifiedLine[] = [];
  const c = createLineClassifier({ onLine: (l) => lines.push(l), maxLineBytes });
  for (const chunk of Array.isArray(input) ? input : [input]) c.feed(chunk);
  c.flush();
  return lines;
}

function splitRandomly(bytes: Uint8Array, next: () => number, maxChunk: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let pos = 0; pos < bytes.length;) {
    const size = 1 + Math.floor(next() * maxChunk);
    chunks.push(bytes.slice(pos, pos + size));
    pos += size;
  }
  return chunks;
}

const ESC = '\x1b';

test('every line of the issue-thread stderr sample is noise', () => {
  const bytes = fixture('compiled__stderr_lines_from_issues.txt');
  const expected = bytes
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '');
  const lines = classifyAll(bytes);
  assert.equal(lines.length, expected.length);
  assert.equal(lines.length, 14);
  for (const line of lines) assert.equal(line.noise, true, `not noise: ${line.text}`);
  assert.deepEqual(
    lines.map((l) => l.kind),
    [...Array(9).fill('glog'), 'perfetto', 'perfetto', 'perfetto', 'perfetto', 'glog'],
  );
});

for (const name of [
  'derived__rocprofv3-2025-07-rocpd-pass_stderr_ansi.txt',
  'derived__rocprofv3-2025-03-csv-pass_stderr_ansi.txt',
]) {
  test(`${name} keeps exactly its application lines`, () => {
    const bytes = fixture(name);
    const lines = classifyAll(bytes);
    const program = lines.filter((l) => !l.noise);
    assert.deepEqual(
      program.map((l) => l.text),
      ['vcopy testing on GCD 0', 'Finished allocating vectors on the CPU'],
    );
    assert.ok(program.every((l) => l.kind === 'program'));
    // The colour reset of the last glog line lands on the program's first line: kept in raw, gone from text.
    assert.equal(program[0]?.raw, `${ESC}[mvcopy testing on GCD 0`);
    const total = bytes
      .toString('utf8')
      .split('\n')
      .filter((l) => l !== '').length;
    assert.equal(lines.filter((l) => l.noise).length, total - 2);
    assert.ok(lines.filter((l) => l.noise).every((l) => l.kind === 'glog' && !l.text.includes(ESC)));
  });
}

test('a colour reset at the start of the next line leaves that program line intact and uncoloured', () => {
  const input =
    `${ESC}[0;33mW20250710 21:33:25.713947 140172743004992 simple_timer.cpp:55] [rocprofv3] tool initialization :: 0.1 sec\n` +
    `${ESC}[mresult: 42 ${ESC}[1mOK${ESC}[0m\n`;
  const lines = classifyAll(input);
  assert.deepEqual(
    lines.map((l) => [l.kind, l.noise, l.text]),
    [
      [
        'glog',
        true,
        'W20250710 21:33:25.713947 140172743004992 simple_timer.cpp:55] [rocprofv3] tool initialization :: 0.1 sec',
      ],
      ['program', false, 'result: 42 OK'],
    ],
  );
  assert.equal(lines[1]?.raw, `${ESC}[mresult: 42 ${ESC}[1mOK${ESC}[0m`);
});

test("program lines that only mention the profiler stay the program's", () => {
  for (const text of [
    'Loaded perfetto.cc:47304 from cache',
    'writing trace with perfetto',
    'using rocprofv3 --kernel-trace for this run',
    '[12.5] step 3 loss 0.25',
    '[1.234] epoch done',
    'RPL is the name of my library',
    ' RPL: indented is not the wrapper',
    'Warning: W is a letter',
    'W2025 was a good year',
    'E20250710 not a glog line',
    'ERROR: something in my program',
    '  kernel = my_kernel',
    '    HIP-trace(*)',
    '[rocprofv3x] not the wrapper',
    '',
  ]) {
    assert.equal(classifyLine(text), 'program', text);
  }
});

test('classifyLine recognises each profiler format', () => {
  const cases: Array<[string, string]> = [
    ['[320.801]       perfetto.cc:47304 Configured tracing session 1, #sources:1', 'perfetto'],
    ['[329.254] perfetto.cc:33197       Producer connected', 'perfetto'],
    ['[  3.104] tracing_muxer_impl.cc:1234 Tracing session ended', 'perfetto'],
    ['W20250710 21:33:25.713947 140172743004992 simple_timer.cpp:55] [rocprofv3] tool initialization', 'glog'],
    ['I20250709 16:41:02.836737 140032605917504 tmp_file.cpp:123] opening temporary file', 'glog'],
    ['E20250904 21:02:16.242980 139963295913728 output_stream.cpp:105] Opened result file: a.pftrace', 'glog'],
    ['W0710 21:33:25.713947  4242 tool.cpp:1] old glog without the year', 'glog'],
    [
      'F20250710 21:33:25.713947 140172743004992 tool.cpp:99] Check failed: status == ROCPROFILER_STATUS_SUCCESS',
      'fatal',
    ],
    ['[rocprofv3] Warning: --kernel-trace is implied', 'rocprofv3'],
    ['[rocprofv3] Fatal error: no application specified', 'fatal'],
    ['[rocprofv3] Error: output directory is not writable', 'fatal'],
    ["RPL: on '191018_011134' from '/opt/rocm/rocprofiler' in '/home/u'", 'legacy'],
    ['ROCProfiler: input from "/tmp/rpl_data_191018_011134_9695/input0.xml"', 'legacy'],
    ['ROCPRofiler: 1 contexts collected, output directory /tmp/rpl_data', 'legacy'],
    ['ROCtracer (517):', 'legacy'],
    ['ROCTracer (pid=4242): HIP-trace()', 'legacy'],
  ];
  for (const [text, kind] of cases) assert.equal(classifyLine(text), kind, text);
});

test('fatal profiler errors stay visible: kind fatal, not noise', () => {
  const lines = classifyAll(
    `${ESC}[0;31mF20250710 21:33:26.351912 1401 tool.cpp:99] Check failed: ok${ESC}[m\n[rocprofv3] Fatal error: bad option\n`,
  );
  assert.deepEqual(
    lines.map((l) => [l.kind, l.noise]),
    [
      ['fatal', false],
      ['fatal', false],
    ],
  );
});

test('legacy rocprof v1 blocks: header follow-up lines are noise, the program in between is not', () => {
  const log = [
    "RPL: on '191018_011134' from '/opt/rocprofiler_pkg' in '/home/u/MatrixTranspose'",
    'RPL: profiling \'"./MatrixTranspose"\'',
    "RPL: input file 'input.txt'",
    "RPL: output dir '/tmp/rpl_data_191018_011134_9695'",
    "ROCProfiler: rc-file '/opt/rpl_rc.xml'",
    'ROCProfiler: input from "/tmp/rpl_data_191018_011134_9695/input0.xml"',
    '  gpu_index =',
    '  kernel =',
    '  range =',
    '  4 metrics',
    '    L2CacheHit, VFetchInsts, VWriteInsts, MemUnitStalled',
    '  0 traces',
    'Device name Ellesmere [Radeon RX 470/480/570/570X/580/580X]',
    '    L2CacheHit, VFetchInsts',
    'ROCtracer (517):',
    '    HIP-trace(*)',
    'PASSED!',
    '  kernel = mine',
    'ROCPRofiler: 1 contexts collected, output directory /tmp/rpl_data_191018_011134_9695/input0_results',
    "RPL: '/home/u/MatrixTranspose/input.csv' is generated",
  ].join('\n');
  const program = classifyAll(log)
    .filter((l) => !l.noise)
    .map((l) => l.text);
  assert.deepEqual(program, [
    'Device name Ellesmere [Radeon RX 470/480/570/570X/580/580X]',
    '    L2CacheHit, VFetchInsts',
    'PASSED!',
    '  kernel = mine',
  ]);
});

test('CRLF, lone CR and a CR/LF pair split across chunks', () => {
  const lines = classifyAll(['a\r\nb\r', '\nprogress 10%\rprogress 20%\r', 'done\n', 'tail']);
  assert.deepEqual(
    lines.map((l) => [l.text, l.eol]),
    [
      ['a', '\r\n'],
      ['b', '\r\n'],
      ['progress 10%', '\r'],
      ['progress 20%', '\r'],
      ['done', '\n'],
      ['tail', ''],
    ],
  );
  assert.deepEqual(
    classifyAll(['x\r', '\r', '\n']).map((l) => [l.text, l.eol]),
    [
      ['x', '\r'],
      ['', '\r\n'],
    ],
  );
  assert.deepEqual(
    classifyAll(['last\r']).map((l) => [l.text, l.eol]),
    [['last', '\r']],
  );
});

test('invalid UTF-8 never throws and multi-byte characters split across chunks survive', () => {
  const bad = classifyAll(
    Uint8Array.from([0x61, 0xff, 0xfe, 0x62, 0x0a, 0xc3, 0x0a, 0xed, 0xa0, 0x80, 0x0a, 0xe2, 0x82]),
  );
  assert.deepEqual(
    bad.map((l) => l.text),
    ['a\ufffd\ufffdb', '\ufffd', '\ufffd\ufffd\ufffd', '\ufffd'],
  );
  const text = 'héllo wörld → 日本語 🚀 done\n';
  const bytes = Buffer.from(text);
  const oneByteChunks = Array.from(bytes, (b) => Uint8Array.of(b));
  assert.deepEqual(
    classifyAll(oneByteChunks).map((l) => l.text),
    ['héllo wörld → 日本語 🚀 done'],
  );
});

test('an over-long line comes out in bounded pieces, cut on character boundaries, nothing lost', () => {
  const max = 1000;
  const body = `W20250328 22:43:59.475907 140180820113408 tool.cpp:930] Unable to find all counters in [${'CPC_ME1_BUSY, é🚀 '.repeat(700)}]`;
  const input = `${body}\nnext program line\n`;
  for (const chunks of [[input], splitRandomly(Buffer.from(input), rng(7), 333)]) {
    const lines = classifyAll(chunks, max);
    const pieces = lines.slice(0, -1);
    assert.ok(pieces.length > 10);
    assert.equal(pieces.map((l) => l.text).join(''), body);
    for (const [i, p] of pieces.entries()) {
      assert.ok(Buffer.byteLength(p.raw) <= max, `piece ${i} has ${Buffer.byteLength(p.raw)} bytes`);
      assert.ok(!p.raw.includes('\ufffd'));
      assert.equal(p.kind, 'glog');
      assert.equal(p.eol, i === pieces.length - 1 ? '\n' : '');
    }
    assert.deepEqual([lines.at(-1)?.text, lines.at(-1)?.kind], ['next program line', 'program']);
  }
});

test('a never-ending line is delivered while it streams, not held without bound', () => {
  const max = 64 * 1024;
  const lines: ClassifiedLine[] = [];
  const c = createLineClassifier({ onLine: (l) => lines.push(l), maxLineBytes: max });
  const chunk = new Uint8Array(256 * 1024).fill(0x78);
  for (let i = 0; i < 40; i++) c.feed(chunk); // 10 MiB, no newline
  const delivered = lines.reduce((n, l) => n + l.raw.length, 0);
  assert.ok(delivered >= 40 * chunk.length - max - chunk.length, `only ${delivered} bytes delivered before flush`);
  c.flush();
  assert.equal(
    lines.reduce((n, l) => n + l.raw.length, 0),
    40 * chunk.length,
  );
  assert.ok(lines.every((l) => l.raw.length <= max && l.kind === 'program'));
});

test('pieces are never cut inside an ANSI sequence', () => {
  const max = 64;
  const raw = `${`${ESC}[0;33mwarn${ESC}[m `.repeat(40)}end`;
  const lines = classifyAll(`${raw}\n`, max);
  assert.ok(lines.length > 3);
  assert.equal(lines.map((l) => l.raw).join(''), raw);
  assert.equal(lines.map((l) => l.text).join(''), stripAnsi(raw));
  assert.ok(lines.every((l) => !l.text.includes('[') && !l.text.includes(ESC)));
});

test('random chunk boundaries give the same lines as one-shot feeding, and raw + eol rebuilds the input', () => {
  const parts = [
    fixture('derived__rocprofv3-2025-07-rocpd-pass_stderr_ansi.txt').toString('utf8'),
    'step 1 ✓ loss=0.25 → ok 🚀\r\n',
    'progress 1%\rprogress 50%\rprogress 100%\r\n',
    fixture('compiled__stderr_lines_from_issues.txt').toString('utf8'),
    `[rocprofv3] Warning: ${'x'.repeat(3000)}\n`,
    'ROCProfiler: input from "/tmp/in.xml"\n  gpu_index =\n  2 metrics\n    SQ_WAVES, GRBM_COUNT\n  0 traces\nPASSED!\n',
    fixture('derived__rocprofv3-2025-03-csv-pass_stderr_ansi.txt').toString('utf8'),
    `long ${'日本語'.repeat(800)} line\n`,
    'no newline at the end',
  ];
  const text = parts.join('');
  const bytes = Buffer.from(text);
  const withInvalid = Buffer.concat([
    bytes.subarray(0, 500),
    Buffer.from([0xf0, 0x9f, 0x0a, 0xc0, 0xaf]),
    bytes.subarray(500),
  ]);
  for (const max of [1024 * 1024, 1000, 17]) {
    const valid = classifyAll(bytes, max);
    assert.equal(valid.map((l) => l.raw + l.eol).join(''), text);
    assert.deepEqual(classifyAll(text, max), valid);
    for (const input of [bytes, withInvalid]) {
      const expected = classifyAll(input, max);
      const next = rng(max);
      for (let round = 0; round < 25; round++) {
        const chunks = splitRandomly(input, next, 1 + Math.floor(next() * 700));
        assert.deepEqual(classifyAll(chunks, max), expected, `max ${max} round ${round}`);
      }
    }
  }
});

test('random byte soup decodes exactly as one whole TextDecoder pass, however it is chunked', () => {
  const next = rng(2024);
  const pool = [
    0x0a, 0x0d, 0x1b, 0x41, 0x80, 0x9f, 0xa0, 0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff,
  ];
  for (let round = 0; round < 30; round++) {
    const soup = Uint8Array.from({ length: 4000 }, () =>
      next() < 0.5 ? (pool[Math.floor(next() * pool.length)] as number) : Math.floor(next() * 256),
    );
    const whole = new TextDecoder('utf-8', { ignoreBOM: true }).decode(soup);
    const oneShot = classifyAll(soup);
    assert.equal(oneShot.map((l) => l.raw + l.eol).join(''), whole);
    assert.deepEqual(classifyAll(splitRandomly(soup, next, 1 + Math.floor(next() * 9))), oneShot, `round ${round}`);
  }
});

test('reset forgets a partial line; flush starts afresh', () => {
  const lines: ClassifiedLine[] = [];
  const c = createLineClassifier({ onLine: (l) => lines.push(l) });
  c.feed('half a li');
  c.feed(Uint8Array.of(0xc3));
  c.reset();
  c.feed('whole\n');
  c.feed('ROCProfiler: input from "x"\n');
  c.flush();
  c.feed('  kernel =\n');
  c.flush();
  assert.deepEqual(
    lines.map((l) => [l.text, l.kind]),
    [
      ['whole', 'program'],
      ['ROCProfiler: input from "x"', 'legacy'],
      ['  kernel =', 'program'],
    ],
  );
});

test('maxLineBytes is checked', () => {
  assert.throws(() => createLineClassifier({ onLine: () => {}, maxLineBytes: 3 }), RangeError);
  assert.throws(() => createLineClassifier({ onLine: () => {}, maxLineBytes: 1.5 }), RangeError);
});

// rocprofv3.py's warn_deprecated_output_formats (ROCm/rocm-systems PR #9870), word for word, as
// `warning()` writes it: one line with the wrapper prefix.
const DEPRECATION_WARNING =
  '[rocprofv3] Warning: The following direct rocprofv3 output format(s) are deprecated: CSV, PFTrace (Perfetto). ' +
  'Some tracing features, including hipFILE, rocSHMEM, and HIP event tracing, might not produce output in these formats. ' +
  'Use `--output-format rocpd` (the default), then run `rocpd convert -i <database>.db --output-format csv` when CSV output is needed.';

test('the rocprofv3 deprecation warning for direct CSV/PFTrace output is noise; the program quoting it is not', () => {
  const log = [
    DEPRECATION_WARNING,
    '[rocprofv3] Warning: --stats has no effect for the requested output format(s) pftrace; add `--output-format rocpd` and use `rocpd summary -i <database>.db` to generate statistics from the rocpd database. Direct csv and json output also support --stats.',
    'benchmark 0: m: 1024',
    DEPRECATION_WARNING.slice('[rocprofv3] Warning: '.length),
    `note: ${DEPRECATION_WARNING}`,
    'Warning: The following direct output format(s) are deprecated: CSV',
  ].join('\n');
  const lines = classifyAll(`${ESC}[0;33m${log.split('\n')[0]}${ESC}[m\n${log.split('\n').slice(1).join('\n')}\n`);
  assert.deepEqual(
    lines.map((l) => [l.kind, l.noise]),
    [
      ['rocprofv3', true],
      ['rocprofv3', true],
      ['program', false],
      ['program', false],
      ['program', false],
      ['program', false],
    ],
  );
});

test("legacy rocprof v1 progress lines are noise in their exact forms, look-alikes stay the program's", () => {
  const noise = [
    "File '/home/u/app/results.csv' is generating",
    "File '/home/u/app/results_mcopy.csv' is generating",
    'scan ops data 100:2345' + ' '.repeat(100),
    'scan HIP API data 0:17' + ' '.repeat(100),
    'WARNING: We are phasing out development and support for roctracer/rocprofiler/rocprof/rocprofv2 in favor of rocprofiler-sdk/rocprofv3 in upcoming ROCm releases.',
    "ROCProfiler pid(4242): rc-file '/opt/rocm/lib/rocprofiler/rpl_rc.xml'",
    '  gpu_index = 0,1',
    '  gpu_index =',
  ];
  for (const text of noise) assert.equal(classifyLine(text), 'legacy', text);
  for (const text of [
    "File 'results.csv' is generated",
    "File 'results.csv' is generating now",
    "Reading File 'x' is generating",
    'scan ops data',
    'scanning ops data 1:2',
    'WARNING: We are phasing out our own API',
    'gpu_index = 0',
    '   gpu_index = 0',
    '  gpu_index: 0',
    '  4 metrics',
    '  kernel = my_kernel',
    '  range = 1:4',
    'kernel = gemm',
  ]) {
    assert.equal(classifyLine(text), 'program', text);
  }
});

test('a v1 input block whose header was lost still hides from its gpu_index line on; the program after it stays', () => {
  const log = [
    'Finished allocating vectors on the CPU',
    '  gpu_index =',
    '  kernel = vector_add',
    '  range =',
    '  2 metrics',
    '    GPUBusy, Wavefronts',
    '  0 traces',
    'vcopy testing on GCD 0',
    '  kernel = vector_add',
    '  4 metrics',
    "File '/work/app/results.csv' is generating",
    'PASSED!',
  ].join('\n');
  const program = classifyAll(`${log}\n`)
    .filter((l) => !l.noise)
    .map((l) => l.text);
  assert.deepEqual(program, [
    'Finished allocating vectors on the CPU',
    'vcopy testing on GCD 0',
    '  kernel = vector_add',
    '  4 metrics',
    'PASSED!',
  ]);
});
