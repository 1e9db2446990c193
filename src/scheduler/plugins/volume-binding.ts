// VolumeBinding: a pod's claims decide where it may go. PreFilter refuses a pod whose claims are missing or whose
// claims of an Immediate class are not bound yet (the binder binds those). Filter keeps the nodes every bound volume's
// node affinity allows and, for claims of a WaitForFirstConsumer class, finds an Available volume fitting the node
// (the smallest, as the binder chooses) or a class that can provision there. Reserve holds the chosen volumes so
// other pods do not take them; PreBind writes the volumes' claimRef (the binder completes the claims) or, for
// provisioning, the claim's selected node, and waits until every claim is bound.
import {
  bindVolumeToClaim, claimClass, ephemeralClaimName, ephemeralClaimNotForPod, findMatchingVolume, hasAnnotation,
  isClaimFullyBound, isVolumeBoundToClaim, requestedStorage, volumeAnnotations, volumeFitsNode,
} from '../../api/volumes.js';
import { anyTermMatches } from '../matching.js';
import { errorStatus, readState, skip, unresolvable, type PluginSpec, type Status, type VolumeListers } from '../framework.js';
import type { PersistentVolume, PersistentVolumeClaim, Pod } from '../types.js';

export const reasonUnboundImmediate = 'pod has unbound immediate PersistentVolumeClaims';
export const reasonNodeConflict = 'node(s) had volume node affinity conflict';
export const reasonBindConflict = "node(s) didn't find available persistent volumes to bind";
export const reasonMissingVolume = 'node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)';
const stateKey = 'PreFilter/VolumeBinding';

/** what one node would need: volumes to bind to claims, claims to provision there */
interface Decision { bindings: { pv: PersistentVolume; claim: PersistentVolumeClaim }[]; provisions: PersistentVolumeClaim[] }

class State {
  constructor(readonly bound: PersistentVolumeClaim[], readonly delayed: PersistentVolumeClaim[], readonly byNode = new Map<string, Decision>()) {}
  clone() { return new State(this.bound, this.delayed, new Map(this.byNode)); }
}

