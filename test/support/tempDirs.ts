// Temporary folders of one test file, removed after its tests run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after } from 'node:test';

/** Call at the top level of a test file: the returned `tempDir(tag)` makes `<tmp>/<prefix><tag>-XXXXXX`. */
export function tempDirsRemovedAfter(prefix: string): (tag: string) => string {
  const made: string[] = [];
  after(() => {
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });
  return (tag) => {
    const dir = mkdtempSync(path.join(tmpdir(), `${prefix}${tag}-`));
    made.push(dir);
    return dir;
  };
}
