// A submission attacks the runner that runs it, from inside its job, in every isolation mode this machine has:
// it looks for the token (the data dir's token file, --token-file, $KERNEL_RUNNER_TOKEN and friends, /proc/1),
// lists and reads other jobs, rewrites job.json (another job's and its own), writes the runner's own files, walks
// out of its work dir with `..`, unmounts what hides the data dir, and calls the API with whatever it found to
// delete another job. Each attack is asserted to have failed, from inside (what the program saw) and from outside
// (the files and the victim job unchanged). Without a namespace (process group) only the environment is kept from
// the job, and the runner says so: that is asserted too.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { resultEventSchema, type JobRecord } from '../../../src/core/protocol/api';
import { detectIsolation } from '../../../src/runner/isolation';
import { startRunner } from '../../../src/runner/index';
import { embeddedRunnerOptions } from '../../../src/extension/embeddedRunnerOptions';
import {
  problemsDir,
  repoRoot,
  startTestRunner,
  submitAndRead,
  tempDir,
  terminal,
  testBin,
  waitFor,
  type TestRunner,
} from './helpers';

const linux = process.platform === 'linux';
const root = process.getuid?.() === 0;
const systemPython = ['/usr/bin/python3', '/usr/local/bin/python3'].find((p) => existsSync(p));

/** A PATH folder (open to every user) whose python3 is `target`, as a link, or as a script when `script`. */
function pythonBin(target: string, opts: { closed?: boolean } = {}): string {
  const outer = tempDir('kr-attack-bin-');
  const bin = path.join(outer, 'bin');
  mkdirSync(bin);
  if (opts.closed) {
    // a launcher only the runner's user can reach (as pyenv's shims under /root): the job user could not run it
    writeFileSync(path.join(bin, 'python3'), `#!/bin/sh\nexec ${target} "$@"\n`, { mode: 0o755 });
    chmodSync(outer, 0o700);
  } else {
    symlinkSync(target, path.join(bin, 'python3'));
    chmodSync(outer, 0o755);
  }
  return bin;
}

interface Mode {
  name: string;
  env: NodeJS.ProcessEnv;
  /** What the description must say. */
  says: RegExp;
  /** The file attacks are kept out (a namespace); else only the environment is. */
  contained: boolean;
  skip: string | false;
  /** How the runner is started; default as serve starts it (its token also in <data dir>/token and in --token-file). */
  start?: (s: { token: string; tokenFile: string; dataDir: string; env: NodeJS.ProcessEnv }) => Promise<TestRunner>;
}

const namespaceHere = linux && detectIsolation(process.env).kind === 'pid-namespace';
const groupHere =
  linux && detectIsolation({ ...process.env, KERNEL_RUNNER_ISOLATION: 'process-group' }).kind === 'process-group';
const basePath = process.env.PATH ?? '';

