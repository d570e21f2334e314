/**
 * `lintPolicy`: everything wrong with a policy that can be known before a task runs through it —
 * what the service would refuse on save (CEL that does not check, dangling keys and references,
 * cycles, over-deep chains, limits) and what is legal but surely a mistake (unreachable rules,
 * duplicate conditions, unused step sequences). Each finding has a stable code, the JSONPath of the
 * offending wire value, a message a person can act on and, for CEL, the source location.
 *
 * The linter never throws, whatever it is given: it is meant to run on drafts in editors and CI.
 */
import { checkCondition } from "../cel/index.js";
import { decodePolicy } from "../codec/index.js";
import type { DiagnosticCode } from "../codec/index.js";
import { pathKey } from "../codec/diagnostic.js";
import { KNOWN_POLICY_TYPES, type Policy, ruleOutcome } from "../model/index.js";
import type { World } from "../world/world.js";
import { checkAnnotations } from "./lint-annotations.js";
import type { LintCode } from "./lint-codes.js";
import { type Finding, celFindings, finding, interpretedFindings } from "./lint-finding.js";
import { canonicalCondition, foldCondition } from "./lint-fold.js";
import { checkReferences } from "./lint-references.js";
import { checkStep } from "./lint-steps.js";
import { baselineKey } from "./select-steps.js";

export { LINT_CODES } from "./lint-codes.js";
export type { LintCode, LintCodeInfo, LintSeverity } from "./lint-codes.js";
export type { Finding, FindingCel } from "./lint-finding.js";

/**
 * At most this many rules besides the baseline (docs/domain.md §6).
 *
 * @example
 * ```ts
 * if ((policy.rules ?? []).length > MAX_RULES) console.log("too many rules");
 * ```
 */
export const MAX_RULES = 16;

function wireCode(code: DiagnosticCode): LintCode {
  switch (code) {
    case "EXPECTED_OBJECT":
    case "EXPECTED_STRING":
    case "EXPECTED_BOOLEAN":
    case "EXPECTED_NUMBER":
    case "EXPECTED_ARRAY":
    case "INVALID_INT64":
    case "INVALID_INT32":
    case "INVALID_TIMESTAMP":
    case "INVALID_DURATION":
    case "ONEOF_CONFLICT":
    case "TOO_DEEP":
    case "UNREADABLE_INPUT":
      return `WIRE_${code}`;
    default: {
      const never: never = code;
      return never;
    }
  }
}

const has = (record: Readonly<Record<string, unknown>> | null, key: string): boolean => record !== null && Object.hasOwn(record, key);

/**
 * Lints a wire policy (JSON as the service returns it, or a draft). It is decoded first; if that
 * fails, the decoding problems are the findings (codes `WIRE_*`) and nothing else is checked. With
 * a world, references are followed through the world's policies (the linted policy replacing the
 * world's policy of the same id), the tenant flag is checked, and user, group and entitlement ids
 * are looked up. Never throws.
 *
 * @example
 * ```ts
 * const findings = lintPolicy(JSON.parse(text), world);
 * for (const f of findings) console.log(`${f.severity} ${f.code} at ${f.path}: ${f.message}`);
 * // error CEL_TYPE_ERROR at $.rules[0].condition: rule 0 condition, line 1 column 9: undefined field 'departmnt' on type 'User' (did you mean 'department'?)
 * const ok = findings.every((f) => f.severity !== "error");
 * ```
 */
export function lintPolicy(policy: unknown, world?: World): Finding[] {
  try {
    const decoded = decodePolicy(policy);
    if (!decoded.ok) return decoded.error.map((d) => finding(wireCode(d.code), d.path, d.message));
    return lintDecoded(decoded.value, world);
  } catch (e: unknown) {
    return [internal(e)];
  }
}

/**
 * Lints a policy that is already decoded (a world's policies, a policy built in code). Same checks
 * and guarantees as {@link lintPolicy}, minus decoding.
 *
 * @example
 * ```ts
 * for (const p of world.policies) {
 *   const errors = lintDecodedPolicy(p, world).filter((f) => f.severity === "error");
 *   if (errors.length > 0) console.log(p.id, errors);
 * }
 * ```
 */
export function lintDecodedPolicy(policy: Policy, world?: World): Finding[] {
  try {
    return lintDecoded(policy, world);
  } catch (e: unknown) {
    return [internal(e)];
  }
}

// A throw here is a bug in the linter or a non-World passed from JS; either way the caller gets a
// finding rather than an exception, because lint runs in editors on half-typed drafts.
function internal(e: unknown): Finding {
  const message = e instanceof Error ? e.message : String(e);
  return finding("LINT_INTERNAL", "$", `the linter failed on this input: ${message}`);
}

function lintDecoded(policy: Policy, world: World | undefined): Finding[] {
  const out: Finding[] = [];
  if (policy.systemBuiltin)
    out.push(finding("SYSTEM_BUILTIN", "$.systemBuiltin", "this is a built-in policy, which cannot be edited in the service; copy it to a new policy to change it"));
  const typeKnown = checkPolicyType(policy, out);
  if (typeKnown) checkBaseline(policy, out);
  checkRules(policy, out, world);
  checkStepSequences(policy, world, out);
  out.push(...checkReferences(policy, world));
  out.push(...checkAnnotations(policy.annotations));
  return out;
}

/** Whether the policy has a type at all (without one, baseline checks would only add noise). */
function checkPolicyType(policy: Policy, out: Finding[]): boolean {
  const t = policy.policyType;
  if (t === "" || t === "POLICY_TYPE_UNSPECIFIED") {
    out.push(finding("POLICY_TYPE_UNSET", "$.policyType", "policyType is unset; set it (e.g. POLICY_TYPE_GRANT) so the policy has a baseline key and applies to a kind of task"));
    return false;
  }
  if (!KNOWN_POLICY_TYPES.includes(t))
    out.push(finding("UNKNOWN_POLICY_TYPE", "$.policyType", `policyType "${t}" is not known to this version; its baseline key is taken to be "${baselineKey(policy)}"`));
  return true;
}

