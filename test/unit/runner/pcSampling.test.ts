// Profile mode's PC-sampling request: the form fields the runner takes (core/profileOptions.ts), checked as
// rocprofv3 and the MI300 require (docs/pc-sampling.md), the rocprofv3 switches they become, hipcc's line-info flag,
// and the form fields written by our multipart writer read back by busboy (the runner's parser).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import busboy from 'busboy';
import { lineInfoEnv, pcSamplingArgs } from '../../../src/runner/pcSampling';
import { multipartFile } from '../../../src/core/client/multipart';
import {
  ProfileOptionError,
  profileFormFields,
  profileOptionsFromForm,
  type ProfileOptions,
} from '../../../src/core/profileOptions';

/** The PC-sampling part of a form's profile options (core/profileOptions.ts), as the runner reads it; null: none. */
function parsePcSampling(fields: Record<string, string>): { method: string; unit: string; interval: number } | null {
  const o: ProfileOptions = profileOptionsFromForm(fields);
  if (o.pcSampling === undefined) return null;
  return {
    method: o.pcSampling,
    unit: o.pcSampling === 'host_trap' ? 'time' : 'cycles',
    interval: o.pcSamplingInterval as number,
  };
}

test('valid requests: defaults per method, units, powers of two for stochastic', () => {
  assert.equal(parsePcSampling({}), null);
  assert.equal(parsePcSampling({ pc_sampling: 'off' }), null);
  assert.deepEqual(parsePcSampling({ pc_sampling: 'host_trap' }), { method: 'host_trap', unit: 'time', interval: 1 });
  assert.deepEqual(
    parsePcSampling({ pc_sampling: 'HOST-TRAP', pc_sampling_interval: '100', pc_sampling_unit: 'time' }),
    { method: 'host_trap', unit: 'time', interval: 100 },
  );
  assert.deepEqual(parsePcSampling({ pc_sampling: 'stochastic' }), {
    method: 'stochastic',
    unit: 'cycles',
    interval: 1048576,
  });
  for (const n of [256, 512, 65536, 2 ** 31])
    assert.equal(parsePcSampling({ pc_sampling: 'stochastic', pc_sampling_interval: String(n) })?.interval, n);
  assert.equal(parsePcSampling({ pc_sampling: 'stochastic', pc_sampling_unit: 'cycle' })?.unit, 'cycles');
});

test('invalid requests: each refused with what to send instead', () => {
  const refused: Array<[Record<string, string>, RegExp]> = [
    [{ pc_sampling: 'stochastic', pc_sampling_interval: '255' }, /power of two from 256 to 2147483648/],
    [{ pc_sampling: 'stochastic', pc_sampling_interval: '768' }, /power of two/],
    [{ pc_sampling: 'stochastic', pc_sampling_interval: String(2 ** 32) }, /power of two/],
    [{ pc_sampling: 'stochastic', pc_sampling_unit: 'instructions' }, /in cycles on MI300/],
    [{ pc_sampling: 'host_trap', pc_sampling_unit: 'cycles' }, /in time on MI300/],
    [{ pc_sampling: 'host_trap', pc_sampling_interval: '0' }, /whole number >= 1/],
    [{ pc_sampling: 'host_trap', pc_sampling_interval: '1.5' }, /whole number >= 1/],
    [{ pc_sampling: 'host_trap', pc_sampling_interval: '99999999999' }, /whole number >= 1/],
    [{ pc_sampling: 'yes' }, /off, host_trap or stochastic/],
    [{ pc_sampling: 'off', pc_sampling_interval: '1' }, /need pc_sampling=host_trap or stochastic/],
  ];
  for (const [fields, message] of refused) {
    assert.throws(
      () => parsePcSampling(fields),
      (e: unknown) => e instanceof ProfileOptionError && message.test(e.message),
      JSON.stringify(fields),
    );
  }
});

test('rocprofv3 switches and hipcc line info', () => {
  assert.deepEqual(pcSamplingArgs({ method: 'stochastic', interval: 4096 }), [
    '--pc-sampling-beta-enabled',
    '--pc-sampling-method',
    'stochastic',
    '--pc-sampling-unit',
    'cycles',
    '--pc-sampling-interval',
    '4096',
  ]);
  assert.deepEqual(lineInfoEnv({}), { HIPCC_COMPILE_FLAGS_APPEND: '-gline-tables-only' });
  assert.deepEqual(lineInfoEnv({ HIPCC_COMPILE_FLAGS_APPEND: '-Wall' }), {
    HIPCC_COMPILE_FLAGS_APPEND: '-Wall -gline-tables-only',
  });
  assert.deepEqual(lineInfoEnv({ HIPCC_COMPILE_FLAGS_APPEND: '-O3 -g' }), {}, 'already asked for debug info');
});

test('form fields beside the file, read back by busboy', async () => {
  const { body, contentType } = multipartFile(
    'file',
    'k.py',
    'print(1)\n',
    profileFormFields({ pcSampling: 'stochastic', pcSamplingInterval: 512 }),
  );
  const fields: Record<string, string> = {};
  let file = '';
  await new Promise<void>((resolve, reject) => {
    const bb = busboy({ headers: { 'content-type': contentType } });
    bb.on('field', (name, value) => (fields[name] = value));
    bb.on('file', (_name, stream) => stream.on('data', (c: Buffer) => (file += c.toString())));
    bb.on('error', reject);
    bb.on('close', () => resolve());
    bb.end(body);
  });
  assert.deepEqual(fields, { pc_sampling: 'stochastic', pc_sampling_interval: '512' });
  assert.equal(file, 'print(1)\n');
});
