/**
 * Reads a world file as a stream of bytes, in chunks of any size, without ever holding the whole
 * text: the file stays one JSON document, of any size (V8 caps one string at 512 MiB, about 32k
 * tasks that carry their policy snapshots). The splitter finds the top-level members and, for a
 * member whose value is an array (tasks, users, comments…), each element; V8's own `JSON.parse`
 * parses each piece, so every value is read by the same well-tested parser as a whole file would
 * be, at its speed, and only one element's text is alive at a time.
 *
 * For an element of `tasks`, the splitter also marks the bytes of `policy.policy` (the snapshot of
 * the task's policy an export embeds in every task): the loader decodes each distinct snapshot text
 * once and parses the rest of the task without it, so a snapshot shared by thousands of tasks is
 * parsed once instead of once per task.
 *
 * Pure: bytes in, pieces out; the file is read by an adapter (cli/world-file.ts).
 */

/** What the splitter hands out, in document order. */
export interface SplitterSink {
  /** A top-level member whose value is not an array: its key and its JSON text. */
  member(key: string, text: string): void;
  /** A top-level member whose value is an array begins (its elements follow). */
  listStart(key: string): void;
  /**
   * An element of the array of top-level member `key`. For `tasks`, `snapshot` is the text of the
   * element's `policy.policy` object when it has one, and `text` then has `null` in its place.
   */
  element(key: string, text: string, snapshot: string | undefined, at: ByteRange): void;
}

/** Where a piece lies in the file: byte offsets, `end` exclusive. */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

/** A problem in the document's structure, at a byte offset. */
export class SplitError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJ = 0x7b;
const CLOSE_OBJ = 0x7d;
const OPEN_ARR = 0x5b;
const CLOSE_ARR = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

/**
 * A document past one of the splitter's {@link SplitLimits}: no world file a writer makes is, and
 * reading on would hold the bytes (one piece) or never end (an endless stream).
 */
export class SplitTooLarge extends SplitError {}

/**
 * What the splitter reads at most. Each bounds what an endless or hostile stream can cost: the
 * whole document, one piece held in memory until it ends, and whitespace between pieces (which
 * costs no memory but, endless, would be read forever).
 */
export interface SplitLimits {
  /** Bytes in the whole document. */
  readonly maxBytes: number;
  /** Bytes of one member or element (held until it ends; V8 cannot make a string over 512 MiB of it anyway). */
  readonly maxPieceBytes: number;
  /** Whitespace bytes in a row between pieces. */
  readonly maxSpaceRun: number;
}

/**
 * The limits by default: a 16 GiB document (a 1M-task tenant carrying its policy snapshots is
 * 4.6 GiB and needs a 2.4 GB heap), a 256 MiB piece, 64 MiB of whitespace in a row.
 */
export const DEFAULT_SPLIT_LIMITS: SplitLimits = Object.freeze({ maxBytes: 16 * 1024 ** 3, maxPieceBytes: 256 * 1024 ** 2, maxSpaceRun: 64 * 1024 ** 2 });

const MIB = 1024 ** 2;
const sizeText = (bytes: number): string =>
  bytes >= 1024 * MIB ? `${+(bytes / (1024 * MIB)).toFixed(2)} GiB` : bytes >= MIB ? `${+(bytes / MIB).toFixed(2)} MiB` : `${bytes} bytes`;

/** Where the splitter is in the document's outer structure. */
const enum At {
  /** Before the top-level `{`. */
  Start,
  /** Inside the top object, before a key (or `}` when no member came yet). */
  Key,
  /** After a key, before `:`. */
  Colon,
  /** After `:`, before the value. */
  Value,
  /** Inside an array member, before an element (or `]` when no element came yet). */
  Element,
  /** After a member's value: expecting `,` or `}`. */
  AfterMember,
  /** After an element: expecting `,` or `]`. */
  AfterElement,
  /** After the top-level `}`: only whitespace may follow. */
  End,
}

/** What is being captured. */
const enum Capture {
  None,
  Key,
  Member,
  Element,
}

/**
 * Splits a world file fed in chunks. Call {@link WorldSplitter.write} with each chunk, then
 * {@link WorldSplitter.end}. Throws {@link SplitError} at the first byte that breaks the document's
 * outer structure; a piece that is not valid JSON throws from `JSON.parse` in the sink. The loader
 * turns either into a diagnostic.
 *
 * @example
 * ```ts
 * const s = new WorldSplitter(sink);
 * for await (const chunk of stream) s.write(chunk);
 * s.end();
 * ```
 */
