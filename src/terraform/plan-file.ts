/**
 * The bytes of a plan file as the JSON document `terraform show -json` wrote. The common CI
 * mistakes are told apart from a bare parse error: Terraform's binary plan (a zip archive, the
 * file `terraform plan -out` writes), the output of hashicorp/setup-terraform's wrapper (which echoes
 * the command and adds lines of its own around Terraform's JSON). Encodings a shell may write are
 * accepted: UTF-8 with a byte-order mark, and UTF-16 with one (Windows PowerShell 5's `>`).
 */
import type { PlanDiagnostic } from "./attributes.js";

const HOW_TO = "write the plan as JSON with `terraform show -json plan.tfplan > plan.json`";

/** UTF-16 big-endian text from byte `start` on, swapped to little-endian: Node's decoder for utf-16be needs full ICU. */
function utf16be(bytes: Uint8Array, start: number): string {
  const swapped = new Uint8Array(bytes.length - start - ((bytes.length - start) % 2));
  for (let i = 0; i < swapped.length; i += 2) {
    swapped[i] = bytes[start + i + 1] ?? 0;
    swapped[i + 1] = bytes[start + i] ?? 0;
  }
  return new TextDecoder("utf-16le").decode(swapped);
}

/** The text of the file: UTF-16 by its byte-order mark or a NUL beside its first character, else UTF-8 (a UTF-8 mark dropped). */
function decodeText(bytes: Uint8Array): string {
  const [b0, b1] = bytes;
  if (b0 === 0xff && b1 === 0xfe) return new TextDecoder("utf-16le").decode(bytes.subarray(2));
  if (b0 === 0xfe && b1 === 0xff) return utf16be(bytes, 2);
  // UTF-16 without a byte-order mark: JSON starts with an ASCII character, so a NUL beside it
  // (`{\0` little-endian, `\0{` big-endian) says which.
  if (bytes.length >= 2 && b0 !== 0 && b1 === 0) return new TextDecoder("utf-16le").decode(bytes);
  if (bytes.length >= 2 && b0 === 0 && b1 !== 0) return utf16be(bytes, 0);
  // Not fatal: an invalid byte in a string reads as U+FFFD, as the file was read before.
  return new TextDecoder("utf-8").decode(bytes);
}

/** Control characters (a NUL, gzip's header bytes) shown as escapes in a message, not written to the terminal. */
function printable(message: string): string {
  return message.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * Parses a plan file, given as its bytes (or as text already decoded as UTF-8), into the document
 * {@link readPlan} reads. A `PLAN_NOT_A_PLAN` diagnostic (path `$`) that says what the file is and
 * how to write the JSON, for a binary plan, the setup-terraform wrapper's output, or other text
 * that is not JSON.
 *
 * @example
 * ```ts
 * const doc = parsePlanFile(readFileSync("plan.json"));
 * if (doc.ok) console.log(readPlan(doc.value));
 * else console.error(doc.error[0]?.message); // "… Terraform's binary plan …"
 * ```
 */
export function parsePlanFile(file: Uint8Array | string): { ok: true; value: unknown } | { ok: false; error: PlanDiagnostic[] } {
  const refuse = (message: string) => ({ ok: false as const, error: [{ code: "PLAN_NOT_A_PLAN" as const, path: "$", message }] });
  let text = typeof file === "string" ? file : decodeText(file);
  if (text.startsWith("\uFEFF")) text = text.slice(1);
  // A zip archive's local file header ("PK\x03\x04"): the plan file itself, not its JSON.
  if (text.startsWith("PK\u0003\u0004"))
    return refuse(`this is Terraform's binary plan file (the one \`terraform plan -out\` writes, a zip archive), not its JSON: ${HOW_TO}, and give that file`);
  // gzip's magic number (read as UTF-8, 0x8b is a replacement character).
  if (text.startsWith("\u001f\uFFFD")) return refuse(`this is gzip-compressed: decompress it (gunzip) and give the JSON (${HOW_TO})`);
  // Read as UTF-8 elsewhere, UTF-16 shows as two replacement characters and NULs between letters.
  if (text.startsWith("\uFFFD\uFFFD") && text.includes("\u0000"))
    return refuse(`this looks like UTF-16 text, which was read as UTF-8 here: save it as UTF-8 (${HOW_TO} from a shell that writes UTF-8)`);
  if (text.trimStart().startsWith("[command]"))
    return refuse(
      'this is the output of hashicorp/setup-terraform\'s wrapper (it starts with "[command]" and wraps Terraform\'s JSON in lines of its own), not the JSON alone: set `terraform_wrapper: false` in the setup-terraform step (or run `terraform-bin show -json plan.tfplan > plan.json`)',
    );
  if (text.trim() === "") return refuse(`the file is empty: ${HOW_TO}`);
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (e: unknown) {
    return refuse(`not JSON (${printable(e instanceof Error ? e.message : String(e))}): ${HOW_TO}`);
  }
}
