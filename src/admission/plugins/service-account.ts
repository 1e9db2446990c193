// ServiceAccount: every new pod runs as a service account (`default` unless named), which must exist; its
// image pull secrets are copied in, and unless automounting is off the pod mounts a projected volume with a
// bound token, the cluster's root CA and its namespace in every container. An account annotated
// enforce-mountable-secrets limits its pods to the secrets (and pull secrets) it lists.
import { randomInt } from 'node:crypto';
import { definePlugin } from '../types.js';
import type { ApiObject } from '../../api/meta.js';
import type { ServiceAccount, Volume, VolumeMount } from '../../api/types/core-v1.js';
import { isWriteOf, podSpec, refuse, type AdmittedPodSpec } from '../util.js';

const suffixAlphabet = 'bcdfghjklmnpqrstvwxz2456789';
const randomSuffix = () => Array.from({ length: 5 }, () => suffixAlphabet[randomInt(suffixAlphabet.length)]).join('');

/** the token lifetime of the reference's projected volume: just over an hour, so expiry can be told apart from the default */
export const tokenExpirationSeconds = 3607;

/** the first secret the pod uses that its account does not list, in the reference's words, or undefined */
function unmountableSecret(spec: AdmittedPodSpec, sa: ServiceAccount): string | undefined {
  const listed = new Set((sa.secrets ?? []).map(s => s?.name));
  const notListed = `is not allowed because service account ${sa.metadata?.name} does not reference that secret`;
  for (const v of spec.volumes ?? []) {
    const name = v?.secret?.secretName;
    if (v?.secret && !listed.has(name)) return `volume with secret.secretName="${name ?? ''}" ${notListed}`;
  }
  for (const [what, list] of [['init container', spec.initContainers], ['container', spec.containers]] as const) {
    for (const c of list ?? []) {
      for (const e of c?.env ?? []) {
        const ref = e?.valueFrom?.secretKeyRef;
        if (ref && !listed.has(ref.name)) return `${what} ${c.name} with envVar ${e.name} referencing secret.secretName="${ref.name ?? ''}" ${notListed}`;
      }
      for (const e of c?.envFrom ?? []) {
        const ref = e?.secretRef;
        if (ref && !listed.has(ref.name)) return `${what} ${c.name} with envFrom referencing secret.secretName="${ref.name ?? ''}" ${notListed}`;
      }
    }
  }
  const pull = new Set((sa.imagePullSecrets ?? []).map(s => s?.name));
  const i = (spec.imagePullSecrets ?? []).findIndex(s => !pull.has(s?.name));
  if (i >= 0) return `imagePullSecrets[${i}].name="${spec.imagePullSecrets![i]?.name ?? ''}" is not allowed because service account ${sa.metadata?.name} does not reference that imagePullSecret`;
  return undefined;
}

export default definePlugin({
  name: 'ServiceAccount',
  defaultOn: true,
  create: ({ listers, names }) => {
    const mountPath = `/var/run/secrets/${names.labelDomain}/serviceaccount`;
    const volumePrefix = `${names.serviceAccountVolumePrefix}-`;
    const isMirror = (o: ApiObject | undefined) => o?.metadata?.annotations?.[names.label('config.mirror')] !== undefined;

    function mountToken(spec: AdmittedPodSpec) {
      const volumes: Volume[] = Array.isArray(spec.volumes) ? spec.volumes : [];
      const existing = volumes.find(v => typeof v?.name === 'string' && v.name.startsWith(volumePrefix));
      const volumeName: string = existing?.name ?? volumePrefix + randomSuffix();
      let needed = false;
      for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
        if (!c) continue;
        const mounts: VolumeMount[] = Array.isArray(c.volumeMounts) ? c.volumeMounts : [];
        if (mounts.some(m => m?.mountPath === mountPath)) continue;
        c.volumeMounts = [...mounts, { name: volumeName, readOnly: true, mountPath }];
        needed = true;
      }
      if (existing || !needed) return;
      spec.volumes = [...volumes, {
        name: volumeName,
        projected: {
          defaultMode: 0o644,
          sources: [
            { serviceAccountToken: { expirationSeconds: tokenExpirationSeconds, path: 'token' } },
            { configMap: { name: names.rootCAConfigMap, items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
            { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
          ],
        },
      }];
    }

    /** the account limits its pods to the secrets it lists (`<domain>/enforce-mountable-secrets`, a true boolean) */
    const enforcesMountableSecrets = (sa: ServiceAccount) =>
      ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(sa.metadata?.annotations?.[names.label('enforce-mountable-secrets')] ?? '');

    /**
     * The account a pod runs as. The server creates each namespace's `default` account as the namespace appears
     * (controllers/namespace-defaults.ts); a pod created in the moment before that uses the account as it will be.
     */
    const lookup = async (namespace: string, name: string): Promise<ServiceAccount | undefined> =>
      (await listers.get('', 'serviceaccounts', namespace, name) as ServiceAccount | undefined) ?? (name === 'default' ? { metadata: { name, namespace } } : undefined);

    return {
      name: 'ServiceAccount',
      operations: ['CREATE'],
      resources: [['', 'pods']],
      async admit(a) {
        if (!isWriteOf(a, '', 'pods') || isMirror(a.object)) return;
        const spec = podSpec(a.object);
        if (!spec.serviceAccountName) spec.serviceAccountName = 'default';
        spec.serviceAccount = spec.serviceAccountName;
        const sa = await lookup(a.namespace, spec.serviceAccountName);
        if (!sa) throw refuse(a, `error looking up service account ${a.namespace}/${spec.serviceAccountName}: serviceaccount "${spec.serviceAccountName}" not found`);
        const automount = spec.automountServiceAccountToken ?? sa.automountServiceAccountToken ?? true;
        if (automount) mountToken(spec);
        if (!spec.imagePullSecrets?.length && sa.imagePullSecrets?.length)
          spec.imagePullSecrets = sa.imagePullSecrets.map(s => ({ name: s.name }));
      },
      async validate(a) {
        if (!isWriteOf(a, '', 'pods')) return;
        const spec = podSpec(a.object);
        if (isMirror(a.object)) {
          if (spec.serviceAccountName) throw refuse(a, 'a mirror pod may not reference service accounts');
          if ((spec.volumes ?? []).some(v => v?.secret || v?.projected))
            throw refuse(a, 'a mirror pod may not reference secrets or projected volumes');
          return;
        }
        if (!spec.serviceAccountName) throw refuse(a, 'service account was not set');
        const sa = await lookup(a.namespace, spec.serviceAccountName);
        if (!sa) throw refuse(a, `error looking up service account ${a.namespace}/${spec.serviceAccountName}: serviceaccount "${spec.serviceAccountName}" not found`);
        const why = enforcesMountableSecrets(sa) ? unmountableSecret(spec, sa) : undefined;
        if (why) throw refuse(a, why);
      },
    };
  },
});
