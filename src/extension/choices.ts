// Which leaderboard and GPU a file runs on: `#!POPCORN` directives first, then the choice remembered for the file
// (workspaceState), then QuickPicks filled from GET /leaderboards (description, deadline, closed ones apart, GPUs)
// and GET /gpus/{lb} (each GPU with its runner queue). "Profile" asks for the configured GPU (MI300); a leaderboard
// without it but with another AMD Instinct GPU gets the one-click "Profile on MI355X" (core's chooseProfileGpu /
// profileGpuMissing). A choice made in a picker can be written into the file as directives. Failures are core's
// SubmissionErrors, so the run explains them with the workflow's actions.
import * as vscode from 'vscode';
import { basename } from 'node:path';
import { SCRIPT_LEADERBOARD, type RunnerQueue } from '../core/protocol/api';
import { directiveMarker, parseDirectivesClient, upsertDirectives } from '../core/directives';
import { isRunnerClientError, type RunnerClient } from '../core/client';
import {
  describeLeaderboards,
  formatQueueCounts,
  formatRunnerQueue,
  type LeaderboardInfo,
} from '../core/gpumode/leaderboards';
import {
  SubmissionError,
  action,
  chooseProfileGpu,
  findLeaderboard,
  profileGpuMissing,
  submissionError,
  type Chooser,
  type MultiGpuWhere,
} from '../core/submission/index';
import { notify, pickOne } from './ui';

export interface Choice {
  leaderboard: string;
  gpu: string;
  /** Chosen in a picker just now (not from directives or memory): the run offers to write it into the file. */
  picked?: boolean;
}

const STATE_KEY = 'kernelRunner.choices';

