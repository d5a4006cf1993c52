// Merges per-process Perfetto traces (rocprofv3's `<pid>_results.pftrace`, one per rank of a multi-GPU job) into one
// whose timeline has one track per GPU: each queue track (its name says `Agent <node id>`) is re-parented
// (TrackDescriptor.parent_uuid) under a parent track defined once per GPU ("GPU 3 (Agent 5) · rank 3"), every packet
// else kept as it was. Concatenated traces can collide: Perfetto SDK writers number their packet sequences from 1 in
// every process, and a track uuid may repeat; a later file's colliding sequence ids and uuids are renumbered.
// Streamed packet by packet (a trace is a repeated `packet = 1` field; a packet is small), two passes per file.
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';

// field numbers (perfetto/trace/trace_packet.proto, track_event/track_descriptor.proto, track_event.proto)
const TRACE_PACKET = 1;
const PACKET_SEQUENCE_ID = 10; // trusted_packet_sequence_id
const PACKET_TRACK_EVENT = 11;
const PACKET_DEFAULTS = 59; // trace_packet_defaults
const PACKET_TRACK_DESCRIPTOR = 60;
const DESCRIPTOR_UUID = 1;
const DESCRIPTOR_NAME = 2;
const DESCRIPTOR_PARENT = 5;
const EVENT_TRACK_UUID = 11;
const EVENT_EXTRA_COUNTER_TRACKS = 31;
const DEFAULTS_TRACK_EVENT = 11;

const VARINT = 0;
const BYTES = 2;

interface Field {
  num: number;
  wire: number;
  /** Where the field starts (its tag) and ends. */
  start: number;
  end: number;
  /** A varint's value, or a length-delimited field's payload bounds. */
  value: bigint;
  payload: [number, number];
}

function readVarint(buf: Uint8Array, at: number): [bigint, number] {
  let value = 0n;
  let shift = 0n;
  for (let i = at; i < buf.length && shift < 70n; i++) {
    const byte = buf[i] as number;
    value |= BigInt(byte & 0x7f) << shift;
    if (byte < 0x80) return [value, i + 1];
    shift += 7n;
  }
  throw new Error('not a Perfetto trace: a truncated or overlong varint');
}

function* fields(buf: Uint8Array): Generator<Field> {
  let at = 0;
  while (at < buf.length) {
    const start = at;
    const [tag, afterTag] = readVarint(buf, at);
    const num = Number(tag >> 3n);
    const wire = Number(tag & 7n);
    at = afterTag;
    let value = 0n;
    let payload: [number, number] = [at, at];
    if (wire === VARINT) [value, at] = readVarint(buf, at);
    else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else if (wire === BYTES) {
      const [length, afterLength] = readVarint(buf, at);
      payload = [afterLength, afterLength + Number(length)];
      at = payload[1];
    } else throw new Error(`not a Perfetto trace: wire type ${wire}`);
    if (at > buf.length) throw new Error('not a Perfetto trace: a field runs past its message');
    yield { num, wire, start, end: at, value, payload };
  }
}

function varint(n: bigint): Buffer {
  const out: number[] = [];
  let v = BigInt.asUintN(64, n);
  do {
    const byte = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v ? byte | 0x80 : byte);
  } while (v);
  return Buffer.from(out);
}

const varintField = (num: number, value: bigint): Buffer =>
  Buffer.concat([varint(BigInt(num << 3) | BigInt(VARINT)), varint(value)]);
const bytesField = (num: number, data: Uint8Array): Buffer =>
  Buffer.concat([varint(BigInt(num << 3) | BigInt(BYTES)), varint(BigInt(data.length)), data]);

/** `buf` with some fields replaced: `edit` returns the new bytes of a field, or undefined to keep it. */
function rewrite(buf: Uint8Array, edit: (f: Field) => Uint8Array | undefined, append: Uint8Array[] = []): Buffer {
  const parts: Uint8Array[] = [];
  let kept = 0;
  for (const f of fields(buf)) {
    const replaced = edit(f);
    if (replaced === undefined) continue;
    parts.push(buf.subarray(kept, f.start), replaced);
    kept = f.end;
  }
  parts.push(buf.subarray(kept), ...append);
  return Buffer.concat(parts);
}

/** The packets of a trace file, one at a time, read in chunks. */
async function* packets(path: string): AsyncGenerator<Uint8Array> {
  let pending: Buffer = Buffer.alloc(0);
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
    pending = pending.length ? Buffer.concat([pending, chunk as Buffer]) : (chunk as Buffer);
    let at = 0;
    for (;;) {
      let header: [bigint, number];
      let length: [bigint, number];
      try {
        header = readVarint(pending, at);
        length = readVarint(pending, header[1]);
      } catch {
        break; // the rest of the header is in the next chunk
      }
      const end = length[1] + Number(length[0]);
      if (end > pending.length) break;
      if (header[0] === BigInt((TRACE_PACKET << 3) | BYTES)) yield pending.subarray(length[1], end);
      else if (Number(header[0] & 7n) !== BYTES) throw new Error(`${path}: not a Perfetto trace`);
      at = end;
    }
    pending = pending.subarray(at);
  }
  if (pending.length) throw new Error(`${path}: a Perfetto trace cut short`);
}

