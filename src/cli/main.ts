/**
 * The `policy-sim` executable: binds {@link runCli} to the real process (files, streams, signals,
 * the exit code). This adapter is the only place the CLI touches the process.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { runCli } from "./run.js";
import type { ShutdownSignal } from "./command.js";

void runCli(process.argv.slice(2), {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  readFile: (p) => readFileSync(p, "utf8"),
  writeFile: (p, s) => writeFileSync(p, s),
  isTTY: process.stdout.isTTY === true,
  stderrIsTTY: process.stderr.isTTY === true,
  stdin: process.stdin,
  output: process.stdout,
  now: () => Date.now(),
  onShutdown(handler) {
    // While a handler is registered, SIGINT/SIGTERM stop the command (serve) instead of killing
    // the process mid-response; once it is removed, Node's default handling is back.
    const listeners = (["SIGINT", "SIGTERM"] as const).map((signal) => {
      const listener = (): void => handler(signal satisfies ShutdownSignal);
      process.once(signal, listener);
      return [signal, listener] as const;
    });
    return () => {
      for (const [signal, listener] of listeners) process.off(signal, listener);
    };
  },
}).then((code) => {
  process.exitCode = code;
});
