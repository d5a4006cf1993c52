// The profile panel's "Kernels (ISA)" section and the disassembly editor. The code objects come from the
// profile's trace (kernelbot's zips hold `_code_object<N>.o`); each profiled kernel is matched to its code object
// kernel by name (src/trace/codeObjects/match.ts); a kernel's disassembly opens read-only in an editor through
// a TextDocumentContentProvider (scheme kernel-runner-isa) whose URI names the trace, the code object and the
// kernel, so it needs no state and still works after a reload.
import * as vscode from 'vscode';
import { stat } from 'node:fs/promises';
import {
  CodeObjectError,
  DisassemblyError,
  HOW_TO_GET_OBJDUMP,
  disassembleKernel,
  findObjdump,
  loadCodeObjectsPath,
  matchKernels,
  parseListing,
  type CodeObjectKernel,
  type FindObjdumpOptions,
  type LoadedCodeObject,
  type OccupancyEstimate,
} from '../trace/codeObjects/index';
import { disassemblyHeat, type HeatMark } from '../core/hotspotHeat';
import type { PcHotspots } from '../core/protocol/pcSampling';
import type { IsaKernelView, IsaView, ProfileView } from '../webview/protocol';
import { showDocument } from './ui';
import { errorMessage } from '../core/errors';

export const ISA_SCHEME = 'kernel-runner-isa';
const ISA_LANGUAGE = 'amdgpu-isa';

type Loaded = { objects: LoadedCodeObject[]; skipped: Array<{ file: string; reason: string }> };

export class IsaDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  /** Test hook: where llvm-objdump is looked for (undefined: PATH and the usual LLVM folders). */
  objdumpSearch: FindObjdumpOptions | undefined;
  private readonly loaded = new Map<string, { mtimeMs: number; value: Promise<Loaded> }>();

  /** The section for one profile: read from its local trace, or `remote` when the trace is still on the runner. */
  async viewFor(profile: ProfileView, tracePath: string | undefined): Promise<IsaView> {
    const profiled = profile.summary?.kernels.map((k) => k.name) ?? [];
    if (!tracePath) {
      return profile.downloadUrl
        ? {
            status: 'remote',
            codeObjects: [],
            kernels: [],
            unmatched: [],
            note: 'The trace is on the runner: load it to read its code objects.',
          }
        : {
            status: 'none',
            codeObjects: [],
            kernels: [],
            unmatched: [],
            note: 'This result has no trace to read code objects from.',
          };
    }
    try {
      const st = await stat(tracePath);
      if (st.isFile() && !/\.zip$/i.test(tracePath))
        return {
          status: 'none',
          codeObjects: [],
          kernels: [],
          unmatched: [],
          note: 'Code objects come in profile zips and folders, not in this file.',
        };
      return sectionView(await this.load(tracePath), profiled);
    } catch (err) {
      const text =
        err instanceof CodeObjectError
          ? err.message
          : `Could not read code objects from ${tracePath}: ${errorMessage(err)}`;
      return { status: 'error', codeObjects: [], kernels: [], unmatched: [], note: text };
    }
  }

  /** Opens a kernel's disassembly in a read-only editor. */
  async open(tracePath: string, codeObject: number, kernel: string): Promise<vscode.TextEditor> {
    const uri = vscode.Uri.from({
      scheme: ISA_SCHEME,
      path: `/${kernel.replace(/[^\w.-]+/g, '_').slice(0, 80)}.s`,
      query: new URLSearchParams({ trace: tracePath, co: String(codeObject), kernel }).toString(),
    });
    let doc = await vscode.workspace.openTextDocument(uri);
    if (doc.languageId !== ISA_LANGUAGE) doc = await vscode.languages.setTextDocumentLanguage(doc, ISA_LANGUAGE);
    return showDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Active });
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const q = new URLSearchParams(uri.query);
    const tracePath = q.get('trace') ?? '';
    const kernelName = q.get('kernel') ?? '';
    const index = Number(q.get('co'));
    const { objects } = await this.load(tracePath);
    const object = objects[index];
    const kernel = object?.info.kernels.find((k) => k.name === kernelName);
    if (!object || !kernel) return `; ${kernelName}: no such kernel in ${tracePath} (code object ${index})\n`;
    const header = headerLines(object, kernel);
    if (!object.info.processor) return `${header}; no target recorded: cannot disassemble\n`;
    let objdump: string | undefined;
    try {
      objdump = await findObjdump(this.objdumpSearch ?? {});
    } catch (err) {
      return `${header}; ${errorMessage(err)}\n`;
    }
    if (!objdump)
      return `${header};\n; No disassembly: no llvm-objdump with the AMDGPU target was found. To get one, ${HOW_TO_GET_OBJDUMP.replace(' or pass --objdump PATH', '')}.\n`;
    try {
      return `${header}${await disassembleKernel({ objdump, bytes: object.bytes, processor: object.info.processor, kernel: kernel.name })}`;
    } catch (err) {
      if (err instanceof DisassemblyError) return `${header}; ${err.message}\n`;
      throw err;
    }
  }

  /** The heat of a disassembly document: the first sampled kernel that is this document's kernel (by name). */
  async heatMarks(doc: vscode.TextDocument, hotspots: readonly PcHotspots[]): Promise<HeatMark[]> {
    const q = new URLSearchParams(doc.uri.query);
    const kernelName = q.get('kernel') ?? '';
    let object: LoadedCodeObject | undefined;
    try {
      object = (await this.load(q.get('trace') ?? '')).objects[Number(q.get('co'))];
    } catch {
      return [];
    }
    if (!object) return [];
    for (const hot of hotspots) {
      for (const kernel of hot.kernels) {
        const same = matchKernels([object], kernel.name).some(
          (m) => object.info.kernels[m.kernelIndex]?.name === kernelName,
        );
        if (same) return disassemblyHeat(parseListing(doc.getText()), kernel);
      }
    }
    return [];
  }

  private async load(tracePath: string): Promise<Loaded> {
    const st = await stat(tracePath);
    const hit = this.loaded.get(tracePath);
    if (hit && hit.mtimeMs === st.mtimeMs) return hit.value;
    const value = loadCodeObjectsPath(tracePath);
    this.loaded.set(tracePath, { mtimeMs: st.mtimeMs, value });
    value.catch(() => this.loaded.delete(tracePath));
    return value;
  }

  dispose(): void {
    this.loaded.clear();
  }
}