/** the claims of the pod's volumes, or why the pod cannot use them (in the reference's words) */
function podClaims(pod: Pod, volumes: VolumeListers): { claims: PersistentVolumeClaim[]; error?: string } {
  const claims: PersistentVolumeClaim[] = [];
  for (const v of pod.spec.volumes ?? []) {
    const ephemeral = !!v.ephemeral;
    const name = v.persistentVolumeClaim?.claimName ?? (ephemeral ? ephemeralClaimName(pod.metadata.name!, v) : undefined);
    if (name === undefined) continue;
    const claim = volumes.claim(pod.metadata.namespace!, name);
    if (!claim) {
      return {
        claims, error: ephemeral ? `waiting for ephemeral volume controller to create the persistentvolumeclaim "${name}"` : `persistentvolumeclaim "${name}" not found`,
      };
    }
    if (claim.status?.phase === 'Lost') return { claims, error: `persistentvolumeclaim "${name}" bound to non-existent persistentvolume "${claim.spec?.volumeName ?? ''}"` };
    if (claim.metadata.deletionTimestamp) return { claims, error: `persistentvolumeclaim "${name}" is being deleted` };
    if (ephemeral) {
      const notOwned = ephemeralClaimNotForPod(pod, claim);
      if (notOwned) return { claims, error: notOwned };
    }
    claims.push(claim);
  }
  return { claims };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const volumeBinding: PluginSpec = {
  name: 'VolumeBinding',
  create: (rawArgs, handle) => {
    const bindTimeoutMs = ((rawArgs as { bindTimeoutSeconds?: number }).bindTimeoutSeconds ?? 600) * 1000;
    if (!(bindTimeoutMs >= 0)) throw new Error('bindTimeoutSeconds must not be negative');
    const a = volumeAnnotations(handle.names);
    const volumes = handle.volumes;
    /** volumes reserved for pods between Reserve and the end of their binding: volume name -> pod key */
    const assumed = new Map<string, string>();

    /** the claims that wait for their first consumer, or undefined with the pod's unbound Immediate claims */
    function classify(claims: PersistentVolumeClaim[]) {
      const bound: PersistentVolumeClaim[] = [];
      const delayed: PersistentVolumeClaim[] = [];
      let immediate = 0;
      for (const c of claims) {
        if (isClaimFullyBound(c, a)) { bound.push(c); continue; }
        const cls = claimClass(c, a);
        const waits = !!cls && volumes.storageClass(cls)?.volumeBindingMode === 'WaitForFirstConsumer';
        // a claim naming its volume is bound by the binder, as an Immediate one
        if (waits && !c.spec?.volumeName) delayed.push(c);
        else immediate++;
      }
      return { bound, delayed, immediate };
    }

    /** whether a claim to provision can be provisioned on the node */
    function canProvision(claim: PersistentVolumeClaim, node: Parameters<typeof volumeFitsNode>[1]): boolean | Status {
      const selected = claim.metadata.annotations?.[a.selectedNode];
      if (selected !== undefined) return selected === node.metadata.name;
      const className = claimClass(claim, a);
      const cls = volumes.storageClass(className);
      if (!cls) return errorStatus(`storageclass.${handle.names.group('storage')} "${className}" not found`);
      if (cls.provisioner === a.noProvisioner) return false;
      const topologies = cls.allowedTopologies ?? [];
      if (!topologies.length) return true;
      // allowed topologies are terms of label requirements, as node selector terms
      return anyTermMatches(topologies.map((t) => ({ matchExpressions: (t.matchLabelExpressions ?? []).map((e) => ({ key: e.key, operator: 'In' as const, values: e.values })) })), node);
    }

    /** every claim of the decision is bound (and each volume names its claim); throws when a binding was undone */
    function bindingsDone(d: Decision): boolean {
      let done = true;
      for (const claim of [...d.bindings.map((b) => b.claim), ...d.provisions]) {
        const current = volumes.claim(claim.metadata.namespace!, claim.metadata.name!);
        if (!current || current.metadata.uid !== claim.metadata.uid) throw new Error(`persistentvolumeclaim "${claim.metadata.name}" was deleted`);
        if (d.provisions.includes(claim) && current.metadata.annotations?.[a.selectedNode] === undefined && !current.spec?.volumeName) {
          throw new Error(`selectedNode annotation reset for PVC "${claim.metadata.name}"`);
        }
        if (!isClaimFullyBound(current, a)) { done = false; continue; }
        const pv = volumes.persistentVolume(current.spec!.volumeName!);
        if (!pv || !isVolumeBoundToClaim(pv, current)) done = false;
      }
      for (const { pv } of d.bindings) {
        const current = volumes.persistentVolume(pv.metadata.name!);
        if (current && !current.spec?.claimRef) throw new Error(`pv "${pv.metadata.name}" claimRef was unset by the binder`);
      }
      return done;
    }

    const forget = (podKey: string) => { for (const [pv, key] of assumed) if (key === podKey) assumed.delete(pv); };

    return {
      name: 'VolumeBinding',
      events: [
        'PersistentVolumeClaim/Add', 'PersistentVolumeClaim/Update', 'PersistentVolume/Add', 'PersistentVolume/Update',
        'StorageClass/Add', 'StorageClass/Update', 'Node/Add', 'Node/UpdateNodeLabel',
      ],
      preFilter(state, pod) {
        const usesClaims = (pod.pod.spec.volumes ?? []).some((v) => v.persistentVolumeClaim || v.ephemeral);
        if (!usesClaims) { state.data.set(stateKey, new State([], [])); return skip; }
        const { claims, error } = podClaims(pod.pod, volumes);
        if (error) return unresolvable(error);
        const { bound, delayed, immediate } = classify(claims);
        if (immediate) return unresolvable(reasonUnboundImmediate);
        state.data.set(stateKey, new State(bound, delayed));
        return undefined;
      },
      filter(state, pod, node) {
        const s = readState<State>(state, stateKey);
        for (const claim of s.bound) {
          const pv = volumes.persistentVolume(claim.spec!.volumeName!);
          if (!pv) return unresolvable(reasonMissingVolume);
          if (!volumeFitsNode(pv, node.node)) return unresolvable(reasonNodeConflict);
        }
        if (!s.delayed.length) return undefined;
        const decision: Decision = { bindings: [], provisions: [] };
        const taken = new Set([...assumed].filter(([, key]) => key !== pod.key).map(([name]) => name));
        const all = volumes.persistentVolumes();
        // the smallest requests choose first, as the reference orders them
        for (const claim of [...s.delayed].sort((x, y) => requestedStorage(x) - requestedStorage(y))) {
          const pv = claim.metadata.annotations?.[a.selectedNode] === undefined
            ? findMatchingVolume(claim, all, a, { node: node.node, delayBinding: true, excluded: taken }) : undefined;
          if (pv) {
            taken.add(pv.metadata.name!);
            decision.bindings.push({ pv, claim });
            continue;
          }
          const provisionable = canProvision(claim, node.node);
          if (typeof provisionable === 'object') return provisionable;
          if (!provisionable) return unresolvable(reasonBindConflict);
          decision.provisions.push(claim);
        }
        s.byNode.set(node.name, decision);
        return undefined;
      },
      reserve(state, pod, nodeName) {
        const decision = (state.data.get(stateKey) as State | undefined)?.byNode.get(nodeName);
        for (const { pv } of decision?.bindings ?? []) assumed.set(pv.metadata.name!, pod.key);
        return undefined;
      },
      unreserve(_state, pod) {
        forget(pod.key);
      },
      async preBind(state, pod, nodeName) {
        const decision = (state.data.get(stateKey) as State | undefined)?.byNode.get(nodeName);
        if (!decision || (!decision.bindings.length && !decision.provisions.length)) return undefined;
        try {
          for (const { pv, claim } of decision.bindings) {
            await handle.writes.modifyPersistentVolume(pv.metadata.name!, (current) => {
              if (current.metadata.uid !== pv.metadata.uid) throw new Error(`pv "${pv.metadata.name}" was deleted`);
              return bindVolumeToClaim(current, claim, a);
            });
          }
          for (const claim of decision.provisions) {
            await handle.writes.modifyClaim(claim.metadata.namespace!, claim.metadata.name!, (current) => {
              if (current.metadata.annotations?.[a.selectedNode] === nodeName) return undefined;
              if (hasAnnotation(current.metadata, a.selectedNode)) throw new Error(`persistentvolumeclaim "${claim.metadata.name}" was given another node`);
              current.metadata.annotations = { ...current.metadata.annotations, [a.selectedNode]: nodeName };
              return current;
            });
          }
          // the binder completes the claims (or a provisioner makes their volumes): wait for it, within the bound
          const deadline = Date.now() + bindTimeoutMs;
          while (!bindingsDone(decision)) {
            if (Date.now() >= deadline) return errorStatus('binding volumes: timed out waiting for the condition');
            await sleep(Math.min(1000, Math.max(0, deadline - Date.now())));
          }
          return undefined;
        } catch (e) {
          return errorStatus(`binding volumes: ${(e as Error).message}`);
        } finally {
          forget(pod.key);
        }
      },
    };
  },
};
