// A kernel_trace row's name guessed from its Kernel_Id (a kernel id names one kernel in a run): the name id and
// raw bytes last seen with that id are offered to the CSV scanner as a FieldGuess, which compares them with the
// row (one memcmp) instead of searching for the name's closing quote. A wrong guess costs that compare only.
import type { CsvRow, FieldGuess } from './csvScanner';
import type { BytesInterner } from './tables';
import { MAX_OTHER_IDS, SMALL_KERNEL_IDS } from './limits';

const LF = 0x0a;

interface Known {
  id: number;
  raw: Buffer;
}

export class KernelNameGuess {
  private readonly small: Array<Known | undefined> = [];
  private readonly other = new Map<number, Known>();
  /** The name id the last guess stood for (valid for a row whose `guessed` is set). */
  guessedId = -1;
  /** For the scanner; undefined when the file has no Kernel_Id column before the name. */
  readonly guess: FieldGuess | undefined;

  constructor(
    private readonly kernelIdColumn: number,
    private readonly nameColumn: number,
    private readonly names: BytesInterner,
  ) {
    if (kernelIdColumn >= 0 && kernelIdColumn < nameColumn) {
      this.guess = {
        field: nameColumn,
        bytes: (values) => {
          const k = values[kernelIdColumn] as number;
          const known = k >= 0 && k < SMALL_KERNEL_IDS && (k | 0) === k ? this.small[k] : this.other.get(k);
          if (known === undefined) return undefined;
          this.guessedId = known.id;
          return known.raw;
        },
      };
    }
  }

  /** The row's name id: the guess when it held, else interned (and the guess for its Kernel_Id from now on). */
  nameId(row: CsvRow): number {
    return row.guessed ? this.guessedId : this.learn(row);
  }

  private learn(row: CsvRow): number {
    const col = this.nameColumn;
    const escaped = row.escaped[col] as number;
    const id = this.names.idFor(row.buf, row.starts[col] as number, row.ends[col] as number, escaped);
    const kernelId = this.guess ? (row.values[this.kernelIdColumn] as number) : NaN;
    // a guess's bytes hold no quote (not escaped) and no line feed: the scanner relies on that
    if (kernelId === kernelId && escaped === 0 && id !== this.names.foldId && this.names.lastRaw.indexOf(LF) < 0) {
      const known = { id, raw: this.names.lastRaw };
      if (kernelId >= 0 && kernelId < SMALL_KERNEL_IDS && (kernelId | 0) === kernelId) {
        while (this.small.length < kernelId) this.small.push(undefined);
        this.small[kernelId] = known;
      } else if (this.other.size < MAX_OTHER_IDS || this.other.has(kernelId)) {
        this.other.set(kernelId, known);
      }
    }
    return id;
  }
}
