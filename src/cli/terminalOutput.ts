// Everything the CLI writes to stdout and stderr passes through terminalSafe (core/noise/ansi.ts): program output,
// results, trace kernel names and server messages are other people's text, and a terminal obeys what it is sent.
// Bidirectional controls are written out (showBidiControls, as the webviews do): a kernel or file name cannot
// display as another; as `\u202e`, what JSON writes, so --json output stays exact.
// `filter` is left out: it passes a program's own lines through as they are (its --keep-ansi, CR progress lines).
import { StringDecoder } from 'node:string_decoder';
import { terminalSafe, utf8IsTerminalSafe } from '../core/noise/index';
import { showBidiControls } from '../core/format/index';

type Write = NodeJS.WriteStream['write'];

/**
 * From this size on, a chunk is encoded here and its bytes checked (utf8IsTerminalSafe): the stream would encode it
 * anyway, and the bytes are checked faster than the string is scanned.
 */
const BYTE_CHECK_FROM = 4096;

export function guardTerminalOutput(stream: NodeJS.WriteStream): void {
  const write = stream.write.bind(stream) as (chunk: string | Uint8Array, cb?: (err?: Error | null) => void) => boolean;
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
    if (text.length >= BYTE_CHECK_FROM) {
      const bytes = Buffer.from(text, 'utf8');
      if (utf8IsTerminalSafe(bytes)) return write(bytes, done);
    }
    return write(showBidiControls(terminalSafe(text)), done);
  }) as Write;
}
