// PodSecurity: the namespace's labels `pod-security.<domain>/enforce|audit|warn` (with `-version`), else the
// configured defaults (PodSecurityConfiguration), choose a Pod Security Standard level for each mode; a pod
// breaking the enforced level is refused, one breaking the audited level is recorded in the audit log, one
// breaking the warned level gets a warning. Exempt users, runtime classes and namespaces are not checked.
// Levels: privileged (anything), baseline, restricted (baseline and more). The templates of pod controllers
// (Deployments, Jobs, ...) are warned about and audited, not refused. A namespace's labels must be readable, and
// raising its enforced level warns of the pods there that break the new one.
import { definePlugin } from '../types.js';
import { configError, typedConfig } from '../config.js';
import type { Container, ContainerPort, EphemeralContainer, PodSecurityContext, SeccompProfile, SecurityContext, SELinuxOptions } from '../../api/types/core-v1.js';
import { isWriteOf, podSpec, refuse, type AdmittedPodSpec } from '../util.js';
import { fieldCause, invalid } from '../../api/status.js';
import type { ApiObject } from '../../api/meta.js';
import type { AdmissionAttributes } from '../../api/admission.js';

export type Level = 'privileged' | 'baseline' | 'restricted';
const levels: Level[] = ['privileged', 'baseline', 'restricted'];

const baselineCapabilities = new Set(['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE',
  'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT']);
/** sysctls baseline allows: the first set since v1.0, one more since v1.27 (the later additions are newer than this server) */
const safeSysctls = ['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range'];
const safeSysctlsSince127 = new Set([...safeSysctls, 'net.ipv4.ip_local_reserved_ports']);
/** the policy version a check set is read at: `latest` and versions past this server's are this server's (1.27) */
const newestMinor = 27;
const minorOf = (version: string) => (version === 'latest' ? newestMinor : Math.min(newestMinor, Number(version.slice('v1.'.length)) || 0));
const restrictedVolumes = new Set(['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret']);
const seLinuxTypes = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t']);

const quoted = (xs: string[]) => xs.map(x => JSON.stringify(x)).join(', ');
const containersText = (xs: string[]) => `${xs.length === 1 ? 'container' : 'containers'} ${quoted(xs)}`;

interface C { name: string; sc: SecurityContext; ports: ContainerPort[] }

/**
 * the reasons a pod spec breaks the level at a policy version, in the reference's wording; checks newer than the
 * version are left out (restricted: privilege escalation v1.8+, seccomp v1.19+, capabilities v1.22+, runAsUser v1.23+;
 * baseline sysctls grew in v1.27). Before v1.19 seccomp was read from annotations, which are not checked here.
 */
