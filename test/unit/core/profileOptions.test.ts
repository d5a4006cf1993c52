// Profile options as the runner, the CLI and the editor check them: presets, counter lists, kernel regex, case and
// launch window; hostile values are refused with a message naming the problem, never passed on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkProfileOptions,
  parseCounters,
  parseLaunchWindow,
  profileFormFields,
  profileOptionsFromForm,
  profileOptionsWhat,
  ProfileOptionError,
} from '../../../src/core/profileOptions';

test('counters: off, the presets, and lists of names (deduplicated, trimmed)', () => {
  assert.deepEqual(parseCounters('off'), { kind: 'off' });
  assert.deepEqual(parseCounters(''), { kind: 'off' });
  assert.deepEqual(parseCounters('roofline'), { kind: 'preset', preset: 'roofline' });
  assert.deepEqual(parseCounters(' Speed-Of-Light '), { kind: 'preset', preset: 'speed-of-light' });
  assert.deepEqual(parseCounters('SQ_WAVES, GRBM_COUNT,SQ_WAVES,TCC_HIT[3]'), {
    kind: 'list',
    counters: ['SQ_WAVES', 'GRBM_COUNT', 'TCC_HIT[3]'],
  });
  assert.deepEqual(parseCounters('GPUBusy'), { kind: 'list', counters: ['GPUBusy'] });
});

test('counters: an unknown preset and names with other characters are refused, saying why', () => {
  for (const [text, message] of [
    ['rooflin', /unknown counter preset "rooflin"/],
    ['speed_of_light', /unknown counter preset/],
    ['SQ_WAVES;rm -rf /', /counter name "SQ_WAVES;rm -rf \/" is not valid/],
    ['SQ_WAVES,--output-directory=/tmp', /counter name "--output-directory=\/tmp" is not valid/],
    ['SQ WAVES', /is not valid/],
    ['SQ_WAVES,,GRBM_COUNT', /empty counter name/],
    ['$(id)', /is not valid/],
    ['SQ_WAVES\nX', /is not valid/],
  ] as const) {
    assert.throws(
      () => parseCounters(text),
      (e: unknown) => e instanceof ProfileOptionError && e.field === 'counters' && message.test(e.message),
      text,
    );
  }
});

test("launch window: indices and ranges, normalised to rocprofv3's bracketed form, bounded", () => {
  assert.equal(parseLaunchWindow('10-20'), '[10-20]');
  assert.equal(parseLaunchWindow('[1-2],[5], 7'), '[1-2],[5],[7]');
  for (const bad of ['', '1-', 'a', '[1-2', '3-1', '1;2', '0-100000000', '-5']) {
    assert.throws(() => parseLaunchWindow(bad), ProfileOptionError, bad);
  }
});

test('all options together; kernel regex and case checked; empty values mean "not given"', () => {
  assert.deepEqual(
    checkProfileOptions({ counters: 'roofline', kernelRegex: 'gemm|conv', caseIndex: '1', launches: '3-4' }),
    {
      counters: 'roofline',
      kernelRegex: 'gemm|conv',
      caseIndex: 1,
      launches: '[3-4]',
    },
  );
  assert.deepEqual(checkProfileOptions({ counters: 'off', kernelRegex: '', caseIndex: '', launches: ' ' }), {});
  assert.throws(() => checkProfileOptions({ kernelRegex: 'gemm(' }), /not a valid regular expression/);
  assert.throws(() => checkProfileOptions({ kernelRegex: 'a\nb' }), /control character/);
  assert.throws(() => checkProfileOptions({ kernelRegex: 'x'.repeat(513) }), /at most 512/);
  assert.throws(() => checkProfileOptions({ caseIndex: '-1' }), /case index/);
  assert.throws(() => checkProfileOptions({ caseIndex: '1.5' }), /case index/);
});

test('form fields round trip; fields of others are left alone', () => {
  const opts = { counters: 'SQ_WAVES', kernelRegex: '^gemm', caseIndex: 0, launches: '[1]' };
  const fields = Object.fromEntries(profileFormFields(opts));
  assert.deepEqual(fields, { counters: 'SQ_WAVES', kernel_regex: '^gemm', case: '0', kernel_iteration_range: '[1]' });
  assert.deepEqual(profileOptionsFromForm({ ...fields, something_else: 'x' }), opts);
});

test("PC sampling is one of the options: the method's default interval, checked with the rest, sent as two fields", () => {
  assert.deepEqual(checkProfileOptions({ counters: 'roofline', pcSampling: 'Stochastic' }), {
    counters: 'roofline',
    pcSampling: 'stochastic',
    pcSamplingInterval: 1048576,
  });
  assert.deepEqual(checkProfileOptions({ pcSampling: 'host-trap', pcSamplingInterval: '20' }), {
    pcSampling: 'host_trap',
    pcSamplingInterval: 20,
  });
  assert.deepEqual(checkProfileOptions({ pcSampling: 'off' }), {});
  const opts = { pcSampling: 'stochastic', pcSamplingInterval: 4096 } as const;
  assert.deepEqual(profileFormFields(opts), [
    ['pc_sampling', 'stochastic'],
    ['pc_sampling_interval', '4096'],
  ]);
  assert.deepEqual(
    profileOptionsFromForm({ ...Object.fromEntries(profileFormFields(opts)), pc_sampling_unit: 'cycles' }),
    opts,
  );
  for (const [raw, field, message] of [
    [{ pcSampling: 'stochastic', pcSamplingInterval: '300' }, 'pcSamplingInterval', /power of two from 256/],
    [{ pcSampling: 'host_trap', pcSamplingInterval: '0x10' }, 'pcSamplingInterval', /whole number >= 1/],
    [{ pcSampling: 'host_trap; id' }, 'pcSampling', /must be off, host_trap or stochastic/],
    [{ pcSamplingInterval: '1' }, 'pcSamplingInterval', /need pc_sampling=host_trap or stochastic/],
    [{ pcSampling: 'stochastic', pcSamplingUnit: 'time' }, 'pcSampling', /counts its interval in cycles/],
  ] as const) {
    assert.throws(
      () => checkProfileOptions(raw),
      (e: unknown) => e instanceof ProfileOptionError && e.field === field && message.test(e.message),
      JSON.stringify(raw),
    );
  }
  assert.equal(profileOptionsWhat({ counters: 'roofline', caseIndex: 0 }), 'counters and kernel selection');
  assert.equal(
    profileOptionsWhat({ counters: 'roofline', pcSampling: 'host_trap', pcSamplingInterval: 1 }),
    'counters and PC sampling',
  );
  assert.equal(profileOptionsWhat({ pcSampling: 'host_trap', pcSamplingInterval: 1 }), 'PC sampling');
});
