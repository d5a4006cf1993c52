// README.md and the pages of docs/ are what a user reads first, so they are held to what exists: every link and
// repository path resolves inside the repository (a link may go to the public web, never out of the repository:
// `../shared/...` is not there for a user), every heading a link names exists, and every command in a ```sh block
// runs as written from a clone: `kernel-runner <command>` is a real command with real options and arguments
// (checked against the commander program, test/support/cliUsage.ts), and every repository file a command names
// exists (or an earlier line of the block makes it: `-o`, `>`, `--out`). dist/ is what `npm run build` makes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { broken, references, repo } from '../../support/docPaths';
import { checkInvocation, cliProgram } from '../../support/cliUsage';

const PAGES = [
  'README.md',
  'examples/README.md',
  ...readdirSync(path.join(repo, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

const read = (page: string): string => readFileSync(path.join(repo, page), 'utf8');

/** The text without fenced code blocks and inline code spans (where a `[x](y)` is not a link). */
function prose(text: string): string {
  return text.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor of a heading: lower case, punctuation but `-` and `_` dropped, spaces to `-`. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchors(text: string): Set<string> {
  const headings = text.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '');
  return new Set([...headings.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => slug((m[1] as string).replace(/`/g, ''))));
}

/** Inside the repository, from a page's folder; null when it leaves it. */
function inside(page: string, target: string): string | null {
  const abs = path.resolve(repo, path.dirname(page), target);
  const rel = path.relative(repo, abs);
  return rel.startsWith('..') || path.isAbsolute(rel) ? null : abs;
}

/** What is wrong with the links of a page (`[text](target)` and images). */
function brokenLinks(page: string, text: string): string[] {
  const problems: string[] = [];
  for (const m of prose(text).matchAll(/!?\[[^\]]*\]\(\s*([^)\s]+)(?:\s+"[^"]*")?\s*\)/g)) {
    const target = m[1] as string;
    if (/^(https?|mailto):/.test(target)) continue;
    if (/^[a-z][\w+.-]*:/i.test(target)) {
      problems.push(`${page}: ${target}: only http(s) links leave the repository`);
      continue;
    }
    const [file, anchor] = target.split('#', 2) as [string, string | undefined];
    const abs = file ? inside(page, decodeURI(file)) : path.join(repo, page);
    if (!abs) {
      problems.push(`${page}: ${target}: leaves the repository`);
      continue;
    }
    if (!existsSync(abs)) {
      problems.push(`${page}: ${target}: no such file`);
      continue;
    }
    if (anchor && abs.endsWith('.md') && !anchors(readFileSync(abs, 'utf8')).has(anchor))
      problems.push(`${page}: ${target}: no heading #${anchor}`);
  }
  return problems;
}

/** `../` paths written anywhere on a page (code included): each must stay inside the repository and exist. */
function brokenParentPaths(page: string, text: string): string[] {
  const problems: string[] = [];
  for (const m of text.matchAll(/(?<![\w.])(?:\.\.\/)+[\w./-]*/g)) {
    const abs = inside(page, m[0]);
    if (!abs) problems.push(`${page}: ${m[0]}: leaves the repository`);
    else if (!existsSync(abs)) problems.push(`${page}: ${m[0]}: no such file`);
  }
  return problems;
}

/** The ```sh blocks of a page, each as its command lines (continuations joined). */
function shellBlocks(text: string): string[][] {
  return [...text.matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((m) =>
    (m[1] as string)
      .replace(/\\\n\s*/g, ' ')
      .split('\n')
      .filter((line) => line.trim() && !line.trim().startsWith('#')),
  );
}

/** A command line as the shell splits it: words (quotes removed, a comment dropped), per command of a pipeline or list. */
function commands(line: string): string[][] {
  const out: string[][] = [[]];
  let word: string | null = null;
  let quote: string | null = null;
  const end = (): void => {
    if (word !== null) (out[out.length - 1] as string[]).push(word);
    word = null;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (quote) {
      if (c === quote) quote = null;
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= '';
    } else if (/\s/.test(c)) end();
    else if (c === '#' && word === null) break;
    else if (c === '|' || c === ';' || (c === '&' && line[i + 1] === '&')) {
      end();
      if (line[i + 1] === c) i++;
      out.push([]);
    } else word = (word ?? '') + c;
  }
  end();
  return out.filter((words) => words.length > 0);
}

/** A word that names a file or folder of the repository (relative, with a folder or a file extension). */
function namesRepositoryFile(word: string): boolean {
  if (/^[-/~$<>.]|[<>:=*@]/.test(word) && !word.startsWith('./')) return false;
  if (/[<>:=*$]/.test(word)) return false;
  return (
    word.includes('/') || /\.(py|hip|cu|cuh|cpp|c|csv|db|zip|json|ya?ml|md|o|co|hsaco|tgz|txt|sh|mjs|ts)$/.test(word)
  );
}

interface ShellCheck {
  problems: string[];
  /** The `kernel-runner` commands seen (`submit`, `submissions show`, ...). */
  seen: string[];
}

/** Checks the ```sh blocks of a page: `kernel-runner` lines against the CLI, named files against the repository. */
function checkShell(page: string, text: string, program: Command): ShellCheck {
  const problems: string[] = [];
  const seen: string[] = [];
  for (const block of shellBlocks(text)) {
    const made = new Set<string>();
    const exists = (word: string): boolean => {
      const clean = word.replace(/^\.\//, '').replace(/\/$/, '');
      return made.has(clean) || clean.startsWith('dist/') || existsSync(path.join(repo, clean));
    };
    for (const line of block)
      for (let words of commands(line)) {
        while (words.length && /^[A-Z_][A-Z0-9_]*=/.test(words[0] as string)) words = words.slice(1);
        const rest: string[] = [];
        for (let i = 0; i < words.length; i++) {
          const w = words[i] as string;
          if ((w === '>' || w === '>>' || w === '-o') && words[i + 1])
            made.add((words[++i] as string).replace(/^\.\//, ''));
          else if (/^\d?>/.test(w)) continue;
          else rest.push(w);
        }
        let cli: string[] | null = null;
        if (rest[0] === 'kernel-runner') cli = rest.slice(1);
        else if (rest[0] === 'node' && rest[1] === 'dist/cli.cjs') cli = rest.slice(2);
        if (cli) {
          const call = checkInvocation(program, cli);
          seen.push(call.command);
          problems.push(...call.problems.map((p) => `${page}: \`${line.trim()}\`: ${p}`));
          for (const input of call.inputs)
            if (namesRepositoryFile(input) && !exists(input))
              problems.push(`${page}: \`${line.trim()}\`: ${input}: no such file`);
          for (const output of call.outputs) made.add(output.replace(/^\.\//, ''));
        } else {
          for (const w of rest.slice(1))
            if (namesRepositoryFile(w) && !exists(w)) problems.push(`${page}: \`${line.trim()}\`: ${w}: no such file`);
        }
      }
  }
  return { problems, seen };
}

test('every link and repository path on README.md and docs/*.md resolves inside the repository', () => {
  const problems: string[] = [];
  let links = 0;
  for (const page of PAGES) {
    const text = read(page);
    links += [...prose(text).matchAll(/\]\(/g)].length;
    problems.push(...brokenLinks(page, text), ...brokenParentPaths(page, text));
    problems.push(...broken(references(text), false).map((p) => `${page}: ${p}`));
  }
  assert.ok(PAGES.length >= 12, `only ${PAGES.length} pages found`);
  assert.ok(links >= 40, `only ${links} links found`);
  assert.deepEqual([...new Set(problems)], []);
});

test('every command in a ```sh block runs as written: real commands, options and files', async () => {
  const program = await cliProgram();
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const page of PAGES) {
    const check = checkShell(page, read(page), program);
    problems.push(...check.problems);
    if (page === 'docs/cli.md') check.seen.forEach((c) => seen.add(c));
  }
  assert.deepEqual(problems, []);
  // docs/cli.md shows every command and subcommand at work
  const all = program.commands.flatMap((c) =>
    c.commands.length ? c.commands.map((s) => `${c.name()} ${s.name()}`) : [c.name()],
  );
  assert.ok(all.length >= 13, `only ${all.length} commands found`);
  assert.deepEqual(
    all.filter((c) => !seen.has(c)),
    [],
    'commands without an example in docs/cli.md',
  );
});

test('docs/editor.md names every command and setting of the extension', () => {
  const manifest = JSON.parse(read('package.json')) as {
    contributes: { commands: { command: string; title: string }[]; configuration: { properties: object } };
  };
  const editor = read('docs/editor.md');
  const commandIds = manifest.contributes.commands.map((c) => c.command);
  const settings = Object.keys(manifest.contributes.configuration.properties);
  assert.ok(commandIds.length >= 25 && settings.length >= 15);
  assert.deepEqual(
    [...commandIds, ...settings].filter((id) => !editor.includes(`\`${id}\``)),
    [],
  );
});

test('README.md fits on about two screens and no page speaks of "this machine" of its authors', () => {
  assert.ok(read('README.md').split('\n').length <= 150);
  for (const page of PAGES) assert.doesNotMatch(read(page), /this \d+-core machine/, page);
});

test('the checks see a link out, a missing file or heading, an unknown option or command, and a file that does not exist', async () => {
  const page = 'docs/example.md';
  const text = [
    '[out](../../elsewhere.md) [gone](nowhere.md) [heading](cli.md#no-such-heading) [ok](cli.md#submit)',
    '[web](https://www.gpumode.com) `../shared/docs/gpumode-api.md`',
    '```sh',
    'kernel-runner submit examples/scripts/hello.py --fast',
    'kernel-runner compare before.zip after.zip',
    'kernel-runner launch examples/scripts/hello.py',
    'kernel-runner submit examples/scripts/hello.py --mode test --out traces && kernel-runner hotspots traces',
    'hipcc -o vector_add examples/kernels/vector_add.hip   # makes vector_add',
    'python3 my_kernel.py 2>&1 | kernel-runner filter --show-noise',
    '```',
  ].join('\n');
  assert.deepEqual(brokenLinks(page, text), [
    `${page}: ../../elsewhere.md: leaves the repository`,
    `${page}: nowhere.md: no such file`,
    `${page}: cli.md#no-such-heading: no heading #no-such-heading`,
  ]);
  assert.deepEqual(brokenParentPaths(page, text), [
    `${page}: ../../elsewhere.md: leaves the repository`,
    `${page}: ../shared/docs/gpumode-api.md: no such file`,
  ]);
  const check = checkShell(page, text, await cliProgram());
  assert.deepEqual(check.problems, [
    `${page}: \`kernel-runner submit examples/scripts/hello.py --fast\`: kernel-runner submit: no option --fast`,
    `${page}: \`kernel-runner compare before.zip after.zip\`: before.zip: no such file`,
    `${page}: \`kernel-runner compare before.zip after.zip\`: after.zip: no such file`,
    `${page}: \`kernel-runner launch examples/scripts/hello.py\`: kernel-runner: no command launch`,
    `${page}: \`python3 my_kernel.py 2>&1 | kernel-runner filter --show-noise\`: my_kernel.py: no such file`,
  ]);
  assert.deepEqual(check.seen, ['submit', 'compare', '', 'submit', 'hotspots', 'filter']);
});
