/**
 * The stable codes of policy lint findings, each with its severity and a one-line description. This
 * list is the single source of a code's severity (a finding never picks its own), and what the docs
 * table is generated from.
 */

/**
 * How bad a finding is: an `error` is something the service refuses on save or that breaks rule
 * selection at run time; a `warning` is legal but almost certainly not what the author meant; an
 * `info` is a note about how the simulator runs it (nothing to fix).
 *
 * @example
 * ```ts
 * const s: LintSeverity = "warning";
 * ```
 */
export type LintSeverity = "error" | "warning" | "info";

/**
 * One entry of {@link LINT_CODES}.
 *
 * @example
 * ```ts
 * const info: LintCodeInfo = { code: "TOO_MANY_RULES", severity: "error", description: "More than 16 rules." };
 * ```
 */
export interface LintCodeInfo {
  readonly code: string;
  readonly severity: LintSeverity;
  readonly description: string;
}

/**
 * Every code `lintPolicy` can report, in documentation order, with its severity and a one-line
 * description.
 *
 * @example
 * ```ts
 * for (const { code, severity, description } of LINT_CODES) console.log(`| ${code} | ${severity} | ${description} |`);
 * ```
 */
export const LINT_CODES = [
  // Decoding: the document is not a wire Policy. Nothing else is checked until these are fixed.
  { code: "WIRE_EXPECTED_OBJECT", severity: "error", description: "The value must be a JSON object." },
  { code: "WIRE_EXPECTED_STRING", severity: "error", description: "The value must be a JSON string." },
  { code: "WIRE_EXPECTED_BOOLEAN", severity: "error", description: "The value must be true or false." },
  { code: "WIRE_EXPECTED_NUMBER", severity: "error", description: "The value must be a JSON number." },
  { code: "WIRE_EXPECTED_ARRAY", severity: "error", description: "The value must be a JSON array." },
  { code: "WIRE_INVALID_INT64", severity: "error", description: "The value must be an int64 carried as a decimal string." },
  { code: "WIRE_INVALID_INT32", severity: "error", description: "The value must be a 32-bit integer." },
  { code: "WIRE_INVALID_TIMESTAMP", severity: "error", description: "The value must be an RFC 3339 timestamp or null." },
  { code: "WIRE_INVALID_DURATION", severity: "error", description: 'The value must be a duration string such as "3600s".' },
  { code: "WIRE_ONEOF_CONFLICT", severity: "error", description: "More than one member of a oneof is set (e.g. both stepKey and policyId)." },
  { code: "WIRE_TOO_DEEP", severity: "error", description: "The document nests deeper than any real policy." },
  { code: "WIRE_UNREADABLE_INPUT", severity: "error", description: "A value could not be read (a throwing getter or proxy)." },

  // CEL in rule conditions, wait conditions and approver expressions.
  { code: "CEL_SYNTAX_ERROR", severity: "error", description: "A CEL expression does not parse." },
  { code: "CEL_TYPE_ERROR", severity: "error", description: "A CEL expression does not type-check (undeclared reference, undefined field, no matching overload)." },
  { code: "CEL_NOT_BOOL", severity: "error", description: "A condition does not return a bool." },
  { code: "CEL_NOT_USERS", severity: "error", description: "An approver expression does not return a User or a list of Users." },
  { code: "CEL_INVALID_REGEX", severity: "error", description: "A matches() pattern is not a valid regular expression." },
  { code: "CEL_UNSUPPORTED_REGEX", severity: "error", description: "A matches() pattern uses syntax RE2 cannot run (lookaround, backreferences)." },
  {
    code: "CEL_INVALID_CONSTANT",
    severity: "warning",
    description: "A time unit or zone written as a literal can never be valid, so the expression fails on every evaluation (the service's save check may not say so).",
  },
  { code: "CEL_LIMIT_EXCEEDED", severity: "error", description: "A CEL expression is too large or too deeply nested." },
  { code: "CEL_COST_LIMIT", severity: "error", description: "A CEL expression's worst-case cost exceeds the cost limit (its evaluation could be stopped with CEL_COST_EXCEEDED)." },
  { code: "CEL_INTERNAL", severity: "error", description: "The CEL checker failed on this expression (a bug in policy-sim; please report it)." },
  { code: "CEL_INTERPRETED", severity: "info", description: "A CEL expression runs on the cel-js interpreter instead of compiled closures (same results, slower); the note names the construct that keeps it interpreted." },

  // Policy type and baseline.
  { code: "POLICY_TYPE_UNSET", severity: "error", description: "policyType is unset, so the policy has no baseline key and no task kind." },
  { code: "UNKNOWN_POLICY_TYPE", severity: "warning", description: "policyType is not one this version knows; its baseline key is derived by lowercasing it." },
  { code: "MISSING_BASELINE", severity: "error", description: "No baseline entry (the lowercased policy type) in policySteps and no baselinePolicyId." },
  { code: "BASELINE_CONFLICT", severity: "error", description: "Both a baseline entry and baselinePolicyId are set; they exclude each other." },

  // Rules.
  { code: "TOO_MANY_RULES", severity: "error", description: "More than 16 rules besides the baseline." },
  { code: "RULE_WITHOUT_OUTCOME", severity: "error", description: "A rule names no stepKey, policyId or policyKey." },
  { code: "DANGLING_STEP_KEY", severity: "error", description: "A rule's stepKey is not a key of policySteps." },
  { code: "DANGLING_POLICY_KEY", severity: "error", description: "A rule's legacy policyKey is not a key of policySteps." },
  { code: "LEGACY_POLICY_KEY", severity: "warning", description: "A rule uses the deprecated policyKey; write stepKey instead." },
  { code: "UNREACHABLE_RULE", severity: "warning", description: "An earlier rule's condition is always true, so this rule is never evaluated." },
  { code: "DUPLICATE_CONDITION", severity: "warning", description: "A rule repeats an earlier rule's condition, so it can never be the first match." },
  { code: "RULE_NEVER_MATCHES", severity: "warning", description: "A rule's condition is always false." },

  // Policy references (rule policyId, baselinePolicyId).
  { code: "SELF_REFERENCE", severity: "error", description: "A rule policyId or baselinePolicyId names the policy itself." },
  { code: "DANGLING_POLICY_ID", severity: "error", description: "A rule's policyId names a policy that is not in the world." },
  { code: "DANGLING_BASELINE_POLICY_ID", severity: "error", description: "baselinePolicyId names a policy that is not in the world." },
  { code: "CROSS_TYPE_REFERENCE", severity: "error", description: "A reference names a policy of another policy type." },
  { code: "REFERENCE_CYCLE", severity: "error", description: "Following references from this policy loops back." },
  { code: "CHAIN_TOO_DEEP", severity: "error", description: "A reference chain from this policy (depth 0) goes deeper than 5." },
  { code: "REFERENCES_DISABLED", severity: "warning", description: "The policy uses references but the tenant flag POLICY_REFERENCES_POLICY is off, so they are not followed." },
  { code: "REFERENCES_UNCHECKED", severity: "warning", description: "A referenced policy cannot be checked without a world." },

  // Step sequences and steps.
  { code: "EMPTY_STEPS", severity: "error", description: "A policySteps entry has no steps." },
  { code: "UNUSED_STEP_KEY", severity: "warning", description: "A policySteps entry that no rule selects and that is not the baseline." },
  { code: "STEP_WITHOUT_KIND", severity: "error", description: "A step sets none of approval, provision, accept, reject, wait, form, action." },
  { code: "UNKNOWN_STEP_KIND", severity: "warning", description: "A step kind this version does not know; it is kept but not checked." },
  { code: "APPROVAL_WITHOUT_APPROVERS", severity: "error", description: "An approval step names no kind of approver." },
  { code: "APPROVAL_USERS_COUNT", severity: "error", description: "A users approval must list 1 to 32 userIds." },
  { code: "UNKNOWN_USER", severity: "warning", description: "A user id in a step is not a user of the world." },
  { code: "UNKNOWN_GROUP", severity: "warning", description: "A group id in a step is not a group of the world (or belongs to another app)." },
  { code: "UNKNOWN_ENTITLEMENT", severity: "warning", description: "A fallback group names an entitlement that is not in the world." },
  { code: "UNKNOWN_POLICY", severity: "warning", description: "A policy id in a step (escalation, agent) is not in the world." },
  { code: "ESCALATION_EXPIRES_AT_ONCE", severity: "warning", description: "An approval's escalation expires after 0s (or less): it fires when the step starts, and one that replaces the policy loops." },
  { code: "WAIT_TIME_INVALID", severity: "error", description: "A wait step's time of day has hours outside 0–23, minutes outside 0–59, or a time zone that is not an IANA zone." },
  { code: "WAIT_DURATION_OUT_OF_RANGE", severity: "error", description: "A wait step's duration is under one hour or over one month (31 days), the limits the service allows." },

  // Annotations (docs/domain.md §6).
  { code: "ANNOTATIONS_TOO_MANY", severity: "error", description: "More than 16 annotations." },
  { code: "ANNOTATIONS_TOO_LARGE", severity: "error", description: "Annotations take more than 4096 bytes serialized." },
  { code: "ANNOTATION_KEY_INVALID", severity: "error", description: "An annotation key must be 1-128 characters matching ^[A-Za-z][A-Za-z0-9._/-]{0,127}$." },
  { code: "ANNOTATION_KEY_RESERVED", severity: "error", description: "Annotation keys starting with svc/ are reserved by the service." },
  { code: "ANNOTATION_VALUE_INVALID", severity: "error", description: "An annotation value must be 0-256 URL-safe ASCII characters." },

  // Other.
  { code: "SYSTEM_BUILTIN", severity: "warning", description: "A built-in policy: the service does not let it be edited." },
  { code: "LINT_INTERNAL", severity: "error", description: "The linter failed on this input (a bug in policy-sim; please report it)." },
] as const satisfies readonly LintCodeInfo[];

/**
 * A stable lint code: one of {@link LINT_CODES}.
 *
 * @example
 * ```ts
 * const c: LintCode = "DANGLING_STEP_KEY";
 * ```
 */
export type LintCode = (typeof LINT_CODES)[number]["code"];

const SEVERITY: ReadonlyMap<string, LintSeverity> = new Map(LINT_CODES.map((c) => [c.code, c.severity]));

/**
 * The severity of a code, as {@link LINT_CODES} fixes it.
 *
 * @example
 * ```ts
 * severityOf("UNUSED_STEP_KEY"); // "warning"
 * ```
 */
export function severityOf(code: LintCode): LintSeverity {
  return SEVERITY.get(code) ?? "error";
}