export interface TraceInput {
  path: string;
  pid: number | null;
  rank: number | null;
  /** Device index of each GPU agent (`Agent <node id>`) of this process, when known. */
  devices: ReadonlyMap<string, number>;
}

interface FileScan {
  /** Track uuid -> name, of every TrackDescriptor. */
  tracks: Map<bigint, string>;
  sequences: Set<bigint>;
}

async function scan(path: string): Promise<FileScan> {
  const tracks = new Map<bigint, string>();
  const sequences = new Set<bigint>();
  for await (const packet of packets(path)) {
    for (const f of fields(packet)) {
      if (f.num === PACKET_SEQUENCE_ID && f.wire === VARINT) sequences.add(f.value);
      if (f.num !== PACKET_TRACK_DESCRIPTOR || f.wire !== BYTES) continue;
      let uuid = 0n;
      let name = '';
      for (const d of fields(packet.subarray(...f.payload))) {
        if (d.num === DESCRIPTOR_UUID && d.wire === VARINT) uuid = d.value;
        if (d.num === DESCRIPTOR_NAME && d.wire === BYTES) name = Buffer.from(packet.subarray(...d.payload)).toString();
      }
      if (!tracks.has(uuid) || name) tracks.set(uuid, name);
    }
  }
  return { tracks, sequences };
}

const AGENT = /\bAgent (\d+)\b/;

export interface MergeResult {
  /** The GPU tracks written, by name, with the queue tracks each holds. */
  gpuTracks: { name: string; queues: number }[];
}

