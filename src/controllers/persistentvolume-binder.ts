// The persistent volume binder: binds each claim to the smallest volume that fits it (or to the one either side
// names), writing the volume's claimRef first and the claim's volumeName second, as the reference does, so a
// crash between the two leaves a volume the next sync completes, never a claim pointing at a volume that does not
// know it. It keeps the phases (volume Available/Bound/Released/Failed, claim Pending/Bound/Lost), leaves claims of
// a WaitForFirstConsumer class to the scheduler, provisions hostPath volumes for the in-tree host-path class when
// --enable-hostpath-provisioner says so, announces claims of a class whose provisioner is external, and
// reclaims volumes whose claim is gone by their policy. Every write carries the resourceVersion it was based on and
// is made again from a fresh read when the server answers 409.
import { randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { posix } from 'node:path';
import {
  bindVolumeToClaim, claimClass, claimNamesClass, defaultClass, findMatchingVolume, hasAnnotation, isVolumeBoundToClaim, volumeAnnotations, volumeMismatch, volumeModeMismatch,
} from '../api/volumes.js';
import { isAlreadyExists, isConflict, isNotFound, serverMessage } from '../client/rest-client.js';
import { keyOf, startQueue } from './common.js';
import type { Controller } from './context.js';
import type { Obj, PersistentVolume, PersistentVolumeClaim, StorageClass } from './types.js';

/** where the host-path provisioner makes its folders */
const hostPathRoot = '/tmp/hostpath_pv';
/** how often every claim and volume is looked at again besides the changes seen (`--pvclaimbinder-sync-period`) */
const resyncMs = 15_000;

interface Versioned<T> { get(name: string): Promise<T>; update(obj: T): Promise<T> }

/**
 * Writes `change` of the cached object with the cached resourceVersion; on a conflict reads the object again and
 * applies `change` to the fresh copy. `change` returns undefined when there is nothing to write.
 */
async function compareAndSwap<T extends Obj>(client: Versioned<T>, cached: T, change: (o: T) => T | undefined): Promise<T> {
  let current = cached;
  for (let attempt = 1; ; attempt++) {
    const next = change(structuredClone(current));
    if (!next) return current;
    try {
      return await client.update(next);
    } catch (e) {
      if (!isConflict(e) || attempt >= 5) throw e;
      current = await client.get(cached.metadata.name!);
      if (current.metadata.uid !== cached.metadata.uid) throw new Error(`${cached.metadata.name} was deleted and created again`);
    }
  }
}

const ignoreNotFound = (e: unknown) => { if (!isNotFound(e)) throw e; return undefined; };
const claimKeyOf = (pv: PersistentVolume) => (pv.spec?.claimRef ? `${pv.spec.claimRef.namespace}/${pv.spec.claimRef.name}` : undefined);
type VolumePhase = 'Available' | 'Bound' | 'Released' | 'Failed';
type ClaimPhase = 'Pending' | 'Bound' | 'Lost';

export const persistentVolumeBinderController: Controller = {
  name: 'persistentvolume-binder',
  component: 'persistentvolume-controller',
  serviceAccount: 'persistent-volume-binder',
  start(ctx) {
    const a = volumeAnnotations(ctx.names);
    const volumes = ctx.informers.informer(ctx.refs.persistentVolumes);
    const claims = ctx.informers.informer(ctx.refs.persistentVolumeClaims);
    const classes = ctx.informers.informer(ctx.refs.storageClasses);
    const pvClient = ctx.client.resource(ctx.refs.persistentVolumes);
    const pvStatus: Versioned<PersistentVolume> = { get: (n) => pvClient.get(n), update: (o) => pvClient.status.update(o) };
    const claimsIn = (namespace: string | undefined) => ctx.client.resource(ctx.refs.persistentVolumeClaims, namespace);
    const claimClient = (c: PersistentVolumeClaim) => claimsIn(c.metadata.namespace);
    const claimStatus = (c: PersistentVolumeClaim): Versioned<PersistentVolumeClaim> => {
      const client = claimClient(c);
      return { get: (n) => client.get(n), update: (o) => client.status.update(o) };
    };
    volumes.addIndex('claim', (pv) => { const k = claimKeyOf(pv); return k ? [k] : []; });

    // ---- phases ----

    const setVolumePhase = (pv: PersistentVolume, phase: VolumePhase, message = '') => compareAndSwap(pvStatus, pv, (o) => {
      if (o.status?.phase === phase) return undefined;
      o.status = { ...o.status, phase };
      if (message) o.status.message = message; else delete o.status.message;
      return o;
    });
    async function setVolumePhaseWithEvent(pv: PersistentVolume, phase: VolumePhase, type: 'Normal' | 'Warning', reason: string, message: string) {
      if (pv.status?.phase === phase) return pv;
      const updated = await setVolumePhase(pv, phase, message);
      ctx.recorder.event(updated, type, reason, message);
      return updated;
    }
    /** the claim's phase, with the volume's access modes and capacity once bound (none before) */
    const setClaimPhase = (claim: PersistentVolumeClaim, phase: ClaimPhase, pv?: PersistentVolume) => compareAndSwap(claimStatus(claim), claim, (o) => {
      const status = { ...o.status, phase };
      if (pv) {
        status.accessModes = pv.spec?.accessModes;
        if (JSON.stringify(o.status?.capacity?.storage) !== JSON.stringify(pv.spec?.capacity?.storage)) status.capacity = pv.spec?.capacity;
      } else if (phase === 'Pending') {
        delete status.accessModes;
        delete status.capacity;
      }
      if (JSON.stringify(status) === JSON.stringify(o.status ?? {})) return undefined;
      o.status = status;
      return o;
    });
    async function setClaimPhaseWithEvent(claim: PersistentVolumeClaim, phase: ClaimPhase, reason: string, message: string) {
      if (claim.status?.phase === phase) return;
      const updated = await setClaimPhase(claim, phase);
      ctx.recorder.event(updated, 'Warning', reason, message);
    }

    // ---- binding ----

    const bindVolume = (pv: PersistentVolume, claim: PersistentVolumeClaim) => compareAndSwap(pvClient, pv, (o) => bindVolumeToClaim(o, claim, a));
    /** the claim's volumeName and bind-completed annotation (bound-by-controller when it named no volume) */
    const bindClaimToVolume = (claim: PersistentVolumeClaim, pv: PersistentVolume) => compareAndSwap(claimClient(claim), claim, (o) => {
      const name = pv.metadata.name!;
      if (o.spec?.volumeName && o.spec.volumeName !== name) throw new Error(`claim ${keyOf(o)} is already bound to volume ${o.spec.volumeName}`);
      const needsName = o.spec?.volumeName !== name;
      const needsCompleted = !hasAnnotation(o.metadata, a.bindCompleted);
      if (!needsName && !needsCompleted) return undefined;
      const annotations = { ...o.metadata.annotations, [a.bindCompleted]: 'yes' };
      if (needsName && !hasAnnotation(o.metadata, a.boundByController)) annotations[a.boundByController] = 'yes';
      o.metadata.annotations = annotations;
      o.spec = { ...o.spec, volumeName: name };
      return o;
    });
    async function bind(pv: PersistentVolume, claim: PersistentVolumeClaim) {
      const boundVolume = await bindVolume(pv, claim);
      await setVolumePhase(boundVolume, 'Bound');
      const boundClaim = await bindClaimToVolume(claim, boundVolume);
      await setClaimPhase(boundClaim, 'Bound', boundVolume);
    }
    /** a volume the controller bound loses its claimRef; one the user pre-bound keeps it, without the uid */
    async function unbindVolume(pv: PersistentVolume) {
      const updated = await compareAndSwap(pvClient, pv, (o) => {
        if (!o.spec?.claimRef) return undefined;
        if (hasAnnotation(o.metadata, a.boundByController)) {
          delete o.spec.claimRef;
          delete o.metadata.annotations![a.boundByController];
        } else {
          if (!o.spec.claimRef.uid) return undefined;
          delete o.spec.claimRef.uid;
        }
        return o;
      });
      await setVolumePhase(updated, 'Available');
    }

    // ---- claims ----

    /**
     * No volume fits: the claim is marked with its class's provisioner; the in-tree host-path one (when turned on)
     * makes a volume here, an external one is waited for. Other in-tree names are plugins this controller lacks.
     */
    async function provision(claim: PersistentVolumeClaim, className: string): Promise<PersistentVolumeClaim> {
      const cls = classes.get(className);
      if (!cls) {
        ctx.recorder.event(claim, 'Warning', 'ProvisioningFailed', `storageclass.${ctx.names.group('storage')} "${className}" not found`);
        return claim;
      }
      const provisioner = cls.provisioner;
      const hostPath = provisioner === `${ctx.names.labelDomain}/host-path` && ctx.settings.hostPathProvisioner;
      if (provisioner.startsWith(`${ctx.names.labelDomain}/`) && !hostPath) {
        ctx.recorder.event(claim, 'Warning', 'ProvisioningFailed', `no volume plugin matched name: ${provisioner}`);
        return claim;
      }
      const updated = await compareAndSwap(claimClient(claim), claim, (o) => {
        const ann = o.metadata.annotations ?? {};
        if (ann[a.storageProvisioner] === provisioner && ann[a.betaStorageProvisioner] === provisioner) return undefined;
        o.metadata.annotations = { ...ann, [a.storageProvisioner]: provisioner, [a.betaStorageProvisioner]: provisioner };
        return o;
      });
      if (hostPath) return provisionHostPath(updated, cls);
      ctx.recorder.event(updated, 'Normal', 'ExternalProvisioning',
        `waiting for a volume to be created, either by external provisioner "${provisioner}" or manually created by system administrator`);
      return updated;
    }

    /** a folder under /tmp/hostpath_pv and its volume (`pvc-<claim uid>`, bound to the claim ahead), as the
     *  reference's test provisioner makes them; a volume already made for the claim is not made again */
    async function provisionHostPath(claim: PersistentVolumeClaim, cls: StorageClass): Promise<PersistentVolumeClaim> {
      const name = `pvc-${claim.metadata.uid}`;
      if (volumes.get(name)) return claim;
      const path = posix.join(hostPathRoot, randomUUID());
      try {
        await mkdir(path, { recursive: true, mode: 0o750 });
        await pvClient.create({
          apiVersion: 'v1', kind: 'PersistentVolume',
          metadata: { name, annotations: { [a.createdBy]: 'hostpath-dynamic-provisioner', [a.boundByController]: 'yes', [a.provisionedBy]: cls.provisioner } },
          spec: {
            capacity: { storage: claim.spec?.resources?.requests?.storage ?? '0' },
            accessModes: claim.spec?.accessModes, volumeMode: claim.spec?.volumeMode ?? 'Filesystem',
            persistentVolumeReclaimPolicy: cls.reclaimPolicy ?? 'Delete', storageClassName: cls.metadata.name,
            ...(cls.mountOptions ? { mountOptions: cls.mountOptions } : {}),
            hostPath: { path, type: '' },
            claimRef: { kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace: claim.metadata.namespace, name: claim.metadata.name, uid: claim.metadata.uid, resourceVersion: claim.metadata.resourceVersion },
          },
        });
      } catch (e) {
        await rm(path, { recursive: true, force: true });
        if (isAlreadyExists(e)) return claim;
        ctx.recorder.event(claim, 'Warning', 'ProvisioningFailed', `Failed to provision volume with StorageClass "${cls.metadata.name}": ${serverMessage(e)}`);
        throw e;
      }
      ctx.recorder.event(claim, 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${name} using ${cls.provisioner}`);
      return claim;
    }

    async function syncUnboundClaim(claim: PersistentVolumeClaim) {
      const volumeName = claim.spec?.volumeName;
      if (!volumeName) {
        const className = claimClass(claim, a);
        const delayBinding = !hasAnnotation(claim.metadata, a.selectedNode) && !!className
          && classes.get(className)?.volumeBindingMode === 'WaitForFirstConsumer';
        const pv = findMatchingVolume(claim, volumes.list(), a, { delayBinding });
        if (pv) return bind(pv, claim);
        // a claim that names no class gets the default one, made default after the claim was (its update syncs it again)
        const fallback = claimNamesClass(claim, a) ? undefined : defaultClass(classes.list(), a);
        if (fallback) {
          await compareAndSwap(claimClient(claim), claim, (o) => {
            if (claimNamesClass(o, a)) return undefined;
            o.spec = { ...o.spec, storageClassName: fallback.metadata.name };
            return o;
          });
          return;
        }
        let current = claim;
        if (delayBinding) ctx.recorder.event(claim, 'Normal', 'WaitForFirstConsumer', 'waiting for first consumer to be created before binding');
        else if (className) current = await provision(claim, className);
        else ctx.recorder.event(claim, 'Normal', 'FailedBinding', 'no persistent volumes available for this claim and no storage class is set');
        await setClaimPhase(current, 'Pending');
        return;
      }
      // the user named the volume
      const pv = volumes.get(volumeName);
      if (!pv) return void (await setClaimPhase(claim, 'Pending'));
      if (!pv.spec?.claimRef) {
        const mismatch = volumeMismatch(pv, claim, a);
        if (!mismatch) return bind(pv, claim);
        ctx.recorder.event(claim, 'Warning', 'VolumeMismatch', mismatch);
        return void (await setClaimPhase(claim, 'Pending'));
      }
      if (isVolumeBoundToClaim(pv, claim)) return bind(pv, claim);
      if (hasAnnotation(claim.metadata, a.boundByController)) {
        throw new Error(`invalid binding of claim ${keyOf(claim)} to volume ${volumeName}: the volume is claimed by ${claimKeyOf(pv)}`);
      }
      ctx.recorder.event(claim, 'Warning', 'FailedBinding', `volume "${volumeName}" already bound to a different claim.`);
      await setClaimPhase(claim, 'Pending');
    }

    async function syncBoundClaim(claim: PersistentVolumeClaim) {
      const volumeName = claim.spec?.volumeName;
      if (!volumeName) return setClaimPhaseWithEvent(claim, 'Lost', 'ClaimLost', 'Bound claim has lost reference to PersistentVolume. Data on the volume is lost!');
      // the cache may not have seen a volume created a moment ago: the server decides
      const pv = volumes.get(volumeName) ?? await pvClient.get(volumeName).catch(ignoreNotFound);
      if (!pv) return setClaimPhaseWithEvent(claim, 'Lost', 'ClaimLost', 'Bound claim has lost its PersistentVolume. Data on the volume is lost!');
      if (!pv.spec?.claimRef || pv.spec.claimRef.uid === claim.metadata.uid) return bind(pv, claim);
      return setClaimPhaseWithEvent(claim, 'Lost', 'ClaimMisbound', 'Two claims are bound to the same volume, this one is bound incorrectly');
    }

    async function syncClaim(key: string) {
      const claim = claims.get(key);
      if (!claim) return;
      if (hasAnnotation(claim.metadata, a.bindCompleted)) await syncBoundClaim(claim);
      else await syncUnboundClaim(claim);
    }

    // ---- volumes ----

    /** a released volume is kept (Retain) or deleted (Delete) through the plugin of its kind */
    async function reclaim(pv: PersistentVolume) {
      const policy = pv.spec?.persistentVolumeReclaimPolicy ?? 'Retain';
      if (policy === 'Retain') return;
      if (policy === 'Recycle') {
        await setVolumePhaseWithEvent(pv, 'Failed', 'Warning', 'VolumeFailedRecycle', 'No recycler plugin found for the volume!');
        return;
      }
      // the claim must still be gone on a fresh read before anything is deleted
      const fresh = await pvClient.get(pv.metadata.name!).catch(ignoreNotFound);
      if (!fresh || fresh.metadata.uid !== pv.metadata.uid || !fresh.spec?.claimRef?.uid) return;
      const claim = await claimsIn(fresh.spec.claimRef.namespace).get(fresh.spec.claimRef.name!).catch(ignoreNotFound);
      if (claim && claim.metadata.uid === fresh.spec.claimRef.uid) return;
      const provisioner = fresh.metadata.annotations?.[a.provisionedBy];
      // an external provisioner deletes the volumes it made
      if (provisioner && !provisioner.startsWith(`${ctx.names.labelDomain}/`)) return;
      const failure = await deleteStorage(fresh);
      if (failure) return void (await setVolumePhaseWithEvent(fresh, 'Failed', 'Warning', 'VolumeFailedDelete', failure));
      await pvClient.delete(fresh.metadata.name!, { preconditions: { uid: fresh.metadata.uid } }).catch(ignoreNotFound);
    }

    /**
     * Deletes what the volume stores, as the reference's plugins do: a hostPath folder only under /tmp (the
     * reference's test-only deleter; the path is normalised first so `..` cannot lead out of /tmp); no other kind
     * of volume this controller knows has a deleter. Returns why it could not, in the reference's words.
     */
    async function deleteStorage(pv: PersistentVolume): Promise<string | undefined> {
      const hostPath = pv.spec?.hostPath?.path;
      if (hostPath === undefined) return `error getting deleter volume plugin for volume "${pv.metadata.name}": no deletable volume plugin matched`;
      if (!/^\/tmp\/.+/.test(posix.normalize(hostPath))) return `host_path deleter only supports /tmp/.+ but received provided ${hostPath}`;
      return rm(posix.normalize(hostPath), { recursive: true, force: true }).then(() => undefined, (e: Error) => e.message);
    }

    async function syncVolume(name: string) {
      const pv = volumes.get(name);
      if (!pv) return;
      const ref = pv.spec?.claimRef;
      // unused, or reserved by the user for a claim the claim's sync will bind
      if (!ref?.uid) return void (await setVolumePhase(pv, 'Available'));
      const phase = pv.status?.phase;
      let claim = claims.get(claimKeyOf(pv)!);
      // a claim missing from the cache may be one created a moment ago: the server decides before a volume is released
      if (!claim && phase !== 'Released' && phase !== 'Failed') claim = await claimsIn(ref.namespace).get(ref.name!).catch(ignoreNotFound);
      if (claim && claim.metadata.uid !== ref.uid) claim = undefined;
      if (!claim) {
        const released = phase === 'Released' || phase === 'Failed' ? pv : await setVolumePhase(pv, 'Released');
        return reclaim(released);
      }
      if (!claim.spec?.volumeName) {
        if (volumeModeMismatch(claim, pv)) {
          ctx.recorder.event(pv, 'Warning', 'VolumeMismatch', 'Cannot bind PersistentVolume to requested PersistentVolumeClaim due to incompatible volumeMode.');
          return;
        }
        // the binding is half done (by this controller or the scheduler): the claim's sync completes it
        claimQueue.add(keyOf(claim));
        return;
      }
      if (claim.spec.volumeName === name) return void (await setVolumePhase(pv, 'Bound'));
      // the claim was bound to another volume
      if (hasAnnotation(pv.metadata, a.provisionedBy) && pv.spec?.persistentVolumeReclaimPolicy === 'Delete') {
        const released = phase === 'Released' || phase === 'Failed' ? pv : await setVolumePhase(pv, 'Released');
        return reclaim(released);
      }
      await unbindVolume(pv);
    }

    const claimQueue = startQueue(ctx, syncClaim);
    const volumeQueue = startQueue(ctx, syncVolume);
    /** claims waiting for a volume may fit one that became Available (or is the one they name), or a class that appeared */
    const retryWaitingClaims = () => {
      for (const c of claims.list()) if (!hasAnnotation(c.metadata, a.bindCompleted)) claimQueue.add(keyOf(c));
    };
    claims.addHandler({
      added: (c) => claimQueue.add(keyOf(c)),
      updated: (_, c) => claimQueue.add(keyOf(c)),
      deleted: (c) => {
        if (c.spec?.volumeName) volumeQueue.add(c.spec.volumeName);
        for (const pv of volumes.byIndex('claim', keyOf(c))) volumeQueue.add(pv.metadata.name!);
      },
    });
    const volumeChanged = (pv: PersistentVolume) => {
      volumeQueue.add(pv.metadata.name!);
      const claimKey = claimKeyOf(pv);
      if (claimKey) claimQueue.add(claimKey);
      if (pv.status?.phase === 'Available') retryWaitingClaims();
    };
    volumes.addHandler({
      added: volumeChanged,
      updated: (old, pv) => { if (old.metadata.resourceVersion !== pv.metadata.resourceVersion) volumeChanged(pv); },
      deleted: (pv) => { const k = claimKeyOf(pv); if (k) claimQueue.add(k); },
    });
    classes.addHandler({ added: retryWaitingClaims, updated: retryWaitingClaims });
    const resync = setInterval(() => {
      for (const c of claims.list()) claimQueue.add(keyOf(c));
      for (const pv of volumes.list()) volumeQueue.add(pv.metadata.name!);
    }, resyncMs);
    resync.unref();
    ctx.signal.addEventListener('abort', () => clearInterval(resync), { once: true });
  },
};
