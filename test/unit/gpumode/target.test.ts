import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  GPUMODE_DEFAULT_URL,
  gpuModeBaseUrl,
  isGpuModeUrl,
  serviceKindFromHealth,
} from '../../../src/core/gpumode/index';

test("base URL: POPCORN_API_URL when set, else popcorn-cli's default", () => {
  assert.equal(GPUMODE_DEFAULT_URL, 'https://site--bot--dxfjds728w5v.code.run');
  assert.equal(gpuModeBaseUrl({}), GPUMODE_DEFAULT_URL);
  assert.equal(gpuModeBaseUrl({ POPCORN_API_URL: '  ' }), GPUMODE_DEFAULT_URL);
  assert.equal(gpuModeBaseUrl({ POPCORN_API_URL: 'http://127.0.0.1:9000/' }), 'http://127.0.0.1:9000');
});

test('GPU MODE by URL, and by what /health says', () => {
  assert.equal(isGpuModeUrl(`${GPUMODE_DEFAULT_URL}/`, {}), true);
  assert.equal(isGpuModeUrl('http://127.0.0.1:9000', { POPCORN_API_URL: 'http://127.0.0.1:9000/' }), true);
  assert.equal(isGpuModeUrl('https://api.gpumode.com', {}), true);
  assert.equal(isGpuModeUrl('http://127.0.0.1:8787', {}), false);
  assert.equal(isGpuModeUrl('not a url', {}), false);
  assert.equal(serviceKindFromHealth({ status: 'ok' }), 'gpumode');
  assert.equal(
    serviceKindFromHealth({ status: 'ok', version: '0.1.0', gpus: ['MI300'], profiler: null }),
    'kernel-runner',
  );
});
