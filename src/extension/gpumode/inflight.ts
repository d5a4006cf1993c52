// Submissions in flight, kept in the extension's globalState so that a window reload (or a crash) does not lose
// them: GPU MODE background submissions (`poll`) and jobs on a self-hosted runner of ours (`stream`). On
// activation each one is followed again (core's resumeSubmission), its output re-opened and the result shown when
// done; an entry is forgotten when its outcome arrives, never on a reload.
import type * as vscode from 'vscode';
import { z } from '../../core/protocol/zod';
import { submissionModeSchema } from '../../core/protocol/api';
import type { ResumeState } from '../../core/submission/index';

const KEY = 'kernelRunner.inFlightSubmissions';

const inFlightSchema = z
  .object({
    /** `poll`: a background submission; `stream`: a job on our runner. Entries of older versions are all `poll`. */
    kind: z.enum(['poll', 'stream']).default('poll'),
    /** Which service took it; entries of older versions were all GPU MODE's. */
    service: z.enum(['gpumode', 'kernel-runner']).default('gpumode'),
    id: z.number().int().nonnegative(),
    baseUrl: z.string().min(1),
    targetLabel: z.string(),
    /** The file's URI (string form). */
    uri: z.string(),
    file: z.string(),
    mode: submissionModeSchema,
    leaderboard: z.string(),
    gpu: z.string(),
    title: z.string(),
    /** Epoch ms when the run started. */
    startedAt: z.number(),
    /** Epoch ms when the service accepted it (the poll deadline counts from here); older entries: startedAt. */
    acceptedAt: z.number().optional(),
  })
  .transform((e) => ({ ...e, acceptedAt: e.acceptedAt ?? e.startedAt }));
export type InFlightSubmission = z.output<typeof inFlightSchema>;

/** What the workflow needs to pick the entry up again. */
export function resumeStateOf(e: InFlightSubmission): ResumeState {
  return {
    kind: e.kind,
    baseUrl: e.baseUrl,
    service: e.service,
    id: e.id,
    fileName: e.file,
    mode: e.mode,
    leaderboard: e.leaderboard,
    gpu: e.gpu,
    acceptedAt: e.acceptedAt,
  };
}

type EntryKey = Pick<InFlightSubmission, 'baseUrl' | 'id' | 'kind'>;

/** One submission's name among all services' (what the run store keeps it under). */
export function inFlightKey(e: EntryKey): string {
  return `${e.kind} ${e.id} ${e.baseUrl}`;
}

export class InFlightStore {
  constructor(private readonly memento: vscode.Memento) {}

  /** Every well-formed entry (anything unreadable, e.g. from another version, is dropped). */
  list(): InFlightSubmission[] {
    const raw = this.memento.get<unknown[]>(KEY, []);
    if (!Array.isArray(raw)) return [];
    return raw.flatMap((e) => {
      const parsed = inFlightSchema.safeParse(e);
      return parsed.success ? [parsed.data] : [];
    });
  }

  async add(entry: InFlightSubmission): Promise<void> {
    const rest = this.list().filter((e) => !same(e, entry));
    await this.memento.update(KEY, [...rest, entry]);
  }

  async remove(entry: EntryKey): Promise<void> {
    const all = this.list();
    const rest = all.filter((e) => !same(e, entry));
    if (rest.length !== all.length) await this.memento.update(KEY, rest);
  }
}

function same(a: EntryKey, b: EntryKey): boolean {
  return a.id === b.id && a.baseUrl === b.baseUrl && a.kind === b.kind;
}