export function violations(spec: AdmittedPodSpec, level: Level, version = 'latest'): string[] {
  if (level === 'privileged') return [];
  const minor = minorOf(version);
  const out: string[] = [];
  const psc: PodSecurityContext = spec.securityContext ?? {};
  const containers: C[] = (['initContainers', 'containers', 'ephemeralContainers'] as const)
    .flatMap(k => (Array.isArray(spec[k]) ? spec[k] as Array<Container | EphemeralContainer> : []))
    .filter(Boolean).map(c => ({ name: String(c.name ?? ''), sc: c.securityContext ?? {}, ports: c.ports ?? [] }));
  const which = (f: (c: C) => boolean) => containers.filter(f).map(c => c.name);

  // baseline
  const hostNs = (['hostNetwork', 'hostPID', 'hostIPC'] as const).filter(k => spec[k] === true);
  if (hostNs.length) out.push(`host namespaces (${hostNs.map(k => `${k}=true`).join(', ')})`);
  const privileged = which(c => c.sc.privileged === true);
  if (privileged.length) out.push(`privileged (${containersText(privileged)} must not set securityContext.privileged=true)`);
  const extraCaps = new Set<string>();
  const capContainers = which(c => (c.sc.capabilities?.add ?? []).some(x => !baselineCapabilities.has(x) && extraCaps.add(x)));
  if (capContainers.length) out.push(`non-default capabilities (${containersText(capContainers)} must not include ${quoted([...extraCaps])} in securityContext.capabilities.add)`);
  const hostPaths = (spec.volumes ?? []).filter(v => v?.hostPath).map(v => v.name);
  if (hostPaths.length) out.push(`hostPath volumes (${hostPaths.length === 1 ? 'volume' : 'volumes'} ${quoted(hostPaths)})`);
  const hostPorts = containers.flatMap(c => c.ports.filter(p => p?.hostPort).map(p => ({ c: c.name, port: p.hostPort })));
  if (hostPorts.length) {
    const names = [...new Set(hostPorts.map(h => h.c))];
    out.push(`hostPort (${containersText(names)} ${names.length === 1 ? 'uses' : 'use'} ${hostPorts.length === 1 ? 'hostPort' : 'hostPorts'} ${hostPorts.map(h => h.port).join(', ')})`);
  }
  const seLinux = [psc.seLinuxOptions, ...containers.map(c => c.sc.seLinuxOptions)].filter((o): o is SELinuxOptions => Boolean(o));
  if (seLinux.some(o => !seLinuxTypes.has(o.type ?? '') || o.user || o.role)) out.push('seLinuxOptions (forbidden securityContext.seLinuxOptions)');
  const procMount = which(c => c.sc.procMount !== undefined && c.sc.procMount !== 'Default');
  if (procMount.length) out.push(`procMount (${containersText(procMount)} must not set securityContext.procMount to "Unmasked")`);
  const unconfined = which(c => c.sc.seccompProfile?.type === 'Unconfined');
  if (minor >= 19 && (psc.seccompProfile?.type === 'Unconfined' || unconfined.length))
    out.push(`seccompProfile (${psc.seccompProfile?.type === 'Unconfined' ? 'pod' : containersText(unconfined)} must not set securityContext.seccompProfile.type to "Unconfined")`);
  const safe = minor >= 27 ? safeSysctlsSince127 : new Set(safeSysctls);
  const sysctls = (psc.sysctls ?? []).map(s => s?.name).filter(n => !safe.has(n));
  if (sysctls.length) out.push(`forbidden sysctls (${sysctls.join(', ')})`);
  if (level === 'baseline') return out;

  // restricted
  const badVolumes = (spec.volumes ?? []).filter(v => v && !Object.keys(v).some(k => restrictedVolumes.has(k)))
    .map(v => ({ name: v.name, type: Object.keys(v).find(k => k !== 'name') ?? '' }));
  if (badVolumes.length)
    out.push(`restricted volume types (${badVolumes.length === 1 ? 'volume' : 'volumes'} ${quoted(badVolumes.map(v => v.name))} ${badVolumes.length === 1 ? 'uses' : 'use'} restricted volume ${badVolumes.length === 1 ? 'type' : 'types'} ${quoted([...new Set<string>(badVolumes.map(v => String(v.type)))])})`);
  const escalation = which(c => c.sc.allowPrivilegeEscalation !== false);
  if (minor >= 8 && escalation.length) out.push(`allowPrivilegeEscalation != false (${containersText(escalation)} must set securityContext.allowPrivilegeEscalation=false)`);
  const noDrop = which(c => !(c.sc.capabilities?.drop ?? []).includes('ALL'));
  const added = new Set<string>();
  const adders = which(c => (c.sc.capabilities?.add ?? []).some(x => x !== 'NET_BIND_SERVICE' && added.add(x)));
  const capReasons = [
    ...(noDrop.length ? [`${containersText(noDrop)} must set securityContext.capabilities.drop=["ALL"]`] : []),
    ...(adders.length ? [`${containersText(adders)} must not include ${quoted([...added])} in securityContext.capabilities.add`] : []),
  ];
  if (minor >= 22 && capReasons.length) out.push(`unrestricted capabilities (${capReasons.join('; ')})`);
  const podNonRoot = psc.runAsNonRoot === true;
  const rootish = which(c => c.sc.runAsNonRoot === false || (!podNonRoot && c.sc.runAsNonRoot !== true));
  if (psc.runAsNonRoot === false || rootish.length)
    out.push(`runAsNonRoot != true (${psc.runAsNonRoot === false ? 'pod' : !podNonRoot && rootish.length === containers.length ? 'pod or ' + containersText(rootish) : containersText(rootish)} must ${psc.runAsNonRoot === false ? 'not set securityContext.runAsNonRoot=false' : 'set securityContext.runAsNonRoot=true'})`);
  const rootUser = which(c => c.sc.runAsUser === 0);
  if (minor >= 23 && (psc.runAsUser === 0 || rootUser.length))
    out.push(`runAsUser=0 (${psc.runAsUser === 0 ? 'pod' : containersText(rootUser)} must not set runAsUser=0)`);
  const okProfile = (p: SeccompProfile | undefined) => p?.type === 'RuntimeDefault' || p?.type === 'Localhost';
  const noProfile = which(c => !okProfile(c.sc.seccompProfile) && !(c.sc.seccompProfile === undefined && okProfile(psc.seccompProfile)));
  if (minor >= 19 && noProfile.length && psc.seccompProfile?.type !== 'Unconfined')
    out.push(`seccompProfile (${!okProfile(psc.seccompProfile) && noProfile.length === containers.length ? 'pod or ' : ''}${containersText(noProfile)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`);
  return out;
}

