// The strategy of CustomResourceDefinitions: defaults and v1 validation on every write, status (accepted names,
// conditions) written by the server's CRD controller, storedVersions kept, and deletion in two phases: the
// first delete adds the cleanup finalizer and the Terminating condition; the controller removes the CRD's
// objects and then the finalizer.
import type { ApiObject } from '../../api/meta.js';
import { nowTimestamp, parseApiVersion } from '../../api/meta.js';
import { defineStrategy } from '../strategy.js';
import { applyCrdDefaults, storageVersionOf, validateCrd, validateCrdUpdate } from './validation.js';
import { cleanupFinalizer } from './definition.js';
import { hasRules, loadRules } from '../../cel/index.js';

/** the CEL engine is loaded before a CRD with validation rules is validated (validation is synchronous) */
const loadRulesFor = async (obj: Crd) => {
  if ((obj.spec?.versions ?? []).some((v: any) => hasRules(v?.schema?.openAPIV3Schema))) await loadRules();
};

type Crd = ApiObject & { spec?: any; status?: any };

/** sets a condition, keeping its transition time when the status does not change */
export function setCondition(crd: Crd, condition: { type: string; status: string; reason: string; message: string }) {
  const status = (crd.status ??= {});
  const conditions: any[] = (status.conditions ??= []);
  const i = conditions.findIndex(c => c.type === condition.type);
  const old = i >= 0 ? conditions[i] : undefined;
  const next = { ...condition, lastTransitionTime: old && old.status === condition.status ? old.lastTransitionTime : nowTimestamp() };
  if (i >= 0) conditions[i] = next; else conditions.push(next);
}

export const customResourceDefinitions = defineStrategy({
  nameRule: 'dns-subdomain',
  generation: true,
  async prepareForCreate(obj: Crd) {
    applyCrdDefaults(obj);
    await loadRulesFor(obj);
    const storage = storageVersionOf(obj);
    obj.status = { acceptedNames: { plural: '', kind: '' }, storedVersions: storage ? [storage] : [] };
  },
  async prepareForUpdate(obj: Crd) {
    applyCrdDefaults(obj);
    await loadRulesFor(obj);
    const storage = storageVersionOf(obj);
    const stored: string[] = obj.status?.storedVersions ?? [];
    if (storage && !stored.includes(storage)) (obj.status ??= {}).storedVersions = [...stored, storage];
  },
  validate: (obj: Crd) => validateCrd(obj),
  validateUpdate: (obj: Crd, old: Crd) => validateCrdUpdate(obj, old),
  // every CRD takes the two-phase path on its first delete, so its objects can be removed first
  pendingFinalizers: (obj: Crd) => !obj.metadata.deletionTimestamp || (obj.metadata.finalizers?.length ?? 0) > 0,
  prepareForDelete(obj: Crd) {
    const finalizer = cleanupFinalizer(parseApiVersion(obj.apiVersion ?? '').group);
    const finalizers = obj.metadata.finalizers ?? [];
    if (!finalizers.includes(finalizer)) obj.metadata.finalizers = [...finalizers, finalizer];
    setCondition(obj, {
      type: 'Terminating', status: 'True', reason: 'InstanceDeletionPending',
      message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
    });
  },
});