const modes: Mode[] = [
  {
    name: 'PID namespace, a root runner: the job runs as the job user',
    env: systemPython ? { PATH: `${pythonBin(systemPython)}${path.delimiter}${basePath}` } : {},
    says: /run as \S+ \(uid \d+\)/,
    contained: true,
    skip: !namespaceHere
      ? 'no PID namespace here'
      : !root
        ? 'the runner is not root here'
        : !systemPython
          ? 'no system python3 the job user could run'
          : false,
  },
  {
    name: root
      ? 'PID namespace, a root runner whose python3 the job user cannot run: uid 0 in a user namespace of its own'
      : "PID namespace, the runner's user in a user namespace of its own",
    env: { PATH: `${pythonBin(systemPython ?? 'python3', { closed: root })}${path.delimiter}${basePath}` },
    says: root ? /AS ROOT \(the job user .* cannot run/ : /as this user, in a user namespace of its own/,
    contained: true,
    skip: !namespaceHere ? 'no PID namespace here' : false,
  },
  {
    // EmbeddedRunner.start's call: its storage folder as data dir, a token of its own, the extension host's
    // environment (VS Code's sockets in it); the user's stored serve token sits in the state folder
    name: "the extension's embedded runner (its options, as EmbeddedRunner builds them)",
    env: {
      PATH: `${pythonBin(systemPython ?? 'python3')}${path.delimiter}${basePath}`,
      VSCODE_IPC_HOOK_CLI: '/tmp/vscode-ipc-test.sock',
      VSCODE_PID: '1',
    },
    says: root && systemPython ? /run as \S+ \(uid \d+\)/ : /PID namespace per job.*jobs see their own work dir/,
    contained: true,
    skip: !namespaceHere ? 'no PID namespace here' : false,
    start: async ({ token, tokenFile, dataDir, env }) => {
      const runner = await startRunner({
        ...embeddedRunnerOptions({
          problemsDir,
          dataDir,
          profiler: 'rocprofv3',
          extraPath: [testBin],
          env: { ...env, XDG_STATE_HOME: path.dirname(path.dirname(tokenFile)) },
        }),
        host: '127.0.0.1',
        port: 0,
        token,
        heartbeatMs: 200,
      });
      return { ...runner, dataDir, dispose: () => runner.close() };
    },
  },
  {
    name: 'process group (no namespace)',
    env: { KERNEL_RUNNER_ISOLATION: 'process-group' },
    says: /NOT PROTECTED without a namespace/,
    contained: false,
    skip: groupHere ? false : 'no process-group isolation here',
  },
];

/** The attacks, as one Python program; prints one JSON object of what it found. */
function attack(p: {
  dataDir: string;
  tokenFile: string;
  token: string;
  victim: number;
  url: string;
  packageRoot: string;
  contained: boolean;
}): string {
  return `
import json, os, sys, ctypes, urllib.request
P = json.loads(${JSON.stringify(JSON.stringify(p))})
found = {}
def attempt(name, fn):
    try:
        found[name] = ["done", str(fn())[:200]]
    except Exception as e:
        found[name] = ["refused", type(e).__name__]
data = P["dataDir"]
victim = os.path.join(data, "jobs", str(P["victim"]))
attempt("read data dir token", lambda: open(os.path.join(data, "token")).read())
attempt("read --token-file", lambda: open(P["tokenFile"]).read())
attempt("list jobs", lambda: ",".join(sorted(os.listdir(os.path.join(data, "jobs")))))
attempt("read other job's code", lambda: open(os.path.join(victim, "submission", "victim.py")).read())
attempt("read other job's record", lambda: open(os.path.join(victim, "job.json")).read())
attempt("write other job's record", lambda: os.close(os.open(os.path.join(victim, "job.json"), os.O_WRONLY)))
me = os.path.dirname(os.path.dirname(os.getcwd()))
attempt("write own record", lambda: os.close(os.open(os.path.join(me, "job.json"), os.O_WRONLY)))
attempt("up from the work dir", lambda: ",".join(os.listdir(os.path.join(os.getcwd(), "..", ".."))))
attempt("write runner's package.json", lambda: os.close(os.open(os.path.join(P["packageRoot"], "package.json"), os.O_WRONLY)))
if P["contained"]:
  attempt("create a file in the runner's folder", lambda: os.close(os.open(os.path.join(P["packageRoot"], ".kr-attack-" + str(os.getpid())), os.O_WRONLY | os.O_CREAT | os.O_EXCL)))
libc = ctypes.CDLL(None, use_errno=True)
def umount(target):
    if libc.umount2(target.encode(), 2) != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return "unmounted"
attempt("unmount what hides the data dir", lambda: umount(data))
attempt("read data dir token after unmount", lambda: open(os.path.join(data, "token")).read())
attempt("read init's fds", lambda: ",".join(os.readlink("/proc/1/fd/" + f) for f in os.listdir("/proc/1/fd")))
attempt("read init's cwd", lambda: os.listdir("/proc/1/cwd/.."))
env_tokens = [k for k, v in os.environ.items() if P["token"] in v or k.startswith(("KERNEL_RUNNER_", "VSCODE_")) and k != "KERNEL_RUNNER_JOB_TAG" or "TOKEN" in k]
found["environment"] = sorted(env_tokens)
def delete(stolen):
    req = urllib.request.Request(P["url"] + "/user/submissions/" + str(P["victim"]), method="DELETE", headers={"Authorization": "Bearer " + (stolen or "none")})
    return urllib.request.urlopen(req, timeout=30).status
attempt("delete another job with the environment's token", lambda: delete(os.environ.get("KERNEL_RUNNER_TOKEN")))
if P["contained"]:
    stolen = [found[n][1].strip() for n in ("read data dir token", "read --token-file", "read data dir token after unmount") if found[n][0] == "done"]
    attempt("delete another job with a token found in files", lambda: delete(next((t for t in stolen if t), None)))
print("ATTACK " + json.dumps(found))
`;
}

const fingerprint = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

for (const mode of modes) {
  describe(`a job attacks its runner: ${mode.name}`, { skip: mode.skip }, () => {
    let runner: TestRunner;
    let victim: number;
    const token = randomBytes(24).toString('base64url');
    const secrets = tempDir('kr-attack-secrets-');
    // where serve keeps the user's token in the state folder (XDG_STATE_HOME/kernel-runner/token)
    const tokenFile = path.join(secrets, 'kernel-runner', 'token');
    const auth = { Authorization: `Bearer ${token}` };

    before(async () => {
      mkdirSync(path.dirname(tokenFile), { mode: 0o700 });
      writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
      const dataDir = tempDir('kr-attack-data-');
      // as serve keeps its generated token
      writeFileSync(path.join(dataDir, 'token'), `${token}\n`, { mode: 0o600 });
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        ...mode.env,
        KERNEL_RUNNER_TOKEN: token,
        SERVICE_API_TOKEN: token,
      };
      runner = mode.start
        ? await mode.start({ token, tokenFile, dataDir, env })
        : await startTestRunner({
            dataDir,
            token,
            privatePaths: [tokenFile],
            profiler: 'rocprofv3',
            env: { ...env, PATH: `${testBin}${path.delimiter}${env.PATH ?? ''}` },
          });
      assert.match(runner.info.isolation.description, mode.says);
      const events = await submitAndRead(`${runner.url}/script/CPU/test`, {
        fileName: 'victim.py',
        content: 'print("victim")\n',
        headers: auth,
      });
      assert.equal(terminal(events).event, 'result');
      // the first job of a fresh data dir
      victim = 1;
      assert.equal(
        ((await (await fetch(`${runner.url}/jobs/${victim}`, { headers: auth })).json()) as JobRecord).file_name,
        'victim.py',
      );
      // its end is saved after the result went out
      const record = path.join(dataDir, 'jobs', String(victim), 'job.json');
      await waitFor('the victim job saved as ended', () =>
        (JSON.parse(readFileSync(record, 'utf8')) as JobRecord).state === 'succeeded' ? true : undefined,
      );
    });
    after(async () => {
      // only if an attack got through (its assertion failed): leave nothing of it in the repository
      for (const name of readdirSync(repoRoot))
        if (name.startsWith('.kr-attack-')) rmSync(path.join(repoRoot, name), { force: true });
      await runner.dispose();
      rmSync(runner.dataDir, { recursive: true, force: true });
      rmSync(secrets, { recursive: true, force: true });
    });

    test("reads no token, lists and touches no other job, writes none of the runner's files, deletes nothing", async () => {
      const victimDir = path.join(runner.dataDir, 'jobs', String(victim));
      // the runner itself may still save the victim's record after its result went out: compare what it says
      const recordOf = () => {
        const r = JSON.parse(readFileSync(path.join(victimDir, 'job.json'), 'utf8')) as JobRecord;
        return { id: r.id, file_name: r.file_name, state: r.state };
      };
      const before = {
        record: recordOf(),
        pkg: fingerprint(path.join(repoRoot, 'package.json')),
        token: fingerprint(path.join(runner.dataDir, 'token')),
      };
      const rootEntries = readdirSync(repoRoot).sort();
      const code = attack({
        dataDir: realpathSync(runner.dataDir),
        tokenFile,
        token,
        victim,
        url: runner.url,
        packageRoot: repoRoot,
        contained: mode.contained,
      });
      const events = await submitAndRead(`${runner.url}/script/CPU/test`, {
        fileName: 'attack.py',
        content: code,
        headers: auth,
      });
      const run = resultEventSchema.parse(terminal(events).data).results[0]!.runs.test!.run!;
      const line = run.stdout.split('\n').find((l) => l.startsWith('ATTACK '));
      assert.ok(line, `the attack ran: ${run.stdout}\n${run.stderr}`);
      const found = JSON.parse(line.slice('ATTACK '.length)) as Record<string, [string, string] | string[]>;

      // never, in any mode: the runner's variables in the job's environment, a token from there for the API
      assert.deepEqual(found.environment, [], 'no token and no KERNEL_RUNNER_* variable in the environment');
      assert.equal(
        found["delete another job with the environment's token"]?.[0],
        'refused',
        'the API refused the delete',
      );
      assert.equal(
        fingerprint(path.join(repoRoot, 'package.json')),
        before.pkg,
        "the runner's package.json is unchanged",
      );
      assert.deepEqual(readdirSync(repoRoot).sort(), rootEntries, "no file was created in the runner's folder");

      if (mode.contained) {
        assert.equal(
          found['delete another job with a token found in files']?.[0],
          'refused',
          'no token found: the API refused the delete',
        );
        assert.equal(
          (await fetch(`${runner.url}/jobs/${victim}`, { headers: auth })).status,
          200,
          'the victim job is still there',
        );
        assert.deepEqual(recordOf(), before.record, "the victim's record is unchanged");
        assert.equal(before.record.state, 'succeeded');
        assert.equal(fingerprint(path.join(runner.dataDir, 'token')), before.token);
        // a hidden file reads as empty (/dev/null over it), a hidden folder as an empty one: either way, no token
        for (const name of [
          'read data dir token',
          'read --token-file',
          'read data dir token after unmount',
          "read other job's code",
          "read other job's record",
          "read init's fds",
          "read init's cwd",
        ]) {
          const [how, what] = found[name] as [string, string];
          assert.ok(
            how === 'refused' || (!what.includes(token) && !what.includes('victim')),
            `${name}: ${JSON.stringify(found[name])}`,
          );
        }
        for (const name of [
          "write other job's record",
          'write own record',
          "write runner's package.json",
          "create a file in the runner's folder",
          'unmount what hides the data dir',
        ]) {
          assert.equal(found[name]?.[0], 'refused', `${name}: ${JSON.stringify(found[name])}`);
        }
        // the data dir the job sees holds its own folder only; `..` from its work dir leads nowhere else
        const listed = found['list jobs'] as [string, string];
        assert.ok(
          listed[0] === 'refused' || !listed[1].split(',').includes(String(victim)),
          `other jobs are not listed: ${listed[1]}`,
        );
        const up = found['up from the work dir'] as [string, string];
        assert.ok(up[0] === 'refused' || !/job\.json|submission|events/.test(up[1]), `up from the work dir: ${up[1]}`);
      }
    });

    test('the job still has what it needs: its work dir (write, read back, list) and its own files', async () => {
      const code = `
import os
open("made.txt", "w").write("mine")
os.makedirs("sub/dir", exist_ok=True)
open("sub/dir/f", "w").write("x" * 1000)
print("back", open("made.txt").read(), sorted(os.listdir(".")))
`;
      const events = await submitAndRead(`${runner.url}/script/CPU/test`, {
        fileName: 'own.py',
        content: code,
        headers: auth,
      });
      const run = resultEventSchema.parse(terminal(events).data).results[0]!.runs.test!.run!;
      assert.equal(run.exit_code, 0, run.stderr);
      assert.match(run.stdout, /^back mine \['made\.txt', 'own\.py', 'sub'\]$/m);
    });

    test("profile mode still works: the profiler (the rocprofv3 stand-in) writes its trace into the job's folder", async () => {
      const events = await submitAndRead(`${runner.url}/script/CPU/profile`, {
        fileName: 'prof.py',
        content: 'print("profiled")\n',
        headers: auth,
        extensions: true,
      });
      const ev = resultEventSchema.parse(terminal(events).data).results[0]!.runs['profile.0']!;
      assert.equal(ev.run!.exit_code, 0, ev.run!.stderr);
      assert.match(ev.run!.stdout, /profiled/);
      assert.ok(ev.profile?.summary, 'a trace summary');
      const zip = await fetch(ev.profile!.download_url ?? '', { headers: auth });
      assert.equal(zip.status, 200);
      assert.ok(
        Buffer.from(await zip.arrayBuffer()).includes(Buffer.from('_kernel_trace.csv')),
        'the trace archive holds what the profiler wrote',
      );
    });
  });
}

