// The profile's process manifest (src/core/protocol/processManifest.ts), written beside rocprofv3's outputs before
// they are zipped: rocprofv3 writes one output set per process (`-o %pid%`, every child inherits the tool through
// its environment), so the outputs are grouped by the pid in their names. What else the runner can know of each
// process it reads from those outputs, never from the job's processes themselves (on Slurm they ran elsewhere):
//   devices: the GPU agents its kernel dispatches ran on (memory copies when it ran no kernel), `Agent <node id>` in
//     its CSVs, located in its `<pid>_agent_info.csv` (GPU rows in order are the devices 0, 1, ...; an agent list as
//     long as the slot's device list is that list, as when only the slot's devices were visible);
//   ppid and rank: from its rocpd database (`rocpd_info_process`: ppid, and the environment the process started
//     with: RANK, an MPI launcher's rank variable or LOCAL_RANK), when the runner asked for one (`serve --rocpd`).
// Reads are bounded: CSVs are streamed through the trace scanner (a few distinct agents kept), a database is opened
// only below DB_BYTES.
import { createReadStream } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import {
  PROCESS_MANIFEST_NAME,
  rankInEnvironment,
  type ProcessEntry,
  type ProcessManifest,
} from '../core/protocol/processManifest';
import { createCsvScanner, fieldText } from '../trace/csvScanner';

const OUTPUT_NAME = /^(\d+)_([a-z0-9_]+)\.(csv|pftrace|db|json|otf2)$/;
// sql.js reads a database whole: a larger one (a long run's) leaves ppid and rank unknown rather than the runner's
// memory to the job's output
const DB_BYTES = 64 * 1024 * 1024;
// distinct agent ids kept per process: a machine has a few dozen agents; more is not a trace of one
const MAX_AGENTS = 256;

/** Output files (relative, `/`-separated) by the pid their names start with, in pid order. */
export function outputsByPid(files: readonly string[]): Map<number, string[]> {
  const byPid = new Map<number, string[]>();
  for (const file of files) {
    const m = OUTPUT_NAME.exec(basename(file));
    if (!m) continue;
    const pid = Number(m[1]);
    byPid.set(pid, [...(byPid.get(pid) ?? []), file.split('\\').join('/')]);
  }
  return new Map([...byPid].sort((a, b) => a[0] - b[0]));
}

/** Each row of a CSV as a record of the named columns (streamed; the file is never read whole). */
async function eachRow(path: string, columns: readonly string[], onRow: (values: string[]) => void): Promise<void> {
  let index: number[] | null = null;
  const scanner = createCsvScanner({
    onRow: (row) => {
      if (!index) {
        const header = Array.from({ length: row.fieldCount }, (_, i) => fieldText(row, i));
        index = columns.map((c) => header.indexOf(c));
        return;
      }
      const at = index;
      onRow(at.map((i) => (i < 0 ? '' : fieldText(row, i))));
    },
  });
  for await (const chunk of createReadStream(path)) scanner.feed(chunk as Buffer);
  scanner.end();
}

/** `Agent <node id>` of each GPU row of an agent_info.csv, in order. */
async function gpuAgents(path: string): Promise<string[]> {
  const agents: string[] = [];
  await eachRow(path, ['Node_Id', 'Agent_Type'], ([node, type]) => {
    if (type === 'GPU' && node) agents.push(`Agent ${node}`);
  });
  return agents;
}

/** The distinct values of some columns over the files of a kind (`kernel_trace`, `memory_copy_trace`). */
async function agentsUsed(
  outDir: string,
  files: readonly string[],
  kind: string,
  columns: string[],
): Promise<Set<string>> {
  const used = new Set<string>();
  for (const file of files.filter((f) => f.endsWith(`_${kind}.csv`))) {
    await eachRow(join(outDir, file), columns, (values) => {
      for (const v of values) if (v && used.size < MAX_AGENTS) used.add(v);
    });
  }
  return used;
}

/** The device index of each GPU agent (`Agent <node id>`) in this process's agent_info.csv. */
export async function agentDevices(
  outDir: string,
  files: readonly string[],
  slotDevices: readonly number[],
): Promise<Map<string, number>> {
  const info = files.find((f) => f.endsWith('_agent_info.csv'));
  if (!info) return new Map();
  const gpus = await gpuAgents(join(outDir, info));
  return new Map(
    gpus.map((agent, ordinal) => [
      agent,
      gpus.length === slotDevices.length ? (slotDevices[ordinal] as number) : ordinal,
    ]),
  );
}

async function devicesOf(outDir: string, files: readonly string[], slotDevices: readonly number[]): Promise<number[]> {
  const byAgent = await agentDevices(outDir, files, slotDevices);
  if (byAgent.size === 0) return [];
  let used = await agentsUsed(outDir, files, 'kernel_trace', ['Agent_Id']);
  if (used.size === 0)
    used = await agentsUsed(outDir, files, 'memory_copy_trace', ['Source_Agent_Id', 'Destination_Agent_Id']);
  const devices = new Set<number>();
  for (const agent of used) {
    const device = byAgent.get(agent);
    if (device !== undefined) devices.add(device);
  }
  return [...devices].sort((a, b) => a - b);
}

/** ppid and rank of `pid` from its rocpd database, when it has one of a readable size. */
async function fromRocpd(
  outDir: string,
  files: readonly string[],
  pid: number,
): Promise<{ ppid: number | null; rank: number | null }> {
  const none = { ppid: null, rank: null };
  const db = files.find((f) => f.endsWith('_results.db'));
  if (!db) return none;
  const path = join(outDir, db);
  try {
    if ((await stat(path)).size > DB_BYTES) return none;
    const { loadSqlJs, each } = await import('../trace/sqlite');
    const SQL = await loadSqlJs();
    const database = new SQL.Database(await readFile(path));
    try {
      let found: { ppid: number | null; rank: number | null } = none;
      each(database, `SELECT ppid, environment FROM rocpd_info_process WHERE pid = ${pid} LIMIT 1`, ([ppid, env]) => {
        found = { ppid: typeof ppid === 'number' && ppid >= 0 ? ppid : null, rank: rankInEnvironment(env) };
      });
      return found;
    } finally {
      database.close();
    }
  } catch {
    return none; // not a rocpd database of this schema: the manifest says unknown
  }
}

/** The manifest of these output files (relative to outDir), or null when none is a per-process output. */
export async function buildProcessManifest(
  outDir: string,
  files: readonly string[],
  slotDevices: readonly number[],
): Promise<ProcessManifest | null> {
  const byPid = outputsByPid(files);
  if (byPid.size === 0) return null;
  const processes: ProcessEntry[] = [];
  for (const [pid, outputs] of byPid) {
    const { ppid, rank } = await fromRocpd(outDir, outputs, pid);
    processes.push({ pid, ppid, rank, devices: await devicesOf(outDir, outputs, slotDevices), outputs });
  }
  return { version: 1, processes };
}

/** Writes `kernel-runner-processes.json` into outDir. */
export async function saveProcessManifest(outDir: string, manifest: ProcessManifest): Promise<void> {
  await writeFile(join(outDir, PROCESS_MANIFEST_NAME), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
}
