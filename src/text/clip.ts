/**
 * Long lines of human-facing text clipped in the middle: a message that echoes what it was given
 * (an id of 2 MB, a pasted document) stays readable, and says how much it left out. For stderr and
 * the REPL's one-line failures; data (`--json`, `.data`) keeps every character.
 */

const isHigh = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/** The longest line shown whole. */
export const MAX_SHOWN_LINE = 4000;

/**
 * `text` with each line longer than `max` characters cut to its start and end around a note of how
 * many characters were left out.
 *
 * @example
 * ```ts
 * clipLongLines(`no task "${"x".repeat(10_000)}"`, 100); // 'no task "xxx…xxx … (9,911 characters left out) … xxx"'
 * ```
 */
export function clipLongLines(text: string, max = MAX_SHOWN_LINE): string {
  if (text.length <= max) return text;
  return text
    .split("\n")
    .map((line) => {
      if (line.length <= max) return line;
      // Never between the two halves of a surrogate pair (an emoji would print as U+FFFD).
      let head = Math.floor(max * 0.75);
      if (isHigh(line.charCodeAt(head - 1))) head--;
      let from = line.length - Math.max(0, max - Math.floor(max * 0.75));
      if (isLow(line.charCodeAt(from))) from++;
      return `${line.slice(0, head)} … (${(from - head).toLocaleString("en-US")} characters left out) … ${line.slice(from)}`;
    })
    .join("\n");
}
