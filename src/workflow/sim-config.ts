/**
 * The world file's `simulation` section (sim): what the service knows but its task API does not
 * show, and the simulation needs to play a workflow to its end — a connector's capabilities, where
 * inherited grants come from, an automation's revoke step, entitlements created ahead of a sync, the
 * per-app "revoke inherited access" setting, and pending step-up transactions.
 *
 * `loadWorld` keeps unknown top-level keys in `world.$unknown` and `saveWorld` writes them back, so
 * the section lives there under the key `simulation` and round-trips without a change to the world
 * layer. This module is the only reader and writer of that key (docs/workflow.md, "World format").
 */
import type { JsonObject, JsonValue } from "../model/json.js";
import { type Diagnostic, isObject, ObjectReader } from "../world/read.js";
import type { World } from "../world/world.js";

/**
 * The key of the section in the world file (and in `world.$unknown`).
 *
 * @example
 * ```ts
 * const section = world.$unknown?.[SIMULATION_KEY];
 * ```
 */
export const SIMULATION_KEY = "simulation";

/**
 * (sim) A connector and what it can do. A connector the section does not list can do everything.
 *
 * @example
 * ```ts
 * const c: SimConnector = { id: "conn-sf", appId: "app-salesforce", canProvision: true,
 *   canDeprovision: true, cannotDeprovisionEntitlementIds: ["ent-sf-sysadmin"] };
 * ```
 */
export interface SimConnector {
  readonly id: string;
  readonly appId: string;
  readonly canProvision: boolean;
  /** False when the connector cannot remove any grant (release note 4). */
  readonly canDeprovision: boolean;
  /** Entitlements this connector cannot remove even though it deprovisions others. */
  readonly cannotDeprovisionEntitlementIds: readonly string[];
}

/**
 * (sim) Which grants an automation's revoke step removes (release notes 6 and 7). `grantSource`
 * `DIRECT` limits it to grants whose world source is `direct`; `ALL` takes every source.
 * `resourceTypeName` is the legacy criteria: alone, it fails the step.
 *
 * @example
 * ```ts
 * const s: AutomationRevokeStep = { grantSource: "DIRECT",
 *   criteria: { appIds: ["app-okta"], appEntitlementIds: [], resourceTypeIds: [], resourceTypeName: "" } };
 * ```
 */
export interface AutomationRevokeStep {
  readonly grantSource: "ALL" | "DIRECT";
  readonly criteria: {
    readonly appIds: readonly string[];
    readonly appEntitlementIds: readonly string[];
    readonly resourceTypeIds: readonly string[];
    readonly resourceTypeName: string;
  };
}

/**
 * (sim) An automation template an action step runs. With a `revokeStep` the simulation runs it
 * itself when the step starts; without one the step waits for an `actionOutcome`.
 *
 * @example
 * ```ts
 * const a: SimAutomation = { id: "at-offboard", displayName: "Remove access", revokeStep: null };
 * ```
 */
export interface SimAutomation {
  readonly id: string;
  readonly displayName: string;
  readonly revokeStep: AutomationRevokeStep | null;
}

/**
 * (sim) Holding the source entitlement grants the target entitlement: a group nested in a group, a
 * role that includes another, or delegated provisioning (the target is provisioned by granting the
 * source). Revoking inherited access follows these edges upwards (release note 5).
 *
 * @example
 * ```ts
 * const e: EntitlementSource = { appId: "app-github", appEntitlementId: "ent-gh-team-sre",
 *   sourceAppId: "app-okta", sourceEntitlementId: "ent-okta-sre", via: "group" };
 * ```
 */
export interface EntitlementSource {
  readonly appId: string;
  readonly appEntitlementId: string;
  readonly sourceAppId: string;
  readonly sourceEntitlementId: string;
  readonly via: "group" | "role" | "delegated";
}

/**
 * (sim) An entitlement created in the service before the connector's next sync reported it
 * (release note 3). A request for it waits for the sync.
 *
 * @example
 * ```ts
 * const u: UnsyncedEntitlement = { appId: "app-aws", appEntitlementId: "ent-aws-staging-dev" };
 * ```
 */
