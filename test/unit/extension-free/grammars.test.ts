// Tokenises real text with vscode-textmate + oniguruma and our grammars on top of VS Code's own C++ and Python
// grammars (taken from the VS Code server that scripts/setup-vscode-test.sh installs; without it this file skips
// outside CI and fails under CI=true, like the VS Code suites).
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import oniguruma from 'vscode-oniguruma';
import textmate from 'vscode-textmate';

const repo = join(import.meta.dirname, '../../..');
const require = createRequire(import.meta.url);

function vscodeExtensionsDir(): string | undefined {
  const toolsDir = process.env.KR_TOOLS_DIR || join(homedir(), '.cache/kernel-runner-test-tools');
  let server = process.env.KR_VSCODE_SERVER;
  const envFile = join(toolsDir, 'tools.env');
  if (!server && existsSync(envFile)) server = /^KR_VSCODE_SERVER=(.*)$/m.exec(readFileSync(envFile, 'utf8'))?.[1];
  if (!server) return undefined;
  const dir = join(server, '../../extensions');
  return existsSync(join(dir, 'cpp/syntaxes/cpp.tmLanguage.json')) ? dir : undefined;
}

const extDir = vscodeExtensionsDir();
const ci = process.env.CI === 'true' || process.env.CI === '1';
const skip = !extDir && !ci ? 'VS Code grammars not installed (bash scripts/setup-vscode-test.sh)' : false;

type Line = { text: string; scopes: string[] }[];
let registry: InstanceType<typeof textmate.Registry>;

async function tokenize(scope: string, text: string): Promise<Line[]> {
  const grammar = await registry.loadGrammar(scope);
  assert.ok(grammar, `grammar ${scope}`);
  let stack = textmate.INITIAL;
  const out: Line[] = [];
  for (const line of text.split('\n')) {
    const r = grammar.tokenizeLine(line, stack);
    out.push(r.tokens.map((t) => ({ text: line.slice(t.startIndex, t.endIndex), scopes: t.scopes })));
    stack = r.ruleStack;
  }
  return out;
}

/** Scopes of the first token whose text equals `text` (searching all lines). */
function scopesOf(lines: Line[], text: string, nth = 0): string[] {
  const hits = lines.flat().filter((t) => t.text === text || t.text.trim() === text);
  const hit = hits[nth];
  assert.ok(hit, `no token "${text}" (#${nth})`);
  return hit.scopes;
}

const has = (scopes: string[], prefix: string) => scopes.some((s) => s.startsWith(prefix));

