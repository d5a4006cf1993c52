// The competition files of a reference-kernels checkout: every `*.yaml` directly in the problems folder
// (`amd.yaml`, `amd_202602.yaml`, ...) names the leaderboards made from its problem folders, as kernelbot's
// problem_sync reads them:
//   {name, deadline, description, problems: [{directory: amd/fp8-mm, name: amd-fp8-mm, deadline, gpus: [MI300]}]}
// A leaderboard's deadline is its problem entry's (the competition's own deadline and description are not used for
// it); its GPUs are the entry's, else the task.yml `gpus`. Retired folders stay in the tree under other names.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { errorMessage } from '../core/errors';

interface CompetitionEntry {
  /** Leaderboard name. */
  name: string;
  /** The problem folder, absolute. */
  dir: string;
  /** ISO time in UTC (`2025-09-02T00:00:00+00:00`), or null when the entry has none we can read. */
  deadline: string | null;
  gpus: string[];
  /** The competition file's base name, e.g. `amd.yaml`. */
  file: string;
}

export interface CompetitionSet {
  entries: CompetitionEntry[];
  warnings: string[];
}

/** YAML as PyYAML reads it (YAML 1.1: `True`, `yes`, unquoted dates). */
export function parseYaml11(text: string, opts: { intAsBigInt?: boolean } = {}): unknown {
  return parseYaml(text, { version: '1.1', intAsBigInt: opts.intAsBigInt ?? false });
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** isoformat() of an aware UTC datetime, as the service's JSON has it. */
function isoUtc(d: Date): string {
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}+00:00`;
}

/**
 * A deadline as kernelbot's parse_deadline reads it: `YYYY-MM-DD HH:MM` or `YYYY-MM-DD` (one-digit fields allowed,
 * as strptime allows them), a naive time taken as UTC; a YAML date is taken as it is. Null for anything else.
 */
export function parseDeadline(value: unknown): string | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : isoUtc(value);
  if (typeof value !== 'string') return null;
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})(?: (\d{1,2}):(\d{1,2}))?$/.exec(value);
  if (!m) return null;
  const [y, mo, d, h, mi] = [m[1], m[2], m[3], m[4] ?? '0', m[5] ?? '0'].map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi));
  // reject what Date.UTC would roll over (2025-02-30, 24:00)
  if (
    date.getUTCMonth() !== mo - 1 ||
    date.getUTCDate() !== d ||
    date.getUTCHours() !== h ||
    date.getUTCMinutes() !== mi
  )
    return null;
  return isoUtc(date);
}

function gpuList(value: unknown): string[] | null {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((g) => typeof g === 'string')) return value as string[];
  return null;
}

/** Reads every competition file of `problemsDir`; entries whose folder has no task.yml are left to the caller. */
export function loadCompetitions(problemsDir: string): CompetitionSet {
  const root = resolve(problemsDir);
  const entries: CompetitionEntry[] = [];
  const warnings: string[] = [];
  let names: string[];
  try {
    names = readdirSync(root)
      .filter((n) => n.endsWith('.yaml'))
      .sort();
  } catch {
    return { entries, warnings };
  }
  for (const file of names) {
    const path = join(root, file);
    let doc: unknown;
    try {
      if (!statSync(path).isFile()) continue;
      doc = parseYaml11(readFileSync(path, 'utf8'));
    } catch (err) {
      warnings.push(`${path}: ${errorMessage(err)}`);
      continue;
    }
    if (!doc || typeof doc !== 'object' || Array.isArray(doc)) {
      warnings.push(`${path}: a competition file is a mapping {name, deadline, description, problems}`);
      continue;
    }
    const problems = (doc as { problems?: unknown }).problems;
    if (problems === undefined || problems === null) continue;
    if (!Array.isArray(problems)) {
      warnings.push(`${path}: problems must be a list of {directory, name, deadline, gpus}`);
      continue;
    }
    problems.forEach((raw, i) => {
      const where = `${path}: problems[${i}]`;
      const p = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
      if (typeof p.name !== 'string' || !p.name || typeof p.directory !== 'string' || !p.directory) {
        warnings.push(`${where}: skipped, it needs a name and a directory`);
        return;
      }
      const dir = resolve(root, p.directory);
      const rel = relative(root, dir);
      if (rel.startsWith('..') || isAbsolute(rel)) {
        warnings.push(`${where} (${p.name}): directory ${p.directory} is outside the problems folder`);
        return;
      }
      const gpus = gpuList(p.gpus);
      if (gpus === null) {
        warnings.push(`${where} (${p.name}): gpus must be a list of GPU names`);
        return;
      }
      const deadline =
        p.deadline === undefined || p.deadline === null || p.deadline === '' ? null : parseDeadline(p.deadline);
      if (deadline === null && p.deadline !== undefined && p.deadline !== null && p.deadline !== '') {
        warnings.push(
          `${where} (${p.name}): deadline ${JSON.stringify(p.deadline)} is not YYYY-MM-DD or YYYY-MM-DD HH:MM; served without one`,
        );
      }
      entries.push({ name: p.name, dir, deadline, gpus, file });
    });
  }
  return { entries, warnings };
}
