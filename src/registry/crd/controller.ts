// Serves CustomResourceDefinitions inside the server. For each CRD: its names are checked against the other
// CRDs and the built-in resources of its group (NamesAccepted), its resource is added to the installed API
// (served at once, discovery included) and it is marked Established. A CRD being deleted first loses every
// object of its kind, then its resource, then its cleanup finalizer, so the CRD itself goes.
import type { Stored } from '../../api/meta.js';
import type { CustomResourceDefinition, CustomResourceDefinitionCondition, CustomResourceDefinitionNames } from '../../api/types/apiextensions-v1.js';
import type { Naming } from '../../api/naming.js';
import type { ApiResources, ResourceInfo } from '../resources.js';
import { ofKind, type ResourceDefinition } from '../types.js';
import type { Store } from '../store.js';
import type { Reads } from '../reads.js';
import { noAdmission } from '../store.js';
import type { ResourceCache, ResourceCaches } from '../../api/cache.js';
import { definitionFromCrd, isTerminating } from './definition.js';
import { cleanupFinalizer, setCondition } from '../resources/apiextensions/customresourcedefinitions/strategy.js';
import { applyCrdDefaults } from '../resources/apiextensions/customresourcedefinitions/validation.js';
import { approvalCondition } from '../resources/apiextensions/customresourcedefinitions/approval.js';
import { hasRules, loadRules } from '../../cel/index.js';
import { serviceResolver } from '../../api/apiservices.js';

export interface CrdControllerDeps {
  resources: ApiResources;
  names: Naming;
  caches: ResourceCaches;
  backendFor(info: ResourceInfo): { store: Store; reads: Reads };
  /** evaluate the CEL rules of custom resources (the CustomResourceValidationExpressions gate; default true) */
  celRules?: boolean;
  /** how long instances holding finalizers are waited for before the CRD says it could not confirm them gone (default 1 min) */
  instanceWaitMs?: number;
}

type Crd = Stored<CustomResourceDefinition>;
type Condition = Omit<CustomResourceDefinitionCondition, 'lastTransitionTime'>;
type Names = CustomResourceDefinitionNames;

const retryMs = 1000;

/** how long the deletes of a terminating CRD's objects are waited for in its watch cache before its resource goes */
const emptiedWaitMs = 5000;

/** resolves once a resource's watch cache holds none of its objects (its watchers have been sent every delete), or
 *  after emptiedWaitMs */
async function emptied(c: ResourceCache): Promise<void> {
  await c.ready;
  await new Promise<void>(resolve => {
    let unsubscribe = () => {};
    const done = () => { clearTimeout(timer); unsubscribe(); resolve(); };
    const timer = setTimeout(done, emptiedWaitMs);
    unsubscribe = c.subscribe({ send() { if (c.count() === 0) done(); }, end: done });
    if (c.count() === 0) done();
  });
}

