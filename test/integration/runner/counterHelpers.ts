// Helpers of the counter tests (runner and CLI): stand-in GPU tools printing our MI300X samples, and archive readers.
import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import yauzl from 'yauzl';
import { repoRoot, tempDir } from './helpers';

/** A bin folder with `rocminfo` and `amd-smi` that print the MI300X samples. */
export function gpuInfoBin(): string {
  const bin = tempDir('kr-gpuinfo-');
  const fixtures = path.join(repoRoot, 'test/fixtures/gpu-info');
  writeFileSync(
    path.join(bin, 'rocminfo'),
    `#!/bin/sh\n# test stand-in for rocminfo: two MI300X\nexec cat '${path.join(fixtures, 'rocminfo-mi300x.txt')}'\n`,
  );
  writeFileSync(
    path.join(bin, 'amd-smi'),
    `#!/bin/sh\n# test stand-in for amd-smi: static --json only\n[ "$1 $2" = "static --json" ] || { echo "amd-smi stand-in: only static --json" >&2; exit 2; }\nexec cat '${path.join(fixtures, 'amd-smi-static-mi300x.json')}'\n`,
  );
  chmodSync(path.join(bin, 'rocminfo'), 0o755);
  chmodSync(path.join(bin, 'amd-smi'), 0o755);
  return bin;
}

/** A rocminfo that reports a CPU agent and eight MI300X GPU agents. */
export function eightGpuRocminfo(bin: string): void {
  let text =
    '*******\nAgent 1\n*******\n  Marketing Name:          AMD EPYC 9654 96-Core Processor\n  Device Type:             CPU\n';
  for (let i = 2; i <= 9; i++)
    text += `*******\nAgent ${i}\n*******\n  Marketing Name:          AMD Instinct MI300X\n  Device Type:             GPU\n`;
  const file = path.join(bin, 'rocminfo');
  writeFileSync(file, `#!/bin/sh\n# test stand-in for rocminfo: eight MI300X\ncat <<'EOF'\n${text}EOF\n`);
  chmodSync(file, 0o755);
}

export function readZip(buf: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buf, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error('no zip'));
      const files = new Map<string, Buffer>();
      zip.on('entry', (e: yauzl.Entry) => {
        zip.openReadStream(e, (err2, stream) => {
          if (err2 || !stream) return reject(err2 ?? new Error('no stream'));
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            files.set(e.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(files));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

/** Counter_Name and Kernel_Name of every row of a counter_collection.csv (names are quoted, without commas inside quotes being split). */
export function counterRows(csv: string): Array<{ counter: string; kernel: string }> {
  const [header, ...lines] = csv.trim().split('\n');
  const cols = header!.split(',').map((h) => h.replace(/"/g, ''));
  const cell = /("(?:[^"]|"")*"|[^,]*)(?:,|$)/g;
  return lines.map((line) => {
    const cells = [...line.matchAll(cell)].map((m) => m[1]!.replace(/^"|"$/g, '').replace(/""/g, '"'));
    return { counter: cells[cols.indexOf('Counter_Name')]!, kernel: cells[cols.indexOf('Kernel_Name')]! };
  });
}
