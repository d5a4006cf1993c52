// SQLite through sql.js (WASM): no native module, so it loads in VS Code's extension host (Electron / Node 24)
// as well as in the CLI. The WASM file is looked up next to the running bundle first (`dist/sql-wasm.wasm`,
// copied there by scripts/build.mjs), else in the sql.js package.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import initSqlJs from 'sql.js';
import type { Database, SqlJsStatic, SqlValue } from 'sql.js';

let loading: Promise<SqlJsStatic> | null = null;

function sqlWasmPath(): string {
  const beside = fileURLToPath(new URL('./sql-wasm.wasm', import.meta.url));
  if (existsSync(beside)) return beside;
  return createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm');
}

export function loadSqlJs(): Promise<SqlJsStatic> {
  loading ??= (async () => {
    const wasm = await readFile(sqlWasmPath());
    const bytes = wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) as ArrayBuffer;
    return initSqlJs({ wasmBinary: bytes });
  })();
  loading.catch(() => {
    loading = null;
  });
  return loading;
}

/** Runs `sql` and hands each row to onRow (the statement is freed however it ends). */
export function each(db: Database, sql: string, onRow: (row: SqlValue[]) => void): void {
  const stmt = db.prepare(sql);
  try {
    while (stmt.step()) onRow(stmt.get());
  } finally {
    stmt.free();
  }
}

/** The column names of a table or view (a view of an older schema may lack some). */
export function columnsOf(db: Database, view: string): Set<string> {
  const stmt = db.prepare(`SELECT * FROM ${view} LIMIT 0`);
  try {
    return new Set(stmt.getColumnNames());
  } finally {
    stmt.free();
  }
}
