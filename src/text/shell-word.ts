/**
 * A value as one word of a POSIX shell command: as it is when it is plain, else in single quotes
 * (always, for a glob the shell must not expand), for the commands the CLI prints for a person to
 * run.
 *
 * @example
 * ```ts
 * shellWord("fixtures/world.json"); // "fixtures/world.json"
 * shellWord("my world.json"); // "'my world.json'"
 * shellWord("cases/*.yaml", true); // "'cases/*.yaml'"
 * ```
 */
export function shellWord(path: string, glob = false): string {
  return !glob && /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`;
}
