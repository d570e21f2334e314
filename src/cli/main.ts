/**
 * The `policy-sim` executable: binds {@link runCli} to the real process (files, stdout, exit code).
 * This adapter is the only place the CLI touches the process.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { runCli } from "./run.js";

void runCli(process.argv.slice(2), {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  readFile: (p) => readFileSync(p, "utf8"),
  writeFile: (p, s) => writeFileSync(p, s),
  isTTY: process.stdout.isTTY === true,
}).then((code) => {
  process.exitCode = code;
});
