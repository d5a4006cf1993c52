// `~/.popcorn.yaml`, popcorn-cli's config: a YAML map whose `cli_id` key is the GPU MODE identity. We share the
// file with popcorn-cli, so writes change `cli_id` only and keep every other key, comment and the file mode.
import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { isMap, isScalar, parseDocument, type Document } from 'yaml';
import { KernelRunnerError } from './errors';

export class PopcornConfigError extends KernelRunnerError {
  override readonly name = 'PopcornConfigError';
  readonly code = 'POPCORN_CONFIG';
  readonly type = 'popcorn-config' as const;
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
  }
}

export interface PopcornConfig {
  path: string;
  exists: boolean;
  cliId?: string;
}

/** Where popcorn-cli keeps its config: `<home>/.popcorn.yaml`. */
export function defaultPopcornConfigPath(): string {
  return path.join(homedir(), '.popcorn.yaml');
}

/** Reads the config; a missing file is not an error (`exists: false`), a malformed one is. */
export async function readPopcornConfig(file: string = defaultPopcornConfigPath()): Promise<PopcornConfig> {
  const text = await readText(file);
  if (text === undefined) return { path: file, exists: false };
  const doc = parse(text, file);
  const value: unknown = doc.get('cli_id');
  if (value === undefined || value === null) return { path: file, exists: true };
  if (typeof value !== 'string' || value.trim() === '') {
    throw new PopcornConfigError(`${file}: cli_id must be a non-empty string, found ${JSON.stringify(value)}`, file);
  }
  return { path: file, exists: true, cliId: value.trim() };
}

/** Sets `cli_id`, creating the file (mode 0600: it is a credential) or keeping everything else in it. */
export async function writePopcornCliId(cliId: string, file: string = defaultPopcornConfigPath()): Promise<void> {
  if (cliId.trim() === '' || /[\r\n]/.test(cliId))
    throw new PopcornConfigError(`refusing to write an invalid cli_id to ${file}`, file);
  const text = await readText(file);
  const updated = text === undefined ? `cli_id: ${yamlString(cliId)}\n` : setCliId(text, parse(text, file), cliId);
  const mode = text === undefined ? 0o600 : (await stat(file)).mode & 0o777;
  await mkdir(path.dirname(file), { recursive: true });
  // Write a sibling temp file, then rename: popcorn-cli reading at the same moment never sees half a file.
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    await writeFile(tmp, updated, { mode });
    await chmod(tmp, mode); // writeFile's mode is filtered by the umask
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/**
 * Edits the text itself (the value's characters, or one appended line) so that everything else stays byte for
 * byte; re-serialising the YAML document would keep keys and comments but re-space them. Falls back to the
 * document API when the result would not read back as intended.
 */
function setCliId(text: string, doc: Document, cliId: string): string {
  const contents = doc.contents;
  let edited: string | undefined;
  const node = isMap(contents) ? contents.get('cli_id', true) : undefined;
  if (isScalar(node) && node.range) {
    edited = text.slice(0, node.range[0]) + yamlString(cliId) + text.slice(node.range[1]);
  } else if (node === undefined && (contents === null || (isMap(contents) && !contents.flow))) {
    edited = `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}cli_id: ${yamlString(cliId)}\n`;
  }
  if (edited !== undefined && readsBack(edited, doc, cliId)) return edited;
  doc.set('cli_id', cliId);
  return doc.toString({ flowCollectionPadding: false });
}

/** A plain scalar when YAML reads it back as this very string (a UUID does), else double-quoted. */
function yamlString(value: string): string {
  const plain = parseDocument(`v: ${value}`);
  return plain.errors.length === 0 && plain.get('v') === value && !value.includes('#') ? value : JSON.stringify(value);
}

function readsBack(edited: string, before: Document, cliId: string): boolean {
  const after = parseDocument(edited);
  if (after.errors.length > 0 || after.get('cli_id') !== cliId) return false;
  const rest = (d: Document) => {
    const json = (d.toJS() ?? {}) as Record<string, unknown>;
    delete json.cli_id;
    return JSON.stringify(json);
  };
  return rest(after) === rest(before);
}

async function readText(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new PopcornConfigError(`cannot read ${file}: ${(err as Error).message}`, file);
  }
}

function parse(text: string, file: string): Document {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) {
    throw new PopcornConfigError(`${file} is not valid YAML: ${doc.errors[0]?.message.split('\n')[0] ?? ''}`, file);
  }
  if (doc.contents !== null && !isMap(doc.contents)) {
    throw new PopcornConfigError(`${file} must hold a YAML map (like "cli_id: <id>")`, file);
  }
  return doc;
}
