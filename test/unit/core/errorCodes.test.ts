// Every error code is explained, in one place (src/core/errors.ts), as fastify's error-docs test holds every code of
// its errors module to a documented entry: each code the source uses has an explanation there, the table lists no
// code nothing uses, every error class of src/ stands on the one base and sets its own name, and no error is
// classified twice (explain() and the exit code follow from the table).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ERROR_CODES,
  KernelRunnerError,
  errorMessage,
  exitCodeFor,
  explainCode,
  type ErrorCode,
} from '../../../src/core/errors';
import { explain } from '../../../src/core/submission/explain';
import { TraceInputError } from '../../../src/trace/errors';
import { QueueFullError } from '../../../src/runner/jobs';
import { RunnerClientError } from '../../../src/core/client/errors';
import { GpuModeError } from '../../../src/core/gpumode/errors';
import { submissionError } from '../../../src/core/submission/explain';
import { CliExit } from '../../../src/cli/exit';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const TABLE = 'src/core/errors.ts';

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sources(p));
    else if (name.endsWith('.ts')) out.push(p);
  }
  return out;
}

const files = sources(path.join(repo, 'src')).map((file) => ({
  file: path.relative(repo, file),
  text: readFileSync(file, 'utf8'),
}));
const codes = Object.keys(ERROR_CODES) as ErrorCode[];

test('every code has an explanation: a kind and one sentence', () => {
  assert.ok(codes.length >= 40, `only ${codes.length} codes`);
  for (const code of codes) {
    const info = explainCode(code);
    assert.match(code, /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$/, `${code}: codes are UPPER_SNAKE with a layer prefix`);
    assert.ok(info.explanation.length >= 20, `${code} has no real explanation`);
    assert.match(info.explanation, /\.$/, `${code}: the explanation is a sentence`);
    assert.ok(exitCodeFor(info) > 0, `${code}: no exit code`);
  }
});

test('every code used in src/ is in the table, and the table lists none that nothing uses', () => {
  const literal = /'([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)'/g;
  const used = new Set<string>();
  for (const { file, text } of files) {
    if (file === TABLE) continue;
    // a code is what a class's `code` is set to, or a value of a type-to-code map (Record<..., XErrorCode>)
    for (const m of text.matchAll(/\bcode(?::\s*\w+)?\s*=\s*'([A-Z][A-Z0-9_]+)'/g)) used.add(m[1] as string);
    for (const m of text.matchAll(/Record<\w+, \w*ErrorCode> = \{([^}]*)\}/g))
      for (const c of (m[1] as string).matchAll(literal)) used.add(c[1] as string);
    for (const m of text.matchAll(/get code\(\)[^{]*\{\s*return '([A-Z][A-Z0-9_]+)'/g)) used.add(m[1] as string);
  }
  const unknown = [...used].filter((c) => !(c in ERROR_CODES));
  assert.deepEqual(unknown, [], 'codes used in src/ without an entry in src/core/errors.ts');
  const unused = codes.filter((c) => !used.has(c));
  assert.deepEqual(unused, [], 'codes in src/core/errors.ts that no error class sets');
});

test('every error class of src/ stands on KernelRunnerError and sets its own name', () => {
  const parents = new Map<string, { parent: string; file: string; body: string }>();
  for (const { file, text } of files) {
    for (const m of text.matchAll(/class (\w+) extends (\w+)[^{]*\{([^]*?)\n\}/g))
      parents.set(m[1] as string, { parent: m[2] as string, file, body: m[3] as string });
  }
  const isError = (name: string): boolean =>
    name === 'Error' || (parents.has(name) && isError(parents.get(name)!.parent));
  const onBase = (name: string): boolean =>
    name === 'KernelRunnerError' || (parents.has(name) && onBase(parents.get(name)!.parent));
  const errors = [...parents.keys()].filter((name) => name !== 'KernelRunnerError' && isError(name));
  assert.ok(errors.length >= 28, `found only ${errors.length} error classes`);
  for (const name of errors) {
    const { file, body } = parents.get(name)!;
    assert.ok(onBase(name), `${file}: ${name} does not extend KernelRunnerError`);
    assert.match(
      body,
      new RegExp(String.raw`readonly name(: string)? = '${name}'`),
      `${file}: ${name} does not set its name`,
    );
  }
});

test('instances carry name, code and cause', () => {
  const cause = new Error('socket hang up');
  const client = new RunnerClientError('network', 'Cannot reach the runner', {
    method: 'get',
    url: 'http://127.0.0.1:1/health',
    code: 'ECONNREFUSED',
    cause,
  });
  assert.equal(client.name, 'RunnerClientError');
  assert.equal(client.code, 'CLIENT_NETWORK');
  assert.equal(client.systemCode, 'ECONNREFUSED');
  assert.equal(client.cause, cause);
  assert.ok(client instanceof KernelRunnerError);
  const upstream = new GpuModeError('rate-limited', 'slow down');
  assert.equal(upstream.code, 'GPUMODE_RATE_LIMITED');
  assert.equal(upstream.cause, undefined);
  const input = new TraceInputError('nothing to read in /tmp/x', '/tmp/x');
  assert.deepEqual(
    [input.name, input.code, input.message],
    ['TraceInputError', 'TRACE_INPUT', 'nothing to read in /tmp/x'],
  );
  assert.deepEqual(
    [new QueueFullError('full').name, new QueueFullError('full').code],
    ['QueueFullError', 'RUNNER_QUEUE_FULL'],
  );
  assert.deepEqual(
    [submissionError('no-gpu', 'no MI300').code, new CliExit('bad flag', 2).exitCode],
    ['SUBMISSION_NO_GPU', 2],
  );
});

test('explain() reads an error of ours from its code; the exit code follows from the explanation', () => {
  const ctx = { surface: 'cli' as const, service: 'kernel-runner' as const };
  const queue = explain(new QueueFullError('the queue is full (64 jobs)'), ctx);
  assert.deepEqual(queue, { kind: 'rate-limited', message: 'the queue is full (64 jobs)', actions: [] });
  assert.equal(exitCodeFor(queue), 1);
  const input = explain(new TraceInputError('nothing to read', '/x'), ctx);
  assert.equal(input.kind, 'usage');
  assert.equal(exitCodeFor(input), 2);
  const unknown = explain(new RangeError('boom'), ctx);
  assert.deepEqual(unknown, { kind: 'internal', message: 'boom', actions: [] });
  assert.equal(exitCodeFor(unknown), 1);
  assert.equal(exitCodeFor({ kind: 'cancelled' }), 130);
  assert.equal(exitCodeFor({ kind: 'rejected' }), 1);
  assert.equal(exitCodeFor({ kind: 'rejected', problems: ['a.py:1: stream'] }), 2);
  assert.equal(exitCodeFor({ kind: 'no-identity' }), 2);
});

test('errorMessage: an Error by its message, anything else as text', () => {
  assert.equal(errorMessage(new Error('disk full')), 'disk full');
  assert.equal(errorMessage('plain'), 'plain');
  assert.equal(errorMessage(42), '42');
  assert.equal(errorMessage(undefined), 'undefined');
});