type Mode = 'enforce' | 'audit' | 'warn';
const modes: Mode[] = ['enforce', 'audit', 'warn'];

/** the PodSecurityConfiguration of the admission configuration file, as parsed */
interface PodSecurityConfiguration {
  defaults?: Partial<Record<Mode | `${Mode}-version`, string>>;
  exemptions?: { usernames?: string[]; runtimeClasses?: string[]; namespaces?: string[] };
}

interface Policy { level: Level; version: string }

const isLevel = (v: unknown): v is Level => levels.includes(v as Level);
const isVersion = (v: unknown) => v === 'latest' || /^v1\.(0|[1-9]\d*)$/.test(String(v));

function checkConfig(c: PodSecurityConfiguration | undefined): Record<Mode, Policy> {
  const d = c?.defaults ?? {};
  const out = {} as Record<Mode, Policy>;
  for (const m of modes) {
    const level = d[m] ?? 'privileged', version = d[`${m}-version`] ?? 'latest';
    if (!isLevel(level)) throw configError('PodSecurity', `defaults.${m}: Unsupported value: ${JSON.stringify(level)}: supported values: ${levels.map(l => `"${l}"`).join(', ')}`);
    if (!isVersion(version)) throw configError('PodSecurity', `defaults.${m}-version: Invalid value: ${JSON.stringify(version)}: must be "latest" or "v1.<minor>"`);
    out[m] = { level, version };
  }
  for (const k of ['usernames', 'runtimeClasses', 'namespaces'] as const) {
    const list = c?.exemptions?.[k];
    if (list !== undefined && !(Array.isArray(list) && list.every(x => typeof x === 'string' && x)))
      throw configError('PodSecurity', `exemptions.${k} must be a list of non-empty names`);
  }
  return out;
}

/**
 * whether a pod update can change what the policy sees, as the reference decides it: a container's image, the
 * seccomp annotations, or an ephemeral container added (other changes, such as a toleration added, are not checked)
 */
function significantUpdate(pod: ApiObject, old: ApiObject, labelDomain: string): boolean {
  const spec = podSpec(pod), before = podSpec(old);
  const notes = pod.metadata.annotations ?? {}, oldNotes = old.metadata.annotations ?? {};
  const seccompKey = `seccomp.security.alpha.${labelDomain}/pod`;
  if (notes[seccompKey] !== oldNotes[seccompKey]) return true;
  const changed = (c: Container | EphemeralContainer | undefined, o: Container | EphemeralContainer | undefined) => {
    const key = `container.seccomp.security.alpha.${labelDomain}/${c?.name}`;
    return c?.image !== o?.image || notes[key] !== oldNotes[key];
  };
  for (const k of ['containers', 'initContainers'] as const) {
    const now = spec[k] ?? [], then = before[k] ?? [];
    if (now.length !== then.length || now.some((c, i) => changed(c, then[i]))) return true;
  }
  return (spec.ephemeralContainers ?? []).some(c => {
    const o = (before.ephemeralContainers ?? []).find(x => x?.name === c?.name);
    return !o || changed(c, o);
  });
}

