// Background submissions in flight, kept in the extension's globalState so that a window reload (or a crash) does
// not lose them: on activation each one is polled again, its output re-opened and the result shown when done.
import type * as vscode from 'vscode';
import { z } from 'zod';
import { submissionModeSchema } from '../../core/protocol/api';

const KEY = 'kernelRunner.inFlightSubmissions';

const inFlightSchema = z.object({
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
});
export type InFlightSubmission = z.infer<typeof inFlightSchema>;

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

  async remove(entry: Pick<InFlightSubmission, 'baseUrl' | 'id'>): Promise<void> {
    const all = this.list();
    const rest = all.filter((e) => !same(e, entry));
    if (rest.length !== all.length) await this.memento.update(KEY, rest);
  }
}

function same(a: Pick<InFlightSubmission, 'baseUrl' | 'id'>, b: Pick<InFlightSubmission, 'baseUrl' | 'id'>): boolean {
  return a.id === b.id && a.baseUrl === b.baseUrl;
}
