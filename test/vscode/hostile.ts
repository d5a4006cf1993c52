// A ResultView whose every string is hostile (script tags, attribute breakouts, 3,000-character templates):
// shared by the mocha suite and the Playwright check (which compiles it with esbuild).
import type { TraceSummary } from '../../src/core/protocol/traceSummary';
import type { ResultView } from '../../src/webview/protocol';

export const HOSTILE_NAMES = [
  '<script>window.parent.postMessage("pwned-script","*");alert("script")</script>',
  '"><img src=x onerror="alert(\'img\')">',
  `void gemm<${'ck::tensor_layout::gemm::RowMajor, '.repeat(90)}float>(float const*, float*) [clone .kd]`,
  "'); alert('quote'); //",
  '<svg onload=alert("svg")></svg>',
];

export function hostileView(): ResultView {
  const kernels: TraceSummary['kernels'] = HOSTILE_NAMES.map((name, i) => ({
    name,
    shortName: i === 2 ? 'gemm' : name,
    calls: 10 - i,
    totalNs: 1_000_000 * (5 - i),
    avgNs: 100_000,
    minNs: 90_000,
    maxNs: 110_000,
    stddevNs: 1000,
    percent: (20 * (5 - i)) / 3,
    agentIds: ['Agent 1'],
    launches: [
      {
        grid: [1024, 1, 1],
        workgroup: [256, 1, 1],
        vgpr: 32,
        accumVgpr: 0,
        sgpr: 16,
        ldsBytes: 0,
        scratchBytes: 0,
        calls: 10 - i,
      },
    ],
    launchesTruncated: false,
  }));
  const summary: TraceSummary = {
    version: 1,
    kernels,
    kernelTotals: { calls: 40, totalNs: 15_000_000, distinct: kernels.length },
    memoryCopies: [
      {
        direction: '<b>HOST_TO_DEVICE</b>',
        calls: 2,
        totalNs: 5000,
        avgNs: 2500,
        minNs: 2000,
        maxNs: 3000,
        bytes: 4096,
        bandwidthGBps: 0.8,
      },
    ],
    api: [
      {
        name: '<iframe src=javascript:alert(1)>',
        domain: 'HIP_RUNTIME_API',
        calls: 3,
        totalNs: 900,
        avgNs: 300,
        minNs: 100,
        maxNs: 500,
        percent: 100,
      },
    ],
    apiTotals: { calls: 3, totalNs: 900, distinct: 1 },
    markers: [
      {
        name: '<marquee>range</marquee>',
        calls: 1,
        totalNs: 100,
        avgNs: 100,
        minNs: 100,
        maxNs: 100,
        kernels: HOSTILE_NAMES.slice(0, 2).map((name, i) => ({ name, calls: 2 - i, totalNs: 500 * (2 - i) })),
        kernelAttribution: 'correlation',
      },
      {
        name: 'benchmark 0: n: 1024; note: <img src=x onerror=alert("case")>',
        calls: 1,
        totalNs: 900,
        avgNs: 900,
        minNs: 900,
        maxNs: 900,
        kernels: [{ name: HOSTILE_NAMES[4] as string, calls: 3, totalNs: 300 }],
        kernelAttribution: 'gpu-overlap',
      },
    ],
    rangeAttribution: { by: 'gpu-overlap', dispatches: 40, inRanges: 6 },
    agents: [
      {
        id: 'Agent 1',
        type: 'GPU',
        name: 'gfx942',
        productName: '<i>MI300X</i>',
        cuCount: 304,
        kernelCalls: 40,
        kernelNs: 15_000_000,
        copyNs: 5000,
        busyNs: 12_000_000,
        busyPercent: 60,
        busyExact: true,
      },
    ],
    processes: [{ pid: 4242, host: '<b>host</b>', command: 'python3 -c "<script>alert(8)</script>"' }],
    wall: { startNs: 0, endNs: 20_000_000, spanNs: 20_000_000 },
    timeline: {
      startNs: 0,
      endNs: 20_000_000,
      bucketNs: 1_000_000,
      buckets: 20,
      agents: [
        { agentId: '<script>alert(1)</script>', busyFraction: Array.from({ length: 20 }, (_, i) => (i % 4) / 4) },
      ],
      exact: true,
    },
    sources: [
      {
        path: '<img src=x onerror=alert(3)>.csv',
        format: 'rocprofv3-csv',
        kind: 'kernel_trace',
        variant: 'rocm-7.0',
        rows: 40,
        pid: null,
        host: null,
      },
    ],
    skipped: [],
    checks: [],
    warnings: ['<script>alert("warning")</script>'],
  };
  return {
    title: 'Hostile <script>alert("title")</script>',
    fileName: '"><img src=x onerror=alert(4)>.py',
    leaderboard: '<b>lb</b>',
    gpu: 'MI300',
    mode: 'profile',
    target: 'embedded runner',
    startedAt: new Date(0).toISOString(),
    elapsedS: 1,
    outcome: 'failure',
    error: '<script>alert("error")</script>',
    system: { gpu: '<img src=x onerror=alert(5)>' },
    runs: [
      {
        key: 'profile.0',
        success: true,
        passed: false,
        exitCode: 112,
        exitMeaning: 'validation failed',
        durationS: 1,
        command: '<script>cmd</script>',
        tests: [
          {
            index: 0,
            spec: '<u>spec</u>',
            status: '<b>fail</b>',
            passed: false,
            message: '<img src=x onerror=alert(6)>',
          },
        ],
        benchmarks: [],
      },
    ],
    profiles: [{ key: 'profile.0', summary, downloadUrl: 'javascript:alert(7)', perfetto: 'available' }],
    reports: ['<script>alert("report")</script>'],
    hiddenNoiseLines: 2,
  };
}
