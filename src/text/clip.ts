/**
 * Long lines of human-facing text clipped in the middle: a message that echoes what it was given
 * (an id of 2 MB, a pasted document) stays readable, and says how much it left out. For stderr and
 * the REPL's one-line failures; data (`--json`, `.data`) keeps every character.
 */

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
      const head = Math.floor(max * 0.75);
      const tail = Math.max(0, max - head);
      const cut = line.length - head - tail;
      return `${line.slice(0, head)} … (${cut.toLocaleString("en-US")} characters left out) … ${line.slice(line.length - tail)}`;
    })
    .join("\n");
}
