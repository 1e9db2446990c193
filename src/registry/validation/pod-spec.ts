// Pod spec and pod template validation, shared by pods and every kind that carries a template: the reference's
// rules for containers, ports, volumes and the pod-level enums.
import type { StatusCause } from '../../api/meta.js';
import type {
  Container, LifecycleHandler, PodSpec, PodTemplateSpec, Probe, ResourceRequirements, Toleration, Volume,
} from '../../api/types/core-v1.js';
import { type Causes, dnsLabel, dnsSubdomain, duplicate, forbidden, invalid, isInt, isSet, labels, nonNegative, notSupported, oneOf, portName, portNumber, portNumberOrName, qualifiedName, required } from './fields.js';
import { quantityValue } from '../../api/quantity.js';
import { volumeSources } from '../defaults/pod-spec.js';
import { affinity, topologySpread } from './scheduling.js';
import { ipFamily } from './addresses.js';
import { containerSecurityContext, podSecurityContext } from './security-context.js';

const envVarName = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;
const protocols = ['SCTP', 'TCP', 'UDP'];
const pullPolicies = ['Always', 'IfNotPresent', 'Never'];
const messagePolicies = ['FallbackToLogsOnError', 'File'];
const restartPolicies = ['Always', 'OnFailure', 'Never'];
const dnsPolicies = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
const tolerationOperators = ['Equal', 'Exists'];
const taintEffects = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
const maxInt32 = 2147483647;

const notFound = (field: string, value: unknown): StatusCause =>
  ({ reason: 'FieldValueNotFound', field, message: `Not found: ${JSON.stringify(value)}` });

const handlerKinds = ['exec', 'httpGet', 'tcpSocket', 'grpc'] as const;
const lifecycleKinds = ['exec', 'httpGet', 'tcpSocket'] as const;

function handler(at: string, h: Probe | LifecycleHandler, kinds: readonly (keyof Probe)[] = handlerKinds): Causes {
  const set = kinds.filter(k => isSet((h as Probe)?.[k]));
  if (set.length === 0) return [required(at, 'must specify a handler type')];
  const out: Causes = set.slice(1).map(k => forbidden(`${at}.${k}`, 'may not specify more than 1 handler type'));
  if (h.httpGet) out.push(...portNumberOrName(`${at}.httpGet.port`, h.httpGet.port));
  if (h.tcpSocket) out.push(...portNumberOrName(`${at}.tcpSocket.port`, h.tcpSocket.port));
  if ('grpc' in h && h.grpc) out.push(...portNumber(`${at}.grpc.port`, h.grpc.port));
  if (h.exec && !(h.exec.command ?? []).length) out.push(required(`${at}.exec.command`));
  return out;
}

