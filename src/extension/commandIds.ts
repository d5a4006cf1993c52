// Every command of the extension, named once: the commands package.json contributes (test/unit/extension-free/
// commandIds.test.ts keeps this list and contributes.commands equal) and the few only the extension itself invokes.
// Everywhere else a command is commandId('showOutput'), never a 'kernelRunner.…' string (ESLint's house/command-ids).

export const COMMAND_PREFIX = 'kernelRunner';

/** package.json's contributes.commands, in its order, without the prefix. */
export const CONTRIBUTED_COMMANDS = [
  'run',
  'profile',
  'runTests',
  'runBenchmark',
  'submit',
  'cancel',
  'openTrace',
  'compareTraces',
  'selectTarget',
  'openExample',
  'showOutput',
  'setToken',
  'registerGpuMode',
  'registerGpuModeDiscord',
  'registerGpuModeGithub',
  'reregisterGpuMode',
  'chooseLeaderboard',
  'mySubmissions',
  'submissions.refresh',
  'submissions.show',
  'submissions.delete',
  'runs.open',
  'runs.delete',
  'runs.revealTrace',
  'runs.compare',
  'runs.cancel',
] as const;

/** Registered but not contributed (no palette entry): the status bar's menu of the running job. */
export const INTERNAL_COMMANDS = ['jobMenu'] as const;

export type CommandName = (typeof CONTRIBUTED_COMMANDS)[number] | (typeof INTERNAL_COMMANDS)[number];
export type CommandId = `${typeof COMMAND_PREFIX}.${CommandName}`;

export function commandId(name: CommandName): CommandId {
  return `${COMMAND_PREFIX}.${name}`;
}

/** Context key: a profile's results have been shown in this window (package.json's walkthrough step "Read the
 * results" is done by it; resultsPanel.ts sets it). */
export const PROFILE_SHOWN_CONTEXT = `${COMMAND_PREFIX}.profileShown`;
