// The process manifest of a profile's outputs (src/runner/processManifest.ts): files grouped by the pid in their
// names, devices from the agents each process's dispatches (else copies) ran on, ppid and rank from its rocpd
// database, files that are no process's output left out; a CSV that is not one does not stop the others.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { processManifestSchema } from '../../../src/core/protocol/processManifest';
import { buildProcessManifest, outputsByPid } from '../../../src/runner/processManifest';
import { loadSqlJs } from '../../../src/trace/sqlite';

/** agent_info.csv with two CPU nodes and `gpus` GPU nodes (2, 3, ...): the columns the manifest reads, and one more. */
function agentInfo(gpus: number): string {
  const rows = ['"Node_Id","Agent_Type","Name"', '0,"CPU","cpu0"', '1,"CPU","cpu1"'];
  for (let i = 0; i < gpus; i++) rows.push(`${2 + i},"GPU","gfx942"`);
  return rows.join('\n') + '\n';
}

function kernelTrace(agents: string[]): string {
  const rows = ['"Kind","Agent_Id","Kernel_Name","Start_Timestamp","End_Timestamp"'];
  agents.forEach((a, i) =>
    rows.push(`"KERNEL_DISPATCH","${a}","void k<int, 2>(float*, int) [clone ""x""]",${i},${i + 5}`),
  );
  return rows.join('\n') + '\n';
}

async function rocpd(file: string, pid: number, ppid: number, env: Record<string, string>): Promise<void> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  db.run('CREATE TABLE rocpd_info_process_x (id INTEGER PRIMARY KEY, ppid INTEGER, pid INTEGER, environment JSONB)');
  db.run('CREATE VIEW rocpd_info_process AS SELECT * FROM rocpd_info_process_x');
  db.run('INSERT INTO rocpd_info_process_x VALUES (1, ?, ?, ?)', [ppid, pid, JSON.stringify(env)]);
  writeFileSync(file, db.export());
  db.close();
}

test('outputs grouped by pid, devices from the agents used, ppid and rank from rocpd', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kr-manifest-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const put = (name: string, text: string) => {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  };
  // the evaluator: no GPU work of its own
  put('100_agent_info.csv', agentInfo(8));
  await rocpd(path.join(dir, '100_results.db'), 100, 99, { HIP_VISIBLE_DEVICES: '0,1,2,3,4,5,6,7' });
  // rank 3 (its environment says so) on the fourth GPU agent
  put('101_agent_info.csv', agentInfo(8));
  put('101_kernel_trace.csv', kernelTrace(['Agent 5', 'Agent 5']));
  put('101_memory_copy_trace.csv', '"Source_Agent_Id","Destination_Agent_Id"\n"Agent 0","Agent 9"\n');
  await rocpd(path.join(dir, '101_results.db'), 101, 100, { RANK: '3', LOCAL_RANK: '3' });
  // a process without a database that only copied, under a host folder as rocprofv3's default prefix writes it
  put('node1/102_agent_info.csv', agentInfo(8));
  put('node1/102_memory_copy_trace.csv', '"Source_Agent_Id","Destination_Agent_Id"\n"Agent 0","Agent 3"\n');
  put('sysinfo.csv', 'not a process output\n');
  put('combined.pftrace', '');
  const files = [
    '100_agent_info.csv',
    '100_results.db',
    '101_agent_info.csv',
    '101_kernel_trace.csv',
    '101_memory_copy_trace.csv',
    '101_results.db',
    'node1/102_agent_info.csv',
    'node1/102_memory_copy_trace.csv',
    'sysinfo.csv',
    'combined.pftrace',
  ];
  const manifest = processManifestSchema.parse(await buildProcessManifest(dir, files, []));
  assert.deepEqual(manifest.processes, [
    { pid: 100, ppid: 99, rank: null, devices: [], outputs: ['100_agent_info.csv', '100_results.db'] },
    {
      pid: 101,
      ppid: 100,
      rank: 3,
      devices: [3],
      outputs: ['101_agent_info.csv', '101_kernel_trace.csv', '101_memory_copy_trace.csv', '101_results.db'],
    },
    {
      pid: 102,
      ppid: null,
      rank: null,
      devices: [1],
      outputs: ['node1/102_agent_info.csv', 'node1/102_memory_copy_trace.csv'],
    },
  ]);
  // an agent list as long as the slot's devices is that list (only the slot's devices were visible)
  put('200_agent_info.csv', agentInfo(2));
  put('200_kernel_trace.csv', kernelTrace(['Agent 3']));
  const slot = await buildProcessManifest(dir, ['200_agent_info.csv', '200_kernel_trace.csv'], [6, 7]);
  assert.deepEqual(slot?.processes[0]?.devices, [7]);
  // no per-process output at all: no manifest
  assert.equal(await buildProcessManifest(dir, ['sysinfo.csv', 'results.csv'], []), null);
});

test('a database that is not rocpd, or an environment that is not JSON, leaves ppid and rank unknown', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kr-manifest-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, '7_results.db'), 'not sqlite at all');
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  db.run('CREATE TABLE rocpd_info_process (ppid INTEGER, pid INTEGER, environment TEXT)');
  db.run("INSERT INTO rocpd_info_process VALUES (1, 8, '{RANK: 2')");
  writeFileSync(path.join(dir, '8_results.db'), db.export());
  db.close();
  const manifest = await buildProcessManifest(dir, ['7_results.db', '8_results.db'], []);
  assert.deepEqual(
    manifest?.processes.map((p) => [p.pid, p.ppid, p.rank]),
    [
      [7, null, null],
      [8, 1, null],
    ],
  );
});

test('outputsByPid: only the names rocprofv3 gives per-process outputs, in pid order', () => {
  const byPid = outputsByPid([
    '12_kernel_trace.csv',
    'pass_1/12_agent_info.csv',
    'results.csv',
    'x_12_a.csv',
    '3_results.db',
  ]);
  assert.deepEqual(
    [...byPid],
    [
      [3, ['3_results.db']],
      [12, ['12_kernel_trace.csv', 'pass_1/12_agent_info.csv']],
    ],
  );
});
