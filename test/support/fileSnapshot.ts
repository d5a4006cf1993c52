// Every entry under a folder with its bytes (links by their target): what "nothing changed there" is checked against.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';

export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const p = path.join(e.parentPath, e.name);
    out[path.relative(dir, p)] = e.isSymbolicLink()
      ? `link ${readlinkSync(p)}`
      : e.isFile()
        ? readFileSync(p, 'base64')
        : e.isDirectory()
          ? 'dir'
          : 'other';
  }
  return out;
}
