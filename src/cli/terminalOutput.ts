// Everything the CLI writes to stdout and stderr passes through terminalSafe (core/noise/ansi.ts): program output,
// results, trace kernel names and server messages are other people's text, and a terminal obeys what it is sent.
// `filter` is left out: it passes a program's own lines through as they are (its --keep-ansi, CR progress lines).
import { StringDecoder } from 'node:string_decoder';
import { terminalSafe } from '../core/noise/index';

type Write = NodeJS.WriteStream['write'];

export function guardTerminalOutput(stream: NodeJS.WriteStream): void {
  const write = stream.write.bind(stream) as (chunk: string, cb?: (err?: Error | null) => void) => boolean;
  // a Buffer may end inside a UTF-8 sequence: the decoder keeps that part for the next write
  const decoder = new StringDecoder('utf8');
  stream.write = ((
    chunk: string | Uint8Array,
    encoding?: BufferEncoding | ((err?: Error | null) => void),
    cb?: (err?: Error | null) => void,
  ) => {
    const done = typeof encoding === 'function' ? encoding : cb;
    const text =
      typeof chunk === 'string'
        ? typeof encoding === 'string' && encoding !== 'utf8' && encoding !== 'utf-8'
          ? Buffer.from(chunk, encoding).toString('utf8')
          : chunk
        : decoder.write(Buffer.from(chunk));
    return write(terminalSafe(text), done);
  }) as Write;
}
