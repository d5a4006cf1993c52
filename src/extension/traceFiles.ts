// Trace files on the extension's side: where profile zips are kept (the workflow saves them there), downloading the
// runner's artifact for the user (Download full trace), finding the Perfetto trace inside a zip/folder, summarising
// an opened trace with the trace toolkit.
import * as vscode from 'vscode';
import { copyFile, mkdir, readdir, readFile, stat } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import yauzl from 'yauzl';
import type { RunnerClient } from '../core/client';
import type { TraceSummary } from '../core/protocol/traceSummary';
import { summarizePath } from '../trace/index';
import type { ProfileView } from '../webview/protocol';
import type { Config } from './config';
import type { PerfettoRelay } from './perfettoRelay';
import type { ProfileActions } from './resultsPanel';
import { hooks, notify, pickSaveFile } from './ui';

const safeName = (s: string) => s.replace(/[^\w.-]+/g, '_').slice(0, 120);

export class TraceFiles {
  /** Test hook: where "Download full trace" saves without asking. */
  downloadDestination: string | undefined;
  /** Test hook: the last relay page opened for Perfetto UI. */
  lastPerfettoUrl: string | undefined;
  /** Downloaded artifacts by URL (for Perfetto after a download, and repeated clicks). */
  private readonly cache = new Map<string, string>();

  constructor(
    private readonly storage: vscode.Uri,
    private readonly config: Config,
    private readonly relay: PerfettoRelay,
  ) {}

  /** Where profile zips are kept (the extension's global storage): the workflow's `traces.outDir`. */
  async tracesDir(): Promise<string> {
    const d = join(this.storage.fsPath, 'traces');
    await mkdir(d, { recursive: true });
    return d;
  }

  summarize(path: string): Promise<TraceSummary> {
    return summarizePath(path);
  }

  async downloadForUser(client: RunnerClient | undefined, p: ProfileView, suggestedName: string): Promise<void> {
    let dest = this.downloadDestination;
    if (!dest) {
      const folder = vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(this.storage.fsPath);
      const pick = await pickSaveFile({
        title: 'Save the full trace',
        defaultUri: vscode.Uri.joinPath(folder, safeName(suggestedName)),
        filters: { 'Trace archive': ['zip'] },
      });
      if (!pick) return;
      dest = pick.fsPath;
    }
    if (p.downloadUrl && client) {
      const url = p.downloadUrl;
      await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: 'Kernel Runner: downloading the trace',
          cancellable: true,
        },
        async (progress, token) => {
          const abort = new AbortController();
          const sub = token.onCancellationRequested(() => abort.abort());
          try {
            const r = await client.downloadArtifact({ url }, dest, {
              overwrite: true,
              signal: abort.signal,
              onProgress: (received, total) =>
                progress.report({ message: total ? `${Math.round((received / total) * 100)}%` : `${received} bytes` }),
            });
            this.cache.set(url, r.path);
          } finally {
            sub.dispose();
          }
        },
      );
    } else if (p.localPath) {
      await copyFile(p.localPath, dest);
    } else if (p.downloadUrl) {
      throw new Error('The run that produced this trace is gone, and its trace was not kept.');
    } else {
      throw new Error('This result has no trace to download.');
    }
    if (!this.downloadDestination) {
      void notify.info(`Kernel Runner: trace saved to ${dest}`, 'Reveal').then((b) => {
        if (b) void vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(dest));
      });
    }
  }

  /** The zip (or folder / file) holding a profile's trace, downloading the runner's artifact into the cache. */
  async localTrace(client: RunnerClient | undefined, p: ProfileView): Promise<string> {
    if (p.localPath) return p.localPath;
    if (!p.downloadUrl) throw new Error('This result has no trace.');
    const cached = this.cache.get(p.downloadUrl);
    if (cached) return cached;
    if (!client) throw new Error('The run that produced this trace is gone: use "Download full trace".');
    const dest = join(await this.tracesDir(), `${safeName(p.downloadUrl.split('/').slice(-3).join('-'))}`);
    const r = await client.downloadArtifact({ url: p.downloadUrl }, dest, { overwrite: true });
    this.cache.set(p.downloadUrl, r.path);
    return r.path;
  }

  async openInPerfetto(client: RunnerClient | undefined, p: ProfileView, title: string): Promise<void> {
    const source = await this.localTrace(client, p);
    const max = this.config.perfettoMaxTraceBytes;
    const trace = await readPerfettoTrace(source, max);
    if (trace === 'none')
      throw new Error(
        `No Perfetto trace (.pftrace) in ${basename(source)}: the profile was recorded without pftrace output.`,
      );
    if (trace === 'too-large') {
      throw new Error(
        `The trace in ${basename(source)} is over ${Math.round(max / 1024 / 1024)} MB: too large for the browser. Download it and open it with \`trace_processor server http\` and Perfetto UI.`,
      );
    }
    const url = await this.relay.publish(trace.bytes, title, trace.fileName);
    this.lastPerfettoUrl = url;
    const external = await vscode.env.asExternalUri(vscode.Uri.parse(url));
    if (hooks.interceptExternal) hooks.opened.push(external.toString());
    else await vscode.env.openExternal(external);
  }
}

