/**
 * Type tests of the schema language: a schema is checked against the hand-written model type, so a
 * missing, extra or mistyped property does not compile. `npm run typecheck` checks this file.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import type { AppResourceRef } from "../model/common.js";
import type { Form } from "../model/form.js";
import type { PolicyInstance } from "../model/policy-instance.js";
import type { PolicyStep } from "../model/policy-step.js";
import type { Policy } from "../model/policy.js";
import type { CommentRequest, CommentResponse, HardResetRequest, HardResetResponse } from "../model/task-actions.js";
import type { TaskView } from "../model/task-view.js";
import type { RevokeSource, Task } from "../model/task.js";
import { formCodec } from "./form.js";
import { policyInstanceCodec } from "./policy-instance.js";
import { policyStepCodec } from "./policy-step.js";
import { policyCodec } from "./policy.js";
import { type Infer, bool, int64, list, message, nullable, str, timestamp, union } from "./schema.js";
import { commentRequestCodec, commentResponseCodec, hardResetRequestCodec, hardResetResponseCodec } from "./task-actions.js";
import { taskViewCodec } from "./task-view.js";
import { taskCodec } from "./task.js";

describe("schemas match the model types", () => {
  it("each top-level codec produces exactly its model type", () => {
    expectTypeOf<Infer<typeof taskCodec>>().toEqualTypeOf<Task>();
    expectTypeOf<Infer<typeof policyCodec>>().toEqualTypeOf<Policy>();
    expectTypeOf<Infer<typeof policyStepCodec>>().toEqualTypeOf<PolicyStep>();
    expectTypeOf<Infer<typeof policyInstanceCodec>>().toEqualTypeOf<PolicyInstance>();
    expectTypeOf<Infer<typeof taskViewCodec>>().toEqualTypeOf<TaskView>();
    expectTypeOf<Infer<typeof formCodec>>().toEqualTypeOf<Form>();
    expectTypeOf<Infer<typeof hardResetRequestCodec>>().toEqualTypeOf<HardResetRequest>();
    expectTypeOf<Infer<typeof hardResetResponseCodec>>().toEqualTypeOf<HardResetResponse>();
    expectTypeOf<Infer<typeof commentRequestCodec>>().toEqualTypeOf<CommentRequest>();
    expectTypeOf<Infer<typeof commentResponseCodec>>().toEqualTypeOf<CommentResponse>();
  });

  it("refuses a schema that drifts from its type", () => {
    const good = message<AppResourceRef>({ appId: str, appResourceTypeId: str, id: str });
    // @ts-expect-error a property of the type is missing from the schema
    const missing = message<AppResourceRef>({ appId: str, id: str });
    // @ts-expect-error the schema has a property the type does not
    const extra = message<AppResourceRef>({ appId: str, appResourceTypeId: str, id: str, name: str });
    // @ts-expect-error a string property cannot take a boolean codec
    const wrongKind = message<AppResourceRef>({ appId: bool, appResourceTypeId: str, id: str });
    // @ts-expect-error a nullable timestamp is not a plain string (codecs are invariant)
    const notNullable = message<{ readonly at: string }>({ at: timestamp });
    // @ts-expect-error an int64 list is not a single int64
    const notList = message<{ readonly n: string }>({ n: list(int64) });
    // @ts-expect-error a union must name every member of its type ("review" is missing)
    const partial = union<RevokeSource>({ expired: { expiredAt: timestamp }, nonUsage: { expiresAt: timestamp, lastLogin: timestamp }, request: { requestUserId: str } });
    const ok = nullable(good);
    expect([good, missing, extra, wrongKind, notNullable, notList, partial, ok].length).toBe(8);
  });
});