function checkBaseline(policy: Policy, out: Finding[]): void {
  const key = baselineKey(policy);
  const hasEntry = has(policy.policySteps, key);
  if (policy.baselinePolicyId !== "" && hasEntry)
    out.push(
      finding(
        "BASELINE_CONFLICT",
        "$.baselinePolicyId",
        `baselinePolicyId "${policy.baselinePolicyId}" and the baseline entry "${key}" of policySteps are both set; they exclude each other, keep one`,
        [pathKey("$.policySteps", key)],
      ),
    );
  if (policy.baselinePolicyId === "" && !hasEntry)
    out.push(
      finding("MISSING_BASELINE", "$.policySteps", `policySteps has no baseline entry "${key}" and baselinePolicyId is empty; add the "${key}" entry, or set baselinePolicyId to defer to another policy`),
    );
}

function checkRules(policy: Policy, out: Finding[], world: World | undefined): void {
  const rules = policy.rules ?? [];
  if (rules.length > MAX_RULES)
    out.push(finding("TOO_MANY_RULES", "$.rules", `${rules.length} rules; at most ${MAX_RULES} are allowed besides the baseline, remove or merge ${rules.length - MAX_RULES}`));
  // Index of the first always-true rule: every rule after it is dead.
  let shadowedBy: number | undefined;
  const firstWithCondition = new Map<string, number>();
  rules.forEach((rule, i) => {
    const at = `$.rules[${i}]`;
    out.push(...celFindings(checkCondition(rule.condition, "condition", { costLimit: world?.tenant.celCostLimit }), `${at}.condition`, `rule ${i} condition`));
    out.push(...interpretedFindings(rule.condition, "condition", `${at}.condition`, `rule ${i} condition`));

    const outcome = ruleOutcome(rule);
    switch (outcome.kind) {
      case "stepKey":
        if (!has(policy.policySteps, outcome.stepKey))
          out.push(finding("DANGLING_STEP_KEY", `${at}.stepKey`, `rule ${i} selects step key "${outcome.stepKey}", which is not a key of policySteps; add that entry or fix the key`));
        break;
      case "policyKey":
        out.push(finding("LEGACY_POLICY_KEY", `${at}.policyKey`, `rule ${i} uses the deprecated policyKey; write the same value as stepKey`));
        if (!has(policy.policySteps, outcome.stepKey))
          out.push(finding("DANGLING_POLICY_KEY", `${at}.policyKey`, `rule ${i}'s policyKey "${outcome.stepKey}" is not a key of policySteps; add that entry or fix the key`));
        break;
      case "policyId":
        // References are checked as a whole graph (lint-references.ts).
        break;
      case "none":
        out.push(finding("RULE_WITHOUT_OUTCOME", at, `rule ${i} names no stepKey, policyId or policyKey, so a match selects nothing; say where it leads`));
        break;
      default: {
        const never: never = outcome;
        return never;
      }
    }

    if (shadowedBy !== undefined) {
      const shadow = rules[shadowedBy]?.condition ?? "";
      out.push(
        finding(
          "UNREACHABLE_RULE",
          at,
          `rule ${shadowedBy}'s condition ${JSON.stringify(shadow)} is always true, so rule ${i} is never evaluated; remove it or move it above rule ${shadowedBy}`,
          [`$.rules[${shadowedBy}].condition`],
        ),
      );
      return;
    }
    const canonical = canonicalCondition(rule.condition);
    const first = firstWithCondition.get(canonical);
    if (first !== undefined)
      out.push(
        finding(
          "DUPLICATE_CONDITION",
          `${at}.condition`,
          `rule ${i} has the same condition as rule ${first}; whenever it holds rule ${first} matches first, so rule ${i} never applies`,
          [`$.rules[${first}].condition`],
        ),
      );
    else firstWithCondition.set(canonical, i);
    const folded = foldCondition(rule.condition);
    if (folded === true) shadowedBy = i;
    else if (folded === false) out.push(finding("RULE_NEVER_MATCHES", `${at}.condition`, `rule ${i}'s condition is always false, so the rule never matches; fix or remove it`));
  });
}

function checkStepSequences(policy: Policy, world: World | undefined, out: Finding[]): void {
  const sequences = policy.policySteps;
  if (!sequences) return;
  const baseline = baselineKey(policy);
  const selected = new Set<string>();
  for (const rule of policy.rules ?? []) {
    const o = ruleOutcome(rule);
    if (o.kind === "stepKey" || o.kind === "policyKey") selected.add(o.stepKey);
  }
  for (const [key, entry] of Object.entries(sequences)) {
    const at = pathKey("$.policySteps", key);
    const steps = entry.steps ?? [];
    if (steps.length === 0)
      out.push(
        finding(
          "EMPTY_STEPS",
          `${at}.steps`,
          key === baseline
            ? `the baseline "${key}" has no steps; a task no rule matches would have nothing to do`
            : `step sequence "${key}" has no steps; a task routed here would have nothing to do, add steps or remove it`,
        ),
      );
    if (key !== baseline && !selected.has(key))
      out.push(finding("UNUSED_STEP_KEY", at, `no rule selects step sequence "${key}" and it is not the baseline "${baseline}"; remove it or add a rule that selects it`));
    steps.forEach((step, s) => checkStep(step, `${at}.steps[${s}]`, world, out));
  }
}
