// The reference's defaults of a pod spec, shared by pods and every kind that carries a pod template: what a client
// reads back after writing a bare spec. Each function fills only fields that are unset, so applying defaults twice
// changes nothing.
import type { Container, LifecycleHandler, PersistentVolumeClaimSpec, PodSpec, PodTemplateSpec, Probe, Volume } from '../../api/types/core-v1.js';
import { fill } from './fill.js';

const defaultFileMode = 0o644;

/** Always for `:latest` or a name with neither tag nor digest, IfNotPresent for anything pinned (and for no image) */
export function pullPolicyFor(image: string): 'Always' | 'IfNotPresent' {
  if (!image) return 'IfNotPresent';
  const [name, digest] = image.split('@');
  const tag = tagOf(name) ?? (digest === undefined ? 'latest' : undefined);
  return tag === 'latest' ? 'Always' : 'IfNotPresent';
}

/** the tag after the last ':' of the last path part (a ':' in the registry host is a port, not a tag) */
function tagOf(ref: string): string | undefined {
  const last = ref.slice(ref.lastIndexOf('/') + 1);
  const i = last.lastIndexOf(':');
  return i < 0 ? undefined : last.slice(i + 1);
}

function defaultHandler(h: LifecycleHandler | Probe | undefined) {
  if (h?.httpGet) fill(h.httpGet, { path: '/', scheme: 'HTTP' });
}

function defaultProbe(p: Probe | undefined) {
  if (!p) return;
  fill(p, { timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
  defaultHandler(p);
}

function defaultContainer(c: Container, hostNetwork: boolean) {
  if (!c || typeof c !== 'object') return;
  if (!c.imagePullPolicy) c.imagePullPolicy = pullPolicyFor(typeof c.image === 'string' ? c.image : '');
  fill(c, { terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' });
  for (const p of c.ports ?? []) {
    if (!p) continue;
    fill(p, { protocol: 'TCP' });
    // on the host's network a container port is also the host port
    if (hostNetwork && !p.hostPort) p.hostPort = p.containerPort;
  }
  for (const e of c.env ?? []) if (e?.valueFrom?.fieldRef) fill(e.valueFrom.fieldRef, { apiVersion: 'v1' });
  defaultProbe(c.livenessProbe);
  defaultProbe(c.readinessProbe);
  defaultProbe(c.startupProbe);
  defaultHandler(c.lifecycle?.postStart);
  defaultHandler(c.lifecycle?.preStop);
}

/** the volume sources of a pod volume, in the reference's order */
export const volumeSources = ['hostPath', 'emptyDir', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'secret', 'nfs', 'iscsi',
  'glusterfs', 'persistentVolumeClaim', 'rbd', 'flexVolume', 'cinder', 'cephfs', 'flocker', 'downwardAPI', 'fc', 'azureFile',
  'configMap', 'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'projected', 'portworxVolume', 'scaleIO',
  'storageos', 'csi', 'ephemeral'] as const satisfies ReadonlyArray<keyof Volume>;

function defaultVolume(v: Volume) {
  if (!v || typeof v !== 'object') return;
  // a volume without a source is an empty directory
  if (!volumeSources.some(s => v[s] !== undefined && v[s] !== null)) v.emptyDir = {};
  for (const s of ['secret', 'configMap', 'downwardAPI', 'projected'] as const) {
    const source = v[s];
    if (source) fill(source, { defaultMode: defaultFileMode });
  }
  for (const src of v.projected?.sources ?? []) if (src?.serviceAccountToken) fill(src.serviceAccountToken, { expirationSeconds: 3600 });
  for (const item of v.downwardAPI?.items ?? []) if (item?.fieldRef) fill(item.fieldRef, { apiVersion: 'v1' });
  for (const src of v.projected?.sources ?? [])
    for (const item of src?.downwardAPI?.items ?? []) if (item?.fieldRef) fill(item.fieldRef, { apiVersion: 'v1' });
  if (v.hostPath) fill(v.hostPath, { type: '' });
  if (v.iscsi) fill(v.iscsi, { iscsiInterface: 'default' });
  if (v.rbd) fill(v.rbd, { pool: 'rbd', user: 'admin', keyring: '/etc/ceph/keyring' });
  if (v.azureDisk) fill(v.azureDisk, { cachingMode: 'ReadWrite', fsType: 'ext4', readOnly: false, kind: 'Shared' });
  if (v.scaleIO) fill(v.scaleIO, { storageMode: 'ThinProvisioned', fsType: 'xfs' });
  if (v.ephemeral?.volumeClaimTemplate?.spec) defaultClaimSpec(v.ephemeral.volumeClaimTemplate.spec);
}

export function defaultClaimSpec(spec: PersistentVolumeClaimSpec | undefined) {
  if (spec && typeof spec === 'object') fill(spec, { volumeMode: 'Filesystem' });
}

const asList = <T>(v: T[] | undefined): T[] => (Array.isArray(v) ? v : []);

/** the defaults of every pod spec, in pods and in templates */
export function defaultPodSpec(spec: PodSpec | undefined) {
  if (!spec || typeof spec !== 'object') return;
  fill(spec, {
    restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', terminationGracePeriodSeconds: 30,
    securityContext: {}, schedulerName: 'default-scheduler',
  });
  // the deprecated serviceAccount field mirrors serviceAccountName
  if (spec.serviceAccountName && !spec.serviceAccount) spec.serviceAccount = spec.serviceAccountName;
  else if (spec.serviceAccount && !spec.serviceAccountName) spec.serviceAccountName = spec.serviceAccount;
  const hostNetwork = spec.hostNetwork === true;
  for (const list of [spec.containers, spec.initContainers, spec.ephemeralContainers])
    for (const c of asList<Container>(list)) defaultContainer(c, hostNetwork);
  for (const v of asList(spec.volumes)) defaultVolume(v);
}

export function defaultTemplate(template: PodTemplateSpec | undefined) {
  if (!template || typeof template !== 'object') return;
  defaultEmbeddedMetadata(template);
  defaultPodSpec(template.spec);
}

/**
 * the metadata of an object embedded in another (a pod or job template, a claim template) as the reference writes
 * it: a struct that is never left out, whose creation time (a time without omitempty) is null while unset
 */
export function defaultEmbeddedMetadata(embedded: { metadata?: unknown }) {
  embedded.metadata ??= {};
  const m = embedded.metadata;
  if (m && typeof m === 'object' && !Array.isArray(m) && (m as { creationTimestamp?: unknown }).creationTimestamp === undefined) {
    (m as { creationTimestamp?: unknown }).creationTimestamp = null;
  }
}