/** Writes `target`: the traces of `inputs` in order, queue tracks grouped under one parent track per GPU. */
export async function mergePftraces(inputs: readonly TraceInput[], target: string): Promise<MergeResult> {
  const scans: FileScan[] = [];
  for (const input of inputs) scans.push(await scan(input.path));

  const usedUuids = new Set<bigint>();
  const usedSequences = new Set<bigint>();
  const fresh = (used: Set<bigint>, from: bigint, limit = 1n << 64n): bigint => {
    let v = from;
    while (used.has(v) || v === 0n) v = (v + 1n) % limit;
    used.add(v);
    return v;
  };
  // uuids and sequence ids of a file that an earlier file already used: renumbered in this file
  const uuidMaps: Map<bigint, bigint>[] = [];
  const sequenceMaps: Map<bigint, bigint>[] = [];
  for (const s of scans) {
    const uuids = new Map<bigint, bigint>();
    for (const uuid of s.tracks.keys())
      if (uuid !== 0n && usedUuids.has(uuid)) uuids.set(uuid, fresh(usedUuids, uuid ^ 0x5a5a5a5a00000000n));
    for (const uuid of s.tracks.keys()) usedUuids.add(uuid);
    const sequences = new Map<bigint, bigint>();
    for (const seq of s.sequences)
      if (usedSequences.has(seq)) sequences.set(seq, fresh(usedSequences, seq + 1n, 1n << 32n));
    for (const seq of s.sequences) usedSequences.add(seq);
    uuidMaps.push(uuids);
    sequenceMaps.push(sequences);
  }

  // one parent per GPU: by device index where the process's agent_info says it, else by (process, agent)
  interface Gpu {
    uuid: bigint;
    device: number | null;
    agent: string;
    pids: Set<number>;
    ranks: Set<number>;
    queues: number;
  }
  const gpus = new Map<string, Gpu>();
  const parents: Map<bigint, bigint>[] = []; // per file: queue track uuid (as in the file) -> GPU track uuid
  inputs.forEach((input, i) => {
    const parentOf = new Map<bigint, bigint>();
    for (const [uuid, name] of (scans[i] as FileScan).tracks) {
      const agent = AGENT.exec(name)?.[0];
      if (!agent) continue;
      const device = input.devices.get(agent) ?? null;
      const key = device !== null ? `device ${device}` : `${input.pid ?? `file ${i}`} ${agent}`;
      let gpu = gpus.get(key);
      if (!gpu) {
        const base = 0x4b52475055000000n + BigInt(device ?? 0x10000 + gpus.size); // "KRGPU"
        gpu = { uuid: fresh(usedUuids, base), device, agent, pids: new Set(), ranks: new Set(), queues: 0 };
        gpus.set(key, gpu);
      }
      if (input.pid !== null) gpu.pids.add(input.pid);
      if (input.rank !== null) gpu.ranks.add(input.rank);
      gpu.queues++;
      parentOf.set(uuid, gpu.uuid);
    }
    parents.push(parentOf);
  });

  const out = createWriteStream(target, { mode: 0o600 });
  const write = async (bytes: Uint8Array): Promise<void> => {
    if (!out.write(bytes)) await once(out, 'drain');
  };
  const ordered = [...gpus.values()].sort(
    (a, b) => (a.device ?? Infinity) - (b.device ?? Infinity) || a.agent.localeCompare(b.agent),
  );
  const gpuTracks: MergeResult['gpuTracks'] = [];
  if (ordered.length > 0) {
    const sequence = fresh(usedSequences, 0x4b52n, 1n << 32n);
    for (const gpu of ordered) {
      const ranks = [...gpu.ranks].sort((a, b) => a - b);
      const who = ranks.length
        ? ` · rank${ranks.length > 1 ? 's' : ''} ${ranks.join(', ')}`
        : gpu.pids.size
          ? ` · pid ${[...gpu.pids].sort((a, b) => a - b).join(', ')}`
          : '';
      const name = gpu.device !== null ? `GPU ${gpu.device} (${gpu.agent})${who}` : `${gpu.agent}${who}`;
      const descriptor = Buffer.concat([
        varintField(DESCRIPTOR_UUID, gpu.uuid),
        bytesField(DESCRIPTOR_NAME, Buffer.from(name)),
      ]);
      await write(
        bytesField(
          TRACE_PACKET,
          Buffer.concat([bytesField(PACKET_TRACK_DESCRIPTOR, descriptor), varintField(PACKET_SEQUENCE_ID, sequence)]),
        ),
      );
      gpuTracks.push({ name, queues: gpu.queues });
    }
  }

  for (const [i, input] of inputs.entries()) {
    const uuids = uuidMaps[i] as Map<bigint, bigint>;
    const sequences = sequenceMaps[i] as Map<bigint, bigint>;
    const parentOf = parents[i] as Map<bigint, bigint>;
    const renumbers = uuids.size > 0 || sequences.size > 0;
    const uuid = (v: bigint): bigint => uuids.get(v) ?? v;
    const remapUuid = (num: number) => (f: Field) =>
      f.num === num && f.wire === VARINT && uuids.has(f.value) ? varintField(num, uuid(f.value)) : undefined;
    const descriptor = (payload: Uint8Array): Buffer => {
      let own: bigint | null = null;
      for (const d of fields(payload)) if (d.num === DESCRIPTOR_UUID && d.wire === VARINT) own = d.value;
      const parent = own === null ? undefined : parentOf.get(own);
      return rewrite(
        payload,
        (d) => {
          if (d.num === DESCRIPTOR_PARENT && parent !== undefined) return new Uint8Array(0);
          if ((d.num === DESCRIPTOR_UUID || d.num === DESCRIPTOR_PARENT) && d.wire === VARINT && uuids.has(d.value))
            return varintField(d.num, uuid(d.value));
          return undefined;
        },
        parent === undefined ? [] : [varintField(DESCRIPTOR_PARENT, parent)],
      );
    };
    for await (const packet of packets(input.path)) {
      let touched = false;
      if (renumbers) touched = true;
      else for (const f of fields(packet)) if (f.num === PACKET_TRACK_DESCRIPTOR) touched = true;
      if (!touched) {
        await write(bytesField(TRACE_PACKET, packet));
        continue;
      }
      const edited = rewrite(packet, (f) => {
        if (f.num === PACKET_SEQUENCE_ID && f.wire === VARINT && sequences.has(f.value))
          return varintField(PACKET_SEQUENCE_ID, sequences.get(f.value) as bigint);
        if (f.wire !== BYTES) return undefined;
        const payload = packet.subarray(...f.payload);
        if (f.num === PACKET_TRACK_DESCRIPTOR) return bytesField(f.num, descriptor(payload));
        if (uuids.size === 0) return undefined;
        if (f.num === PACKET_TRACK_EVENT)
          return bytesField(
            f.num,
            rewrite(payload, (e) => remapUuid(EVENT_TRACK_UUID)(e) ?? remapUuid(EVENT_EXTRA_COUNTER_TRACKS)(e)),
          );
        if (f.num === PACKET_DEFAULTS)
          return bytesField(
            f.num,
            rewrite(payload, (d) =>
              d.num === DEFAULTS_TRACK_EVENT && d.wire === BYTES
                ? bytesField(d.num, rewrite(payload.subarray(...d.payload), remapUuid(EVENT_TRACK_UUID)))
                : undefined,
            ),
          );
        return undefined;
      });
      await write(bytesField(TRACE_PACKET, edited));
    }
  }
  await new Promise<void>((resolve, reject) => {
    out.on('error', reject);
    out.end(resolve);
  });
  return { gpuTracks };
}
