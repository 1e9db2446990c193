// Persistent volumes and the claims bound to them: which volume fits a claim, and the annotations and states of a
// binding, with the reference's rules. The persistentvolume-binder controller and the scheduler's VolumeBinding
// plugin both decide with these functions, so a claim the scheduler places is one the controller would bind.
import type { Naming } from './naming.js';
import { anyTermMatches, type SelectableNode } from './node-selectors.js';
import { quantityValue } from './quantity.js';
import { labelSelectorFromObject, matchLabels } from './selectors.js';
import type { ObjectMeta } from './types/meta-v1.js';
import type { PersistentVolume as PV, PersistentVolumeClaim as PVC, Volume } from './types/core-v1.js';
import type { StorageClass as Class } from './types/storage-v1.js';

export type PersistentVolume = PV & { metadata: ObjectMeta };
export type PersistentVolumeClaim = PVC & { metadata: ObjectMeta };
export type StorageClass = Class & { metadata: ObjectMeta };

/** the annotation names of binding and provisioning, in the API domain's label domain */
export function volumeAnnotations(names: Naming) {
  const d = names.labelDomain;
  return {
    /** on a claim: the controller has finished binding it (set once, never removed) */
    bindCompleted: `pv.${d}/bind-completed`,
    /** on a claim or a volume: the controller (not the user) set the other half of the binding */
    boundByController: `pv.${d}/bound-by-controller`,
    /** on a volume: the provisioner that made it */
    provisionedBy: `pv.${d}/provisioned-by`,
    /** on a volume: the in-tree plugin that made it (`hostpath-dynamic-provisioner`) */
    createdBy: `${d}/createdby`,
    /** on a claim: the node its pod was scheduled to, for a provisioner of a WaitForFirstConsumer class */
    selectedNode: `volume.${d}/selected-node`,
    /** on a claim: the provisioner expected to make its volume */
    storageProvisioner: `volume.${d}/storage-provisioner`,
    betaStorageProvisioner: `volume.beta.${d}/storage-provisioner`,
    /** the class of claims and volumes written before storageClassName existed */
    betaStorageClass: `volume.beta.${d}/storage-class`,
    defaultClass: [`storageclass.${d}/is-default-class`, `storageclass.beta.${d}/is-default-class`],
    /** the provisioner name of classes whose volumes are made by hand (local volumes) */
    noProvisioner: `${d}/no-provisioner`,
  };
}
export type VolumeAnnotations = ReturnType<typeof volumeAnnotations>;

const has = (meta: ObjectMeta, key: string) => !!meta.annotations && Object.prototype.hasOwnProperty.call(meta.annotations, key);
export const hasAnnotation = has;

/** the class a claim asks for ('' for none): the beta annotation wins over the field, as in the reference */
export const claimClass = (claim: PersistentVolumeClaim, a: VolumeAnnotations) =>
  (has(claim.metadata, a.betaStorageClass) ? claim.metadata.annotations![a.betaStorageClass] : claim.spec?.storageClassName) ?? '';
export const volumeClass = (pv: PersistentVolume, a: VolumeAnnotations) =>
  (has(pv.metadata, a.betaStorageClass) ? pv.metadata.annotations![a.betaStorageClass] : pv.spec?.storageClassName) ?? '';

/** the StorageClass marked default; of several, the newest (then the first by name), as the reference picks */
export function defaultClass(classes: readonly StorageClass[], a: VolumeAnnotations): StorageClass | undefined {
  const created = (c: StorageClass) => Date.parse(c.metadata.creationTimestamp ?? '') || 0;
  return classes.filter((c) => a.defaultClass.some((k) => c.metadata.annotations?.[k] === 'true'))
    .sort((x, y) => created(y) - created(x) || (x.metadata.name ?? '').localeCompare(y.metadata.name ?? ''))[0];
}

/** the claim names a class: in the field (even '') or the beta annotation */
export const claimNamesClass = (claim: PersistentVolumeClaim, a: VolumeAnnotations) =>
  (claim.spec?.storageClassName !== undefined && claim.spec.storageClassName !== null) || has(claim.metadata, a.betaStorageClass);

const storage = (resources: Record<string, unknown> | undefined) => quantityValue(resources?.storage) ?? 0;
export const requestedStorage = (claim: PersistentVolumeClaim) => storage(claim.spec?.resources?.requests);
export const volumeStorage = (pv: PersistentVolume) => storage(pv.spec?.capacity);

/** the volume's claimRef names the claim (and its uid, once bound) */
export function isVolumeBoundToClaim(pv: PersistentVolume, claim: PersistentVolumeClaim): boolean {
  const ref = pv.spec?.claimRef;
  return !!ref && ref.name === claim.metadata.name && ref.namespace === claim.metadata.namespace
    && (!ref.uid || ref.uid === claim.metadata.uid);
}

/** the claim names a volume and the controller has completed the binding */
export const isClaimFullyBound = (claim: PersistentVolumeClaim, a: VolumeAnnotations) =>
  !!claim.spec?.volumeName && has(claim.metadata, a.bindCompleted);

/** a volume with required node affinity can be used only on nodes one of its terms selects */
export function volumeFitsNode(pv: PersistentVolume, node: SelectableNode): boolean {
  const required = pv.spec?.nodeAffinity?.required;
  if (!required) return true;
  return !!required.nodeSelectorTerms?.length && anyTermMatches(required.nodeSelectorTerms, node);
}

const mode = (m: string | undefined) => m || 'Filesystem';
export const volumeModeMismatch = (claim: PersistentVolumeClaim, pv: PersistentVolume) => mode(claim.spec?.volumeMode) !== mode(pv.spec?.volumeMode);

