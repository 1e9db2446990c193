// A configuration file's profiles, and the `args` of their pluginConfig, checked as kube-scheduler 1.27 checks
// them when it reads its configuration: decoded strictly (an unknown field or a value of the wrong type is an
// error; a null list item is its type's zero value), then the args validated (ranges, supported values,
// duplicates), every entry whether its plugin is enabled or not. The errors are the reference's field errors
// (`profiles[0].pluginConfig[1].args.hardPodAffinityWeight: Invalid value: 200: not in valid range [0, 100]`).
import { qualifiedNameErrors } from '../api/selectors.js';
import { extensionPoints } from './runtime.js';

/** the type of a field: a scalar, a struct of named fields, a list, or anything (left to the validation) */
type Shape = 'int' | 'string' | 'bool' | 'any' | { fields: Record<string, Shape> } | { list: Shape };

const resourceSpec: Shape = { list: { fields: { name: 'string', weight: 'int' } } };
const requirements: Shape = { list: { fields: { key: 'string', operator: 'string', values: { list: 'string' } } } };
const nodeSelectorTerm: Shape = { fields: { matchExpressions: requirements, matchFields: requirements } };
const shapePoints: Shape = { list: { fields: { utilization: 'int', score: 'int' } } };

/** a field error in the reference's wording */
const fieldError = {
  invalid: (path: string, value: unknown, detail: string) => `${path}: Invalid value: ${goValue(value)}: ${detail}`,
  required: (path: string, detail: string) => `${path}: Required value: ${detail}`,
  forbidden: (path: string, detail: string) => `${path}: Forbidden: ${detail}`,
  duplicate: (path: string, value: unknown) => `${path}: Duplicate value: ${goValue(value)}`,
  notSupported: (path: string, value: unknown, supported: readonly string[]) =>
    `${path}: Unsupported value: ${goValue(value)}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
};

const goValue = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));

const inRange = (path: string, v: number | undefined, min: number, max: number, detail = `not in valid range [${min}, ${max}]`) =>
  v !== undefined && (v < min || v > max) ? [fieldError.invalid(path, v, detail)] : [];

function shapeErrors(points: { utilization?: number; score?: number }[] | undefined, path: string): string[] {
  if (!points?.length) return [fieldError.required(path, 'at least one point must be specified')];
  const errs: string[] = [];
  const unsorted = points.findIndex((p, i) => i > 0 && (points[i - 1]!.utilization ?? 0) >= (p.utilization ?? 0));
  if (unsorted > 0) errs.push(fieldError.invalid(`${path}[${unsorted}].utilization`, points[unsorted]!.utilization ?? 0, 'values must be sorted in increasing order'));
  points.forEach((p, i) => {
    errs.push(...inRange(`${path}[${i}].utilization`, p.utilization ?? 0, 0, 100), ...inRange(`${path}[${i}].score`, p.score ?? 0, 0, 10));
  });
  return errs;
}

const labelNameErrors = (path: string, v: string) => {
  const problems = qualifiedNameErrors(v);
  return problems.length ? [fieldError.invalid(path, v, problems.join('; '))] : [];
};

const operators = ['DoesNotExist', 'Exists', 'Gt', 'In', 'Lt', 'NotIn'];

interface Requirement { key?: string; operator?: string; values?: string[] }

function requirementErrors(r: Requirement, path: string, field: boolean): string[] {
  const errs: string[] = [];
  const values = r.values ?? [];
  if (field) {
    if (r.key !== 'metadata.name') errs.push(fieldError.notSupported(`${path}.key`, r.key ?? '', ['metadata.name']));
    if (r.operator !== 'In' && r.operator !== 'NotIn') errs.push(fieldError.notSupported(`${path}.operator`, r.operator ?? '', ['In', 'NotIn']));
    else if (values.length !== 1) errs.push(fieldError.required(`${path}.values`, 'must have one element'));
    return errs;
  }
  switch (r.operator) {
    case 'In': case 'NotIn':
      if (!values.length) errs.push(fieldError.required(`${path}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case 'Exists': case 'DoesNotExist':
      if (values.length) errs.push(fieldError.forbidden(`${path}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      break;
    case 'Gt': case 'Lt':
      if (values.length !== 1) errs.push(fieldError.required(`${path}.values`, "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      break;
    default:
      errs.push(fieldError.notSupported(`${path}.operator`, r.operator ?? '', operators));
  }
  return [...errs, ...labelNameErrors(`${path}.key`, r.key ?? '')];
}

interface NodeSelectorTermArgs { matchExpressions?: Requirement[]; matchFields?: Requirement[] }

const termErrors = (t: NodeSelectorTermArgs | undefined, path: string) => [
  ...(t?.matchExpressions ?? []).flatMap((r, i) => requirementErrors(r, `${path}.matchExpressions[${i}]`, false)),
  ...(t?.matchFields ?? []).flatMap((r, i) => requirementErrors(r, `${path}.matchFields[${i}]`, true)),
];

interface ArgsDecl {
  kind: string;
  fields: Record<string, Shape>;
  /** problems of decoded args; `path` ends in `.args` */
  validate(args: any, path: string): string[];
}

/** the plugins that take arguments, by name; others' arguments are not read */
const declarations: Record<string, ArgsDecl> = {
  DefaultPreemption: {
    kind: 'DefaultPreemptionArgs',
    fields: { minCandidateNodesPercentage: 'int', minCandidateNodesAbsolute: 'int' },
    validate(a: { minCandidateNodesPercentage?: number; minCandidateNodesAbsolute?: number }, path) {
      const pct = a.minCandidateNodesPercentage ?? 10;
      const abs = a.minCandidateNodesAbsolute ?? 100;
      const errs = [...inRange(`${path}.minCandidateNodesPercentage`, pct, 0, 100),
        ...(abs < 0 ? [fieldError.invalid(`${path}.minCandidateNodesAbsolute`, abs, 'not in valid range [0, inf)')] : [])];
      if (pct === 0 && abs === 0) {
        errs.push(fieldError.invalid(`${path}.minCandidateNodesPercentage`, 0, 'cannot be zero at the same time as minCandidateNodesAbsolute'),
          fieldError.invalid(`${path}.minCandidateNodesAbsolute`, 0, 'cannot be zero at the same time as minCandidateNodesPercentage'));
      }
      return errs;
    },
  },
  InterPodAffinity: {
    kind: 'InterPodAffinityArgs',
    fields: { hardPodAffinityWeight: 'int', ignorePreferredTermsOfExistingPods: 'bool' },
    validate: (a: { hardPodAffinityWeight?: number }, path) => inRange(`${path}.hardPodAffinityWeight`, a.hardPodAffinityWeight, 0, 100),
  },
  NodeAffinity: {
    kind: 'NodeAffinityArgs',
    fields: { addedAffinity: { fields: {
      requiredDuringSchedulingIgnoredDuringExecution: { fields: { nodeSelectorTerms: { list: nodeSelectorTerm } } },
      preferredDuringSchedulingIgnoredDuringExecution: { list: { fields: { weight: 'int', preference: nodeSelectorTerm } } },
    } } },
    validate(a: { addedAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: NodeSelectorTermArgs[] };
      preferredDuringSchedulingIgnoredDuringExecution?: { preference?: NodeSelectorTermArgs }[] } }, path) {
      const required = a.addedAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
      const p = `${path}.addedAffinity`;
      return [
        ...(required?.nodeSelectorTerms ?? []).flatMap((t, i) => termErrors(t, `${p}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[${i}]`)),
        ...(a.addedAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? [])
          .flatMap((t, i) => termErrors(t?.preference, `${p}.preferredDuringSchedulingIgnoredDuringExecution[${i}].preference`)),
      ];
    },
  },
  NodeResourcesBalancedAllocation: {
    kind: 'NodeResourcesBalancedAllocationArgs',
    fields: { resources: resourceSpec },
    validate(a: { resources?: { name?: string; weight?: number }[] }, path) {
      const seen = new Set<string>();
      return (a.resources ?? []).flatMap((r, i) => {
        const errs: string[] = [];
        if (seen.has(r.name ?? '')) errs.push(fieldError.duplicate(`${path}.resources[${i}].name`, r.name ?? ''));
        seen.add(r.name ?? '');
        // an unset weight (or 0) is 1
        if ((r.weight || 1) !== 1) errs.push(fieldError.invalid(`${path}.resources[${i}].weight`, r.weight, 'must be 1'));
        return errs;
      });
    },
  },
  NodeResourcesFit: {
    kind: 'NodeResourcesFitArgs',
    fields: {
      ignoredResources: { list: 'string' }, ignoredResourceGroups: { list: 'string' },
      scoringStrategy: { fields: { type: 'string', resources: resourceSpec, requestedToCapacityRatio: { fields: { shape: shapePoints } } } },
    },
    validate(a: { ignoredResources?: string[]; ignoredResourceGroups?: string[];
      scoringStrategy?: { type?: string; resources?: { name?: string; weight?: number }[]; requestedToCapacityRatio?: { shape?: { utilization?: number; score?: number }[] } } }, path) {
      const errs = [
        ...(a.ignoredResources ?? []).flatMap((r, i) => labelNameErrors(`${path}.ignoredResources[${i}]`, r)),
        ...(a.ignoredResourceGroups ?? []).flatMap((g, i) => [
          ...(g.includes('/') ? [fieldError.invalid(`${path}.ignoredResourceGroups[${i}]`, g, "resource group name can't contain '/'")] : []),
          ...labelNameErrors(`${path}.ignoredResourceGroups[${i}]`, g),
        ]),
      ];
      const s = a.scoringStrategy;
      if (!s) return errs;
      const sp = `${path}.scoringStrategy`;
      const types = ['LeastAllocated', 'MostAllocated', 'RequestedToCapacityRatio'];
      const type = s.type ?? 'LeastAllocated';
      if (!types.includes(type)) errs.push(fieldError.notSupported(`${sp}.type`, type, types));
      (s.resources ?? []).forEach((r, i) => {
        // an unset weight (or 0) is 1
        const w = r.weight || 1;
        if (w < 1 || w > 100) errs.push(fieldError.invalid(`${sp}.resources[${i}].weight`, w, `resource weight of ${r.name ?? ''} not in valid range (0, 100]`));
      });
      if (type === 'RequestedToCapacityRatio') {
        if (!s.requestedToCapacityRatio) errs.push(fieldError.required(`${sp}.requestedToCapacityRatio`, 'must be specified when type is RequestedToCapacityRatio'));
        else errs.push(...shapeErrors(s.requestedToCapacityRatio.shape, `${sp}.requestedToCapacityRatio.shape`));
      } else if (s.requestedToCapacityRatio) {
        errs.push(fieldError.forbidden(`${sp}.requestedToCapacityRatio`, 'must be nil when type is not RequestedToCapacityRatio'));
      }
      return errs;
    },
  },
  PodTopologySpread: {
    kind: 'PodTopologySpreadArgs',
    fields: {
      defaultingType: 'string',
      defaultConstraints: { list: { fields: { maxSkew: 'int', topologyKey: 'string', whenUnsatisfiable: 'string', labelSelector: 'any',
        minDomains: 'int', nodeAffinityPolicy: 'string', nodeTaintsPolicy: 'string', matchLabelKeys: { list: 'string' } } } },
    },
    validate(a: { defaultingType?: string; defaultConstraints?: { maxSkew?: number; topologyKey?: string; whenUnsatisfiable?: string; labelSelector?: unknown }[] }, path) {
      const errs: string[] = [];
      const type = a.defaultingType || 'System';
      const constraints = a.defaultConstraints ?? [];
      if (type !== 'System' && type !== 'List') errs.push(fieldError.notSupported(`${path}.defaultingType`, type, ['System', 'List']));
      else if (type === 'System' && constraints.length) errs.push(fieldError.invalid(`${path}.defaultingType`, type, 'when .defaultConstraints are not empty'));
      constraints.forEach((c, i) => {
        const p = `${path}.defaultConstraints[${i}]`;
        if (!((c.maxSkew ?? 0) > 0)) errs.push(fieldError.invalid(`${p}.maxSkew`, c.maxSkew ?? 0, 'not in valid range (0, inf)'));
        if (!c.topologyKey) errs.push(fieldError.required(`${p}.topologyKey`, 'can not be empty'));
        else errs.push(...labelNameErrors(`${p}.topologyKey`, c.topologyKey));
        if (!c.whenUnsatisfiable) errs.push(fieldError.required(`${p}.whenUnsatisfiable`, 'can not be empty'));
        else if (c.whenUnsatisfiable !== 'DoNotSchedule' && c.whenUnsatisfiable !== 'ScheduleAnyway') {
          errs.push(fieldError.notSupported(`${p}.whenUnsatisfiable`, c.whenUnsatisfiable, ['DoNotSchedule', 'ScheduleAnyway']));
        }
        if (c.labelSelector != null) errs.push(fieldError.forbidden(`${p}.labelSelector`, 'constraint must not define a selector, as they deduced for each pod'));
        if (constraints.slice(0, i).some((o) => o.topologyKey === c.topologyKey && o.whenUnsatisfiable === c.whenUnsatisfiable)) {
          errs.push(fieldError.duplicate(`${path}.defaultConstraints[${i}]`, `{${c.topologyKey ?? ''}, ${c.whenUnsatisfiable ?? ''}}`));
        }
      });
      return errs;
    },
  },
  VolumeBinding: {
    kind: 'VolumeBindingArgs',
    fields: { bindTimeoutSeconds: 'int', shape: shapePoints },
    validate(a: { bindTimeoutSeconds?: number; shape?: unknown }, path) {
      const errs: string[] = [];
      if ((a.bindTimeoutSeconds ?? 0) < 0) errs.push(fieldError.invalid(`${path}.bindTimeoutSeconds`, a.bindTimeoutSeconds, 'invalid BindTimeoutSeconds, should not be a negative value'));
      // storage capacity scoring is an alpha feature that this scheduler does not have
      if (a.shape != null) errs.push(fieldError.invalid(`${path}.shape`, a.shape, 'unexpected field `shape`, remove it or turn on the feature gate VolumeCapacityPriority'));
      return errs;
    },
  },
};

const goType: Record<'int' | 'string' | 'bool', string> = { int: 'int32', string: 'string', bool: 'bool' };

/** the first problem of strict decoding (unknown field, wrong type), as the reference's decoder words it */
function decodeError(value: unknown, shape: Shape, path: string, kind: string): string | undefined {
  if (value === null || value === undefined || shape === 'any') return undefined;
  const wrong = (want: string) => {
    const got = Array.isArray(value) ? 'array' : typeof value === 'object' ? 'object' : typeof value === 'boolean' ? 'bool' : typeof value;
    return `json: cannot unmarshal ${got} into Go struct field ${kind}.${path} of type ${want}`;
  };
  if (shape === 'int') return Number.isInteger(value) ? undefined : wrong(goType.int);
  if (shape === 'string' || shape === 'bool') return typeof value === (shape === 'bool' ? 'boolean' : 'string') ? undefined : wrong(goType[shape]);
  if ('list' in shape) {
    if (!Array.isArray(value)) return wrong('list');
    for (let i = 0; i < value.length; i++) {
      const e = decodeError(value[i], shape.list, `${path}[${i}]`, kind);
      if (e) return e;
    }
    return undefined;
  }
  if (typeof value !== 'object' || Array.isArray(value)) return wrong('struct');
  for (const [k, v] of Object.entries(value)) {
    const field = path ? `${path}.${k}` : k;
    const sub = shape.fields[k];
    if (!sub) return `strict decoding error: unknown field "${field}"`;
    const e = decodeError(v, sub, field, kind);
    if (e) return e;
  }
  return undefined;
}

/** a type's zero value, as Go decodes a null list item */
const zeroOf = (shape: Shape): unknown =>
  shape === 'int' ? 0 : shape === 'string' ? '' : shape === 'bool' ? false : shape === 'any' ? null : 'list' in shape ? [] : {};

/** the value as Go decodes it: null fields left out, null list items their type's zero value */
function zeroNulls(value: unknown, shape: Shape): unknown {
  if (shape === 'any' || value === null || typeof value !== 'object' || typeof shape !== 'object') return value;
  if ('list' in shape) return Array.isArray(value) ? value.map((v) => (v === null ? zeroOf(shape.list) : zeroNulls(v, shape.list))) : value;
  if (Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null).map(([k, v]) => [k, shape.fields[k] ? zeroNulls(v, shape.fields[k]!) : v]));
}

/**
 * A profile's pluginConfig `args` (the profile at `profileIndex`, the entry at `entryIndex`) as the plugin gets them,
 * and their problems: a decoding error alone, as the reference stops there, or the validation's errors.
 */
export function decodePluginArgs(name: string, args: unknown, profileIndex: number, entryIndex: number): { args: Record<string, unknown>; errors: string[] } {
  const decl = declarations[name];
  if (args === undefined || args === null) return { args: {}, errors: [] };
  const at = `profiles[${profileIndex}].pluginConfig[${entryIndex}]`;
  if (typeof args !== 'object' || Array.isArray(args)) return { args: {}, errors: [`${at}.args: Invalid value: ${goValue(args)}: has to match plugin args`] };
  if (!decl) return { args: args as Record<string, unknown>, errors: [] };
  // args may name their type, as the reference's files often do
  const { apiVersion: _v, kind: _k, ...fields } = args as Record<string, unknown>;
  const decoding = decodeError(fields, { fields: decl.fields }, '', decl.kind);
  if (decoding) return { args: {}, errors: [`decoding .${at}: ${decoding}`] };
  const decoded = zeroNulls(fields, { fields: decl.fields }) as Record<string, unknown>;
  return { args: decoded, errors: decl.validate(decoded, `${at}.args`) };
}

const pluginRefs: Shape = { list: { fields: { name: 'string', weight: 'int' } } };
const pluginSet: Shape = { fields: { enabled: pluginRefs, disabled: pluginRefs } };
const profileShape: Shape = { fields: {
  schedulerName: 'string', percentageOfNodesToScore: 'int',
  plugins: { fields: Object.fromEntries([...extensionPoints, 'multiPoint'].map((point) => [point, pluginSet])) },
  pluginConfig: { list: { fields: { name: 'string', args: 'any' } } },
} };

/** a profile decoded strictly, as the reference decodes its file (an unknown or mistyped field is an error) */
export function decodeProfile(profile: unknown, index: number): { profile: Record<string, unknown> } | { error: string } {
  const error = decodeError(profile, profileShape, `profiles[${index}]`, 'KubeSchedulerProfile');
  if (error) return { error: error.startsWith('json:') ? `decoding .profiles[${index}]: ${error}` : error };
  return { profile: zeroNulls(profile ?? {}, profileShape) as Record<string, unknown> };
}