export interface UnsyncedEntitlement {
  readonly appId: string;
  readonly appEntitlementId: string;
}

/**
 * (sim) Per-app settings the task API does not show.
 *
 * @example
 * ```ts
 * const s: SimAppSettings = { revokeInheritedAccess: true };
 * ```
 */
export interface SimAppSettings {
  /** Off by default (release note 5). */
  readonly revokeInheritedAccess: boolean;
}

/**
 * (sim) A step-up verification the simulation asked for and has not seen completed.
 *
 * @example
 * ```ts
 * const p: PendingStepUp = { taskId: "t-1", policyStepId: "s-1", userId: "u-ciso", providerId: "okta",
 *   comment: "ok", createdAt: "2026-11-22T09:00:00Z" };
 * ```
 */
export interface PendingStepUp {
  readonly taskId: string;
  readonly policyStepId: string;
  readonly userId: string;
  readonly providerId: string;
  /** The comment given with the first request, used when the verified request carries none. */
  readonly comment: string;
  readonly createdAt: string;
}

/**
 * The whole `simulation` section, with defaults for what it does not say.
 *
 * @example
 * ```ts
 * const sim = readSimulation(world);
 * sim.connectors.length; // 0 for a world without the section
 * ```
 */
export interface Simulation {
  readonly connectors: readonly SimConnector[];
  readonly automations: readonly SimAutomation[];
  readonly entitlementSources: readonly EntitlementSource[];
  readonly unsyncedEntitlements: readonly UnsyncedEntitlement[];
  readonly apps: Readonly<Record<string, SimAppSettings>>;
  readonly stepUpTransactions: Readonly<Record<string, PendingStepUp>>;
}

const EMPTY: Simulation = Object.freeze({
  connectors: [],
  automations: [],
  entitlementSources: [],
  unsyncedEntitlements: [],
  apps: {},
  stepUpTransactions: {},
});

interface Parsed {
  readonly simulation: Simulation;
  readonly problems: readonly Diagnostic[];
}

// Parsed once per section object: worlds share the section until a reducer writes a new one.
const cache = new WeakMap<object, Parsed>();

function list<T>(value: unknown, path: string, out: Diagnostic[], one: (r: ObjectReader) => T | undefined): T[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    out.push({ code: "EXPECTED_ARRAY", path, message: "expected an array" });
    return [];
  }
  const items: T[] = [];
  value.forEach((item: unknown, i) => {
    if (!isObject(item)) {
      out.push({ code: "EXPECTED_OBJECT", path: `${path}[${i}]`, message: "expected an object" });
      return;
    }
    const v = one(new ObjectReader(item, `${path}[${i}]`, out));
    if (v !== undefined) items.push(v);
  });
  return items;
}

function optionalBoolean(r: ObjectReader, key: string, fallback: boolean): boolean {
  return r.raw(key) === undefined || r.raw(key) === null ? fallback : r.boolean(key);
}

function grantSource(r: ObjectReader, out: Diagnostic[]): "ALL" | "DIRECT" {
  const raw = r.string("grantSource").toUpperCase().replace(/^GRANT_SOURCE_/, "");
  if (raw === "" || raw === "ALL") return "ALL";
  if (raw === "DIRECT") return "DIRECT";
  out.push({ code: "INVALID_GRANT_SOURCE", path: `${r.path}.grantSource`, message: `grantSource must be "All" or "Direct", not "${raw}"` });
  return "ALL";
}

