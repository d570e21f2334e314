/**
 * The bytes of `serve`'s JSON replies, in buffers used again and again. A reply is assembled once
 * from `jsonParts` (the text written for it and the cached bytes of the shared JSON it carries, such
 * as an 18 KB policy snapshot) into a block taken from a free list, and the block goes back to the
 * list when the response has been handed to the socket (its `finish`). Allocating a fresh 20 KB
 * buffer per reply instead grows the process's external memory by that much on every request,
 * which V8 answers with full garbage collections of the whole world's heap.
 */
import { jsonParts, type JsonWriteOptions } from "../codec/json-text.js";
import type { JsonValue } from "../model/json.js";

/**
 * How every reply body is written: the spec's names, and the API's beside them (`withApiAliases`),
 * so that the service's SDKs, which drop keys they do not know, keep action targets and user pickers.
 *
 * @example
 * ```ts
 * jsonBytes(taskView, WIRE_OPTIONS);
 * ```
 */
export const WIRE_OPTIONS: JsonWriteOptions = Object.freeze({ apiAliases: true });

/** The size of a block: a reply larger than this gets a buffer of its own. */
const BLOCK_BYTES = 64 * 1024;
/** Blocks kept for later replies; more than this many returned at once are left to the GC. */
const KEEP_BLOCKS = 32;

/**
 * A free list of reply buffers for one server. Node-only (Buffer).
 *
 * @example
 * ```ts
 * const buffers = new ReplyBuffers();
 * const body = buffers.bytes({ ok: true });
 * res.end(body);
 * res.once("finish", () => buffers.release(body));
 * ```
 */
export class ReplyBuffers {
  private readonly free: Buffer[] = [];
  /** The block behind each body lent out and not yet released. */
  private readonly lent = new WeakMap<Uint8Array, Buffer>();

  /**
   * `JSON.stringify(value)` as UTF-8 bytes, in a block of this list when it fits, with the API's
   * name beside each key the spec names differently (`WIRE_OPTIONS`).
   */
  bytes(value: JsonValue): Uint8Array {
    const parts = jsonParts(value, WIRE_OPTIONS);
    // At most three UTF-8 bytes per UTF-16 unit: a reply under the bound fits a block unmeasured.
    let bound = 0;
    for (const p of parts) bound += typeof p === "string" ? p.length * 3 : p.byteLength;
    if (bound > BLOCK_BYTES) return exactly(parts);
    const block = this.free.pop() ?? Buffer.allocUnsafeSlow(BLOCK_BYTES);
    const body = block.subarray(0, write(parts, block));
    this.lent.set(body, block);
    return body;
  }

  /**
   * Takes back the block behind `body` once nothing reads it any more (the socket has it). Any
   * other array, or a body released before, is ignored.
   */
  release(body: Uint8Array): void {
    const block = this.lent.get(body);
    if (block === undefined) return;
    this.lent.delete(body);
    if (this.free.length < KEEP_BLOCKS) this.free.push(block);
  }
}

/** Writes the parts one after the other from the start of `out`; the number of bytes written. */
function write(parts: readonly (string | Uint8Array)[], out: Buffer): number {
  let at = 0;
  for (const p of parts) {
    if (typeof p === "string") at += out.write(p, at);
    else {
      out.set(p, at);
      at += p.byteLength;
    }
  }
  return at;
}

/** A reply too large for a block, in a buffer of its own of the exact size. */
function exactly(parts: readonly (string | Uint8Array)[]): Buffer {
  let size = 0;
  for (const p of parts) size += typeof p === "string" ? Buffer.byteLength(p) : p.byteLength;
  const out = Buffer.allocUnsafe(size);
  write(parts, out);
  return out;
}