export function startCrdController(deps: CrdControllerDeps, log: { warn(m: string): void }) {
  const { resources, names } = deps;
  const found = resources.preferred(names.group('apiextensions'), 'customresourcedefinitions');
  // with apiextensions switched off (--runtime-config) no custom resources are served
  if (!found) return { ready: Promise.resolve(), stop() {} };
  const crdInfo = found;
  const crdStore = () => deps.backendFor(crdInfo).store;
  const cache = deps.caches.cache(crdInfo.keyPrefix);
  const finalizer = cleanupFinalizer(names.group('apiextensions'));
  // conversion webhooks named by service reference are called at an endpoint of the Service, read from the watch cache
  const cacheOf = (resource: string) => { const p = resources.preferred('', resource)?.keyPrefix; return p ? deps.caches.cache(p) : undefined; };
  const services = cacheOf('services'), endpoints = cacheOf('endpoints');
  const resolveService = serviceResolver((resource, namespace, name) => {
    const c = resource === 'services' ? services : endpoints;
    return c?.get(`${c.prefix}${namespace}/${name}`)?.obj;
  });
  /** what each CRD (by name) has installed, and from which content */
  const served = new Map<string, { group: string; plural: string; def: ResourceDefinition; fingerprint: string }>();
  const pending = new Set<string>();
  let draining: Promise<void> | undefined;
  let stopped = false;
  /** CRDs being deleted whose instances are waited for: since when, or until when the last wait's timeout is shown */
  const waits = new Map<string, { since: number } | { shownUntil: number }>();
  const instanceWaitMs = deps.instanceWaitMs ?? 60_000;

  // one CRD at a time: name checks depend on what the others have accepted
  function enqueue(name: string) {
    pending.add(name);
    return kick();
  }
  function kick() {
    draining ??= drain().finally(() => { draining = undefined; });
    return draining;
  }
  async function drain() {
    while (pending.size && !stopped) {
      const [name] = pending;
      pending.delete(name);
      try {
        await reconcile(name);
      } catch (e) {
        if (stopped) return;
        log.warn(`customresourcedefinition ${name}: ${(e as Error).message}; retrying`);
        setTimeout(() => void enqueue(name), retryMs).unref();
      }
    }
  }

  const current = (name: string) => {
    const obj = cache.get(crdInfo.keyPrefix + name)?.obj;
    return obj && ofKind<CustomResourceDefinition>(obj);
  };

  function unserve(name: string) {
    const s = served.get(name);
    if (!s) return;
    served.delete(name);
    resources.remove(s.group, s.plural);
  }

  /** installs (or re-installs, when its content changed) the resource of a CRD under its accepted names */
  function serve(crd: Crd, accepted: Names) {
    const name = crd.metadata.name!;
    const shaped: Crd = { ...crd, status: { ...crd.status, acceptedNames: accepted } };
    const fingerprint = JSON.stringify([crd.spec, accepted, isTerminating(crd)]);
    const s = served.get(name);
    if (s?.fingerprint === fingerprint) return;
    const def = definitionFromCrd(shaped, names.group('apiextensions'), deps.celRules ?? true, resolveService);
    // removed first so the resource's store is rebuilt with the new schema and strategy; put in place at once when
    // only what it serves changes (terminating: no creates), so its watches go on
    if (s && s.def.servingKey !== def.servingKey) resources.remove(s.group, s.plural);
    resources.add(def);
    served.set(name, { group: crd.spec.group, plural: accepted.plural, def, fingerprint });
  }

  /**
   * The CRD's names taken by another CRD or a built-in resource of the group, as the reference judges them: plural,
   * singular and short names against every resource name of the group (plurals, singulars, short names), kind and
   * list kind against every kind; each a conflict of its own reason, in that order
   */
  function conflicts(crd: Crd, wanted: Names): Array<{ reason: string; message: string }> {
    const group = crd.spec.group;
    const own = served.get(crd.metadata.name!)?.def;
    const resourceNames = new Set<string>(), kinds = new Set<string>();
    const take = (plural: string, singular: string | undefined, shortNames: readonly string[] | undefined, kind: string, listKind: string | undefined) => {
      for (const n of [plural, singular, ...(shortNames ?? [])]) if (n) resourceNames.add(n);
      for (const k of [kind, listKind]) if (k) kinds.add(k);
    };
    for (const e of resources.all()) {
      if (e.group !== group || e.def === own) continue;
      take(e.resource, e.singular, e.def.shortNames, e.kind, e.listKind);
    }
    for (const other of cache.snapshot(crdInfo.keyPrefix)) {
      const o = ofKind<CustomResourceDefinition>(other.obj);
      if (o.metadata.name === crd.metadata.name || o.spec?.group !== group) continue;
      const a = o.status?.acceptedNames;
      if (a?.plural) take(a.plural, a.singular, a.shortNames, a.kind, a.listKind);
    }
    const inUse = (name: string | undefined, taken: Set<string>) => (name && taken.has(name) ? `"${name}" is already in use` : undefined);
    const out: Array<{ reason: string; message: string }> = [];
    const check = (reason: string, message: string | undefined) => { if (message) out.push({ reason, message }); };
    check('PluralConflict', inUse(wanted.plural, resourceNames));
    check('SingularConflict', inUse(wanted.singular, resourceNames));
    // several short names taken are reported together, as an aggregate of errors reads
    const shorts = (wanted.shortNames ?? []).map(n => inUse(n, resourceNames)).filter((m): m is string => !!m);
    check('ShortNamesConflict', shorts.length > 1 ? `[${shorts.join(', ')}]` : shorts[0]);
    check('KindConflict', inUse(wanted.kind, kinds));
    check('ListKindConflict', inUse(wanted.listKind, kinds));
    return out;
  }

  const sameConditions = (crd: Crd, want: Condition[]) => want.every(w => (crd.status?.conditions ?? [])
    .some(c => c.type === w.type && c.status === w.status && c.reason === w.reason && c.message === w.message));

  /** writes accepted names and conditions through the status subresource when they differ */
  async function writeStatus(crd: Crd, accepted: Names | undefined, conditions: Condition[]) {
    if (JSON.stringify(crd.status?.acceptedNames ?? null) === JSON.stringify(accepted ?? crd.status?.acceptedNames ?? null) && sameConditions(crd, conditions)) return;
    await crdStore().guaranteedUpdate('', crd.metadata.name!, 'status', cur => {
      if (!cur) throw Object.assign(new Error('gone'), { code: 404 });
      const c = ofKind<CustomResourceDefinition>(cur);
      if (accepted) (c.status ??= {}).acceptedNames = accepted;
      for (const condition of conditions) setCondition(c, condition);
      return cur;
    }, noAdmission, { dryRun: false });
  }

  async function reconcile(name: string) {
    const crd = current(name);
    if (!crd) { unserve(name); return; }
    if (crd.metadata.deletionTimestamp) return finalize(crd);
    // a CRD with validation rules needs the CEL engine for its objects and for its own status writes
    if ((crd.spec?.versions ?? []).some(v => hasRules(v?.schema?.openAPIV3Schema))) await loadRules();

    const wanted: Names = structuredClone(crd.spec.names);
    applyCrdDefaults({ metadata: {}, spec: { names: wanted } });
    const problems = conflicts(crd, wanted);
    const previous: Names | undefined = crd.status?.acceptedNames?.plural ? crd.status.acceptedNames : undefined;
    const accepted = problems.length ? previous : wanted;
    const wasEstablished = (crd.status?.conditions ?? []).some(c => c.type === 'Established' && c.status === 'True');
    // the last conflict found is the one the condition tells, as the reference's naming controller has it
    const last = problems.at(-1);
    const conditions: Condition[] = last
      ? [{ type: 'NamesAccepted', status: 'False', reason: last.reason, message: last.message }]
      : [{ type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' }];
    if (accepted) {
      serve(crd, accepted);
      if (!wasEstablished) conditions.push({ type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' });
    } else {
      conditions.push({ type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' });
    }
    const approval = approvalCondition(names.group('apiextensions'), crd);
    if (approval) conditions.push(approval);
    await writeStatus(crd, accepted, conditions);
  }

  /** a CRD being deleted: its objects go, then its resource, then the cleanup finalizer */
  async function finalize(crd: Crd) {
    const name = crd.metadata.name!;
    if (!(crd.metadata.finalizers ?? []).includes(finalizer)) return;
    const accepted: Names | undefined = crd.status?.acceptedNames?.plural ? crd.status.acceptedNames : undefined;
    let remaining = 0;
    let instances: ResourceCache | undefined;
    const wait = waits.get(name);
    if (wait && 'shownUntil' in wait) {
      // the last wait timed out: that stays said a while before the next wait begins, as the reference's backoff has it
      if (Date.now() < wait.shownUntil) { setTimeout(() => void enqueue(name), wait.shownUntil - Date.now()).unref(); return; }
      waits.delete(name);
    }
    if (accepted) {
      serve(crd, accepted);   // terminating: no new objects
      if (!waits.has(name)) await writeStatus(crd, undefined, [{ type: 'Terminating', status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' }]);
      // deleted through the storage version where it is served, so no object needs converting on its way out
      const info = resources.all().find(e => e.group === crd.spec.group && e.resource === accepted.plural && e.version === e.storageVersion)
        ?? resources.preferred(crd.spec.group, accepted.plural);
      if (info) {
        const { store, reads } = deps.backendFor(info);
        const { items } = await reads.list({ namespace: '', selective: false });
        for (const item of items) {
          await store.delete(item.obj.metadata.namespace ?? '', item.obj.metadata.name!, {}, noAdmission)
            .catch(e => { if ((e as { code?: number }).code !== 404) throw e; });
        }
        // objects without finalizers are gone now; the ones with finalizers of their own are waited for
        if (items.length) remaining = (await reads.list({ namespace: '', selective: false })).items.length;
        if (items.length && !remaining) instances = deps.caches.cache(info.keyPrefix);
      }
    }
    if (remaining > 0) {
      const since = (waits.get(name) as { since: number } | undefined)?.since ?? Date.now();
      waits.set(name, { since });
      if (Date.now() - since >= instanceWaitMs) {
        waits.set(name, { shownUntil: Date.now() + retryMs });
        await writeStatus(crd, undefined, [{ type: 'Terminating', status: 'True', reason: 'InstanceDeletionCheck',
          message: 'could not confirm zero CustomResources remaining: timed out waiting for the condition' }]);
      }
      setTimeout(() => void enqueue(name), retryMs).unref();
      return;
    }
    waits.delete(name);
    await writeStatus(crd, undefined, [{ type: 'Terminating', status: 'False', reason: 'InstanceDeletionCompleted', message: 'removed all instances' }]);
    // the resource's watches end with it: first they are sent the deletes, as the reference's storage outlives them
    if (instances) await emptied(instances);
    unserve(name);
    await crdStore().guaranteedUpdate('', name, '', cur => {
      if (!cur) throw Object.assign(new Error('gone'), { code: 404 });
      cur.metadata.finalizers = (cur.metadata.finalizers ?? []).filter(f => f !== finalizer);
      return cur;
    }, noAdmission, { dryRun: false }).catch(e => { if ((e as { code?: number }).code !== 404) throw e; });
  }

  const unsubscribe = cache.subscribe({
    send(ev) { void enqueue(ev.cur.obj.metadata.name!); },
    end() {},
  });
  /** resolves once every CRD present at start is served again */
  const ready = cache.ready.then(async () => {
    for (const c of cache.snapshot(crdInfo.keyPrefix)) pending.add(c.obj.metadata.name!);
    await kick();
  });
  return {
    ready,
    stop() { stopped = true; unsubscribe(); },
  };
}
