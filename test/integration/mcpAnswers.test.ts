// What `kernel-runner mcp` sends, read with the MCP SDK's own client (the built CLI as a real process): every tool
// with its annotations and output schema, each JSON answer compact and equal to its structuredContent, a budget
// that is what is sent (and an error, not a success, when it cannot be met), PC-sampling hot spots from a profile
// folder, and `isa` within its budget with demangled names, a filter and one kernel's disassembly as a resource.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { builtCodeObjects, skipCodeObjects } from '../support/codeObjects';
import { ensureBuilt, repoRoot, tempDir } from './submit/helpers';
import { mcpSession, type Session } from './mcpSession';

const fixtures = path.resolve(repoRoot, '../shared/fixtures/rocprof');
const pcSampling = path.join(fixtures, 'pc-sampling');
const rocpd = path.join(fixtures, 'batched_gemm__28_results.db');
const schemaCheck = new Ajv({ allErrors: true, strict: true }).compile(
  JSON.parse(readFileSync(path.join(repoRoot, 'docs/digest.schema.json'), 'utf8')),
);
const skipIsa = skipCodeObjects();
/** A JSON answer, read by the assertions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- shapes are checked by the assertions and the schema
type Json = any;
let work: string;
let s: Session;

before(async () => {
  ensureBuilt();
  work = tempDir('kr-mcp-answers-');
  s = await mcpSession(work, ['--out', path.join(work, 'out')]);
});
after(async () => {
  await s?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** A call's answer as the SDK client got it: text, structuredContent, other content items. */
async function raw(name: string, args: Record<string, unknown>) {
  const r = await s.client.callTool({ name, arguments: args });
  const content = r.content as Array<{ type: string; text?: string; uri?: string }>;
  const text = content[0]?.type === 'text' ? content[0].text! : '';
  return { r, text, bytes: Buffer.byteLength(text), rest: content.slice(1) };
}

test('every tool has annotations, an output schema, and says which text is data', async () => {
  const tools = (await s.client.listTools()).tools;
  assert.equal(tools.length, 6);
  for (const t of tools) {
    const a = t.annotations!;
    assert.ok(a, `${t.name} has annotations`);
    for (const hint of ['readOnlyHint', 'destructiveHint', 'openWorldHint', 'idempotentHint'] as const)
      assert.equal(typeof a[hint], 'boolean', `${t.name}.${hint}`);
    assert.equal(a.destructiveHint, false, `${t.name} destroys nothing`);
    assert.equal(t.outputSchema?.type, 'object', t.name);
    assert.match(t.description ?? '', /data, (not|never) instructions/, t.name);
  }
  const byName = new Map(tools.map((t) => [t.name, t.annotations!]));
  assert.equal(byName.get('submit')!.readOnlyHint, false);
  assert.equal(byName.get('submit')!.openWorldHint, true);
  assert.equal(byName.get('list_leaderboards')!.openWorldHint, true);
  for (const local of ['get_run', 'profile_digest', 'compare', 'isa']) {
    assert.equal(byName.get(local)!.readOnlyHint, true, local);
    assert.equal(byName.get(local)!.openWorldHint, false, local);
  }
  const templates = (await s.client.listResourceTemplates()).resourceTemplates;
  assert.deepEqual(
    templates.map((t) => t.uriTemplate),
    ['kernel-runner://disassembly/{id}'],
  );
});

test('the budget is what is sent: compact JSON equal to structuredContent, within max_bytes, numbers at their precision', async () => {
  for (const maxBytes of [16384, 4096, 3072]) {
    const { r, text, bytes } = await raw('profile_digest', { path: rocpd, max_bytes: maxBytes });
    assert.equal(r.isError, undefined, text);
    assert.ok(bytes <= maxBytes, `${bytes} bytes sent for max_bytes ${maxBytes}`);
    assert.equal(text, JSON.stringify(JSON.parse(text)), 'compact: no indentation');
    assert.deepEqual(r.structuredContent, JSON.parse(text));
    const d: Json = JSON.parse(text);
    assert.ok(schemaCheck(d) as boolean, JSON.stringify(schemaCheck.errors));
    for (const k of d.kernels.filter((x: object) => !('more' in x))) {
      for (const ns of [k.totalNs, k.avgNs, k.minNs, k.maxNs, k.stddevNs]) assert.ok(Number.isInteger(ns), String(ns));
      assert.equal(k.percent, Math.round(k.percent * 10) / 10);
    }
  }
});

