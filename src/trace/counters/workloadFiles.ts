// The small files of a rocprof-compute workload folder beside pmc_perf.csv: sysinfo.csv (the GPU: arch, clocks,
// CU counts), roofline.csv (AMD's measured peaks, one row per device) and profiling_config.yaml (which layout
// pmc_perf.csv has).
import { parse as parseYaml } from 'yaml';
import { streamCsv } from '../csvFile';
import { fieldText } from '../csvScanner';
import type { FileSource } from '../sources';

/** Most fields read from these files' rows (sysinfo has ~40 columns, roofline.csv ~35). */
const MAX_FIELDS = 4096;

/** Every row of a small CSV as header -> text records. */
async function readCsvRecords(source: FileSource): Promise<Array<Record<string, string>>> {
  const out: Array<Record<string, string>> = [];
  await streamCsv(
    source,
    (c) => (row) => {
      const r: Record<string, string> = {};
      c.names.forEach((name, i) => {
        r[name] = fieldText(row, i);
      });
      out.push(r);
    },
    undefined,
    MAX_FIELDS,
  );
  return out;
}

/** sysinfo.csv's first row; null when the file has none. */
export async function readSysinfo(source: FileSource): Promise<Record<string, string> | null> {
  return (await readCsvRecords(source))[0] ?? null;
}

/** roofline.csv's row for `device` (rocprof-compute's default: 0); null when the file has no such row. */
export async function readRooflineCsv(source: FileSource, device = 0): Promise<Record<string, string> | null> {
  const rows = await readCsvRecords(source);
  return rows.find((r) => Number(r.device) === device) ?? null;
}

/** profiling_config.yaml's `format_rocprof_output` (`rocpd` for the long layout), null when it says none. */
export async function readOutputFormat(source: FileSource): Promise<string | null> {
  const text = (await source.readAll()).toString('utf8');
  try {
    const doc = parseYaml(text) as unknown;
    if (doc && typeof doc === 'object' && 'format_rocprof_output' in doc) {
      const v = (doc as { format_rocprof_output: unknown }).format_rocprof_output;
      return typeof v === 'string' ? v : null;
    }
  } catch {
    // an unreadable config says nothing about the layout: the header decides
  }
  return null;
}
