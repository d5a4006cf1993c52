// The submission workflow (vscode-free), shared by `kernel-runner submit` / `submissions` and the extension:
// - service.ts     which service a URL is (GPU MODE or our runner), with its identity
// - target.ts      leaderboard and GPU from flags / directives / the service; the profiling GPU
// - workflow.ts    one submission: checks, route, live output or polling, cancel, score, traces; resume
// - events.ts      the events and the outcome front-ends render
// - explain.ts     failures as explanations with actions
// - failure.ts     why a submission failed (build, crash, timeout, wrong answer, refusal) with its last lines
// - multiGpu.ts    a multi-GPU problem on a GPU with too few devices: refused, with where it runs
// - resultMaps.ts  tests and benchmarks out of `result` maps; pass/fail
// - policy.ts      the one idle timeout, poll interval and poll deadline
export * from './events';
export * from './explain';
export * from './failure';
export * from './multiGpu';
export * from './policy';
export * from './resultMaps';
export * from './service';
export * from './target';
export * from './workflow';
