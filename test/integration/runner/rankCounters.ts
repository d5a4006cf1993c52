// A multi-process profile with counters and PC samples, read per rank: each rank's roofline points and each
// process's hot spots equal those of a one-process read of its own files (the rank's outputs of every pass and the
// passes' shared side files, copied to a folder of their own).
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ProcessManifest } from '../../../src/core/protocol/processManifest';
import { summarizePath } from '../../../src/trace/index';
import { hotspotsPath } from '../../../src/trace/pcSampling/hotspots';
import { PROCESS_MANIFEST_NAME } from '../../../src/core/protocol/processManifest';
import { readZip } from './counterHelpers';
import { tempDir } from './helpers';

/** Writes `names` (zip entries) under a new folder, keeping their paths (pass_<n>/...). */
function folderOf(files: Map<string, Buffer>, names: string[], tag: string): string {
  const dir = tempDir(tag);
  for (const name of names) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), files.get(name)!);
  }
  return dir;
}

/**
 * Every process's rocpd database as rocprofv3 writes it: under a uuid of its own (every table name ends in it, every
 * row's guid is it; rocpd's importer unions a run's databases by it) and naming its process by its pid.
 */
function checkDatabaseIdentities(files: Map<string, Buffer>, manifest: ProcessManifest): void {
  const guids = new Set<string>();
  for (const p of manifest.processes) {
    for (const out of p.outputs.filter((o) => o.endsWith('_results.db'))) {
      const db = new Database(files.get(out)!, { readonly: true });
      try {
        const meta = Object.fromEntries(
          db
            .prepare('SELECT tag, value FROM rocpd_metadata')
            .all()
            .map((r) => [(r as { tag: string }).tag, (r as { value: string }).value]),
        );
        const guid = String(meta.guid);
        assert.ok(!guids.has(guid), `${out}: a guid of its own`);
        guids.add(guid);
        assert.equal(meta.uuid, `_${guid.replaceAll('-', '_')}`);
        const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rocpd_%'").all();
        assert.ok(tables.length > 0);
        for (const { name } of tables as Array<{ name: string }>) assert.ok(name.endsWith(String(meta.uuid)), name);
        assert.deepEqual(db.prepare('SELECT id, pid, guid FROM rocpd_info_process').all(), [
          { id: p.pid, pid: p.pid, guid },
        ]);
        const kernels = db.prepare('SELECT DISTINCT pid, guid FROM kernels').all();
        assert.deepEqual(kernels, p.rank === null ? [] : [{ pid: p.pid, guid }], `${out}: its dispatches are its own`);
      } finally {
        db.close();
      }
    }
  }
  assert.ok(guids.size > 0);
}

