// A Perfetto trace taken apart for tests, independently of src/runner/pftraceMerge.ts: every packet's sequence id,
// every TrackDescriptor (uuid, name, parent) and every TrackEvent (its track), and a writer of small traces in the
// layout the stand-in rocprofv3 writes (one track per agent queue, a begin and an end event per dispatch).

type Value = { wire: 0; n: bigint } | { wire: 2; bytes: Buffer };

function decode(buf: Buffer): [number, Value][] {
  const out: [number, Value][] = [];
  let i = 0;
  const next = (): bigint => {
    let v = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (i >= buf.length) throw new Error('truncated varint');
      const b = buf[i++]!;
      v += BigInt(b & 127) << shift;
      if (b < 128) return v;
    }
  };
  while (i < buf.length) {
    const tag = next();
    const field = Number(tag / 8n);
    switch (Number(tag % 8n)) {
      case 0:
        out.push([field, { wire: 0, n: next() }]);
        break;
      case 2: {
        const len = Number(next());
        out.push([field, { wire: 2, bytes: buf.subarray(i, i + len) }]);
        i += len;
        if (i > buf.length) throw new Error('field past the end');
        break;
      }
      case 1:
        i += 8;
        break;
      case 5:
        i += 4;
        break;
      default:
        throw new Error(`wire type ${tag % 8n}`);
    }
  }
  return out;
}

const num = (fs: [number, Value][], f: number): bigint | undefined => {
  const v = fs.find(([k, x]) => k === f && x.wire === 0)?.[1];
  return v?.wire === 0 ? v.n : undefined;
};
const sub = (fs: [number, Value][], f: number): Buffer | undefined => {
  const v = fs.find(([k, x]) => k === f && x.wire === 2)?.[1];
  return v?.wire === 2 ? v.bytes : undefined;
};

export interface DecodedTrace {
  tracks: { uuid: bigint; name: string; parent: bigint | undefined; sequence: bigint | undefined }[];
  /** The track of each TrackEvent, in order. */
  events: { track: bigint | undefined; sequence: bigint | undefined; name: string | undefined }[];
  sequences: Set<bigint>;
}

export function decodePftrace(buf: Buffer): DecodedTrace {
  const trace: DecodedTrace = { tracks: [], events: [], sequences: new Set() };
  for (const [field, v] of decode(buf)) {
    if (field !== 1 || v.wire !== 2) throw new Error(`top-level field ${field} is not a packet`);
    const packet = decode(v.bytes);
    const sequence = num(packet, 10);
    if (sequence !== undefined) trace.sequences.add(sequence);
    const descriptor = sub(packet, 60);
    if (descriptor) {
      const d = decode(descriptor);
      trace.tracks.push({
        uuid: num(d, 1) ?? 0n,
        name: sub(d, 2)?.toString('utf8') ?? '',
        parent: num(d, 5),
        sequence,
      });
    }
    const event = sub(packet, 11);
    if (event) {
      const e = decode(event);
      trace.events.push({ track: num(e, 11), sequence, name: sub(e, 23)?.toString('utf8') });
    }
  }
  return trace;
}

const varint = (n: bigint): number[] => {
  const out: number[] = [];
  for (;;) {
    const b = Number(n & 127n);
    n >>= 7n;
    if (n === 0n) return [...out, b];
    out.push(b | 128);
  }
};
const vf = (f: number, n: bigint | number): number[] => [...varint(BigInt(f * 8)), ...varint(BigInt(n))];
const bf = (f: number, bytes: number[]): number[] => [
  ...varint(BigInt(f * 8 + 2)),
  ...varint(BigInt(bytes.length)),
  ...bytes,
];
const text = (s: string): number[] => [...Buffer.from(s)];

/** A trace of `dispatches` (agent, queue, kernel, start, end), tracks numbered from `firstUuid`, on one sequence. */
export function encodePftrace(
  dispatches: { agent: number; queue: number; kernel: string; start: number; end: number }[],
  opts: { pid: number; firstUuid: bigint; sequence: number },
): Buffer {
  const bytes: number[] = [];
  const tracks = new Map<string, bigint>();
  for (const d of dispatches) {
    const key = `Agent ${d.agent} queue ${d.queue}`;
    let uuid = tracks.get(key);
    if (uuid === undefined) {
      uuid = opts.firstUuid + BigInt(tracks.size);
      tracks.set(key, uuid);
      const desc = [...vf(1, uuid), ...bf(2, text(`${key} (pid ${opts.pid})`))];
      bytes.push(...bf(1, [...bf(60, desc), ...vf(10, opts.sequence), ...vf(13, tracks.size === 1 ? 1 : 2)]));
    }
    const begin = [...vf(9, 1), ...vf(11, uuid), ...bf(23, text(d.kernel))];
    const end = [...vf(9, 2), ...vf(11, uuid)];
    for (const [ts, ev] of [
      [d.start, begin],
      [d.end, end],
    ] as const)
      bytes.push(...bf(1, [...vf(8, ts), ...bf(11, [...ev]), ...vf(10, opts.sequence), ...vf(13, 2)]));
  }
  return Buffer.from(bytes);
}
