import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkWritableOnDisk } from "./check-writable.js";

const dir = mkdtempSync(join(tmpdir(), "policy-sim-writable-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const codeOf = (f: () => void): string => {
  try {
    f();
    return "";
  } catch (e: unknown) {
    return typeof e === "object" && e !== null && "code" in e ? String(e.code) : String(e);
  }
};

describe("checkWritableOnDisk: can --out be written, found out without writing it", () => {
  it("a new file in an existing directory: yes, and nothing is left behind", () => {
    const path = join(dir, "new.json");
    for (const how of ["in-place", "replace"] as const) expect(codeOf(() => checkWritableOnDisk(path, how))).toBe("");
    expect(existsSync(path)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("an existing file: yes, and it is neither truncated nor touched", () => {
    const path = join(dir, "kept.json");
    writeFileSync(path, "the last good world");
    const before = statSync(path).mtimeMs;
    for (const how of ["in-place", "replace"] as const) expect(codeOf(() => checkWritableOnDisk(path, how))).toBe("");
    expect(readFileSync(path, "utf8")).toBe("the last good world");
    expect(statSync(path).mtimeMs).toBe(before);
    expect(readdirSync(dir).filter((n) => n !== "kept.json")).toEqual([]);
  });

  it("a directory that does not exist, a directory, a file used as a directory: the system's code", () => {
    expect(codeOf(() => checkWritableOnDisk("/nonexistent/x.json", "in-place"))).toBe("ENOENT");
    expect(codeOf(() => checkWritableOnDisk(join(dir, "no-such-dir", "x.json"), "replace"))).toBe("ENOENT");
    expect(existsSync(join(dir, "no-such-dir"))).toBe(false);
    expect(codeOf(() => checkWritableOnDisk(dir, "in-place"))).toBe("EISDIR");
    expect(codeOf(() => checkWritableOnDisk(`${dir}/`, "replace"))).toBe("EISDIR");
    writeFileSync(join(dir, "plain"), "");
    expect(codeOf(() => checkWritableOnDisk(join(dir, "plain", "x.json"), "in-place"))).toBe("ENOTDIR");
  });

  it.runIf(existsSync("/dev/full"))("a device: written in place it is fine (its write fails later); replaced by a rename it is refused", () => {
    expect(codeOf(() => checkWritableOnDisk("/dev/full", "in-place"))).toBe("");
    expect(codeOf(() => checkWritableOnDisk("/dev/full", "replace"))).toBe("ENOTREG");
    expect(statSync("/dev/full").isCharacterDevice()).toBe(true);
  });
});
