// The one place vendor names are spelled. Everything that carries the vendor's name (API group
// suffixes, label and annotation prefixes, the protobuf media type, system namespaces) derives
// from the API domain chosen with --api-domain, so the server can also speak the reference's names.

export type ApiDomain = 'cluster.io' | 'k8s.io';
export const apiDomains: readonly ApiDomain[] = ['cluster.io', 'k8s.io'];
export const defaultApiDomain: ApiDomain = 'cluster.io';

export interface Naming {
  readonly domain: ApiDomain;
  /** the vendor word: `cluster` or `kubernetes` */
  readonly vendor: string;
  /** domain used by well-known labels, annotations, finalizers and signer names */
  readonly labelDomain: string;
  /** `<base>.<domain>`, e.g. group('rbac.authorization'); typed so it fits the apiVersion of the generated types */
  group<Base extends string>(base: Base): `${Base}.${string}`;
  /** `<labelDomain>/<name>`, e.g. label('metadata.name') */
  label(name: string): string;
  readonly protobufMediaType: string;
  readonly metaGroup: string;
  readonly systemNamespace: string;
  readonly publicNamespace: string;
  readonly nodeLeaseNamespace: string;
  /** namespaces that exist from the first start */
  readonly initialNamespaces: readonly string[];
  /** the ConfigMap published in every namespace with the cluster's root CA (`kube-root-ca.crt`) */
  readonly rootCAConfigMap: string;
  /** name prefix of the projected service-account token volume pods get (`kube-api-access`) */
  readonly serviceAccountVolumePrefix: string;
  /** prefix of system users and groups is vendor-neutral (`system:`); kept here for completeness */
  readonly systemPrefix: string;
  /** a vendor HTTP header: `X-Kubernetes-<name>` or `X-Cluster-<name>` */
  header(name: string): string;
  /** what every value encrypted at rest begins with (`k8s:enc:` in the reference's domain, as its stores hold it) */
  readonly encryptionPrefix: string;
  /** names of the client-side apply annotation: the domain's own, then the one unmodified kubectl writes in any domain */
  readonly lastAppliedAnnotations: readonly string[];
}

/** what unmodified kubectl writes for client-side apply, whatever the server's domain */
const referenceLastApplied = 'kubectl.kubernetes.io/last-applied-configuration';

const vendors: Record<ApiDomain, { vendor: string; labelDomain: string; nsPrefix: string; shortVendor: string }> = {
  'cluster.io': { vendor: 'cluster', labelDomain: 'cluster.io', nsPrefix: 'cluster', shortVendor: 'cluster' },
  'k8s.io': { vendor: 'kubernetes', labelDomain: 'kubernetes.io', nsPrefix: 'kube', shortVendor: 'k8s' },
};

/**
 * a wire protocol's name in every API domain (`v4.channel.k8s.io`, `v4.channel.cluster.io`): node agents accept
 * either spelling, since unmodified kubectl names the reference's whatever the server's domain
 */
export const inEveryDomain = (base: string): string[] => apiDomains.map(d => `${base}.${d}`);

export function isApiDomain(s: string): s is ApiDomain {
  return (apiDomains as readonly string[]).includes(s);
}

export function naming(domain: ApiDomain = defaultApiDomain): Naming {
  const v = vendors[domain];
  if (!v) throw new Error(`unknown API domain "${domain}": use one of ${apiDomains.join(', ')}`);
  const ns = (s: string) => `${v.nsPrefix}-${s}`;
  return Object.freeze({
    domain,
    vendor: v.vendor,
    labelDomain: v.labelDomain,
    group: <Base extends string>(base: Base) => `${base}.${domain}` as const,
    label: (name: string) => `${v.labelDomain}/${name}`,
    protobufMediaType: `application/vnd.${v.vendor}.protobuf`,
    metaGroup: `meta.${domain}`,
    systemNamespace: ns('system'),
    publicNamespace: ns('public'),
    nodeLeaseNamespace: ns('node-lease'),
    initialNamespaces: ['default', ns('system'), ns('public'), ns('node-lease')],
    rootCAConfigMap: ns('root-ca.crt'),
    serviceAccountVolumePrefix: ns('api-access'),
    systemPrefix: 'system:',
    header: (name: string) => `X-${v.vendor[0].toUpperCase()}${v.vendor.slice(1)}-${name}`,
    encryptionPrefix: `${v.shortVendor}:enc:`,
    lastAppliedAnnotations: [...new Set([`kubectl.${v.labelDomain}/last-applied-configuration`, referenceLastApplied])],
  });
}