describe('grammars', { skip }, () => {
  before(async () => {
    if (!extDir) throw new Error('VS Code grammars missing under CI: run scripts/setup-vscode-test.sh first');
    const wasm = readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
    await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) as ArrayBuffer);
    const files: Record<string, string> = {
      'source.cpp': join(extDir, 'cpp/syntaxes/cpp.tmLanguage.json'),
      'source.cpp.embedded.macro': join(extDir, 'cpp/syntaxes/cpp.embedded.macro.tmLanguage.json'),
      'source.c': join(extDir, 'cpp/syntaxes/c.tmLanguage.json'),
      'source.c.platform': join(extDir, 'cpp/syntaxes/platform.tmLanguage.json'),
      'source.python': join(extDir, 'python/syntaxes/MagicPython.tmLanguage.json'),
      'source.regexp.python': join(extDir, 'python/syntaxes/MagicRegExp.tmLanguage.json'),
      'source.hip': join(repo, 'syntaxes/hip.tmLanguage.json'),
      'source.python.load-inline': join(repo, 'syntaxes/load-inline.injection.tmLanguage.json'),
      'source.hip.embedded-builtins': join(repo, 'syntaxes/hip-embedded.injection.tmLanguage.json'),
      'text.log.kernel-runner': join(repo, 'syntaxes/kernel-runner-log.tmLanguage.json'),
    };
    registry = new textmate.Registry({
      onigLib: Promise.resolve({
        createOnigScanner: (p: string[]) => new oniguruma.OnigScanner(p),
        createOnigString: (s: string) => new oniguruma.OnigString(s),
      }),
      loadGrammar: async (scope) => {
        const f = files[scope];
        return f ? textmate.parseRawGrammar(readFileSync(f, 'utf8'), f) : null;
      },
      getInjections: (scope) =>
        scope === 'source.python' ? ['source.python.load-inline', 'source.hip.embedded-builtins'] : undefined,
    });
  });

  it('HIP: qualifiers, built-ins and launches on top of C++, also inside function bodies', async () => {
    const lines = await tokenize(
      'source.hip',
      readFileSync(join(repo, 'test/vscode/workspace/vector_add.hip'), 'utf8'),
    );
    assert.ok(has(scopesOf(lines, '__global__'), 'storage.modifier.hip'));
    assert.ok(has(scopesOf(lines, '__launch_bounds__'), 'storage.modifier.hip'));
    assert.ok(has(scopesOf(lines, '__shared__'), 'storage.modifier.hip'), '__shared__ inside a body');
    assert.ok(has(scopesOf(lines, 'blockIdx'), 'variable.language.hip'));
    assert.ok(has(scopesOf(lines, '__syncthreads'), 'support.function.device.hip'));
    assert.ok(has(scopesOf(lines, 'hipLaunchKernelGGL'), 'support.function.launch.hip'));
    assert.ok(has(scopesOf(lines, 'hipMalloc'), 'support.function.api.hip'));
    assert.ok(has(scopesOf(lines, '<<<'), 'punctuation.section.kernel-launch.begin.hip'));
    assert.ok(has(scopesOf(lines, '>>>'), 'punctuation.section.kernel-launch.end.hip'));
    assert.ok(has(scopesOf(lines, 'vector_add', 1), 'entity.name.function.kernel.hip'), 'the launched kernel name');
    // still C++: comments stay comments, keywords stay keywords, HIP words in comments are not highlighted
    const comment = lines[1]!.find((t) => t.text.includes('__global__'));
    assert.ok(comment && has(comment.scopes, 'comment'), 'a commented-out __global__ stays a comment');
    assert.ok(!has(comment.scopes, 'storage.modifier.hip'));
    assert.ok(has(scopesOf(lines, 'return'), 'keyword.control'));
    // the statement after a launch is tokenised normally again (the launch closed)
    const after = lines.find((l) => l.some((t) => t.text === 'hipLaunchKernelGGL'));
    assert.ok(after && !after.some((t) => has(t.scopes, 'meta.kernel-launch.hip')));
  });

  it('Python: load_inline sources are highlighted as HIP/C++, ordinary strings are not', async () => {
    const lines = await tokenize(
      'source.python',
      readFileSync(join(repo, 'test/vscode/workspace/load_inline_submission.py'), 'utf8'),
    );
    const global = scopesOf(lines, '__global__');
    assert.ok(has(global, 'meta.embedded.block.hip'), global.join(' '));
    assert.ok(has(global, 'storage.modifier.hip'));
    assert.ok(has(scopesOf(lines, 'blockIdx'), 'variable.language.hip'));
    assert.ok(has(scopesOf(lines, '<<<'), 'punctuation.section.kernel-launch.begin.hip'));
    // after the source string, Python is Python again
    assert.ok(has(scopesOf(lines, 'def'), 'storage.type.function.python'));
    assert.ok(!has(scopesOf(lines, 'def'), 'meta.embedded'));
    // a string inside the load_inline(...) call is C++ too; the call's other arguments stay Python
    const inCall = await tokenize(
      'source.python',
      'm = load_inline(name="x", cpp_sources="__global__ void k();", functions=["k"])\nprint("__global__")\n',
    );
    assert.ok(has(scopesOf(inCall, '__global__'), 'meta.embedded.line.hip'));
    const printed = inCall[1]!.find((t) => t.text.includes('__global__'));
    assert.ok(
      printed && !printed.scopes.some((s) => s.includes('hip')),
      'a string outside the call stays a Python string',
    );
  });

  it('run log: headers, verdicts, benchmark numbers, noise and tracebacks', async () => {
    const text = [
      '━━ Run vector_add.hip · script/CPU · test · embedded runner',
      '▸ queued #2',
      'check: pass',
      '  ✔ test 0  size: 128  pass',
      '  ✘ test 1  size: 256  fail: mismatch at 3',
      '  ◷ benchmark 0  size: 1024  mean 12.3 µs ± 0.10 µs  best 12.0 µs',
      '· [320.801]       perfetto.cc:47304 Configured tracing session 1',
      'Traceback (most recent call last):',
      '  File "submission.py", line 4, in custom_kernel',
      'ValueError: bad shape',
    ].join('\n');
    const lines = await tokenize('text.log.kernel-runner', text);
    assert.ok(has(lines[0]![0]!.scopes, 'markup.heading'));
    assert.ok(has(scopesOf(lines, 'pass'), 'markup.inserted'));
    assert.ok(lines[4]!.some((t) => has(t.scopes, 'invalid.illegal.fail')));
    assert.ok(has(scopesOf(lines, '12.3'), 'constant.numeric'));
    assert.ok(has(scopesOf(lines, 'µs'), 'keyword.other.unit'));
    assert.ok(lines[6]!.some((t) => has(t.scopes, 'comment.line.noise')));
    assert.ok(has(lines[7]![0]!.scopes, 'invalid.illegal.traceback'));
    assert.ok(has(scopesOf(lines, '"submission.py"'), 'string.quoted'));
    assert.ok(has(scopesOf(lines, 'ValueError'), 'invalid.illegal.exception'));
  });

  it("Kernel Runner log: the same colours after a run's tag, while several runs write", async () => {
    const text = [
      '[gemm.py · profile] ━━ Profile gemm.py · gemm on MI300 · profile · embedded runner',
      '[gemm.py · profile] ▸ queued #1 (waiting for a free device)',
      '[slow.py · test]   ✘ test 1  size: 256  fail: mismatch at 3',
      '[slow.py · test] tick 3',
    ].join('\n');
    const lines = await tokenize('text.log.kernel-runner', text);
    assert.ok(has(lines[0]![0]!.scopes, 'markup.heading'));
    assert.ok(lines[1]!.some((t) => has(t.scopes, 'comment.line.status')));
    assert.ok(lines[2]!.some((t) => has(t.scopes, 'invalid.illegal.fail')));
    assert.ok(!lines[3]!.some((t) => t.scopes.length > 1), 'a program line after its tag stays plain');
  });
});
