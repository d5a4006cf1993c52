// Issue 27 item 5: a PC-sample file a hostile job wrote (every sample a new instruction, line and stall reason; a
// field of 1 MiB of doubled quotes) is summarised in bounded memory: each kernel keeps its hottest lines and
// instructions and counts the rest under "(other lines)" / "(other instructions)", long fields are cut, and every
// sample is still counted. Ordinary files are far inside the limits (the fixture tests of pcSampling.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { hotspotsPath } from '../../../src/trace/pcSampling/hotspots';
import { MAX_SITES_PER_KERNEL } from '../../../src/trace/pcSampling/aggregate';
import { MAX_PC_TEXT_BYTES, MAX_SCAN_SITES } from '../../../src/trace/pcSampling/sampleTally';
import { MAX_TALLY_NAMES } from '../../../src/trace/pcSampling/names';
import { tempDirsRemovedAfter } from '../../support/tempDirs';
import { writeDistinctPcSamples, writeQuotedFieldPcSample } from '../../support/hostileProfiles';

const tempDir = tempDirsRemovedAfter('kr-pcs-bounded-');

test('200,000 samples, each a distinct instruction, line and stall reason: folded per kernel, every sample counted', async () => {
  const dir = tempDir('distinct');
  const n = 200_000;
  await writeDistinctPcSamples(dir, n);
  const hot = await hotspotsPath(dir, { top: 5 });
  assert.equal(hot.samples, n);
  const k = hot.kernels[0];
  assert.ok(k);
  assert.equal(k.samples, n);
  assert.ok(k.linesTotal <= MAX_SITES_PER_KERNEL, `lines kept: ${k.linesTotal}`);
  assert.ok(k.instructionsTotal <= MAX_SITES_PER_KERNEL, `instructions kept: ${k.instructionsTotal}`);
  // the folded entries hold the rest: the hottest line is "(other lines)", with most samples
  assert.equal(k.lines[0]?.file, '(other lines)');
  assert.ok((k.lines[0]?.samples ?? 0) > n / 2);
  assert.equal(k.instructions[0]?.text, '(other instructions)');
  assert.ok(Object.keys(k.stalls).length <= MAX_TALLY_NAMES + 1);
  assert.ok((k.stalls['(other)'] ?? 0) > n / 2, 'stall reasons past the cap folded');
  const warnings = hot.warnings.join('\n');
  assert.match(warnings, new RegExp(`more than ${MAX_SITES_PER_KERNEL} distinct sampled lines and instructions`));
  assert.match(warnings, new RegExp(`more than ${MAX_SCAN_SITES} distinct instructions and lines`));
});

test('hot lines among a flood of distinct ones are kept with their exact counts', async () => {
  const dir = tempDir('hot');
  const file = path.join(dir, '1_pc_sampling_host_trap.csv');
  const out = ['"Sample_Timestamp","Exec_Mask","Dispatch_Id","Instruction","Instruction_Comment","Correlation_Id"'];
  const cold = 3 * MAX_SITES_PER_KERNEL;
  for (let i = 0; i < cold; i++) {
    out.push(`1,1,1,"s_nop ${i}","cold.hip:${i + 1}",1`);
    out.push(`1,1,1,"v_add_f32 v1, v2, v3","hot.hip:${1 + (i % 3)}",1`);
  }
  writeFileSync(file, `${out.join('\n')}\n`);
  const hot = await hotspotsPath(file, { top: 4 });
  const k = hot.kernels[0];
  assert.ok(k);
  assert.equal(k.samples, 2 * cold);
  const hotLines = k.lines.filter((l) => l.file === 'hot.hip');
  assert.deepEqual(
    hotLines.map((l) => [l.line, l.samples]),
    [
      [1, cold / 3],
      [2, cold / 3],
      [3, cold / 3],
    ],
  );
});

test('a field of 1 MiB of doubled quotes is cut to its first bytes, with a warning', async () => {
  const dir = tempDir('quoted');
  await writeQuotedFieldPcSample(dir, 1 << 20);
  const hot = await hotspotsPath(dir);
  assert.equal(hot.samples, 1);
  const text = hot.kernels[0]?.instructions[0]?.text ?? '';
  assert.ok(text.length <= MAX_PC_TEXT_BYTES + 1, `instruction text kept: ${text.length} chars`);
  assert.ok(text.startsWith('"'.repeat(100)));
  assert.match(hot.warnings.join('\n'), new RegExp(`1 text field\\(s\\) longer than ${MAX_PC_TEXT_BYTES} bytes`));
});