export class WorldSplitter {
  private at: At = At.Start;
  /** Bytes before the current chunk. */
  private offset = 0;
  private readonly decoder = new TextDecoder("utf-8", { fatal: true });
  private capture: Capture = Capture.None;
  /** Bytes of the capture from earlier chunks. */
  private parts: Uint8Array[] = [];
  private partsLength = 0;
  /** Start of the capture in the current chunk (0 when it began in an earlier chunk). */
  private from = 0;
  private inString = false;
  private escaped = false;
  /** Nesting inside the captured value (0: at its top level). */
  private depth = 0;
  /** Whether the captured value is an object or array (else a scalar, ended by a delimiter). */
  private container = false;
  /** Whether a `,` was just read (a closer may not follow it). */
  private afterComma = false;
  private key = "";
  /** Whitespace bytes read in a row between pieces. */
  private spaceRun = 0;

  constructor(
    private readonly sink: SplitterSink,
    private readonly limits: SplitLimits = DEFAULT_SPLIT_LIMITS,
  ) {}

  private fail(message: string, i: number): never {
    throw new SplitError(`${message} (byte ${this.offset + i})`, this.offset + i);
  }

  /** File offset where the current capture began. */
  private startOffset = 0;

  private begin(i: number, capture: Capture, container: boolean): void {
    this.startOffset = this.offset + i;
    this.capture = capture;
    this.from = i;
    this.parts = [];
    this.partsLength = 0;
    this.depth = 0;
    this.inString = capture === Capture.Key;
    this.escaped = false;
    this.container = container;
  }

  /** The captured bytes, up to (not including) index `end` of `chunk`. */
  private take(chunk: Uint8Array, end: number): Uint8Array {
    const tail = chunk.subarray(this.from, end);
    this.capture = Capture.None;
    if (this.parts.length === 0) return tail;
    const all = new Uint8Array(this.partsLength + tail.length);
    let at = 0;
    for (const p of this.parts) {
      all.set(p, at);
      at += p.length;
    }
    all.set(tail, at);
    this.parts = [];
    this.partsLength = 0;
    return all;
  }

