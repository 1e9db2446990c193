// Legacy service-account token tracking (feature gate LegacyServiceAccountTokenTracking, beta and on in 1.27): the
// ConfigMap `kube-apiserver-legacy-service-account-token-tracking` in the system namespace says since when uses are
// tracked (`since: YYYY-MM-DD`, written once), and a Secret whose token authenticates is labelled
// `<labelDomain>/legacy-token-last-used` with the day (UTC), at most once a day, so unused tokens can be found.
import type { Naming } from '../api/naming.js';
import type { ApiObject } from '../api/meta.js';
import type { Backends } from '../registry/backends.js';
import { noAdmission } from '../registry/store.js';
import { lastUsedLabel, utcDay, type LegacyTokenUse } from '../authn/service-account.js';

export const trackingConfigMap = 'kube-apiserver-legacy-service-account-token-tracking';
const write = { dryRun: false };

/** writes the ConfigMap unless it is there (created once, by whichever server comes first) */
export async function ensureTrackingSince(backends: Backends, names: Naming): Promise<void> {
  const configMaps = backends.preferred('', 'configmaps')?.store;
  if (!configMaps) return;
  const found = await configMaps.get(names.systemNamespace, trackingConfigMap).then(() => true, () => false);
  if (found) return;
  await configMaps.create(names.systemNamespace, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: trackingConfigMap, namespace: names.systemNamespace },
    data: { since: utcDay(Date.now()) } }, noAdmission, write).catch(e => { if ((e as { code?: number }).code !== 409) throw e; });
}

/** labels a legacy token's Secret with the day its token was used */
export function legacyTokenUseRecorder(backends: Backends, names: Naming): LegacyTokenUse {
  const secrets = backends.preferred('', 'secrets')?.store;
  const label = lastUsedLabel(names);
  return async (namespace, name, day) => {
    await secrets?.guaranteedUpdate(namespace, name, '', (cur: ApiObject | undefined) => {
      if (!cur) return { metadata: { name } } as ApiObject;   // gone meanwhile: the store answers 404
      if (cur.metadata.labels?.[label] === day) return cur;
      return { ...cur, metadata: { ...cur.metadata, labels: { ...cur.metadata.labels, [label]: day } } };
    }, noAdmission, write);
  };
}
