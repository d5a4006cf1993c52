// A PC-sampling summary around the given kernels (stochastic, 100 samples), for tests of what is drawn from it.
import type { KernelHotspots, PcHotspots } from '../../src/core/protocol/pcSampling';

export const hotspotsOf = (kernels: KernelHotspots[]): PcHotspots => ({
  method: 'stochastic',
  intervalUnit: 'cycles',
  interval: 1024,
  samples: 100,
  kernels,
  sources: [],
  warnings: [],
});