/** Rows: each profiled kernel (in the trace's order) with its code object kernel, then the kernels not profiled. */
function sectionView(loaded: Loaded, profiled: readonly string[]): IsaView {
  const { objects } = loaded;
  const names = new Map<string, string[]>();
  const order: string[] = [];
  const unmatched: string[] = [];
  const keyOf = (co: number, k: number) => `${co}/${k}`;
  for (const name of profiled) {
    const matches = matchKernels(objects, name);
    if (matches.length === 0) unmatched.push(name);
    for (const m of matches) {
      const key = keyOf(objects.indexOf(m.object), m.kernelIndex);
      if (!names.has(key)) {
        names.set(key, []);
        order.push(key);
      }
      names.get(key)!.push(name);
    }
  }
  objects.forEach((o, co) =>
    o.info.kernels.forEach((_, k) => {
      if (!names.has(keyOf(co, k))) order.push(keyOf(co, k));
    }),
  );
  const kernels = order.map((key): IsaKernelView => {
    const [co, k] = key.split('/').map(Number) as [number, number];
    const kernel = objects[co]!.info.kernels[k]!;
    return {
      codeObject: co,
      kernel: k,
      name: kernel.name,
      profiledNames: names.get(key) ?? [],
      vgprCount: kernel.vgprCount,
      agprCount: kernel.agprCount,
      sgprCount: kernel.sgprCount,
      ldsBytes: kernel.ldsBytes,
      scratchBytes: kernel.scratchBytes,
      wavesPerSimd: kernel.occupancy?.wavesPerSimd ?? null,
      maxWavesPerSimd: kernel.occupancy?.maxWavesPerSimd ?? null,
      limitedBy: limiter(kernel.occupancy),
    };
  });
  const skipped = loaded.skipped.map((s) => `${s.file}: ${s.reason}`);
  return {
    status: objects.length ? 'ready' : 'none',
    codeObjects: objects.map((o) => ({
      file: o.info.file,
      bundleEntry: o.info.bundleEntry,
      processor: o.info.processor,
    })),
    kernels,
    unmatched: objects.length ? unmatched : [],
    ...(objects.length === 0
      ? {
          note: `No code objects in this trace (AMD profiles from GPU MODE carry _code_object<N>.o files).${skipped.length ? ` Skipped: ${skipped.join('; ')}` : ''}`,
        }
      : skipped.length
        ? { note: `Skipped: ${skipped.join('; ')}` }
        : {}),
  };
}

function limiter(o: OccupancyEstimate | null): string {
  if (!o || o.limitedBy.includes('waves')) return '';
  return o.limitedBy
    .map((l) => (l === 'lds' ? `LDS (workgroup ${o.workgroupSize})` : `${l.toUpperCase()}s`))
    .join(', ');
}

function headerLines(object: LoadedCodeObject, k: CodeObjectKernel): string {
  const na = (n: number | null) => (n === null ? '-' : String(n));
  const o = k.occupancy;
  return [
    `; ${k.name}`,
    `; code object: ${object.info.file}${object.info.bundleEntry ? ` [${object.info.bundleEntry}]` : ''}, target ${object.info.target ?? 'unknown'}`,
    `; VGPRs ${na(k.vgprCount)} (AGPRs ${na(k.agprCount)}), SGPRs ${na(k.sgprCount)}, LDS ${na(k.ldsBytes)} bytes, scratch ${na(k.scratchBytes)} bytes/work-item, spills ${na(k.vgprSpillCount)} VGPR / ${na(k.sgprSpillCount)} SGPR`,
    o
      ? `; occupancy estimate: ${o.wavesPerSimd} of ${o.maxWavesPerSimd} waves a SIMD${limiter(o) ? `, limited by ${limiter(o)}` : ''}`
      : '; occupancy estimate: none for this target',
    '',
  ].join('\n');
}