function parse(section: Readonly<Record<string, unknown>>): Parsed {
  const out: Diagnostic[] = [];
  const p = "$.simulation";
  const connectors = list(section["connectors"], `${p}.connectors`, out, (r) => ({
    id: r.string("id"),
    appId: r.string("appId"),
    canProvision: optionalBoolean(r, "canProvision", true),
    canDeprovision: optionalBoolean(r, "canDeprovision", true),
    cannotDeprovisionEntitlementIds: r.strings("cannotDeprovisionEntitlementIds"),
  }));
  const automations = list(section["automations"], `${p}.automations`, out, (r) => {
    const step = r.raw("revokeStep");
    let revokeStep: AutomationRevokeStep | null = null;
    if (isObject(step)) {
      const s = new ObjectReader(step, `${r.path}.revokeStep`, out);
      const c = s.raw("criteria");
      const cr = new ObjectReader(isObject(c) ? c : {}, `${s.path}.criteria`, out);
      revokeStep = {
        grantSource: grantSource(s, out),
        criteria: {
          appIds: cr.strings("appIds"),
          appEntitlementIds: cr.strings("appEntitlementIds"),
          resourceTypeIds: cr.strings("resourceTypeIds"),
          resourceTypeName: cr.string("resourceTypeName"),
        },
      };
    }
    return { id: r.string("id"), displayName: r.string("displayName"), revokeStep };
  });
  const entitlementSources = list(section["entitlementSources"], `${p}.entitlementSources`, out, (r): EntitlementSource | undefined => {
    const via = r.string("via");
    if (via !== "group" && via !== "role" && via !== "delegated") {
      out.push({ code: "INVALID_VIA", path: `${r.path}.via`, message: `via must be "group", "role" or "delegated"` });
      return undefined;
    }
    return {
      appId: r.string("appId"),
      appEntitlementId: r.string("appEntitlementId"),
      sourceAppId: r.string("sourceAppId"),
      sourceEntitlementId: r.string("sourceEntitlementId"),
      via,
    };
  });
  const unsyncedEntitlements = list(section["unsyncedEntitlements"], `${p}.unsyncedEntitlements`, out, (r) => ({
    appId: r.string("appId"),
    appEntitlementId: r.string("appEntitlementId"),
  }));
  const apps: Record<string, SimAppSettings> = {};
  const appsIn = section["apps"];
  if (isObject(appsIn))
    for (const [appId, v] of Object.entries(appsIn)) {
      const r = new ObjectReader(isObject(v) ? v : {}, `${p}.apps.${appId}`, out);
      apps[appId] = { revokeInheritedAccess: r.boolean("revokeInheritedAccess") };
    }
  const stepUpTransactions: Record<string, PendingStepUp> = {};
  const txIn = section["stepUpTransactions"];
  if (isObject(txIn))
    for (const [id, v] of Object.entries(txIn)) {
      const r = new ObjectReader(isObject(v) ? v : {}, `${p}.stepUpTransactions.${id}`, out);
      stepUpTransactions[id] = {
        taskId: r.string("taskId"),
        policyStepId: r.string("policyStepId"),
        userId: r.string("userId"),
        providerId: r.string("providerId"),
        comment: r.string("comment"),
        createdAt: r.string("createdAt"),
      };
    }
  return {
    simulation: Object.freeze({ connectors, automations, entitlementSources, unsyncedEntitlements, apps, stepUpTransactions }),
    problems: out,
  };
}

function sectionOf(world: Pick<World, "$unknown">): Readonly<Record<string, unknown>> | undefined {
  const raw = world.$unknown?.[SIMULATION_KEY];
  return isObject(raw) ? raw : undefined;
}

function parsed(world: Pick<World, "$unknown">): Parsed {
  const section = sectionOf(world);
  if (!section) return { simulation: EMPTY, problems: [] };
  const hit = cache.get(section);
  if (hit) return hit;
  const p = parse(section);
  cache.set(section, p);
  return p;
}

/**
 * Reads the world's `simulation` section. Lenient: a malformed entry is left out (see
 * {@link simulationProblems}); a world without the section reads as empty.
 *
 * @example
 * ```ts
 * readSimulation(world).apps["app-okta"]?.revokeInheritedAccess ?? false;
 * ```
 */
export function readSimulation(world: Pick<World, "$unknown">): Simulation {
  return parsed(world).simulation;
}

/**
 * What is wrong with the world's `simulation` section, with JSON paths.
 *
 * @example
 * ```ts
 * for (const d of simulationProblems(world)) console.warn(d.path, d.message);
 * ```
 */