/** The target has no leaderboard of that name (one remembered from another target is asked for again). */
class UnknownLeaderboardError extends SubmissionError {
  override readonly name = 'UnknownLeaderboardError';
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

async function chooseLeaderboardAndGpu(opts: {
  client: RunnerClient;
  uri: vscode.Uri;
  source: string;
  store: ChoiceStore;
  targetLabel: string;
  /** Profile: this GPU is required (or an AMD Instinct alternative offered as an action). */
  requiredGpu?: string;
  /** Remember the choice for the file (not for a one-off run on another target). Default true. */
  remember?: boolean;
  /** No picker can be answered (a language model tool's run): what would be picked is an error naming the choice. */
  noQuestions?: boolean;
  signal?: AbortSignal;
  /** Profile on our runner: the leaderboards (described) and where the run goes, for a multi-GPU leaderboard's error. */
  leaderboards?: () => Promise<LeaderboardInfo[]>;
  multiGpuWhere?: MultiGpuWhere;
}): Promise<Choice | undefined> {
  const { client, uri, source, store, targetLabel, requiredGpu } = opts;
  const directives = parseDirectivesClient(source);
  if (directives.errors.length) {
    throw submissionError(
      'usage',
      `The file's #!POPCORN directives are invalid: ${directives.errors.map((e) => `line ${e.line}: ${e.reason}`).join('; ')}`,
    );
  }
  const remembered = store.get(uri);
  let leaderboard = directives.leaderboard ?? remembered.leaderboard;
  let picked = false;

  if (!leaderboard) {
    const fileName = uri.path.split('/').pop() ?? '';
    if (opts.noQuestions)
      throw submissionError(
        'usage',
        `${fileName} names no leaderboard (no "#!POPCORN leaderboard" line, none remembered for it): a leaderboard must be picked; name one.`,
      );
    const pick = await pickLeaderboard(client, {
      fileName,
      source,
      targetLabel,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    if (pick === undefined) return undefined;
    leaderboard = pick.name;
    picked = pick.shown;
  }
  if (!leaderboard) return undefined;

  const gpusOf = (lb: string) =>
    client.listGpus(lb, { signal: opts.signal }).catch(async (err: unknown) => {
      // Our runner answers 404 for an unknown leaderboard, GPU MODE a 500 ("Leaderboard `x` does not exist."): ask
      // the list rather than read the text.
      if (isRunnerClientError(err) && err.type === 'http') {
        const known =
          err.status === 404
            ? false
            : await client.listLeaderboards({ signal: opts.signal }).then(
                (all) => all.some((b) => b.name === lb),
                () => true,
              );
        if (!known)
          throw new UnknownLeaderboardError({
            kind: 'usage',
            message: `The target (${targetLabel}) has no leaderboard "${lb}" (${err.detail ?? err.message}).`,
            actions: [action('select-target')],
          });
      }
      throw err;
    });
  let gpus: string[];
  try {
    gpus = await gpusOf(leaderboard);
  } catch (err) {
    // A leaderboard remembered from another target: ask again rather than fail.
    if (!(err instanceof UnknownLeaderboardError) || directives.leaderboard || picked) throw err;
    const pick = await pickLeaderboard(client, {
      fileName: uri.path.split('/').pop() ?? '',
      source,
      targetLabel,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    if (pick === undefined) return undefined;
    leaderboard = pick.name;
    picked = pick.shown;
    gpus = await gpusOf(leaderboard);
  }

  let gpu: string | undefined;
  if (requiredGpu) {
    const profileGpu = chooseProfileGpu(requiredGpu, gpus);
    if (profileGpu.kind !== 'exact') {
      // a multi-GPU leaderboard is told where it runs: its description, when the list answers
      const lb = leaderboard;
      const info =
        profileGpu.kind === 'none' && opts.multiGpuWhere && opts.leaderboards
          ? await opts.leaderboards().then(
              (all) => findLeaderboard(all, lb),
              () => undefined,
            )
          : undefined;
      throw profileGpuMissing(
        requiredGpu,
        leaderboard,
        gpus,
        targetLabel,
        info && opts.multiGpuWhere ? { info, where: opts.multiGpuWhere } : undefined,
      );
    }
    gpu = profileGpu.gpu;
  } else {
    const wanted = directives.gpus[0] ?? remembered.gpu;
    if (wanted && gpus.includes(wanted)) gpu = wanted;
    else if (wanted && !directives.gpus.length)
      gpu = undefined; // a remembered GPU the target no longer has: ask
    else if (wanted)
      throw submissionError(
        'no-gpu',
        `The file asks for GPU ${wanted}, which leaderboard "${leaderboard}" on ${targetLabel} does not offer (it offers: ${gpus.join(', ')}).`,
      );
    if (!gpu && gpus.length === 1) gpu = gpus[0];
    if (!gpu) {
      if (gpus.length === 0)
        throw submissionError('no-gpu', `Leaderboard "${leaderboard}" on ${targetLabel} offers no GPU.`);
      if (opts.noQuestions)
        throw submissionError(
          'usage',
          `Leaderboard "${leaderboard}" on ${targetLabel} offers several GPUs (${gpus.join(', ')}) and the file names none: a GPU must be picked; name one.`,
        );
      gpu = await pickGpu(client, leaderboard, gpus, opts.signal);
      if (!gpu) return undefined;
      picked = true;
    }
  }
  if (opts.remember !== false) await store.set(uri, { leaderboard, ...(requiredGpu ? {} : { gpu }) });
  return { leaderboard, gpu, ...(picked ? { picked } : {}) };
}

type LeaderboardItem = vscode.QuickPickItem & { name?: string };

/**
 * The leaderboard QuickPick from GET /leaderboards: name, GPUs, first line of the description and the deadline;
 * open leaderboards first (soonest deadline first), closed ones after a separator and marked. A target with one
 * leaderboard needs no picker (`shown: false`).
 */
async function pickLeaderboard(
  client: RunnerClient,
  opts: { fileName: string; source: string; targetLabel: string; current?: string; signal?: AbortSignal },
): Promise<{ name: string; shown: boolean } | undefined> {
  const boards = await client.listLeaderboards({ signal: opts.signal });
  if (boards.length === 0)
    throw submissionError('usage', `The target (${opts.targetLabel}) serves no leaderboards.`, [
      action('select-target'),
    ]);
  if (boards.length === 1 && boards[0]) return { name: boards[0].name, shown: false };
  const infos = describeLeaderboards(boards);
  // Plain programs go to the built-in `script` leaderboard; submissions to a problem.
  const looksLikeSubmission = /\bdef\s+custom_kernel\s*\(/.test(opts.source);
  const open = infos.filter((i) => !i.closed);
  if (!looksLikeSubmission)
    open.sort((a, b) => Number(b.name === SCRIPT_LEADERBOARD) - Number(a.name === SCRIPT_LEADERBOARD));
  const item = (i: (typeof infos)[number]): LeaderboardItem => ({
    label: i.name,
    name: i.name,
    description: `${i.closed ? 'closed · ' : ''}${i.gpus.join(', ')}`,
    detail: [i.summary, i.deadlineRaw ? i.deadlineText : ''].filter(Boolean).join(' — '),
    ...(i.name === opts.current ? { picked: true } : {}),
  });
  const closed = infos.filter((i) => i.closed);
  const items: LeaderboardItem[] = [
    ...open.map(item),
    ...(closed.length
      ? [{ label: 'closed (deadline passed)', kind: vscode.QuickPickItemKind.Separator }, ...closed.map(item)]
      : []),
  ];
  const pick = await pickOne(items, {
    title: `Leaderboard for ${opts.fileName}`,
    placeHolder: `Leaderboard on ${opts.targetLabel} (remembered for this file; a "#!POPCORN leaderboard" line also sets it)`,
    matchOnDescription: true,
    matchOnDetail: true,
    ignoreFocusOut: true,
  });
  return pick?.name ? { name: pick.name, shown: true } : undefined;
}

/** The GPU QuickPick from GET /gpus/{lb}, each GPU with its runner queue (GET /runner_queue/{gpu}) in the detail. */
async function pickGpu(
  client: RunnerClient,
  leaderboard: string,
  gpus: string[],
  signal?: AbortSignal,
): Promise<string | undefined> {
  const queues = await Promise.all(
    gpus.map((g) => client.runnerQueue(g, { signal, timeoutMs: 5000 }).catch(() => undefined)),
  );
  const items = gpus.map((gpu, i) => {
    const q: RunnerQueue | undefined = queues[i];
    return {
      label: gpu,
      // Only the counts the service knows (GPU MODE's GitHub launcher counts queued jobs only).
      description: q
        ? q.status === 'available'
          ? formatQueueCounts(q).replace(/, /g, ' · ') || 'available'
          : 'unavailable'
        : '',
      detail: q ? formatRunnerQueue(q) : `${gpu}: queue status unknown`,
    };
  });
  const pick = await pickOne(items, {
    title: `GPU for ${leaderboard}`,
    placeHolder: 'GPU (remembered for this file); the detail shows its runner queue',
    ignoreFocusOut: true,
  });
  return pick?.label;
}

/** Sets the file's `#!POPCORN` directives (`//!POPCORN` in C++ sources) with one minimal edit; false if nothing changed. */
async function insertDirectives(
  doc: vscode.TextDocument,
  values: { leaderboard?: string; gpu?: string },
): Promise<boolean> {
  const text = doc.getText();
  const updated = upsertDirectives(text, basename(doc.uri.fsPath || doc.uri.path), values);
  if (updated === text) return false;
  let start = 0;
  while (start < text.length && start < updated.length && text[start] === updated[start]) start++;
  let endOld = text.length;
  let endNew = updated.length;
  while (endOld > start && endNew > start && text[endOld - 1] === updated[endNew - 1]) {
    endOld--;
    endNew--;
  }
  // Whole lines only: never split a CRLF pair or a line the edit does not touch.
  start = doc.offsetAt(new vscode.Position(doc.positionAt(start).line, 0));
  const endPos = doc.positionAt(endOld);
  if (endPos.character > 0) {
    const next = endPos.line + 1 < doc.lineCount ? doc.offsetAt(new vscode.Position(endPos.line + 1, 0)) : text.length;
    endNew += next - endOld;
    endOld = next;
  }
  const edit = new vscode.WorkspaceEdit();
  edit.replace(doc.uri, new vscode.Range(doc.positionAt(start), doc.positionAt(endOld)), updated.slice(start, endNew));
  return vscode.workspace.applyEdit(edit);
}

/** After a picker: offer to write the choice into the file so that popcorn-cli and the service read it too. */
export async function offerDirectives(doc: vscode.TextDocument, choice: Choice): Promise<boolean> {
  if (choice.leaderboard === SCRIPT_LEADERBOARD) return false;
  const marker = directiveMarker(doc.uri.path);
  const pick = await notify.info(
    `Kernel Runner: write "${marker} leaderboard ${choice.leaderboard}" and "${marker} gpu ${choice.gpu}" at the top of ${basename(doc.uri.path)}? Then popcorn-cli and GPU MODE read the same choice.`,
    'Insert Directives',
  );
  return pick === 'Insert Directives'
    ? insertDirectives(doc, { leaderboard: choice.leaderboard, gpu: choice.gpu })
    : false;
}

/**
 * "Choose Leaderboard and GPU…": the pickers shown even when the file already names a leaderboard, the choice
 * remembered for the file, and the directives written into it when the person says so.
 */
export async function chooseForFile(opts: {
  client: RunnerClient;
  doc: vscode.TextDocument;
  store: ChoiceStore;
  targetLabel: string;
}): Promise<Choice | undefined> {
  const { client, doc, store, targetLabel } = opts;
  const source = doc.getText();
  const fileName = basename(doc.uri.fsPath || doc.uri.path);
  const current = parseDirectivesClient(source).leaderboard ?? store.get(doc.uri).leaderboard;
  const lb = await pickLeaderboard(client, { fileName, source, targetLabel, ...(current ? { current } : {}) });
  if (!lb) return undefined;
  const gpus = await client.listGpus(lb.name);
  if (gpus.length === 0) throw submissionError('no-gpu', `Leaderboard "${lb.name}" on ${targetLabel} offers no GPU.`);
  const gpu = gpus.length === 1 ? gpus[0] : await pickGpu(client, lb.name, gpus);
  if (!gpu) return undefined;
  const choice: Choice = { leaderboard: lb.name, gpu, picked: true };
  await store.set(doc.uri, { leaderboard: choice.leaderboard, gpu: choice.gpu });
  const marker = directiveMarker(fileName);
  const answer = await notify.info(
    `Kernel Runner: ${fileName} goes to ${choice.leaderboard} on ${choice.gpu} (remembered). Also write "${marker} leaderboard ${choice.leaderboard}" and "${marker} gpu ${choice.gpu}" at its top, for popcorn-cli and GPU MODE?`,
    'Insert Directives',
  );
  if (answer === 'Insert Directives') await insertDirectives(doc, { leaderboard: choice.leaderboard, gpu: choice.gpu });
  return choice;
}

/**
 * The workflow's `choose` for a document: its directives, the choice remembered for it, then the pickers, on the
 * connection's service. A choice made in a picker comes back `picked` (the run offers to write it into the file).
 */
export function documentChooser(opts: {
  uri: vscode.Uri;
  store: ChoiceStore;
  requiredGpu?: string;
  remember?: boolean;
  noQuestions?: boolean;
}): Chooser {
  return async (ctx) => {
    const choice = await chooseLeaderboardAndGpu({
      client: ctx.connection.client,
      uri: opts.uri,
      source: ctx.source,
      store: opts.store,
      targetLabel: ctx.connection.label,
      ...(opts.requiredGpu ? { requiredGpu: opts.requiredGpu } : {}),
      ...(opts.remember === false ? { remember: false } : {}),
      ...(opts.noQuestions ? { noQuestions: true } : {}),
      ...(ctx.signal ? { signal: ctx.signal } : {}),
      ...(ctx.connection.service === 'kernel-runner'
        ? {
            leaderboards: ctx.leaderboards,
            multiGpuWhere: {
              surface: 'editor' as const,
              embedded: ctx.connection.embedded,
              baseUrl: ctx.connection.baseUrl,
            },
          }
        : {}),
    });
    return choice && { leaderboard: choice.leaderboard, gpu: choice.gpu, ...(choice.picked ? { picked: true } : {}) };
  };
}