  /**
   * Feeds the next chunk of the file.
   *
   * @example
   * ```ts
   * splitter.write(new TextEncoder().encode('{"tasks": ['));
   * ```
   */
  write(chunk: Uint8Array): void {
    const n = chunk.length;
    if (this.offset + n > this.limits.maxBytes)
      throw new SplitTooLarge(`the world file is over ${sizeText(this.limits.maxBytes)} (maxBytes); pass a larger maxBytes if a world this large is meant`, this.offset);
    for (let i = 0; i < n; i++) {
      if (this.capture !== Capture.None) {
        // Inside a captured piece only strings and nesting matter, until the piece ends.
        i = this.scanCapture(chunk, i, n);
        if (i >= n) break;
      }
      const b = chunk[i] as number;
      if (isSpace(b)) {
        if (++this.spaceRun > this.limits.maxSpaceRun)
          throw new SplitTooLarge(`the world file has over ${sizeText(this.limits.maxSpaceRun)} of whitespace in a row (byte ${this.offset + i}): no world file is written so`, this.offset + i);
        continue;
      }
      this.spaceRun = 0;
      const comma = this.afterComma;
      this.afterComma = false;
      switch (this.at) {
        case At.Start:
          if (b !== OPEN_OBJ)
            this.fail(
              b === 0xef && this.offset + i === 0
                ? "the file starts with a UTF-8 byte-order mark (EF BB BF), which JSON does not allow: save it as UTF-8 without BOM"
                : "a world file is a JSON object: expected {",
              i,
            );
          this.at = At.Key;
          break;
        case At.Key:
          if (b === CLOSE_OBJ && !comma) this.at = At.End;
          else if (b === QUOTE) this.begin(i, Capture.Key, false);
          else this.fail("expected a key in double quotes", i);
          break;
        case At.Colon:
          if (b !== COLON) this.fail("expected : after a key", i);
          this.at = At.Value;
          break;
        case At.Value:
          if (b === OPEN_ARR) {
            this.sink.listStart(this.key);
            this.at = At.Element;
          } else if (b === COMMA || b === CLOSE_OBJ || b === CLOSE_ARR || b === COLON) this.fail("expected a value", i);
          else this.begin(i, Capture.Member, b === OPEN_OBJ);
          if (b === OPEN_OBJ) this.depth = 1;
          break;
        case At.Element:
          if (b === CLOSE_ARR && !comma) this.at = At.AfterMember;
          else if (b === COMMA || b === CLOSE_OBJ || b === CLOSE_ARR || b === COLON) this.fail("expected an array element", i);
          else {
            this.begin(i, Capture.Element, b === OPEN_OBJ || b === OPEN_ARR);
            if (this.container) this.depth = 1;
            else if (b === QUOTE) this.inString = true;
          }
          break;
        case At.AfterElement:
          if (b === COMMA) {
            this.at = At.Element;
            this.afterComma = true;
          } else if (b === CLOSE_ARR) this.at = At.AfterMember;
          else this.fail("expected , or ] in an array", i);
          break;
        case At.AfterMember:
          if (b === COMMA) {
            this.at = At.Key;
            this.afterComma = true;
          } else if (b === CLOSE_OBJ) this.at = At.End;
          else this.fail("expected , or } after a value", i);
          break;
        case At.End:
          this.fail("unexpected text after the end of the world object", i);
      }
      // A member value that is a string scalar: the opening quote starts a string.
      if (this.capture === Capture.Member && !this.container && b === QUOTE && this.from === i) this.inString = true;
      if (this.capture === Capture.Member && b === OPEN_ARR) this.container = true;
    }
    if (this.capture !== Capture.None) {
      const rest = chunk.slice(this.from);
      this.parts.push(rest);
      this.partsLength += rest.length;
      this.from = 0;
      if (this.partsLength > this.limits.maxPieceBytes) {
        const what = this.capture === Capture.Element ? `an element of "${this.key}"` : this.capture === Capture.Member ? `the value of "${this.key}"` : "a key";
        throw new SplitTooLarge(`${what} starting at byte ${this.startOffset} is over ${sizeText(this.limits.maxPieceBytes)}: no world file holds one so large`, this.startOffset);
      }
    }
    this.offset += n;
  }

  /**
   * Reads the captured piece from index `i` of `chunk` (of length `n`) until it ends, with the
   * scanner's state in locals (the hot loop of a load: every byte of the file passes here). Returns
   * the index of the first byte the outer structure must read (the piece has then been handed
   * out), or `n` when the piece goes on in the next chunk.
   */
  private scanCapture(chunk: Uint8Array, i: number, n: number): number {
    let inString = this.inString;
    let escaped = this.escaped;
    let depth = this.depth;
    const container = this.container;
    const key = this.capture === Capture.Key;
    const save = (): void => {
      this.inString = inString;
      this.escaped = escaped;
      this.depth = depth;
    };
    for (; i < n; i++) {
      const b = chunk[i] as number;
      if (inString) {
        if (escaped) escaped = false;
        else if (b === BACKSLASH) escaped = true;
        else if (b === QUOTE) {
          inString = false;
          if (key) {
            save();
            this.key = JSON.parse(this.decoder.decode(this.take(chunk, i + 1))) as string;
            this.at = At.Colon;
            return i + 1;
          }
        }
        continue;
      }
      if (b === QUOTE) inString = true;
      else if (b === OPEN_OBJ || b === OPEN_ARR) {
        if (depth === 0 && !container && i > this.from) this.fail("unexpected [ or { after a value", i);
        depth++;
      } else if (b === CLOSE_OBJ || b === CLOSE_ARR) {
        if (depth > 0) {
          depth--;
          if (depth === 0 && container) {
            save();
            this.emit(chunk, i + 1);
            return i + 1;
          }
          continue;
        }
        // A scalar ends at its parent's closer, which the outer structure reads next.
        save();
        this.emit(chunk, i);
        return i;
      } else if (b === COMMA && depth === 0) {
        save();
        this.emit(chunk, i);
        return i;
      }
    }
    save();
    return n;
  }

