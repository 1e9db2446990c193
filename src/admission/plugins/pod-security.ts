// PodSecurity: the namespace's labels `pod-security.<domain>/enforce|warn` (with `-version`) choose a Pod
// Security Standard level; a new pod breaking the enforced level is refused, one breaking the warned level
// is admitted with a warning. Levels: privileged (anything), baseline, restricted (baseline and more).
import { definePlugin } from '../types.js';
import type { Container, ContainerPort, EphemeralContainer, PodSecurityContext, SeccompProfile, SecurityContext, SELinuxOptions } from '../../api/types/core-v1.js';
import { isWriteOf, podSpec, refuse, type AdmittedPodSpec } from '../util.js';

export type Level = 'privileged' | 'baseline' | 'restricted';
const levels: Level[] = ['privileged', 'baseline', 'restricted'];

const baselineCapabilities = new Set(['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE',
  'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT']);
const safeSysctls = new Set(['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range', 'net.ipv4.ip_local_reserved_ports', 'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes']);
const restrictedVolumes = new Set(['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret']);
const seLinuxTypes = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t']);

const quoted = (xs: string[]) => xs.map(x => JSON.stringify(x)).join(', ');
const containersText = (xs: string[]) => `${xs.length === 1 ? 'container' : 'containers'} ${quoted(xs)}`;

interface C { name: string; sc: SecurityContext; ports: ContainerPort[] }

/** the reasons a pod spec breaks the level, in the reference's wording */
export function violations(spec: AdmittedPodSpec, level: Level): string[] {
  if (level === 'privileged') return [];
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
  if (psc.seccompProfile?.type === 'Unconfined' || unconfined.length)
    out.push(`seccompProfile (${psc.seccompProfile?.type === 'Unconfined' ? 'pod' : containersText(unconfined)} must not set securityContext.seccompProfile.type to "Unconfined")`);
  const sysctls = (psc.sysctls ?? []).map(s => s?.name).filter(n => !safeSysctls.has(n));
  if (sysctls.length) out.push(`forbidden sysctls (${sysctls.join(', ')})`);
  if (level === 'baseline') return out;

  // restricted
  const badVolumes = (spec.volumes ?? []).filter(v => v && !Object.keys(v).some(k => restrictedVolumes.has(k)))
    .map(v => ({ name: v.name, type: Object.keys(v).find(k => k !== 'name') ?? '' }));
  if (badVolumes.length)
    out.push(`restricted volume types (${badVolumes.length === 1 ? 'volume' : 'volumes'} ${quoted(badVolumes.map(v => v.name))} ${badVolumes.length === 1 ? 'uses' : 'use'} restricted volume ${badVolumes.length === 1 ? 'type' : 'types'} ${quoted([...new Set<string>(badVolumes.map(v => String(v.type)))])})`);
  const escalation = which(c => c.sc.allowPrivilegeEscalation !== false);
  if (escalation.length) out.push(`allowPrivilegeEscalation != false (${containersText(escalation)} must set securityContext.allowPrivilegeEscalation=false)`);
  const noDrop = which(c => !(c.sc.capabilities?.drop ?? []).includes('ALL'));
  const added = new Set<string>();
  const adders = which(c => (c.sc.capabilities?.add ?? []).some(x => x !== 'NET_BIND_SERVICE' && added.add(x)));
  const capReasons = [
    ...(noDrop.length ? [`${containersText(noDrop)} must set securityContext.capabilities.drop=["ALL"]`] : []),
    ...(adders.length ? [`${containersText(adders)} must not include ${quoted([...added])} in securityContext.capabilities.add`] : []),
  ];
  if (capReasons.length) out.push(`unrestricted capabilities (${capReasons.join('; ')})`);
  const podNonRoot = psc.runAsNonRoot === true;
  const rootish = which(c => c.sc.runAsNonRoot === false || (!podNonRoot && c.sc.runAsNonRoot !== true));
  if (psc.runAsNonRoot === false || rootish.length)
    out.push(`runAsNonRoot != true (${psc.runAsNonRoot === false ? 'pod' : !podNonRoot && rootish.length === containers.length ? 'pod or ' + containersText(rootish) : containersText(rootish)} must ${psc.runAsNonRoot === false ? 'not set securityContext.runAsNonRoot=false' : 'set securityContext.runAsNonRoot=true'})`);
  const rootUser = which(c => c.sc.runAsUser === 0);
  if (psc.runAsUser === 0 || rootUser.length)
    out.push(`runAsUser=0 (${psc.runAsUser === 0 ? 'pod' : containersText(rootUser)} must not set runAsUser=0)`);
  const okProfile = (p: SeccompProfile | undefined) => p?.type === 'RuntimeDefault' || p?.type === 'Localhost';
  const noProfile = which(c => !okProfile(c.sc.seccompProfile) && !(c.sc.seccompProfile === undefined && okProfile(psc.seccompProfile)));
  if (noProfile.length && psc.seccompProfile?.type !== 'Unconfined')
    out.push(`seccompProfile (${!okProfile(psc.seccompProfile) && noProfile.length === containers.length ? 'pod or ' : ''}${containersText(noProfile)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`);
  return out;
}

export default definePlugin({
  name: 'PodSecurity',
  defaultOn: true,
  create: ({ listers, names }) => {
    const label = (mode: string) => `pod-security.${names.labelDomain}/${mode}`;
    const policy = (labels: Record<string, string>, mode: 'enforce' | 'warn') => {
      const level = labels[label(mode)] as Level | undefined;
      if (!level || !levels.includes(level)) return undefined;
      return { level, version: labels[label(`${mode}-version`)] || 'latest' };
    };
    return {
      name: 'PodSecurity',
      operations: ['CREATE'],
      async validate(a) {
        if (!isWriteOf(a, '', 'pods')) return;
        const ns = await listers.get('', 'namespaces', '', a.namespace);
        const labels = ns?.metadata.labels ?? {};
        const spec = podSpec(a.object);
        const enforce = policy(labels, 'enforce');
        if (enforce) {
          const v = violations(spec, enforce.level);
          if (v.length) throw refuse(a, `violates PodSecurity "${enforce.level}:${enforce.version}": ${v.join(', ')}`);
        }
        const warn = policy(labels, 'warn');
        if (warn) {
          const v = violations(spec, warn.level);
          if (v.length) a.warn?.(`would violate PodSecurity "${warn.level}:${warn.version}": ${v.join(', ')}`);
        }
      },
    };
  },
});