export async function checkRankCounters(archive: Buffer, manifest: ProcessManifest, worldSize: number): Promise<void> {
  const dir = tempDir('kr-rank-counters-');
  const zipPath = path.join(dir, 'profile.zip');
  writeFileSync(zipPath, archive);
  const files = await readZip(archive);
  const listed = new Set(manifest.processes.flatMap((p) => p.outputs));
  // files of no process: the passes' sysinfo and the like
  const shared = [...files.keys()].filter((n) => !listed.has(n) && n !== PROCESS_MANIFEST_NAME);

  // the CSV sets alone (a set read from its database skips its CSVs)
  const csv = (names: string[]): string[] => names.filter((n) => n.endsWith('.csv'));
  const whole = await summarizePath(
    folderOf(files, [...csv([...files.keys()]), PROCESS_MANIFEST_NAME], 'kr-rank-whole-'),
  );
  assert.ok(whole.roofline, 'counters were collected: the summary has a roofline');
  const ranked = whole.ranks!.processes.filter((p) => p.rank !== null);
  assert.equal(ranked.length, worldSize);
  for (const r of ranked) {
    const own = manifest.processes.filter((m) => m.rank === r.rank).flatMap((m) => m.outputs);
    const one = await summarizePath(folderOf(files, csv([...own, ...shared]), `kr-rank-${r.rank}-`));
    assert.equal(one.ranks, undefined, 'one process is not read per rank');
    assert.ok(one.roofline && one.roofline.kernels.length > 0, `rank ${r.rank}: roofline points of its own`);
    assert.deepEqual(r.roofline, one.roofline, `rank ${r.rank}: roofline equal to its own files' read`);
  }
  // the ranks' points are not the whole's: each rank's dispatches are its own
  assert.notDeepEqual(ranked[0]!.roofline, whole.roofline);
  // every rank numbers its dispatches from 1: the whole profile's dispatches of a kernel are every rank's together,
  // each pass's counters joined to its own rank's (the manifest names the rank in every pass)
  for (const k of whole.roofline.kernels) {
    const perRank = ranked.map((r) => r.roofline?.kernels.find((x) => x.name === k.name)?.dispatches ?? 0);
    assert.ok(
      perRank.every((n) => n > 0),
      `${k.name}: dispatches in every rank`,
    );
    assert.equal(
      k.dispatches,
      perRank.reduce((a, b) => a + b, 0),
      `${k.name}: the whole profile's dispatches are the ranks' together`,
    );
  }
  assert.ok(!whole.warnings.some((w) => /pid order/.test(w)), whole.warnings.join('\n'));

  checkDatabaseIdentities(files, manifest);

  // each rank's rocpd database holds its pass's counters too (rocpd_info_pmc, rocpd_pmc_event): the archive read as it
  // comes (its databases, the CSVs beside them skipped) has a roofline over all ranks, and every rank its own
  const fromDatabases = await summarizePath(zipPath);
  assert.ok(
    fromDatabases.sources.every((s) => !s.path.endsWith('_kernel_trace.csv')),
    'timings from the databases',
  );
  assert.ok(fromDatabases.roofline && fromDatabases.roofline.kernels.length > 0, 'a roofline from the databases');
  // the databases' dispatches are the recorded GEMM run's: the kernel filter kept its GEMM kernel alone
  assert.ok(fromDatabases.roofline.kernels.every((k) => /Gemm/.test(k.name)));
  const dbRanked = fromDatabases.ranks!.processes.filter((p) => p.rank !== null);
  assert.equal(dbRanked.length, worldSize);
  for (const r of dbRanked) {
    const own = manifest.processes.filter((m) => m.rank === r.rank).flatMap((m) => m.outputs);
    const one = await summarizePath(folderOf(files, [...own, ...shared], `kr-rank-db-${r.rank}-`));
    assert.ok(one.roofline && one.roofline.kernels.length > 0, `rank ${r.rank}: roofline points from its database`);
    assert.deepEqual(r.roofline, one.roofline, `rank ${r.rank}: roofline equal to its own database's read`);
  }
  assert.notDeepEqual(dbRanked[0]!.roofline, fromDatabases.roofline);
  // the other passes run the same processes again: the ranks list is the timing pass's processes, each once
  const timingPids = manifest.processes
    .filter((m) => m.outputs.every((o) => o.startsWith('pass_1/')))
    .map((m) => m.pid)
    .sort((a, b) => a - b);
  for (const [what, s] of [
    ['CSV', whole],
    ['databases', fromDatabases],
  ] as const) {
    assert.deepEqual(
      s.ranks!.processes.map((p) => p.pid).sort((a, b) => (a ?? -1) - (b ?? -1)),
      timingPids,
      `${what}: the processes of pass_1 alone, none of another pass, none without a pid`,
    );
    assert.ok(!s.warnings.some((w) => /pid order/.test(w)), `${what}: ${s.warnings.join('\n')}`);
  }

  const hot = await hotspotsPath(zipPath);
  const processes = hot.processes ?? [];
  const sampled = manifest.processes.filter((m) => m.outputs.some((o) => o.includes('_pc_sampling_')));
  assert.deepEqual(
    processes.map((p) => [p.rank, p.pid]),
    sampled
      .map((m) => [m.rank, m.pid])
      .sort((a, b) => (a[0] as number) - (b[0] as number) || (a[1] as number) - (b[1] as number)),
    'hot spots per sampled process, with its rank',
  );
  // the summary's hot spots carry the same processes, ranked by the manifest
  assert.deepEqual(
    whole.hotspots?.processes?.map((p) => [p.rank, p.pid, p.samples]),
    processes.map((p) => [p.rank, p.pid, p.samples]),
  );
  for (const p of processes) {
    const own = manifest.processes.find((m) => m.pid === p.pid)!.outputs;
    const one = await hotspotsPath(folderOf(files, own, `kr-hot-${p.pid}-`));
    assert.equal(p.samples, one.samples, `pid ${p.pid}: samples`);
    assert.deepEqual(p.kernels, one.kernels, `pid ${p.pid}: hot spots equal to its own files' read`);
  }
}
