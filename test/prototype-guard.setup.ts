// Every test file runs with this guard: a test that leaves a key on a built-in prototype fails
// itself, by name, and the key is taken off again, instead of every later test in its file failing
// for no reason of its own. A property test's recipe once reached `Object.prototype` through a
// draft's `__proto__` and set "0" on it; the six tests after it failed in CI.
import { afterEach } from "vitest";

const guarded: ReadonlyArray<readonly [string, object]> = [
  ["Object.prototype", Object.prototype],
  ["Array.prototype", Array.prototype],
  ["String.prototype", String.prototype],
  ["Function.prototype", Function.prototype],
];
const before = new Map(guarded.map(([, proto]) => [proto, new Set(Reflect.ownKeys(proto))]));

afterEach(() => {
  const added: string[] = [];
  for (const [name, proto] of guarded) {
    const known = before.get(proto) as Set<PropertyKey>;
    for (const key of Reflect.ownKeys(proto)) {
      if (known.has(key)) continue;
      added.push(`${name}[${JSON.stringify(String(key))}]`);
      Reflect.deleteProperty(proto, key);
    }
  }
  if (added.length > 0) throw new Error(`this test left ${added.join(", ")} on a built-in prototype (taken off again)`);
});
