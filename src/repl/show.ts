/**
 * Values the REPL returns: the data a program wants, shown as the text a person wants. The REPL
 * prints results through `util.inspect`, so the text goes in `util.inspect.custom` and the raw
 * object stays one `.data` away (`explain("1001").data.rules[2]`).
 */
import { clipLongLines } from "../text/clip.js";
import { inspect } from "node:util";

/**
 * A result with its text. `inspect` (so the REPL's echo) shows `text`; `.data` is the raw value;
 * `.ok` is false for refusals and errors, so a script can branch without parsing text.
 *
 * @example
 * ```ts
 * const e = new Shown({ kind: "explanation" }, "Task 1001 …");
 * inspect(e); // "Task 1001 …"
 * e.data.kind; // "explanation"
 * ```
 */
export class Shown<T> {
  constructor(
    readonly data: T,
    readonly text: string,
    readonly ok: boolean = true,
  ) {}

  [inspect.custom](): string {
    return this.text;
  }

  toString(): string {
    return this.text;
  }

  toJSON(): T {
    return this.data;
  }
}

/**
 * A refusal or a bad call as a value the REPL prints in one line (a thrown error would print a
 * stack trace, and an error is an answer here, not a crash).
 *
 * @example
 * ```ts
 * failed("NOT_FOUND", 'no task "9999"'); // prints: ✗ NOT_FOUND: no task "9999"
 * ```
 */
export function failed(code: string, message: string): Shown<{ readonly code: string; readonly message: string }> {
  // The one line shown is clipped when it echoes a huge input; `.data` keeps the whole message.
  return new Shown({ code, message }, clipLongLines(`✗ ${code}: ${message}`), false);
}
