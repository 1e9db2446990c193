// Security contexts as the reference validates them: user and group ids in range, seccomp profiles, fsGroup change
// policies, proc mounts, and the privilege escalation contradictions. Privileged containers are the server's policy
// (pod-spec.ts privilegedCauses), not checked here.
import type { PodSecurityContext, SeccompProfile, SecurityContext } from '../../api/types/core-v1.js';
import { type Causes, invalid, isSet, notSupported, required } from './fields.js';

const maxId = 2147483647;
const idRange = `must be between 0 and ${maxId}, inclusive`;
const seccompTypes = ['Localhost', 'RuntimeDefault', 'Unconfined'];

function id(at: string, v: unknown): Causes {
  return !isSet(v) || (typeof v === 'number' && v >= 0 && v <= maxId) ? [] : [invalid(at, v, idRange)];
}

function seccomp(at: string, sp: SeccompProfile | undefined): Causes {
  if (!sp) return [];
  const out: Causes = [];
  if (!sp.type) out.push(required(`${at}.type`, 'type is required when seccompProfile is set'));
  else if (!seccompTypes.includes(sp.type)) out.push(notSupported(`${at}.type`, sp.type, seccompTypes));
  if (sp.type === 'Localhost') {
    if (!isSet(sp.localhostProfile)) out.push(required(`${at}.localhostProfile`, 'must be set when seccomp type is Localhost'));
  } else if (isSet(sp.localhostProfile)) out.push(invalid(`${at}.localhostProfile`, sp, 'can only be set when seccomp type is Localhost'));
  return out;
}

export function podSecurityContext(at: string, sc: PodSecurityContext | undefined): Causes {
  if (!sc) return [];
  const out = [...id(`${at}.fsGroup`, sc.fsGroup), ...id(`${at}.runAsUser`, sc.runAsUser), ...id(`${at}.runAsGroup`, sc.runAsGroup)];
  for (const [i, g] of (sc.supplementalGroups ?? []).entries()) out.push(...id(`${at}.supplementalGroups[${i}]`, g));
  if (isSet(sc.fsGroupChangePolicy) && !['Always', 'OnRootMismatch'].includes(sc.fsGroupChangePolicy))
    out.push(notSupported(`${at}.fsGroupChangePolicy`, sc.fsGroupChangePolicy, ['Always', 'OnRootMismatch']));
  out.push(...seccomp(`${at}.seccompProfile`, sc.seccompProfile));
  return out;
}

export function containerSecurityContext(at: string, sc: SecurityContext | undefined): Causes {
  if (!sc) return [];
  const out = [...id(`${at}.runAsUser`, sc.runAsUser), ...id(`${at}.runAsGroup`, sc.runAsGroup)];
  if (isSet(sc.procMount) && !['Default', 'Unmasked'].includes(sc.procMount)) out.push(notSupported(`${at}.procMount`, sc.procMount, ['Default', 'Unmasked']));
  out.push(...seccomp(`${at}.seccompProfile`, sc.seccompProfile));
  if (sc.allowPrivilegeEscalation === false) {
    if (sc.privileged === true) out.push(invalid(at, sc, 'cannot set `allowPrivilegeEscalation` to false and `privileged` to true'));
    for (const cap of sc.capabilities?.add ?? [])
      if (cap === 'CAP_SYS_ADMIN') out.push(invalid(at, sc, 'cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN'));
  }
  return out;
}
