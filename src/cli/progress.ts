/**
 * Progress on stderr for long runs (what-if over many tasks). Only on a terminal: in a pipe or a
 * CI log a redrawn bar is noise, so nothing is written there. The bar is redrawn in place with a
 * carriage return, at most every {@link REDRAW_MS} milliseconds, and erased when the run ends so
 * the report on stdout starts on a clean screen.
 */
import type { CliIO } from "./command.js";

/**
 * The shortest time between two redraws, in milliseconds.
 *
 * @example
 * ```ts
 * if (now - lastDraw >= REDRAW_MS) redraw();
 * ```
 */
export const REDRAW_MS = 80;

/**
 * A bar for `done` of `total`: `[#########...........]  4500/10000  45%`.
 *
 * @example
 * ```ts
 * renderBar(1, 4, 8); // "[##......]  1/4  25%"
 * ```
 */
export function renderBar(done: number, total: number, width = 24): string {
  const ratio = total > 0 ? Math.min(1, Math.max(0, done / total)) : 0;
  const filled = Math.round(ratio * width);
  const count = `${String(done).padStart(String(total).length)}/${total}`;
  return `[${"#".repeat(filled)}${".".repeat(width - filled)}]  ${count}  ${String(Math.floor(ratio * 100)).padStart(3)}%`;
}

/**
 * What a long command reports to: `phase` names a stage ("resolving 100000 tasks"), `update`
 * moves the bar, `end` erases it.
 *
 * @example
 * ```ts
 * const p = progress(io, "whatif");
 * p.phase("comparing routes");
 * p.update(10, 100);
 * p.end();
 * ```
 */
export interface Progress {
  phase(message: string): void;
  update(done: number, total: number): void;
  end(): void;
}

const SILENT: Progress = { phase: () => undefined, update: () => undefined, end: () => undefined };

/**
 * A {@link Progress} on the IO's stderr when it is a terminal; a silent one otherwise.
 *
 * @example
 * ```ts
 * const p = progress(io, "whatif");
 * const result = whatIf(world, edit, { onProgress: (done, total) => p.update(done, total) });
 * p.end();
 * ```
 */
export function progress(io: CliIO, label: string): Progress {
  if (io.stderrIsTTY !== true) return SILENT;
  let last = Number.NEGATIVE_INFINITY;
  let shown = false;
  let phase = "";
  const draw = (text: string): void => {
    // \r to the line start, ESC[K to erase what a longer previous line left behind.
    io.stderr(`\r${label}: ${text}\u001b[K`);
    shown = true;
  };
  return {
    phase(message) {
      phase = message;
      draw(message);
      last = io.now?.() ?? last;
    },
    update(done, total) {
      const now = io.now?.();
      if (now !== undefined && now - last < REDRAW_MS && done < total) return;
      if (now !== undefined) last = now;
      draw(`${phase ? `${phase} ` : ""}${renderBar(done, total)}`);
    },
    end() {
      if (shown) io.stderr("\r\u001b[K");
      shown = false;
    },
  };
}