describe('the job user of a root runner: processes and threads have a bound', { skip: modes[0]!.skip }, () => {
  let runner: TestRunner;
  before(async () => {
    runner = await startTestRunner({ env: { ...process.env, ...modes[0]!.env }, scriptTimeoutSec: 120 });
  });
  after(() => runner.dispose());

  test("a thread bomb is stopped at the job user's limit (RLIMIT_NPROC) and the job ends; the runner goes on", async () => {
    const code = `
import threading, time
stop = threading.Event()
n = 0
try:
    while n < 200000:
        t = threading.Thread(target=stop.wait, daemon=True)
        t.start()
        n += 1
except RuntimeError as e:
    print("refused after", n, "threads:", e, flush=True)
stop.set()
`;
    const events = await submitAndRead(`${runner.url}/script/CPU/test`, { fileName: 'threads.py', content: code });
    const run = resultEventSchema.parse(terminal(events).data).results[0]!.runs.test!.run!;
    const refused = /refused after (\d+) threads/.exec(run.stdout);
    assert.ok(refused, `${run.stdout}\n${run.stderr}`);
    assert.ok(Number(refused[1]) < 4096, `at most the limit of 4096: ${refused[1]}`);
    const rec = (await (await fetch(`${runner.url}/jobs/1`)).json()) as JobRecord;
    assert.notEqual(rec.state, 'running');
    const next = await submitAndRead(`${runner.url}/script/CPU/test`, {
      fileName: 'after.py',
      content: 'print("still here")\n',
    });
    assert.match(resultEventSchema.parse(terminal(next).data).results[0]!.runs.test!.run!.stdout, /still here/);
  });
});
