// The BUILT CLI (dist/cli.cjs, through its launcher and code cache) prints its version, and every --help (the
// program's, each command's, each subcommand's) ends with two or three examples that the CLI itself accepts: real
// commands, real options with their values, as many arguments as the command takes (test/support/cliUsage.ts).
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBuilt } from './submit/helpers';
import { checkInvocation, cliProgram } from '../support/cliUsage';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(repoRoot, 'dist/cli.cjs');
const version = (JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;

before(() => {
  ensureBuilt();
});

function run(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [cli, ...args], {
    env: { ...process.env, NO_COLOR: '1', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('`kernel-runner --version` and `-V` print the package version, with the code cache and without it', () => {
  const home = mkdtempSync(path.join(tmpdir(), 'kr-version-'));
  try {
    const cached = { XDG_CACHE_HOME: home, KERNEL_RUNNER_NO_COMPILE_CACHE: '', NODE_DISABLE_COMPILE_CACHE: '' };
    for (const env of [cached, cached, { KERNEL_RUNNER_NO_COMPILE_CACHE: '1' }]) {
      const r = run(['--version'], env);
      assert.deepEqual([r.status, r.stdout, r.stderr], [0, `${version}\n`, '']);
    }
    assert.ok(readdirSync(path.join(home, 'kernel-runner', 'compile')).length >= 1, 'the code cache was written');
    const short = run(['-V']);
    assert.deepEqual([short.status, short.stdout], [0, `${version}\n`]);
    assert.match(run(['--help']).stdout, /-V, --version +print the version/);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

/** The example lines that end a help text (after its last `Examples:` line); null when it does not end with them. */
function examples(help: string): string[] | null {
  const lines = help.trimEnd().split('\n');
  const at = lines.lastIndexOf('Examples:');
  if (at < 0) return null;
  const rest = lines.slice(at + 1);
  return rest.every((l) => /^ {2}\S/.test(l)) ? rest.map((l) => l.trim()) : null;
}

/** An example line's `kernel-runner` words: after the last pipe, without the comment (the examples use no quotes). */
function cliWords(line: string): string[] | null {
  const command = (line.split(/\s+#\s/)[0] as string).split('|').pop()?.trim().split(/\s+/) ?? [];
  return command[0] === 'kernel-runner' ? command.slice(1) : null;
}

test('every --help ends with two or three examples the CLI accepts', async () => {
  const program = await cliProgram();
  const commands = [
    [],
    ...program.commands.flatMap((c) => [[c.name()], ...c.commands.map((s) => [c.name(), s.name()])]),
  ];
  assert.ok(commands.length >= 15, `only ${commands.length} commands found`);
  const problems: string[] = [];
  for (const command of commands) {
    const name = ['kernel-runner', ...command].join(' ');
    const r = run([...command, '--help']);
    assert.equal(r.status, 0, `${name} --help: ${r.stderr}`);
    const lines = examples(r.stdout);
    if (!lines || lines.length < 2 || lines.length > 3) {
      problems.push(`${name} --help does not end with 2 or 3 examples`);
      continue;
    }
    for (const line of lines) {
      const words = cliWords(line);
      if (!words) {
        problems.push(`${name}: "${line}" runs no kernel-runner command`);
        continue;
      }
      const call = checkInvocation(program, words);
      problems.push(...call.problems.map((p) => `${name}: "${line}": ${p}`));
      // a command's examples run it (or, for a group such as `submissions`, its subcommands)
      const own = command.join(' ');
      if (own && call.command !== own && !call.command.startsWith(`${own} `))
        problems.push(`${name}: "${line}" is an example of ${call.command || 'the program'}`);
    }
  }
  assert.deepEqual(problems, []);
});

test('the check sees an example that is no command, uses an unknown option, or lacks an argument', async () => {
  const program = await cliProgram();
  assert.deepEqual(examples('Usage: x\n\nExamples:\n  kernel-runner serve\n  kernel-runner serve --port 0\n'), [
    'kernel-runner serve',
    'kernel-runner serve --port 0',
  ]);
  assert.equal(examples('Usage: x\n\nExamples:\n  kernel-runner serve\nmore text\n'), null);
  assert.deepEqual(cliWords('rocprofv3 -- ./app 2>&1 | kernel-runner filter --show-noise   # comment'), [
    'filter',
    '--show-noise',
  ]);
  assert.equal(cliWords('rocprofv3 -- ./app'), null);
  assert.deepEqual(checkInvocation(program, ['serve', '--fast']).problems, ['kernel-runner serve: no option --fast']);
  assert.deepEqual(checkInvocation(program, ['summarize']).problems, ['summarize: 1 argument(s) needed, 0 given']);
  assert.deepEqual(checkInvocation(program, ['submit', 'a.py', '--mode']).problems, ['--mode needs a value']);
  assert.deepEqual(checkInvocation(program, ['sumarize', 'x']).problems, ['kernel-runner: no command sumarize']);
});
