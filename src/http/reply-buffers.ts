/**
 * The bytes of `serve`'s JSON replies, in buffers used again and again. A reply is assembled once
 * from `jsonParts` (the text written for it and the cached bytes of the shared JSON it carries, such
 * as an 18 KB policy snapshot) into a block taken from a free list, and the block goes back to the
 * list when the response has been handed to the socket (its `finish`). Allocating a fresh 20 KB
 * buffer per reply instead grows the process's external memory by that much on every request,
 * which V8 answers with full garbage collections of the whole world's heap.
 */
import { jsonParts } from "../codec/json-text.js";
import type { JsonValue } from "../model/json.js";

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

  /** `JSON.stringify(value)` as UTF-8 bytes, in a block of this list when it fits. */
  bytes(value: JsonValue): Uint8Array {
    const parts = jsonParts(value);
    let size = 0;
    for (const p of parts) size += typeof p === "string" ? Buffer.byteLength(p) : p.byteLength;
    const pooled = size <= BLOCK_BYTES;
    const block = pooled ? (this.free.pop() ?? Buffer.allocUnsafeSlow(BLOCK_BYTES)) : Buffer.allocUnsafe(size);
    let at = 0;
    for (const p of parts) {
      if (typeof p === "string") at += block.write(p, at);
      else {
        block.set(p, at);
        at += p.byteLength;
      }
    }
    if (!pooled) return block;
    const body = block.subarray(0, size);
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