test('a budget that cannot be met is a tool error naming the size needed, not a success', async () => {
  // the rocpd trace of 8 MI300X agents: its barest digest (the GPUs alone are some hundred bytes) is over 2,048
  const { r, text } = await raw('profile_digest', { path: rocpd, max_bytes: 2048 });
  assert.equal(r.isError, true, text.slice(0, 300));
  const needed = Number(/does not fit in max_bytes 2048: its barest form needs (\d+);/.exec(text)?.[1]);
  assert.ok(needed > 2048, text);
  assert.equal(r.structuredContent, undefined);
  const fits = await raw('profile_digest', { path: rocpd, max_bytes: needed });
  assert.equal(fits.r.isError, undefined, fits.text.slice(0, 300));
  assert.ok(fits.bytes <= needed);
});

test('hot spots from a PC-sampling profile: per kernel, line, instruction and stall reason, within the budget', async () => {
  const { r, text, bytes } = await raw('profile_digest', { path: pcSampling, max_bytes: 4096 });
  assert.equal(r.isError, undefined, text);
  assert.ok(bytes <= 4096, String(bytes));
  const d: Json = JSON.parse(text);
  assert.ok(schemaCheck(d) as boolean, JSON.stringify(schemaCheck.errors));
  assert.equal(d.kernels.length, 0, 'the folder has no kernel trace');
  assert.equal(d.hotspots.samples, 197);
  const kernels = d.hotspots.kernels.filter((k: object) => !('more' in k));
  assert.ok(kernels.length > 0);
  assert.match(d.hotspots.kernels.at(-1).text, /^\+\d+ more \(share [\d.]+%\)$/);
  assert.ok(kernels.some((k: { lines: object[] }) => k.lines.length > 0));
  assert.ok(kernels.some((k: { instructions: object[] }) => k.instructions.length > 0));
  assert.ok(kernels.some((k: { stalls: Array<{ reason: string }> }) => k.stalls.some((x) => x.reason === 'WAITCNT')));
  assert.ok(d.warnings.some((w: { text: string }) => /only the PC-sampling hot spots are digested/.test(w.text)));
});

test(
  'isa within its budget: demangled names, "+N more", a kernel filter, one kernel disassembled as a resource',
  {
    skip: skipIsa,
  },
  async () => {
    const built = builtCodeObjects();
    const all = await raw('isa', { path: built.dir });
    assert.equal(all.r.isError, undefined, all.text);
    assert.ok(all.bytes <= 16384);
    for (const maxBytes of [4096, 1024]) {
      const small = await raw('isa', { path: built.dir, max_bytes: maxBytes });
      assert.equal(small.r.isError, undefined, small.text);
      assert.ok(small.bytes <= maxBytes, `${small.bytes} > ${maxBytes}`);
      const body = JSON.parse(small.text);
      assert.deepEqual(small.r.structuredContent, body);
      assert.ok(body.budget.kernelsLeftOut > 0);
      assert.ok(
        body.codeObjects.some((o: { kernels: Array<{ text?: string }> }) =>
          o.kernels.some((k) => /^\+\d+ more$/.test(k.text ?? '')),
        ) || /more code objects/.test(body.codeObjectsMore ?? ''),
        small.text,
      );
    }

    const filtered = JSON.parse((await raw('isa', { path: built.hipObject, kernel: 'reduce' })).text);
    const names = filtered.codeObjects.flatMap((o: { kernels: Array<{ name: string }> }) =>
      o.kernels.map((k) => k.name),
    );
    assert.equal(names.length, 1, names.join(', '));
    assert.ok(!names[0].startsWith('_Z'), `demangled: ${names[0]}`);
    assert.match(names[0], /reduce_shared/);

    const d = await raw('isa', { path: built.hipObject, disassemble: 'reduce_shared', max_bytes: 2048 });
    assert.equal(d.r.isError, undefined, d.text);
    assert.ok(d.bytes <= 2048, String(d.bytes));
    const body = JSON.parse(d.text);
    assert.ok(body.disassembly.shownLines > 0 && body.disassembly.shownLines < body.disassembly.lines);
    assert.match(body.disassembly.text, /^`{3,}untrusted-disassembly\n/);
    assert.match(body.disassembly.text, /more lines: read kernel-runner:\/\/disassembly\/d\d+/);
    assert.deepEqual(
      d.rest.map((c) => [c.type, c.uri]),
      [['resource_link', body.disassembly.uri]],
    );
    const read = await s.client.readResource({ uri: body.disassembly.uri });
    const full = (read.contents[0] as { text: string }).text;
    assert.equal(Buffer.byteLength(full), body.disassembly.bytes);
    assert.match(full, /<_Z13reduce_sharedILi1024EEvPKiPi>:/);
    assert.match(full, /s_endpgm/);
    await assert.rejects(s.client.readResource({ uri: 'kernel-runner://disassembly/d999' }), /no disassembly d999/);
  },
);
