// Feature gates the API server knows, with the stages and defaults of the reference release 1.27
// (spec §3.3): alpha gates start off, beta gates start on, GA gates are locked on and refuse `false`.

import { parseBool } from './flags.js';

export type FeatureStage = 'ALPHA' | 'BETA' | 'GA' | 'DEPRECATED';

export interface FeatureSpec {
  stage: FeatureStage;
  default: boolean;
  /** the gate can no longer be changed from its default */
  locked?: boolean;
}

export type FeatureTable = Readonly<Record<string, FeatureSpec>>;

/** name → enabled */
export type FeatureGates = Readonly<Record<string, boolean>>;

const alpha: FeatureSpec = { stage: 'ALPHA', default: false };
const beta: FeatureSpec = { stage: 'BETA', default: true };
const betaOff: FeatureSpec = { stage: 'BETA', default: false };
const ga: FeatureSpec = { stage: 'GA', default: true, locked: true };

/** Gates of the generic API server and component base, plus the API-facing ones of the server proper. */
export const apiServerFeatureGates: FeatureTable = Object.freeze({
  AdmissionWebhookMatchConditions: alpha,
  AdvancedAuditing: ga,
  AggregatedDiscoveryEndpoint: beta,
  APIListChunking: beta,
  APIPriorityAndFairness: beta,
  APIResponseCompression: beta,
  APISelfSubjectReview: beta,
  APIServerIdentity: beta,
  APIServerTracing: beta,
  ClusterTrustBundle: alpha,
  ComponentSLIs: beta,
  ContextualLogging: alpha,
  CronJobTimeZone: ga,
  CrossNamespaceVolumeDataSource: alpha,
  CustomResourceValidationExpressions: beta,
  DryRun: ga,
  DynamicResourceAllocation: alpha,
  EfficientWatchResumption: ga,
  KMSv2: beta,
  LegacyServiceAccountTokenNoAutoGeneration: ga,
  LegacyServiceAccountTokenTracking: beta,
  LoggingAlphaOptions: alpha,
  LoggingBetaOptions: beta,
  MultiCIDRServiceAllocator: alpha,
  OpenAPIEnums: beta,
  OpenAPIV3: ga,
  PodSchedulingReadiness: beta,
  PodSecurity: ga,
  RemainingItemCount: beta,
  RemoveSelfLink: ga,
  RetroactiveDefaultStorageClass: beta,
  SecurityContextDeny: alpha,
  ServerSideApply: ga,
  ServerSideFieldValidation: ga,
  ServiceIPStaticSubrange: ga,
  ServiceNodePortStaticSubrange: alpha,
  StorageVersionAPI: alpha,
  StorageVersionHash: beta,
  UnauthenticatedHTTP2DOSMitigation: betaOff,
  ValidatingAdmissionPolicy: alpha,
  WatchBookmark: ga,
  WatchList: alpha,
});

/** Pseudo-gates that set every alpha (or beta) gate not named explicitly. */
const allAlpha = 'AllAlpha';
const allBeta = 'AllBeta';

export class FeatureGateError extends Error {
  override name = 'FeatureGateError';
}

export interface ResolvedFeatureGates {
  gates: FeatureGates;
  warnings: string[];
}

/**
 * Resolves `--feature-gates` (`A=true,B=false` or an already split map) against the table.
 * Unknown gates and changes to locked gates are refused; GA and deprecated gates warn when set.
 */
export function parseFeatureGates(spec: Record<string, string | boolean> | string, table: FeatureTable = apiServerFeatureGates): ResolvedFeatureGates {
  const requested = typeof spec === 'string' ? splitSpec(spec) : spec;
  const gates: Record<string, boolean> = {};
  for (const [name, f] of Object.entries(table)) gates[name] = f.default;
  const warnings: string[] = [];

  const explicit = new Map<string, boolean>();
  const byStage = new Map<FeatureStage, boolean>();
  for (const [rawName, rawValue] of Object.entries(requested)) {
    const name = rawName.trim();
    const value = toBool(name, rawValue);
    if (name === allAlpha || name === allBeta) {
      byStage.set(name === allAlpha ? 'ALPHA' : 'BETA', value);
      continue;
    }
    const f = table[name];
    if (!f) throw new FeatureGateError(`unrecognized feature gate: ${name}`);
    if (f.locked && value !== f.default) {
      throw new FeatureGateError(`cannot set feature gate ${name} to ${value}: the feature is locked to ${f.default} (stage ${f.stage})`);
    }
    if (f.stage === 'GA' || f.stage === 'DEPRECATED') {
      warnings.push(`setting ${f.stage === 'GA' ? 'GA' : 'deprecated'} feature gate ${name}=${value}; it will be removed in a future release`);
    }
    explicit.set(name, value);
  }
  for (const [name, f] of Object.entries(table)) {
    const value = byStage.get(f.stage);
    if (value !== undefined && !f.locked) gates[name] = value;
  }
  for (const [name, value] of explicit) gates[name] = value;
  return { gates: Object.freeze(gates), warnings };
}

/** Whether a gate is on; asking about a gate the table does not know is a programming error. */
export function enabled(gates: FeatureGates, name: string): boolean {
  const value = gates[name];
  if (value === undefined) throw new FeatureGateError(`unknown feature gate ${name}`);
  return value;
}

/** The `--feature-gates` help text: every gate with its stage and default, sorted. */
export function describeFeatureGates(table: FeatureTable = apiServerFeatureGates): string {
  const lines = [`${allAlpha}=true|false (ALPHA - default=false)`, `${allBeta}=true|false (BETA - default=false)`];
  for (const name of Object.keys(table).sort()) {
    const f = table[name]!;
    if (f.locked) continue;
    lines.push(`${name}=true|false (${f.stage} - default=${f.default})`);
  }
  return lines.join('\n');
}

function splitSpec(spec: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new FeatureGateError(`missing bool value for feature gate ${pair}: use ${pair}=true or ${pair}=false`);
    out[pair.slice(0, eq).trim()] = pair.slice(eq + 1).trim();
  }
  return out;
}

function toBool(name: string, raw: string | boolean): boolean {
  const value = typeof raw === 'boolean' ? raw : parseBool(raw.trim());
  if (value !== undefined) return value;
  throw new FeatureGateError(`invalid value of feature gate ${name}=${raw}: expected true or false`);
}
