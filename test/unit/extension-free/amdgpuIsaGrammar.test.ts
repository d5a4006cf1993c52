// The AMDGPU ISA grammar (syntaxes/amdgpu-isa.tmLanguage.json) on real llvm-objdump-19 output of the code objects
// clang-19 builds (test/support/codeObjects.ts), tokenised with vscode-textmate + oniguruma as VS Code does.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import oniguruma from 'vscode-oniguruma';
import textmate from 'vscode-textmate';
import { disassembleKernel, findObjdump, loadCodeObjectsPath } from '../../../src/trace/codeObjects/index';
import { builtCodeObjects, skipCodeObjects } from '../../support/codeObjects';

const repo = join(import.meta.dirname, '../../..');
const require = createRequire(import.meta.url);
const skip = skipCodeObjects();

type Token = { text: string; scopes: string[] };
let grammar: textmate.IGrammar;
let listing = '';

function tokenize(text: string): Token[][] {
  let stack = textmate.INITIAL;
  return text.split('\n').map((line) => {
    const r = grammar.tokenizeLine(line, stack);
    stack = r.ruleStack;
    return r.tokens.map((t) => ({ text: line.slice(t.startIndex, t.endIndex), scopes: t.scopes }));
  });
}

function scopeOf(lines: Token[][], text: string): string {
  const hit = lines.flat().find((t) => t.text.trim() === text);
  assert.ok(hit, `no token "${text}"`);
  return hit.scopes[hit.scopes.length - 1]!;
}

describe('AMDGPU ISA grammar', { skip }, () => {
  before(async () => {
    const wasm = readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
    await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) as ArrayBuffer);
    const file = join(repo, 'syntaxes/amdgpu-isa.tmLanguage.json');
    const registry = new textmate.Registry({
      onigLib: Promise.resolve({
        createOnigScanner: (p: string[]) => new oniguruma.OnigScanner(p),
        createOnigString: (s: string) => new oniguruma.OnigString(s),
      }),
      loadGrammar: async (scope) =>
        scope === 'source.amdgpu-isa' ? textmate.parseRawGrammar(readFileSync(file, 'utf8'), file) : null,
    });
    const g = await registry.loadGrammar('source.amdgpu-isa');
    assert.ok(g);
    grammar = g;
    const objdump = await findObjdump();
    assert.ok(objdump);
    const { objects } = await loadCodeObjectsPath(builtCodeObjects().opencl.gfx942.object);
    for (const kernel of ['lds_tile', 'uses_scratch']) {
      listing += await disassembleKernel({ objdump, bytes: objects[0]!.bytes, processor: 'gfx942', kernel });
    }
  });

  it('labels, mnemonics by unit, registers, counters, numbers and comments', () => {
    const lines = tokenize(`; lds_tile header line\n${listing}`);
    assert.equal(scopeOf(lines, '; lds_tile header line'), 'comment.line.semicolon.amdgpu-isa');
    assert.equal(scopeOf(lines, 'lds_tile'), 'entity.name.function.amdgpu-isa');
    assert.equal(scopeOf(lines, 's_load_dwordx4'), 'keyword.other.instruction.scalar.amdgpu-isa');
    assert.equal(scopeOf(lines, 's_waitcnt'), 'keyword.control.instruction.scalar.amdgpu-isa');
    assert.equal(scopeOf(lines, 's_endpgm'), 'keyword.control.instruction.scalar.amdgpu-isa');
    assert.equal(scopeOf(lines, 's_barrier'), 'keyword.control.instruction.scalar.amdgpu-isa');
    assert.equal(scopeOf(lines, 'v_mov_b32_e32'), 'keyword.other.instruction.vector.amdgpu-isa');
    const ds = lines.flat().find((t) => /^ds_(write|read)/.test(t.text.trim()));
    assert.ok(ds, 'an LDS instruction in lds_tile');
    assert.equal(ds.scopes.at(-1), 'keyword.other.instruction.lds.amdgpu-isa');
    const global = lines.flat().find((t) => /^global_(load|store)/.test(t.text.trim()));
    assert.equal(global?.scopes.at(-1), 'keyword.other.instruction.memory.amdgpu-isa');
    const scratch = lines.flat().find((t) => /^(scratch|buffer)_/.test(t.text.trim()));
    assert.equal(
      scratch?.scopes.at(-1),
      'keyword.other.instruction.memory.amdgpu-isa',
      'uses_scratch touches scratch memory',
    );
    assert.equal(scopeOf(lines, 's[0:1]'), 'variable.other.register.scalar.amdgpu-isa');
    assert.equal(scopeOf(lines, 'v0'), 'variable.other.register.vector.amdgpu-isa');
    assert.equal(scopeOf(lines, 'vcc'), 'variable.language.register.amdgpu-isa');
    assert.equal(scopeOf(lines, 'lgkmcnt'), 'support.function.counter.amdgpu-isa');
    assert.equal(scopeOf(lines, 'off'), 'storage.modifier.amdgpu-isa');
    assert.equal(scopeOf(lines, '0x1000'), 'constant.numeric.hex.amdgpu-isa');
    // the encoding comment is one comment token to the end of the line: its hex is not taken for numbers
    const encoding = lines.flat().find((t) => t.text.startsWith('// 0000'));
    assert.match(encoding?.text ?? '', /^\/\/ [0-9A-F]+: [0-9A-F]+( [0-9A-F]+)?$/);
    assert.equal(encoding?.scopes.at(-1), 'comment.line.double-slash.amdgpu-isa');
  });

  it('accumulator registers', () => {
    const lines = tokenize(
      '\tv_accvgpr_write_b32 a31, v8\n\tv_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[0:15]\n',
    );
    assert.equal(scopeOf(lines, 'a31'), 'variable.other.register.accumulator.amdgpu-isa');
    assert.equal(scopeOf(lines, 'a[0:15]'), 'variable.other.register.accumulator.amdgpu-isa');
    assert.equal(scopeOf(lines, 'v_mfma_f32_32x32x8_f16'), 'keyword.other.instruction.matrix.amdgpu-isa');
    assert.equal(scopeOf(lines, 'v_accvgpr_write_b32'), 'keyword.other.instruction.vector.amdgpu-isa');
  });
});