export function simulationProblems(world: Pick<World, "$unknown">): readonly Diagnostic[] {
  return parsed(world).problems;
}

/**
 * The section as the world file writes it.
 *
 * @example
 * ```ts
 * JSON.stringify(encodeSimulationSection(readSimulation(world)));
 * ```
 */
export function encodeSimulationSection(sim: Simulation): JsonObject {
  const strings = (xs: readonly string[]): JsonValue[] => [...xs];
  const apps: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(sim.apps)) apps[k] = { revokeInheritedAccess: v.revokeInheritedAccess };
  const tx: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(sim.stepUpTransactions)) tx[k] = { ...v };
  return {
    connectors: sim.connectors.map((c) => ({ ...c, cannotDeprovisionEntitlementIds: strings(c.cannotDeprovisionEntitlementIds) })),
    automations: sim.automations.map((a) => ({
      id: a.id,
      displayName: a.displayName,
      revokeStep: a.revokeStep
        ? {
            grantSource: a.revokeStep.grantSource,
            criteria: {
              appIds: strings(a.revokeStep.criteria.appIds),
              appEntitlementIds: strings(a.revokeStep.criteria.appEntitlementIds),
              resourceTypeIds: strings(a.revokeStep.criteria.resourceTypeIds),
              resourceTypeName: a.revokeStep.criteria.resourceTypeName,
            },
          }
        : null,
    })),
    entitlementSources: sim.entitlementSources.map((e) => ({ ...e })),
    unsyncedEntitlements: sim.unsyncedEntitlements.map((e) => ({ ...e })),
    apps,
    stepUpTransactions: tx,
  };
}

/**
 * A world whose `simulation` section is `sim` (everything else shared). Keys of the section this
 * module does not know are kept.
 *
 * @example
 * ```ts
 * const next = withSimulation(world, { ...readSimulation(world), unsyncedEntitlements: [] });
 * ```
 */
export function withSimulation(world: World, sim: Simulation): World {
  const before = sectionOf(world) ?? {};
  const section = Object.freeze({ ...before, ...encodeSimulationSection(sim) });
  return { ...world, $unknown: Object.freeze({ ...(world.$unknown ?? {}), [SIMULATION_KEY]: section }) };
}

/**
 * A world whose `simulation` section is the given JSON merged over the current one (top-level keys
 * of the section replace). Scripts use it to set up a scenario.
 *
 * @example
 * ```ts
 * const w = mergeSimulationSection(world, { apps: { "app-okta": { revokeInheritedAccess: true } } });
 * ```
 */
export function mergeSimulationSection(world: World, patch: JsonObject): World {
  const before = sectionOf(world) ?? {};
  const section = Object.freeze({ ...before, ...patch });
  return { ...world, $unknown: Object.freeze({ ...(world.$unknown ?? {}), [SIMULATION_KEY]: section }) };
}

/**
 * The connector a provision step uses: the one it names, else the first the section lists for the
 * app. `undefined` when the section does not know it (it can then do everything).
 *
 * @example
 * ```ts
 * connectorFor(readSimulation(world), "", "app-salesforce")?.canDeprovision;
 * ```
 */
export function connectorFor(sim: Simulation, connectorId: string, appId: string): SimConnector | undefined {
  if (connectorId) {
    const named = sim.connectors.find((c) => c.id === connectorId);
    if (named) return named;
  }
  return sim.connectors.find((c) => c.appId === appId && appId !== "");
}

/**
 * Whether an entitlement was created ahead of the connector's sync and is still waiting for it.
 *
 * @example
 * ```ts
 * isUnsynced(readSimulation(world), "app-aws", "ent-aws-staging-dev"); // true until a sync
 * ```
 */
export function isUnsynced(sim: Simulation, appId: string, appEntitlementId: string): boolean {
  return sim.unsyncedEntitlements.some((u) => u.appId === appId && u.appEntitlementId === appEntitlementId);
}
