import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadWorld } from "../world/load-world.js";
import { completeLine, openStringAt } from "./complete.js";

const loaded = loadWorld(JSON.parse(readFileSync("fixtures/world.json", "utf8")));
if (!loaded.ok) throw new Error("the sample world does not load");
const world = loaded.value;
const NAMES = ["explain", "reset", "comment", "whatIf", "lint", "check", "task", "save", "undo", "help", "world"];

describe("openStringAt", () => {
  it("finds the start of an unterminated string, across quote kinds and escapes", () => {
    expect(openStringAt('explain("10')).toBe(9);
    expect(openStringAt("explain('10")).toBe(9);
    expect(openStringAt('explain("1001")')).toBe(-1);
    expect(openStringAt('comment("1001", "it\\"s ')).toBe(17);
    expect(openStringAt('comment("1001", "a\'b", { as: "u-')).toBe(30);
    expect(openStringAt("world.tasks")).toBe(-1);
  });
});

describe("completeLine", () => {
  it("completes numeric ids inside explain(…), numeric ids first", () => {
    const [hits, typed] = completeLine('explain("100', world, NAMES);
    expect(typed).toBe("100");
    expect(hits).toEqual(["1001", "1002", "1003", "1004", "1005", "1006", "1007", "1008", "1009"]);
  });

  it("completes task ids too (the world's own ids)", () => {
    const [hits] = completeLine("task('2j4u", world, NAMES);
    expect(hits).toEqual(["2j4u65242B2opqOFuN15r5WrwMH"]);
  });

  it("an empty string offers every task id of the task functions, numeric ones first", () => {
    const [hits, typed] = completeLine('reset("', world, NAMES);
    expect(typed).toBe("");
    expect(hits.length).toBe(2 * world.tasks.size);
    expect(hits[0]).toBe("1001");
  });

  it("after as: it offers user ids; in lint(…) policy ids; after app: app ids", () => {
    expect(completeLine('reset("1022", { as: "u-it-', world, NAMES)).toEqual([["u-it-dir"], "u-it-"]);
    expect(completeLine('lint("pol-prod', world, NAMES)[0]).toEqual(["pol-prod-admin", "pol-prod-admin-eng"]);
    expect(completeLine('whatIf(p, { app: "app-a', world, NAMES)[0]).toEqual(["app-aws"]);
  });

  it("anywhere else in a string, any id that fits", () => {
    expect(completeLine('const x = "pol-fin', world, NAMES)[0]).toEqual(["pol-finance-form", "pol-finding-triage"]);
    expect(completeLine('save("', world, NAMES)).toEqual([[], ""]);
  });

  it("outside strings: the bound names; after a dot: nothing of ours; a leading dot: the commands", () => {
    expect(completeLine("expl", world, NAMES)).toEqual([["explain"], "expl"]);
    expect(completeLine("const e = wor", world, NAMES)).toEqual([["world"], "wor"]);
    expect(completeLine("world.tas", world, NAMES)).toEqual([[], "tas"]);
    expect(completeLine(".wo", world, NAMES)).toEqual([[".world"], ".wo"]);
    expect(completeLine(".", world, NAMES)[0]).toContain(".undo");
  });
});
