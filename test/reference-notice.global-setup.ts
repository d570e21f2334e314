/**
 * Says once, at the start of a test run, when the service's reference material is not beside the
 * repository (`../shared/reference/openapi.yaml`): the HTTP suites then still run every route, but
 * their checks of bodies against the service's OpenAPI pass without looking, and the suites that
 * only read the OpenAPI are skipped. CI has the reference; there its absence fails the run
 * (`src/http/openapi-validate.test-helper.ts`).
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

export default function setup(): void {
  const path = fileURLToPath(new URL("../../shared/reference/openapi.yaml", import.meta.url));
  if (existsSync(path)) return;
  process.stderr.write(
    `\nNOTE: ${path} is not there, so HTTP bodies are not checked against the service's OpenAPI in this run\n` +
      "(the routes' own tests still run). Put the reference material beside the repository as ../shared to check them.\n\n",
  );
}
