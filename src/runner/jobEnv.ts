// What of the runner's environment a job gets: everything but the runner's own variables. A job must not inherit
// the token ($KERNEL_RUNNER_TOKEN) or anything else that gives the runner's rights: KERNEL_RUNNER_* (but the job
// tag, which the executor sets itself), the editor's and agents' sockets (VSCODE_*, ELECTRON_*, SSH_AUTH_SOCK,
// GPG_AGENT_INFO), and variables named like secrets (…TOKEN, …SECRET, …PASSWORD, …API_KEY, …CREDENTIALS).
const PRIVATE_PREFIXES = ['KERNEL_RUNNER_', 'VSCODE_', 'ELECTRON_'];
const PRIVATE_NAMES = new Set(['SSH_AUTH_SOCK', 'GPG_AGENT_INFO']);
const SECRET_NAME = /(^|_)(TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?)(_|$)/i;

/** Whether a variable of the runner's environment stays out of jobs. */
function isRunnerPrivate(name: string): boolean {
  const upper = name.toUpperCase();
  return PRIVATE_PREFIXES.some((p) => upper.startsWith(p)) || PRIVATE_NAMES.has(upper) || SECRET_NAME.test(name);
}

/** `env` without the runner's private variables. */
export function jobEnvironment<T extends string | undefined>(env: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [name, value] of Object.entries(env)) if (!isRunnerPrivate(name)) out[name] = value;
  return out;
}
