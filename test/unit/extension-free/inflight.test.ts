// The store of submissions in flight across window reloads (src/extension/gpumode/inflight.ts): entries written by
// older versions (GPU MODE polls only, no kind, service or acceptedAt) still resume; a stream job and a poll with
// the same id on one server are different entries.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { InFlightStore, resumeStateOf, type InFlightSubmission } from '../../../src/extension/gpumode/inflight';

function memento(initial: Record<string, unknown> = {}): vscode.Memento {
  const data = new Map(Object.entries(initial));
  return {
    keys: () => [...data.keys()],
    get: <T>(key: string, fallback?: T) => (data.has(key) ? (data.get(key) as T) : fallback),
    update: async (key: string, value: unknown) => {
      data.set(key, value);
    },
  } as vscode.Memento;
}

const KEY = 'kernelRunner.inFlightSubmissions';
const older = {
  id: 4201,
  baseUrl: 'https://gpumode.example',
  targetLabel: 'GPU MODE',
  uri: 'file:///w/k.py',
  file: 'k.py',
  mode: 'test',
  leaderboard: 'amd-fp8-mm',
  gpu: 'MI300',
  title: 'Tests',
  startedAt: 1_000,
};

describe('submissions in flight', () => {
  it('reads an entry of an older version as a GPU MODE poll accepted when it started', () => {
    const store = new InFlightStore(memento({ [KEY]: [older, { id: 'garbage' }] }));
    const [entry] = store.list();
    assert.equal(store.list().length, 1, 'an unreadable entry is dropped');
    assert.deepEqual([entry?.kind, entry?.service, entry?.acceptedAt], ['poll', 'gpumode', 1_000]);
    assert.deepEqual(resumeStateOf(entry as InFlightSubmission), {
      kind: 'poll',
      baseUrl: 'https://gpumode.example',
      service: 'gpumode',
      id: 4201,
      fileName: 'k.py',
      mode: 'test',
      leaderboard: 'amd-fp8-mm',
      gpu: 'MI300',
      acceptedAt: 1_000,
    });
  });

  it('keeps a job on our runner apart from a submission with the same id; removes only the one whose outcome came', async () => {
    const store = new InFlightStore(memento());
    const poll: InFlightSubmission = {
      ...older,
      mode: 'test',
      kind: 'poll',
      service: 'gpumode',
      baseUrl: 'http://box:8787',
      acceptedAt: 1_500,
    };
    const stream: InFlightSubmission = { ...poll, kind: 'stream', service: 'kernel-runner' };
    await store.add(poll);
    await store.add(stream);
    await store.add({ ...stream, acceptedAt: 2_000 });
    assert.deepEqual(
      store.list().map((e) => [e.kind, e.acceptedAt]),
      [
        ['poll', 1_500],
        ['stream', 2_000],
      ],
    );
    await store.remove(stream);
    assert.deepEqual(
      store.list().map((e) => e.kind),
      ['poll'],
    );
  });
});
