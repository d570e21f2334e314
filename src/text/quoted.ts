/**
 * A name in double quotes for a line of text: as it is, or as a JSON string when it holds a double
 * quote or a control character of its own (`"Grant \"Prod\" access"`), so a reader still sees where
 * it ends and a newline in it cannot pass for a line of the text.
 *
 * @example
 * ```ts
 * quoted("Ravi Patel"); // '"Ravi Patel"'
 * quoted('Grant "Prod" (AWS)'); // '"Grant \\"Prod\\" (AWS)"'
 * ```
 */
export function quoted(name: string): string {
  // A quote or a control character (a newline would start a line of its own in the text) is escaped.
  return /["\u0000-\u001f\u007f\u2028\u2029]/.test(name) ? JSON.stringify(name) : `"${name}"`;
}