function probe(at: string, p: Probe | undefined, successMustBeOne: boolean): Causes {
  if (!p) return [];
  const out = handler(at, p);
  for (const f of ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold'] as const)
    out.push(...nonNegative(`${at}.${f}`, p[f]));
  if (successMustBeOne && isSet(p.successThreshold) && p.successThreshold !== 1) out.push(invalid(`${at}.successThreshold`, p.successThreshold, 'must be 1'));
  return out;
}

function resources(at: string, r: ResourceRequirements | undefined): Causes {
  const out: Causes = [];
  for (const kind of ['limits', 'requests'] as const)
    for (const [name, q] of Object.entries(r?.[kind] ?? {})) {
      const v = quantityValue(q);
      if (v !== undefined && v < 0) out.push(invalid(`${at}.${kind}[${name}]`, q, 'must be greater than or equal to 0'));
    }
  for (const [name, q] of Object.entries(r?.requests ?? {})) {
    const limit = r?.limits?.[name];
    if (limit === undefined) continue;
    const rv = quantityValue(q), lv = quantityValue(limit);
    if (rv !== undefined && lv !== undefined && rv > lv)
      out.push(invalid(`${at}.requests`, q, `must be less than or equal to ${name} limit of ${limit}`));
  }
  return out;
}

function container(at: string, c: Container, volumeNames: Set<string>, isInit: boolean): Causes {
  const out: Causes = [];
  if (!c || typeof c !== 'object') return [required(at)];
  if (!c.name) out.push(required(`${at}.name`));
  else out.push(...dnsLabel(`${at}.name`, c.name));
  if (!c.image) out.push(required(`${at}.image`));
  const portNames = new Set<string>();
  for (const [i, p] of (c.ports ?? []).entries()) {
    const pat = `${at}.ports[${i}]`;
    if (p?.name) {
      out.push(...portName(`${pat}.name`, p.name));
      if (portNames.has(p.name)) out.push(duplicate(`${pat}.name`, p.name));
      portNames.add(p.name);
    }
    if (!isSet(p?.containerPort)) out.push(required(`${pat}.containerPort`));
    else out.push(...portNumber(`${pat}.containerPort`, p.containerPort));
    if (isSet(p?.hostPort) && p.hostPort !== 0) out.push(...portNumber(`${pat}.hostPort`, p.hostPort));
    out.push(...oneOf(`${pat}.protocol`, p?.protocol, protocols));
  }
  for (const [i, e] of (c.env ?? []).entries()) {
    const eat = `${at}.env[${i}]`;
    if (!e?.name) out.push(required(`${eat}.name`));
    else if (!envVarName.test(e.name))
      out.push(invalid(`${eat}.name`, e.name, "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')"));
    const from = e?.valueFrom;
    if (from) {
      const sources = (['fieldRef', 'resourceFieldRef', 'configMapKeyRef', 'secretKeyRef'] as const).filter(k => isSet(from[k]));
      if (sources.length === 0) out.push(invalid(`${eat}.valueFrom`, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'));
      else if (sources.length > 1) out.push(invalid(`${eat}.valueFrom`, '', 'may not have more than one field specified at a time'));
      if (isSet(e.value) && e.value !== '') out.push(invalid(`${eat}.valueFrom`, '', 'may not be specified when `value` is not empty'));
      if (from.fieldRef && !from.fieldRef.fieldPath) out.push(required(`${eat}.valueFrom.fieldRef.fieldPath`));
      for (const k of ['configMapKeyRef', 'secretKeyRef'] as const) if (from[k] && !from[k]?.key) out.push(required(`${eat}.valueFrom.${k}.key`));
      if (from.resourceFieldRef && !from.resourceFieldRef.resource) out.push(required(`${eat}.valueFrom.resourceFieldRef.resource`));
    }
  }
  const mountPaths = new Set<string>();
  for (const [i, m] of (c.volumeMounts ?? []).entries()) {
    const mat = `${at}.volumeMounts[${i}]`;
    if (!m?.name) out.push(required(`${mat}.name`));
    else if (!volumeNames.has(m.name)) out.push(notFound(`${mat}.name`, m.name));
    if (!m?.mountPath) out.push(required(`${mat}.mountPath`));
    else {
      if (mountPaths.has(m.mountPath)) out.push(invalid(`${mat}.mountPath`, m.mountPath, 'must be unique'));
      mountPaths.add(m.mountPath);
    }
  }
  out.push(...oneOf(`${at}.imagePullPolicy`, c.imagePullPolicy, pullPolicies));
  out.push(...oneOf(`${at}.terminationMessagePolicy`, c.terminationMessagePolicy, messagePolicies));
  out.push(...resources(`${at}.resources`, c.resources));
  out.push(...containerSecurityContext(`${at}.securityContext`, c.securityContext));
  if (isInit) {
    for (const p of ['livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle'] as const)
      if (isSet(c[p])) out.push(forbidden(`${at}.${p}`, 'may not be set for init containers'));
  } else {
    out.push(...probe(`${at}.livenessProbe`, c.livenessProbe, true));
    out.push(...probe(`${at}.readinessProbe`, c.readinessProbe, false));
    out.push(...probe(`${at}.startupProbe`, c.startupProbe, true));
    for (const hook of ['postStart', 'preStop'] as const) {
      const h = c.lifecycle?.[hook];
      if (h) out.push(...handler(`${at}.lifecycle.${hook}`, h, lifecycleKinds));
    }
  }
  return out;
}

function fileMode(at: string, mode: unknown): Causes {
  return isSet(mode) && !(isInt(mode) && mode >= 0 && mode <= 0o777)
    ? [invalid(at, mode, 'must be a number between 0 and 0777 (octal), both inclusive')] : [];
}

function volume(at: string, v: Volume): Causes {
  const out: Causes = [];
  if (!v?.name) out.push(required(`${at}.name`));
  else out.push(...dnsLabel(`${at}.name`, v.name));
  const sources = volumeSources.filter(s => isSet(v?.[s]));
  if (sources.length === 0) out.push(required(at, 'must specify a volume type'));
  for (const s of sources.slice(1)) out.push(forbidden(`${at}.${s}`, 'may not specify more than 1 volume type'));
  if (v?.hostPath && !v.hostPath.path) out.push(required(`${at}.hostPath.path`));
  if (v?.persistentVolumeClaim && !v.persistentVolumeClaim.claimName) out.push(required(`${at}.persistentVolumeClaim.claimName`));
  if (v?.secret) {
    if (!v.secret.secretName) out.push(required(`${at}.secret.secretName`));
    out.push(...fileMode(`${at}.secret.defaultMode`, v.secret.defaultMode));
  }
  if (v?.configMap) {
    if (!v.configMap.name) out.push(required(`${at}.configMap.name`));
    out.push(...fileMode(`${at}.configMap.defaultMode`, v.configMap.defaultMode));
  }
  if (v?.nfs) {
    if (!v.nfs.server) out.push(required(`${at}.nfs.server`));
    if (!v.nfs.path) out.push(required(`${at}.nfs.path`));
  }
  if (v?.csi && !v.csi.driver) out.push(required(`${at}.csi.driver`));
  return out;
}

function toleration(at: string, t: Toleration): Causes {
  const out: Causes = [];
  // an empty operator is Equal, an empty effect every effect
  const operator: string | undefined = t?.operator, effect: string | undefined = t?.effect;
  if (t?.key) out.push(...qualifiedName(`${at}.key`, t.key));
  if (!t?.key && t?.operator !== 'Exists') out.push(invalid(`${at}.operator`, t?.operator ?? '', 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
  if (isSet(t?.tolerationSeconds) && t.effect !== 'NoExecute') out.push(invalid(`${at}.effect`, t.effect ?? '', 'effect must be \'NoExecute\' when `tolerationSeconds` is set'));
  if (isSet(operator) && operator !== '') {
    if (!tolerationOperators.includes(operator)) out.push(notSupported(`${at}.operator`, operator, tolerationOperators));
    else if (operator === 'Exists' && t.value) out.push(invalid(`${at}.operator`, t.value, 'value must be empty when `operator` is \'Exists\''));
  }
  if (isSet(effect) && effect !== '' && !taintEffects.includes(effect)) out.push(notSupported(`${at}.effect`, effect, taintEffects));
  return out;
}

export interface PodSpecRules {
  /** restart policies a workload's template may use (pods: all) */
  restartPolicies?: readonly string[];
  /** workload templates may not set activeDeadlineSeconds: the kind named in the refusal */
  noActiveDeadline?: string;
  /** volumes the workload supplies besides the template's own (a StatefulSet's claim templates) */
  extraVolumes?: readonly string[];
}

/** a pod's own DNS settings: required with dnsPolicy None, and within the resolver's limits */
function dnsConfig(at: string, spec: PodSpec): Causes {
  const c = spec.dnsConfig;
  if (spec.dnsPolicy === 'None') {
    if (!c) return [required(at, 'must provide `dnsConfig` when `dnsPolicy` is None')];
    if (!(c.nameservers ?? []).length) return [required(`${at}.nameservers`, 'must provide at least one DNS nameserver when `dnsPolicy` is None')];
  }
  if (!c) return [];
  const out: Causes = [];
  const servers = c.nameservers ?? [];
  if (servers.length > 3) out.push(invalid(`${at}.nameservers`, servers, 'must not have more than 3 nameservers'));
  for (const [i, ns] of servers.entries()) if (!ipFamily(String(ns))) out.push(invalid(`${at}.nameservers[${i}]`, ns, 'must be valid IP address'));
  const searches = c.searches ?? [];
  if (searches.length > 32) out.push(invalid(`${at}.searches`, searches, 'must not have more than 32 search paths'));
  if (searches.join(' ').length > 2048) out.push(invalid(`${at}.searches`, searches, 'must not have more than 2048 characters (including spaces) in the search list'));
  for (const [i, search] of searches.entries()) out.push(...dnsSubdomain(`${at}.searches[${i}]`, String(search).replace(/\.$/, '')));
  for (const [i, o] of (c.options ?? []).entries()) if (!o?.name) out.push(required(`${at}.options[${i}]`, 'Option.Name must not be empty'));
  return out;
}

export function validatePodSpec(at: string, spec: PodSpec | undefined, rules: PodSpecRules = {}): Causes {
  if (!spec || typeof spec !== 'object') return [required(at)];
  const out: Causes = [];
  const volumeNames = new Set<string>(rules.extraVolumes ?? []);
  for (const [i, v] of (spec.volumes ?? []).entries()) {
    out.push(...volume(`${at}.volumes[${i}]`, v));
    if (v?.name) {
      if (volumeNames.has(v.name)) out.push(duplicate(`${at}.volumes[${i}].name`, v.name));
      volumeNames.add(v.name);
    }
  }
  const containerNames = new Set<string>();
  const checkName = (field: string, c: Container) => {
    if (!c?.name) return;
    if (containerNames.has(c.name)) out.push(duplicate(field, c.name));
    containerNames.add(c.name);
  };
  if (!(spec.containers ?? []).length) out.push(required(`${at}.containers`));
  for (const [i, c] of (spec.initContainers ?? []).entries()) {
    out.push(...container(`${at}.initContainers[${i}]`, c, volumeNames, true));
    checkName(`${at}.initContainers[${i}].name`, c);
  }
  for (const [i, c] of (spec.containers ?? []).entries()) {
    out.push(...container(`${at}.containers[${i}]`, c, volumeNames, false));
    checkName(`${at}.containers[${i}].name`, c);
  }
  const allowedRestart = rules.restartPolicies ?? restartPolicies;
  if (!spec.restartPolicy) out.push(required(`${at}.restartPolicy`));
  else if (!allowedRestart.includes(spec.restartPolicy)) out.push(notSupported(`${at}.restartPolicy`, spec.restartPolicy, allowedRestart));
  out.push(...oneOf(`${at}.dnsPolicy`, spec.dnsPolicy, dnsPolicies));
  out.push(...labels(`${at}.nodeSelector`, spec.nodeSelector));
  out.push(...podSecurityContext(`${at}.securityContext`, spec.securityContext));
  out.push(...affinity(`${at}.affinity`, spec.affinity));
  out.push(...dnsConfig(`${at}.dnsConfig`, spec));
  for (const [i, g] of (spec.readinessGates ?? []).entries())
    out.push(...qualifiedName(`${at}.readinessGates[${i}].conditionType`, String(g?.conditionType ?? '')));
  out.push(...topologySpread(`${at}.topologySpreadConstraints`, spec.topologySpreadConstraints));
  if (spec.serviceAccountName) out.push(...dnsSubdomain(`${at}.serviceAccountName`, spec.serviceAccountName));
  if (spec.nodeName) out.push(...dnsSubdomain(`${at}.nodeName`, spec.nodeName));
  if (spec.hostname) out.push(...dnsLabel(`${at}.hostname`, spec.hostname));
  if (spec.subdomain) out.push(...dnsLabel(`${at}.subdomain`, spec.subdomain));
  if (spec.priorityClassName) out.push(...dnsSubdomain(`${at}.priorityClassName`, spec.priorityClassName));
  if (isSet(spec.activeDeadlineSeconds)) {
    if (rules.noActiveDeadline)
      out.push(invalid(`${at}.activeDeadlineSeconds`, spec.activeDeadlineSeconds, `activeDeadlineSeconds in ${rules.noActiveDeadline} is not Supported`));
    else if (!(isInt(spec.activeDeadlineSeconds) && spec.activeDeadlineSeconds >= 1 && spec.activeDeadlineSeconds <= maxInt32))
      out.push(invalid(`${at}.activeDeadlineSeconds`, spec.activeDeadlineSeconds, `must be between 1 and ${maxInt32}, inclusive`));
  }
  for (const [i, t] of (spec.tolerations ?? []).entries()) out.push(...toleration(`${at}.tolerations[${i}]`, t));
  return out;
}

/** privileged containers, which a server started without --allow-privileged refuses in every pod spec */
export function privilegedCauses(at: string, spec: PodSpec | undefined): Causes {
  const out: Causes = [];
  for (const list of ['initContainers', 'containers', 'ephemeralContainers'] as const) {
    const containers = spec?.[list];
    if (!Array.isArray(containers)) continue;
    for (const [i, c] of containers.entries())
      if (c?.securityContext?.privileged === true) out.push(forbidden(`${at}.${list}[${i}].securityContext.privileged`, 'disallowed by cluster policy'));
  }
  return out;
}

/** a template's labels and spec; workloads pass their restart policy rule */
export function validateTemplate(at: string, template: PodTemplateSpec | undefined, rules: PodSpecRules): Causes {
  if (!template || typeof template !== 'object') return [required(at)];
  const out = labels(`${at}.metadata.labels`, template.metadata?.labels);
  out.push(...validatePodSpec(`${at}.spec`, template.spec, rules));
  return out;
}

