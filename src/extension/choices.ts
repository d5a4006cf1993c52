// Which leaderboard and GPU a file runs on: `#!POPCORN` directives first, then the choice remembered for the file
// (workspaceState), then a QuickPick filled from GET /leaderboards and GET /gpus/{lb}. "Profile" asks for the
// configured GPU (MI300) and says clearly when the target has no such GPU.
import * as vscode from 'vscode';
import { SCRIPT_LEADERBOARD, type Leaderboard } from '../core/protocol/api';
import { parseDirectivesClient } from '../core/directives';
import { isRunnerClientError, type RunnerClient } from '../core/client';

export interface Choice {
  leaderboard: string;
  gpu: string;
}

const STATE_KEY = 'kernelRunner.choices';

export class UserFacingError extends Error {
  constructor(
    message: string,
    readonly actions: string[] = [],
  ) {
    super(message);
    this.name = 'UserFacingError';
  }
}

export class ChoiceStore {
  constructor(private readonly memento: vscode.Memento) {}

  get(uri: vscode.Uri): Partial<Choice> {
    return this.memento.get<Record<string, Partial<Choice>>>(STATE_KEY, {})[uri.toString()] ?? {};
  }

  async set(uri: vscode.Uri, choice: Partial<Choice>): Promise<void> {
    const all = { ...this.memento.get<Record<string, Partial<Choice>>>(STATE_KEY, {}) };
    all[uri.toString()] = { ...all[uri.toString()], ...choice };
    await this.memento.update(STATE_KEY, all);
  }
}

export async function chooseLeaderboardAndGpu(opts: {
  client: RunnerClient;
  uri: vscode.Uri;
  source: string;
  store: ChoiceStore;
  targetLabel: string;
  /** Profile: this GPU is required. */
  requiredGpu?: string;
  signal?: AbortSignal;
}): Promise<Choice | undefined> {
  const { client, uri, source, store, targetLabel, requiredGpu } = opts;
  const directives = parseDirectivesClient(source);
  if (directives.errors.length) {
    throw new UserFacingError(`The file's #!POPCORN directives are invalid: ${directives.errors.map((e) => `line ${e.line}: ${e.reason}`).join('; ')}`);
  }
  const remembered = store.get(uri);
  let leaderboard = directives.leaderboard ?? remembered.leaderboard;
  let boards: Leaderboard[] | undefined;

  if (!leaderboard) {
    boards = await client.listLeaderboards({ signal: opts.signal });
    if (boards.length === 0) throw new UserFacingError(`The target (${targetLabel}) serves no leaderboards.`);
    if (boards.length === 1) leaderboard = boards[0]?.name;
    else {
      const fileName = uri.path.split('/').pop() ?? '';
      const looksLikeSubmission = /\bdef\s+custom_kernel\s*\(/.test(source);
      const items = boards.map((b) => ({
        label: b.name,
        description: b.gpu_types.join(', '),
        detail: (b.description ?? '').split('\n')[0],
      }));
      // Plain programs go to the built-in `script` leaderboard; submissions to a problem.
      items.sort((a, b) => Number(b.label === SCRIPT_LEADERBOARD) - Number(a.label === SCRIPT_LEADERBOARD));
      if (looksLikeSubmission) items.reverse();
      const pick = await vscode.window.showQuickPick(items, {
        title: `Leaderboard for ${fileName}`,
        placeHolder: `Leaderboard on ${targetLabel} (remembered for this file; a "#!POPCORN leaderboard" line also sets it)`,
        ignoreFocusOut: true,
      });
      if (!pick) return undefined;
      leaderboard = pick.label;
    }
  }
  if (!leaderboard) return undefined;

  const lb = leaderboard;
  const gpus = await client.listGpus(lb, { signal: opts.signal }).catch((err: unknown) => {
    if (isRunnerClientError(err) && err.type === 'http' && err.status === 404) {
      throw new UserFacingError(`The target (${targetLabel}) has no leaderboard "${lb}" (${err.detail ?? err.message}).`, ['Select Target…']);
    }
    throw err;
  });

  let gpu: string | undefined;
  if (requiredGpu) {
    gpu = gpus.find((g) => g === requiredGpu) ?? gpus.find((g) => g.toUpperCase().startsWith(requiredGpu.toUpperCase()));
    if (!gpu) {
      throw new UserFacingError(
        `The target (${targetLabel}) has no ${requiredGpu} GPU for leaderboard "${leaderboard}" (it offers: ${gpus.join(', ') || 'none'}). ` +
          `Point kernelRunner.server at a runner on an ${requiredGpu} machine ("Kernel Runner: Select Target…").`,
        ['Select Target…'],
      );
    }
  } else {
    const wanted = directives.gpus[0] ?? remembered.gpu;
    if (wanted && gpus.includes(wanted)) gpu = wanted;
    else if (wanted && !directives.gpus.length) gpu = undefined; // a remembered GPU the target no longer has: ask
    else if (wanted) throw new UserFacingError(`The file asks for GPU ${wanted}, which leaderboard "${leaderboard}" on ${targetLabel} does not offer (it offers: ${gpus.join(', ')}).`);
    if (!gpu && gpus.length === 1) gpu = gpus[0];
    if (!gpu) {
      if (gpus.length === 0) throw new UserFacingError(`Leaderboard "${leaderboard}" on ${targetLabel} offers no GPU.`);
      const pick = await vscode.window.showQuickPick(gpus, { title: `GPU for ${leaderboard}`, placeHolder: 'GPU (remembered for this file)', ignoreFocusOut: true });
      if (!pick) return undefined;
      gpu = pick;
    }
  }
  await store.set(uri, { leaderboard, ...(requiredGpu ? {} : { gpu }) });
  return { leaderboard, gpu };
}
