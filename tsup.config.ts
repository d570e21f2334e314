import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts", http: "src/http/index.ts", testing: "src/testing/index.ts", repl: "src/repl/index.ts", cli: "src/cli/main.ts" },
  format: ["esm", "cjs"],
  dts: { entry: { index: "src/index.ts", http: "src/http/index.ts", testing: "src/testing/index.ts", repl: "src/repl/index.ts" } },
  clean: true,
  sourcemap: true,
  target: "node20",
});
