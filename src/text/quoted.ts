/**
 * A name in double quotes for a line of text: as it is, or as a JSON string when it holds a double
 * quote of its own (`"Grant \"Prod\" access"`), so a reader still sees where it ends.
 *
 * @example
 * ```ts
 * quoted("Ravi Patel"); // '"Ravi Patel"'
 * quoted('Grant "Prod" (AWS)'); // '"Grant \\"Prod\\" (AWS)"'
 * ```
 */
export function quoted(name: string): string {
  return name.includes('"') ? JSON.stringify(name) : `"${name}"`;
}
