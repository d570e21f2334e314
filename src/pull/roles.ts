/**
 * The tenant's roles as the API lists them (`GET /api/v1/iam/roles`, `c1.api.iam.v1.Role`) read
 * as the world file's `roles`. The API names a role's built-in kind only in its internal `name`
 * (policy-sim serve writes the kind there, role-reads.ts); a tenant may spell it otherwise, so the
 * kind is recognised loosely, and a role whose kind cannot be told is kept as a Basic User, which
 * grants no administrator power, and reported so that the user can set it.
 */
import { ROLE_KINDS, type RoleKind } from "../model/directory.js";
import { LEGACY_ROLE_KINDS } from "../world/decode-directory.js";

/**
 * A role of the world file, and whether its kind was recognised (`guessed`: it was not, and
 * `BASIC_USER` stands in for it).
 *
 * @example
 * ```ts
 * const r: PulledRole = { role: { id: "r-1", displayName: "Super Administrator", kind: "SUPER_ADMIN" }, guessed: false };
 * ```
 */
export interface PulledRole {
  readonly role: { readonly id: string; readonly displayName: string; readonly kind: RoleKind };
  readonly guessed: boolean;
}

/**
 * Letters and digits only, upper case, "ADMINISTRATOR" as "ADMIN": `super_admin`, `Super
 * Administrator` and `SUPER_ADMIN` all read as `SUPERADMIN`.
 */
const squash = (s: string): string => s.toUpperCase().replace(/[^A-Z0-9]/g, "").replaceAll("ADMINISTRATOR", "ADMIN");

/** Every spelling a role kind is recognised by: the kind, its documented name, a legacy kind. */
const KIND_BY_SPELLING: ReadonlyMap<string, RoleKind> = new Map<string, RoleKind>([
  ...ROLE_KINDS.flatMap((r) => [[squash(r.kind), r.kind] as const, [squash(r.displayName), r.kind] as const]),
  ...Object.entries(LEGACY_ROLE_KINDS).map(([legacy, kind]) => [squash(legacy), kind] as const),
]);

/**
 * The built-in kind a role of the API is, from its internal `name` first (what the service keys
 * the role by), else its display name; undefined when neither names a documented role.
 *
 * @example
 * ```ts
 * roleKindOf({ id: "r-1", name: "SUPER_ADMIN", displayName: "Owners" }); // "SUPER_ADMIN"
 * roleKindOf({ id: "r-2", name: "", displayName: "Campaign Administrator" }); // "CAMPAIGN_ADMIN"
 * roleKindOf({ id: "r-3", name: "custom", displayName: "Auditors" }); // undefined
 * ```
 */
export function roleKindOf(role: Readonly<Record<string, unknown>>): RoleKind | undefined {
  for (const field of ["name", "displayName"]) {
    const v = role[field];
    const kind = typeof v === "string" && v !== "" ? KIND_BY_SPELLING.get(squash(v)) : undefined;
    if (kind !== undefined) return kind;
  }
  return undefined;
}

/**
 * Roles of the API (list items, plain or wrapped as `{ role }`) as the world file's roles, in the
 * API's order; items without an id are left out (nothing could refer to them).
 *
 * @example
 * ```ts
 * pulledRoles([{ id: "r-user", displayName: "Basic User", name: "BASIC_USER" }]);
 * // [{ role: { id: "r-user", displayName: "Basic User", kind: "BASIC_USER" }, guessed: false }]
 * ```
 */
export function pulledRoles(items: readonly unknown[]): PulledRole[] {
  const out: PulledRole[] = [];
  for (const item of items) {
    if (typeof item !== "object" || item === null || Array.isArray(item)) continue;
    const wrapped = (item as Record<string, unknown>)["role"];
    const r = (typeof wrapped === "object" && wrapped !== null && !Array.isArray(wrapped) ? wrapped : item) as Readonly<Record<string, unknown>>;
    const id = r["id"];
    if (typeof id !== "string" || id === "") continue;
    const displayName = typeof r["displayName"] === "string" ? r["displayName"] : "";
    const kind = roleKindOf(r);
    // Least power when unknown: a role read as an administrator would let the simulation act where the tenant could not.
    out.push({ role: { id, displayName, kind: kind ?? "BASIC_USER" }, guessed: kind === undefined });
  }
  return out;
}
