// A pod's and a container's securityContext as the runtime takes them: user and groups (fsGroup and
// supplemental groups join the process's groups), capabilities, privileged, read-only root filesystem,
// no-new-privileges, the seccomp profile (the runtime's default for every workload with
// --seccomp-default), and the namespaces shared with the host (hostNetwork, hostPID, hostIPC) or among
// the pod's containers (shareProcessNamespace).

import type { AgentPod, Container, SeccompProfile } from './objects.js';

/** TARGET: another container's namespace (targetId), for an ephemeral container aimed at it */
export type NamespaceMode = 'POD' | 'CONTAINER' | 'NODE' | 'TARGET';

export interface Namespaces {
  network: NamespaceMode;
  pid: NamespaceMode;
  ipc: NamespaceMode;
  targetId?: string;
}

export interface Seccomp {
  type: 'RuntimeDefault' | 'Unconfined' | 'Localhost';
  localhostRef?: string;
}

export interface SandboxSecurity {
  namespaces: Namespaces;
  runAsUser?: number;
  runAsGroup?: number;
  supplementalGroups: number[];
  privileged: boolean;
  seccomp: Seccomp;
}

export interface ContainerSecurity extends SandboxSecurity {
  capabilities: { add: string[]; drop: string[] };
  readOnlyRootfs: boolean;
  noNewPrivs: boolean;
  /** false: the runtime's default masked and read-only /proc paths; true: none (procMount Unmasked) */
  unmaskedProc: boolean;
}

export function namespaces(pod: AgentPod): Namespaces {
  return {
    network: pod.spec.hostNetwork ? 'NODE' : 'POD',
    pid: pod.spec.hostPID ? 'NODE' : pod.spec.shareProcessNamespace ? 'POD' : 'CONTAINER',
    ipc: pod.spec.hostIPC ? 'NODE' : 'POD',
  };
}

/** the profile a workload gets: its own, the pod's, then --seccomp-default (RuntimeDefault) or Unconfined */
function seccomp(profile: SeccompProfile | undefined, podProfile: SeccompProfile | undefined, seccompDefault: boolean, privileged: boolean): Seccomp {
  const p = profile ?? podProfile;
  if (privileged && !p) return { type: 'Unconfined' };
  if (p?.type === 'Localhost') return { type: 'Localhost', localhostRef: p.localhostProfile ?? '' };
  if (p?.type === 'RuntimeDefault' || p?.type === 'Unconfined') return { type: p.type };
  return { type: seccompDefault ? 'RuntimeDefault' : 'Unconfined' };
}

function groups(pod: AgentPod): number[] {
  const sc = pod.spec.securityContext ?? {};
  return [...new Set([...(sc.fsGroup !== undefined ? [sc.fsGroup] : []), ...(sc.supplementalGroups ?? [])])];
}

export function sandboxSecurity(pod: AgentPod, seccompDefault: boolean): SandboxSecurity {
  const sc = pod.spec.securityContext ?? {};
  return {
    namespaces: namespaces(pod),
    runAsUser: sc.runAsUser,
    runAsGroup: sc.runAsGroup,
    supplementalGroups: groups(pod),
    // the sandbox of a pod with a privileged container is privileged too
    privileged: allContainersOf(pod).some((c) => !!c.securityContext?.privileged),
    seccomp: seccomp(undefined, sc.seccompProfile, seccompDefault, false),
  };
}

export function containerSecurity(pod: AgentPod, c: Container, seccompDefault: boolean): ContainerSecurity {
  const psc = pod.spec.securityContext ?? {};
  const sc = c.securityContext ?? {};
  const privileged = !!sc.privileged;
  return {
    namespaces: namespaces(pod),
    runAsUser: sc.runAsUser ?? psc.runAsUser,
    runAsGroup: sc.runAsGroup ?? psc.runAsGroup,
    supplementalGroups: groups(pod),
    privileged,
    seccomp: seccomp(sc.seccompProfile, psc.seccompProfile, seccompDefault, privileged),
    capabilities: { add: (sc.capabilities?.add ?? []).map(capabilityName), drop: (sc.capabilities?.drop ?? []).map(capabilityName) },
    readOnlyRootfs: !!sc.readOnlyRootFilesystem,
    noNewPrivs: sc.allowPrivilegeEscalation === false,
    unmaskedProc: sc.procMount === 'Unmasked',
  };
}

/** The runAsNonRoot check against the user the container will run as; a message when it fails. */
export function nonRootViolation(pod: AgentPod, c: Container, imageUser: { uid?: number; username?: string }): string | undefined {
  const runAsNonRoot = c.securityContext?.runAsNonRoot ?? pod.spec.securityContext?.runAsNonRoot;
  if (!runAsNonRoot) return undefined;
  const uid = c.securityContext?.runAsUser ?? pod.spec.securityContext?.runAsUser;
  if (uid !== undefined) return uid === 0 ? `container's runAsUser breaks non-root policy (pod: "${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})", container: ${c.name})` : undefined;
  if (imageUser.uid === undefined && imageUser.username) return `container has runAsNonRoot and image has non-numeric user (${imageUser.username}), cannot verify user is non-root (pod: "${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})", container: ${c.name})`;
  if (!imageUser.uid) return `container has runAsNonRoot and image will run as root (pod: "${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})", container: ${c.name})`;
  return undefined;
}

/** the runtime takes capability names without the CAP_ prefix (it adds it); pods may carry either */
const capabilityName = (n: string) => n.toUpperCase().replace(/^CAP_/, '');

const allContainersOf = (pod: AgentPod) => [...(pod.spec.initContainers ?? []), ...pod.spec.containers];
