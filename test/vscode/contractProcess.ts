// The GPU MODE contract server (test/contract/gpumodeServer.ts) in a process of its own, for the VS Code suites
// and UI checks: run with tsx from the repository root (its fixtures are found relative to its own file, which a
// bundle would move). $KR_CONTRACT_OPTIONS (JSON) is passed on as the server's options (e.g. `{"deployment":"old"}`);
// $KR_CONTRACT_HEARTBEAT_MS sets its heartbeat. Speaks JSON lines: prints `{"ready":true,"url","aliceId"}` once listening, then answers
// commands read from stdin, each `{"id", "cmd", ...}` answered by `{"id", ...}`:
//   failNext {rule: {method?, path (a RegExp source), status, detail?, retryAfter?, times?}}
//   requests                      -> {requests}
//   oauth {url, code?}            -> what the browser does after the provider page: {status, body}
//   submission {sid}              -> {submission}
//   release                       -> {released}: the ids of the `contract: hold` submissions let go on
import { createInterface } from 'node:readline';
import {
  completeOAuthInBrowser,
  startContractServer,
  type ContractServerOptions,
  type FailureRule,
} from '../contract/gpumodeServer';

interface Command {
  id?: number;
  cmd: string;
  rule?: Omit<FailureRule, 'path'> & { path: string };
  url?: string;
  code?: string;
  sid?: number;
}

const heartbeatMs = Number(process.env.KR_CONTRACT_HEARTBEAT_MS ?? 200);
const extra = JSON.parse(process.env.KR_CONTRACT_OPTIONS || '{}') as ContractServerOptions;
const server = await startContractServer({ heartbeatMs, ...extra });
const out = (o: unknown) => process.stdout.write(`${JSON.stringify(o)}\n`);
out({ ready: true, url: server.url, aliceId: server.registeredId('alice') });

for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  let msg: Command;
  try {
    msg = JSON.parse(line) as Command;
  } catch {
    out({ error: `not JSON: ${line}` });
    continue;
  }
  try {
    if (msg.cmd === 'failNext' && msg.rule) {
      server.failNext({ ...msg.rule, path: new RegExp(msg.rule.path) });
      out({ id: msg.id, ok: true });
    } else if (msg.cmd === 'requests') {
      out({ id: msg.id, requests: server.requests });
    } else if (msg.cmd === 'oauth' && msg.url) {
      out({ id: msg.id, ...(await completeOAuthInBrowser(msg.url, msg.code)) });
    } else if (msg.cmd === 'release') {
      out({ id: msg.id, released: server.release() });
    } else if (msg.cmd === 'submission' && msg.sid !== undefined) {
      out({ id: msg.id, submission: server.submission(msg.sid) ?? null });
    } else {
      out({ id: msg.id, error: `unknown command ${msg.cmd}` });
    }
  } catch (err) {
    out({ id: msg.id, error: err instanceof Error ? err.message : String(err) });
  }
}
await server.close();
