// Node agents as the server knows them: their identity (user system:node:<name> in group system:nodes), and the
// objects a pod refers to, which an agent may read for the pods bound to it and may not name in pods it creates.
import type { ApiObject } from './meta.js';
import type { UserInfo } from './auth.js';

export const nodesGroup = 'system:nodes';
export const nodeUserPrefix = 'system:node:';

/** the node a user is the agent of ('' for a node user with no name), undefined for other users */
export const nodeNameOf = (user: UserInfo | undefined): string | undefined =>
  user && user.username.startsWith(nodeUserPrefix) && user.groups.includes(nodesGroup) ? user.username.slice(nodeUserPrefix.length) : undefined;

type Pod = ApiObject & { spec?: any };

/** names of the objects of a kind a pod refers to */
export function podReferences(pod: Pod, kind: 'secrets' | 'configmaps' | 'persistentvolumeclaims' | 'serviceaccounts'): string[] {
  const s = pod.spec ?? {};
  const out: string[] = [];
  const containers = [...(s.initContainers ?? []), ...(s.containers ?? []), ...(s.ephemeralContainers ?? [])];
  if (kind === 'serviceaccounts') return [s.serviceAccountName || s.serviceAccount || 'default'];
  if (kind === 'persistentvolumeclaims') {
    for (const v of s.volumes ?? []) {
      if (v.persistentVolumeClaim?.claimName) out.push(v.persistentVolumeClaim.claimName);
      if (v.ephemeral) out.push(`${pod.metadata.name}-${v.name}`);
    }
    return out;
  }
  const secret = kind === 'secrets';
  if (secret) for (const p of s.imagePullSecrets ?? []) if (p?.name) out.push(p.name);
  for (const c of containers) {
    for (const e of c.envFrom ?? []) { const r = secret ? e.secretRef : e.configMapRef; if (r?.name) out.push(r.name); }
    for (const e of c.env ?? []) { const r = secret ? e.valueFrom?.secretKeyRef : e.valueFrom?.configMapKeyRef; if (r?.name) out.push(r.name); }
  }
  for (const v of s.volumes ?? []) {
    if (secret) {
      if (v.secret?.secretName) out.push(v.secret.secretName);
      for (const src of [v.azureFile, v.cephfs, v.cinder, v.flexVolume, v.iscsi, v.rbd, v.scaleIO, v.storageos, v.csi])
        { const n = src?.secretRef?.name ?? src?.nodePublishSecretRef?.name ?? src?.secretName; if (n) out.push(n); }
    } else if (v.configMap?.name) out.push(v.configMap.name);
    for (const p of v.projected?.sources ?? []) { const r = secret ? p.secret : p.configMap; if (r?.name) out.push(r.name); }
  }
  return out;
}