  /** Hands out the captured member or element ending before index `end` of `chunk`. */
  private emit(chunk: Uint8Array, end: number): void {
    const capture = this.capture;
    const at: ByteRange = { start: this.startOffset, end: this.offset + end };
    const bytes = this.take(chunk, end);
    if (capture === Capture.Member) {
      this.sink.member(this.key, this.decoder.decode(bytes));
      this.at = At.AfterMember;
      return;
    }
    const snap = this.key === "tasks" ? snapshotRange(bytes) : undefined;
    if (snap === undefined) this.sink.element(this.key, this.decoder.decode(bytes), undefined, at);
    else {
      const [s, e] = snap;
      const without = new Uint8Array(bytes.length - (e - s) + NULL_BYTES.length);
      without.set(bytes.subarray(0, s), 0);
      without.set(NULL_BYTES, s);
      without.set(bytes.subarray(e), s + NULL_BYTES.length);
      this.sink.element(this.key, this.decoder.decode(without), this.decoder.decode(bytes.subarray(s, e)), at);
    }
    this.at = At.AfterElement;
  }

  /**
   * Ends the input: throws when the document is incomplete.
   *
   * @example
   * ```ts
   * splitter.end();
   * ```
   */
  end(): void {
    if (this.at !== At.End || this.capture !== Capture.None) throw new SplitError(`the world file ends early (byte ${this.offset})`, this.offset);
  }
}

const NULL_BYTES = new TextEncoder().encode("null");
/** `policy` as bytes, without quotes. */
const POLICY = new TextEncoder().encode("policy");

/** Whether `bytes[from, to)` is `policy`. */
function isPolicy(bytes: Uint8Array, from: number, to: number): boolean {
  if (to - from !== POLICY.length) return false;
  for (let k = 0; k < POLICY.length; k++) if (bytes[from + k] !== POLICY[k]) return false;
  return true;
}

/**
 * The byte range of `policy.policy` in a task element when it is an object, else undefined. Keys
 * written with escapes are not recognised: such a task is simply parsed whole.
 */
export function snapshotRange(bytes: Uint8Array): [number, number] | undefined {
  if (bytes[0] !== OPEN_OBJ) return undefined;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let stringFrom = -1;
  let lastString: [number, number] | undefined;
  /** 1: the last key at depth 1 was "policy" (and its value is being read); 2: likewise inside it. */
  let inPolicy = false;
  let pendingKeyPolicy = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] as number;
    if (inString) {
      if (escaped) escaped = false;
      else if (b === BACKSLASH) escaped = true;
      else if (b === QUOTE) {
        inString = false;
        lastString = [stringFrom, i];
      }
      continue;
    }
    switch (b) {
      case QUOTE:
        inString = true;
        stringFrom = i + 1;
        break;
      case COLON:
        pendingKeyPolicy = lastString !== undefined && isPolicy(bytes, lastString[0], lastString[1]);
        lastString = undefined;
        if (depth === 1) inPolicy = false;
        if (depth === 2 && inPolicy && pendingKeyPolicy) {
          // The value of policy.policy starts at the next non-space byte.
          let j = i + 1;
          while (j < bytes.length && isSpace(bytes[j] as number)) j++;
          if (bytes[j] !== OPEN_OBJ) return undefined;
          const end = matchingEnd(bytes, j);
          return end === undefined ? undefined : [j, end];
        }
        if (depth !== 1) pendingKeyPolicy = false;
        break;
      case OPEN_OBJ:
      case OPEN_ARR:
        depth++;
        if (depth === 2) inPolicy = pendingKeyPolicy && b === OPEN_OBJ;
        pendingKeyPolicy = false;
        break;
      case CLOSE_OBJ:
      case CLOSE_ARR:
        depth--;
        if (depth === 1) inPolicy = false;
        break;
      default:
        if (!isSpace(b) && depth === 1) pendingKeyPolicy = false;
    }
  }
  return undefined;
}

/** The index just past the container opening at `start`, or undefined when it does not close. */
function matchingEnd(bytes: Uint8Array, start: number): number | undefined {
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (let i = start; i < bytes.length; i++) {
    const b = bytes[i] as number;
    if (inString) {
      if (escaped) escaped = false;
      else if (b === BACKSLASH) escaped = true;
      else if (b === QUOTE) inString = false;
      continue;
    }
    if (b === QUOTE) inString = true;
    else if (b === OPEN_OBJ || b === OPEN_ARR) depth++;
    else if (b === CLOSE_OBJ || b === CLOSE_ARR) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return undefined;
}
