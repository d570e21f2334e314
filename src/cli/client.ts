/**
 * `policy-sim client add`: registers an API client in a world file (client credentials for the
 * HTTP face's `POST /auth/v1/token`) and prints its client id and secret, once. The world keeps
 * only the public key.
 */
import { createApiClient } from "../http/auth/client-secret.js";
import { saveWorld } from "../world/save-world.js";
import type { World } from "../world/world.js";
import { randomUUID } from "node:crypto";
import { checkOutPath, CliInputError, type CliIO, type Command, EXIT, printJson, readWorld, str, writeOutput } from "./command.js";

/**
 * A client id in the service's shape (`<name>@<host>/pcc`) from a few random words' worth of hex.
 *
 * @example
 * ```ts
 * defaultClientId("a1b2c3"); // "sim-a1b2c3@policy-sim.local/pcc"
 * ```
 */
export function defaultClientId(suffix: string): string {
  return `sim-${suffix}@policy-sim.local/pcc`;
}

/**
 * The `client` command: `client add --world <file> --user <userId> [--id <clientId>] [--name <text>] [--out <file>] [--json]`.
 *
 * @example
 * ```ts
 * await runCli(["client", "add", "--world", "w.json", "--user", "u-it-dir"], io); // prints the secret, rewrites w.json
 * ```
 */
export const clientCommand: Command = {
  usage: "policy-sim client add --world <file> --user <userId> [--id <clientId>] [--name <text>] [--out <file>] [--json]",
  summary: "register an API client for serve's /auth/v1/token and print its secret",
  positionals: "add",
  help: [
    "--user <id>      the user the client acts as (its permissions are that user's)",
    "--id <clientId>  default: a random sim-…@policy-sim.local/pcc",
    "--name <text>    a display name",
    "--out <file>     write the world with the client here instead of over --world",
    "--json           print { clientId, clientSecret } as JSON",
    "",
    "The secret (secret-token:conductorone.com:v1:…) holds the client's Ed25519 private key and is",
    "printed once; the world file keeps only the public key. Give both to an SDK as client id and",
    "client secret, with the server URL `policy-sim serve` prints.",
    "",
    "  policy-sim client add --world fixtures/world.json --user u-it-dir --out world-with-client.json",
  ],
  options: { world: { type: "string" }, user: { type: "string" }, id: { type: "string" }, name: { type: "string" }, out: { type: "string" }, json: { type: "boolean" } },
  async run({ values, positionals }, io: CliIO) {
    if (positionals.length !== 1 || positionals[0] !== "add") throw new CliInputError('the only client subcommand is "add": policy-sim client add --world <file> --user <userId>');
    const path = str(values["world"]);
    if (path === undefined) throw new CliInputError("--world <file> is required");
    const userId = str(values["user"]);
    if (userId === undefined || userId === "") throw new CliInputError("--user <userId> is required: the user the client acts as");
    const out = str(values["out"]) ?? path;
    // The world file itself when there is no --out: it is rewritten in place.
    checkOutPath(io, str(values["out"]) === undefined ? "--world" : "--out", out, "in-place");
    const world = readWorld(io, path);
    const user = world.index.users.get(userId);
    if (!user) throw new CliInputError(`--user "${userId}" is not a user of ${path}`);
    const clientId = str(values["id"]) ?? defaultClientId(randomUUID().slice(0, 8));
    if (world.clients.some((c) => c.clientId === clientId)) throw new CliInputError(`client "${clientId}" is already registered in ${path}`);
    const made = await createApiClient({ clientId, userId, displayName: str(values["name"]) ?? "" });
    const next: World = { ...world, clients: [...world.clients, made.client] };
    writeOutput(str(values["out"]) === undefined ? "--world" : "--out", out, () => io.writeFile(out, `${JSON.stringify(saveWorld(next), null, 2)}\n`));
    if (values["json"] === true) printJson(io, { clientId, clientSecret: made.clientSecret, userId, world: out });
    else {
      io.stdout(`client id:     ${clientId}\n`);
      io.stdout(`client secret: ${made.clientSecret}\n`);
      io.stdout(`acts as ${userId}; written to ${out}. The secret is shown only now.\n`);
    }
    return EXIT.ok;
  },
};
