import { describe, expect, it } from "vitest";
import { ROLE_KINDS } from "../model/directory.js";
import { roleWire } from "../http/routes/role-reads.js";
import { pulledRoles, roleKindOf } from "./roles.js";

describe("product_admin_user-roles.mdx: a role of the API read as a world role", () => {
  it("every documented kind survives policy-sim serve's wire form (the kind as the internal name)", () => {
    for (const { kind, displayName } of ROLE_KINDS) {
      const wire = roleWire({ id: `r-${kind}`, displayName: "Renamed by the tenant", kind });
      expect(pulledRoles([wire])).toEqual([{ role: { id: `r-${kind}`, displayName: "Renamed by the tenant", kind }, guessed: false }]);
      // Also by its documented display name alone, when the name says nothing.
      expect(roleKindOf({ id: "r", name: "", displayName })).toBe(kind);
    }
  });

  it("spellings of one kind read alike; the name wins over the display name; legacy kinds read as their documented role", () => {
    for (const name of ["SUPER_ADMIN", "super_admin", "super-admin", "SuperAdmin", "Super Administrator"]) expect(roleKindOf({ name })).toBe("SUPER_ADMIN");
    expect(roleKindOf({ name: "READ_ONLY_ADMIN", displayName: "Super Administrator" })).toBe("READ_ONLY_ADMIN");
    expect(roleKindOf({ name: "ADMIN" })).toBe("APPLICATION_ADMIN");
    expect(roleKindOf({ name: "USER" })).toBe("BASIC_USER");
    expect(roleKindOf({ name: "custom", displayName: "Auditors" })).toBeUndefined();
  });

  it("an unknown kind is a Basic User marked guessed; wrapped items are read, items without an id left out", () => {
    expect(pulledRoles([{ role: { id: "r-1", displayName: "Auditors", name: "auditor" } }, { displayName: "no id" }, null, "x"])).toEqual([
      { role: { id: "r-1", displayName: "Auditors", kind: "BASIC_USER" }, guessed: true },
    ]);
  });
});