/** the volume offers every access mode the claim asks for */
export const accessModesFit = (claim: PersistentVolumeClaim, pv: PersistentVolume) =>
  (claim.spec?.accessModes ?? []).every((m) => (pv.spec?.accessModes ?? []).includes(m));

/** why a volume the claim names (spec.volumeName) cannot be bound to it, in the reference's words; undefined when it can */
export function volumeMismatch(pv: PersistentVolume, claim: PersistentVolumeClaim, a: VolumeAnnotations): string | undefined {
  if (volumeStorage(pv) < requestedStorage(claim)) return 'requested PV is too small';
  if (volumeClass(pv, a) !== claimClass(claim, a)) return 'storageClassName does not match';
  if (volumeModeMismatch(claim, pv)) return 'incompatible volumeMode';
  if (!accessModesFit(claim, pv)) return 'incompatible accessMode';
  return undefined;
}

export interface MatchOptions {
  /** the node the claim's pod goes to: volumes must fit it; without one, a delayed claim matches only a volume pre-bound to it */
  node?: SelectableNode;
  /** the claim's class waits for its first consumer */
  delayBinding?: boolean;
  /** volumes already chosen for other claims of the same pod, or assumed for other pods */
  excluded?: ReadonlySet<string>;
}

/**
 * The volume to bind a claim to: one pre-bound to the claim (spec.claimRef) if it fits, otherwise the smallest
 * Available volume of the claim's class, access modes, volume mode, selector and (given a node) node affinity
 * whose capacity covers the request. Among volumes of different access-mode sets, those offering the fewest modes
 * are tried first, as the reference's index does. Undefined when none fits.
 */
export function findMatchingVolume(claim: PersistentVolumeClaim, volumes: readonly PersistentVolume[], a: VolumeAnnotations, o: MatchOptions = {}): PersistentVolume | undefined {
  const requested = requestedStorage(claim);
  const wantedClass = claimClass(claim, a);
  let selector: ReturnType<typeof labelSelectorFromObject> | undefined;
  try {
    selector = claim.spec?.selector ? labelSelectorFromObject(claim.spec.selector) : undefined;
  } catch {
    return undefined;
  }
  const candidates = volumes.filter((pv) => accessModesFit(claim, pv) && !volumeModeMismatch(claim, pv) && !o.excluded?.has(pv.metadata.name!));
  const groups = new Map<number, PersistentVolume[]>();
  for (const pv of candidates) {
    const n = new Set(pv.spec?.accessModes ?? []).size;
    groups.set(n, [...(groups.get(n) ?? []), pv]);
  }
  for (const n of [...groups.keys()].sort((x, y) => x - y)) {
    let best: PersistentVolume | undefined;
    for (const pv of groups.get(n)!) {
      if (pv.metadata.deletionTimestamp) continue;
      const size = volumeStorage(pv);
      const fitsNode = !o.node || volumeFitsNode(pv, o.node);
      if (isVolumeBoundToClaim(pv, claim)) {
        // a volume pre-bound to this claim is taken whatever its size, once it is big enough
        if (size >= requested && volumeClass(pv, a) === wantedClass && fitsNode) return pv;
        continue;
      }
      if (!o.node && o.delayBinding) continue;
      if (pv.spec?.claimRef) continue;
      if (selector && !matchLabels(selector, pv.metadata.labels)) continue;
      // volumes not yet Available are left alone: binding one now would likely meet a conflict
      if (pv.status?.phase !== 'Available') continue;
      if (volumeClass(pv, a) !== wantedClass || !fitsNode) continue;
      if (size >= requested && (!best || size < volumeStorage(best))) best = pv;
    }
    if (best) return best;
  }
  return undefined;
}

/** the claim a generic ephemeral volume of a pod uses */
export const ephemeralClaimName = (podName: string, volume: Pick<Volume, 'name'>) => `${podName}-${volume.name}`;

/** why an ephemeral volume's claim is not the pod's own (it must be its controller), in the reference's words */
export function ephemeralClaimNotForPod(pod: { metadata: ObjectMeta }, claim: PersistentVolumeClaim): string | undefined {
  const owner = claim.metadata.ownerReferences?.find((r) => r.controller);
  if (owner?.uid === pod.metadata.uid) return undefined;
  return `PVC ${claim.metadata.namespace}/${claim.metadata.name} was not created for pod ${pod.metadata.namespace}/${pod.metadata.name} (pod is not owner)`;
}

/**
 * The volume with its claimRef set to the claim (and bound-by-controller when the claimRef did not name the claim
 * before), changed in place; undefined when it already is. Throws when the volume is bound to another claim.
 * The binder and the scheduler write volumes this way.
 */
export function bindVolumeToClaim(pv: PersistentVolume, claim: PersistentVolumeClaim, a: VolumeAnnotations): PersistentVolume | undefined {
  const ref = pv.spec?.claimRef;
  const named = isVolumeBoundToClaim(pv, claim);
  if (ref && !named) throw new Error(`volume ${pv.metadata.name} is already bound to claim ${ref.namespace}/${ref.name}`);
  const needsRef = !ref || ref.uid !== claim.metadata.uid;
  const needsAnnotation = !named && !has(pv.metadata, a.boundByController);
  if (!needsRef && !needsAnnotation) return undefined;
  const { namespace, name, uid, resourceVersion } = claim.metadata;
  pv.spec = { ...pv.spec, claimRef: { kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace, name, uid, resourceVersion } };
  if (needsAnnotation) pv.metadata.annotations = { ...pv.metadata.annotations, [a.boundByController]: 'yes' };
  return pv;
}