/** the pod controllers whose pod template is checked, and where each keeps it (a template may be absent) */
type Template = (o: ApiObject) => AdmittedPodSpec | undefined;
const templateSpec = (t: unknown): AdmittedPodSpec | undefined => (t as { spec?: AdmittedPodSpec } | undefined)?.spec;
const inSpec: Template = o => templateSpec((o as { spec?: { template?: unknown } }).spec?.template);
const podControllers: Array<[group: string, resource: string, template: Template]> = [
  ['', 'podtemplates', o => templateSpec((o as { template?: unknown }).template)], ['', 'replicationcontrollers', inSpec],
  ['apps', 'deployments', inSpec], ['apps', 'replicasets', inSpec], ['apps', 'statefulsets', inSpec], ['apps', 'daemonsets', inSpec],
  ['batch', 'jobs', inSpec], ['batch', 'cronjobs', o => templateSpec((o as { spec?: { jobTemplate?: { spec?: { template?: unknown } } } }).spec?.jobTemplate?.spec?.template)],
];

export default definePlugin({
  name: 'PodSecurity',
  defaultOn: true,
  create: ({ listers, names, config }) => {
    const c = typedConfig<PodSecurityConfiguration>('PodSecurity', config, names,
      { kind: 'PodSecurityConfiguration', group: 'pod-security.admission.config', versions: ['v1', 'v1beta1', 'v1alpha1'] });
    const defaults = checkConfig(c);
    const exempt = {
      usernames: new Set(c?.exemptions?.usernames ?? []), runtimeClasses: new Set(c?.exemptions?.runtimeClasses ?? []),
      namespaces: new Set(c?.exemptions?.namespaces ?? []),
    };
    const prefix = `pod-security.${names.labelDomain}`;
    const label = (key: string) => `${prefix}/${key}`;
    /** a namespace's policy for a mode: its labels, else the configured default; an unreadable enforce label enforces the most */
    const policy = (labels: Record<string, string>, mode: Mode): Policy => {
      const level = labels[label(mode)], version = labels[label(`${mode}-version`)];
      // (an unreadable warn or audit label fails open, as the reference)
      if (level !== undefined && !isLevel(level)) return mode === 'enforce' ? { level: 'restricted', version: 'latest' } : { level: 'privileged', version: 'latest' };
      return { level: level ?? defaults[mode].level, version: version !== undefined && isVersion(version) ? version : defaults[mode].version };
    };
    const shown = (p: Policy) => `"${p.level}:${p.version}"`;
    /** what is wrong with a namespace's labels, as the reference's field errors */
    const labelProblems = (labels: Record<string, string>) => modes.flatMap(m => {
      const level = labels[label(m)], version = labels[label(`${m}-version`)];
      return [
        ...(level !== undefined && !isLevel(level) ? [fieldCause('FieldValueInvalid', `metadata.labels[${label(m)}]`, `Invalid value: ${JSON.stringify(level)}: must be one of ${levels.join(', ')}`)] : []),
        ...(version !== undefined && !isVersion(version) ? [fieldCause('FieldValueInvalid', `metadata.labels[${label(`${m}-version`)}]`, `Invalid value: ${JSON.stringify(version)}: must be "latest" or "v1.x"`)] : []),
      ];
    });
    const exemptRuntimeClass = (spec: AdmittedPodSpec) => !!spec.runtimeClassName && exempt.runtimeClasses.has(spec.runtimeClassName);

    /** a namespace's labels must be readable; raising its enforced level warns of the pods already there that break it */
    async function validateNamespace(a: Readonly<AdmissionAttributes>) {
      const labels = a.object?.metadata.labels ?? {};
      const problems = labelProblems(labels);
      const oldLabels = a.oldObject?.metadata.labels ?? {};
      if (problems.length && (a.operation === 'CREATE' || JSON.stringify(problems) !== JSON.stringify(labelProblems(oldLabels))))
        throw invalid('', 'Namespace', a.name, problems);
      if (a.operation !== 'UPDATE' || exempt.namespaces.has(a.name)) return;
      const now = policy(labels, 'enforce'), before = policy(oldLabels, 'enforce');
      if (now.level === before.level && now.version === before.version) return;
      if (now.level === 'privileged' || (now.version === before.version && levels.indexOf(now.level) <= levels.indexOf(before.level))) return;
      const byWarning = new Map<string, string[]>();
      for (const pod of await listers.list('', 'pods', a.name)) {
        const spec = podSpec(pod);
        if (exemptRuntimeClass(spec)) continue;
        // the reasons alone, without their details, so pods broken the same way share one warning
        const why = violations(spec, now.level, now.version).map(w => w.replace(/ \(.*$/, '')).join(', ');
        if (why) byWarning.set(why, [...(byWarning.get(why) ?? []), pod.metadata.name!]);
      }
      if (!byWarning.size) return;
      a.warn?.(`existing pods in namespace "${a.name}" violate the new PodSecurity enforce level ${shown(now)}`);
      const others = (n: number) => (n === 0 ? '' : ` (and ${n} other ${n === 1 ? 'pod' : 'pods'})`);
      const lines = [...byWarning].map(([why, pods]) => `${[...pods].sort()[0]}${others(pods.length - 1)}: ${why}`).sort();
      for (const line of lines) a.warn?.(line);
    }

    /** a pod, or the template of a pod controller (warned and audited, never refused: the pods it makes are) */
    async function validatePodSpec(a: Readonly<AdmissionAttributes>, spec: AdmittedPodSpec, enforced: boolean) {
      const exemption = a.user && exempt.usernames.has(a.user.username) ? 'user'
        : exempt.namespaces.has(a.namespace) ? 'namespace'
          : exemptRuntimeClass(spec) ? 'runtimeClass' : undefined;
      if (exemption) { a.annotate?.(label('exempt'), exemption); return; }
      const ns = await listers.get('', 'namespaces', '', a.namespace);
      const labels = ns?.metadata.labels ?? {};
      const enforce = policy(labels, 'enforce');
      const broken = (p: Policy) => violations(spec, p.level, p.version).join(', ');
      const audit = policy(labels, 'audit'), warn = policy(labels, 'warn');
      if (enforced) a.annotate?.(label('enforce-policy'), `${enforce.level}:${enforce.version}`);
      const auditWhy = broken(audit);
      if (auditWhy) a.annotate?.(label('audit-violations'), `would violate PodSecurity ${shown(audit)}: ${auditWhy}`);
      const enforceWhy = enforced ? broken(enforce) : '';
      if (enforceWhy) throw refuse(a, `violates PodSecurity ${shown(enforce)}: ${enforceWhy}`);
      const warnWhy = broken(warn);
      if (warnWhy) a.warn?.(`would violate PodSecurity ${shown(warn)}: ${warnWhy}`);
    }

    return {
      name: 'PodSecurity',
      operations: ['CREATE', 'UPDATE'],
      resources: [['', 'pods'], ['', 'namespaces'], ...podControllers.map(([g, r]) => [g, r] as const)],
      async validate(a) {
        if (a.group === '' && a.resource === 'namespaces') { if (a.subresource === '' && a.object) await validateNamespace(a); return; }
        if (a.group === '' && a.resource === 'pods') {
          if (!isWriteOf(a, '', 'pods') && !(a.subresource === 'ephemeralcontainers' && a.object)) return;
          const spec = podSpec(a.object);
          if (a.operation === 'UPDATE' && a.oldObject && !significantUpdate(a.object!, a.oldObject, names.labelDomain)) return;
          return validatePodSpec(a, spec, true);
        }
        const template = a.subresource === '' && a.object ? podControllers.find(([g, r]) => g === a.group && r === a.resource)?.[2](a.object) : undefined;
        if (template) await validatePodSpec(a, template, false);
      },
    };
  },
});