/**
 * What a panel's buttons do without its run (a run opened from the Runs view, a panel restored after a reload):
 * the trace kept in the run store (its localPath), never downloaded again.
 */
export function keptTraceActions(traceFiles: TraceFiles): ProfileActions {
  const kept = async (p: ProfileView): Promise<boolean> =>
    !!p.localPath &&
    (await stat(p.localPath).then(
      (s) => s.isFile() || s.isDirectory(),
      () => false,
    ));
  return {
    async downloadTrace(p) {
      if (await kept(p))
        await traceFiles.downloadForUser(undefined, { ...p, downloadUrl: undefined }, basename(p.localPath as string));
      else if (p.downloadUrl && /^https?:\/\//i.test(p.downloadUrl))
        await vscode.env.openExternal(vscode.Uri.parse(p.downloadUrl));
      else throw new Error('This trace is no longer kept (its run was deleted from the Runs view).');
    },
    async openPerfetto(p) {
      if (!(await kept(p)))
        throw new Error(
          'This trace is no longer kept (its run was deleted from the Runs view, or it is older than the Runs view): run the profile again to open it in Perfetto UI.',
        );
      await traceFiles.openInPerfetto(undefined, p, p.key);
    },
  };
}

/**
 * The Perfetto trace of a profile: `combined.pftrace` if present, else every `*.pftrace` concatenated byte for
 * byte (a valid trace). From a zip, a folder (searched two levels deep) or a single file.
 */
export async function readPerfettoTrace(
  path: string,
  maxBytes: number,
): Promise<{ bytes: Uint8Array; fileName: string } | 'none' | 'too-large'> {
  const st = await stat(path);
  if (st.isFile() && extname(path).toLowerCase() === '.pftrace') {
    if (st.size > maxBytes) return 'too-large';
    return { bytes: await readFile(path), fileName: basename(path) };
  }
  if (st.isDirectory()) {
    const found: string[] = [];
    const walk = async (dir: string, depth: number) => {
      for (const e of await readdir(dir, { withFileTypes: true })) {
        if (e.name === '.rocprofv3') continue;
        const p = join(dir, e.name);
        if (e.isDirectory() && depth < 2) await walk(p, depth + 1);
        else if (e.isFile() && e.name.endsWith('.pftrace')) found.push(p);
      }
    };
    await walk(path, 0);
    const combined = found.find((f) => basename(f) === 'combined.pftrace');
    const chosen = combined ? [combined] : found.sort();
    if (!chosen.length) return 'none';
    let total = 0;
    for (const f of chosen) total += (await stat(f)).size;
    if (total > maxBytes) return 'too-large';
    return {
      bytes: Buffer.concat(await Promise.all(chosen.map((f) => readFile(f)))),
      fileName: combined ? 'combined.pftrace' : basename(chosen[0] ?? 'trace.pftrace'),
    };
  }
  if (extname(path).toLowerCase() !== '.zip') return 'none';
  const zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: false });
  try {
    const entries: yauzl.Entry[] = [];
    for await (const entry of zip.eachEntry()) {
      if (entry.fileName.endsWith('.pftrace') && !entry.fileName.split('/').includes('.rocprofv3')) entries.push(entry);
    }
    const combined = entries.find((e) => basename(e.fileName) === 'combined.pftrace');
    const chosen = combined ? [combined] : entries.sort((a, b) => a.fileName.localeCompare(b.fileName));
    if (!chosen.length) return 'none';
    if (chosen.reduce((n, e) => n + e.uncompressedSize, 0) > maxBytes) return 'too-large';
    const parts: Buffer[] = [];
    for (const e of chosen) {
      const chunks: Buffer[] = [];
      for await (const c of await zip.openReadStreamPromise(e)) chunks.push(c as Buffer);
      parts.push(Buffer.concat(chunks));
    }
    return {
      bytes: Buffer.concat(parts),
      fileName: combined ? 'combined.pftrace' : basename(chosen[0]?.fileName ?? 'trace.pftrace'),
    };
  } finally {
    zip.close();
  }
}
