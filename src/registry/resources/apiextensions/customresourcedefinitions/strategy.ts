// The strategy of CustomResourceDefinitions: defaults and v1 validation on every write, status (accepted names,
// conditions) written by the server's CRD controller, storedVersions kept, and deletion in two phases: the
// first delete adds the cleanup finalizer and the Terminating condition; the controller removes the CRD's
// objects and then the finalizer.
import type { Stored } from '../../../../api/meta.js';
import { nowTimestamp, parseApiVersion } from '../../../../api/meta.js';
import type { CustomResourceDefinition, CustomResourceDefinitionCondition } from '../../../../api/types/apiextensions-v1.js';
import { defineStrategy } from '../../../strategy.js';
import { hasRules, loadRules } from '../../../../cel/index.js';
import type { ValidationSchema } from '../../../../schema/validate.js';
import { applyCrdDefaults, storageVersionOf, validateCrd, validateCrdUpdate, validateStoredVersions } from './validation.js';
import { approvalProblems } from './approval.js';

type Crd = Stored<CustomResourceDefinition>;

/** the finalizer the server puts on a CRD being deleted, until its objects are gone */
export const cleanupFinalizer = (apiextensionsGroup: string) => `customresourcecleanup.${apiextensionsGroup}`;

/**
 * The CEL engine is loaded before a CRD with validation rules is validated (validation is synchronous), and the rules
 * are compiled here, in slices that let other requests run between them, for the validation that follows to take:
 * tens of thousands of rules compiled at once held the event loop for seconds.
 */
const loadRulesFor = async (crd: Crd) => {
  const versions = Array.isArray(crd.spec?.versions) ? crd.spec.versions : [];
  if (!versions.some(v => hasRules(v?.schema?.openAPIV3Schema))) return;
  const engine = await loadRules();
  for (const [i, v] of versions.entries()) {
    const schema = v?.schema?.openAPIV3Schema;
    if (!schema || typeof schema !== 'object' || !hasRules(schema)) continue;
    // the path is the one validation reports problems under
    try { await engine.compileSchemaInSlices(schema as ValidationSchema, `spec.versions[${i}].schema.openAPIV3Schema`, true); } catch { /* validation compiles it again, and says what is wrong */ }
  }
};

const apiextensionsGroupOf = (crd: Crd) => parseApiVersion(crd.apiVersion ?? '').group;

/** sets a condition, keeping its transition time when the status does not change */
export function setCondition(crd: Crd, condition: Omit<CustomResourceDefinitionCondition, 'lastTransitionTime'>) {
  const status = crd.status ??= {};
  const conditions = status.conditions ??= [];
  const i = conditions.findIndex(c => c.type === condition.type);
  const old = i >= 0 ? conditions[i] : undefined;
  const next = { ...condition, lastTransitionTime: old && old.status === condition.status ? old.lastTransitionTime : nowTimestamp() };
  if (i >= 0) conditions[i] = next; else conditions.push(next);
}

export const strategy = defineStrategy<Crd>({
  nameRule: 'dns-subdomain',
  generation: true,
  defaults: applyCrdDefaults,
  async prepareForCreate(crd) {
    await loadRulesFor(crd);
    const storage = storageVersionOf(crd);
    crd.status = { acceptedNames: { plural: '', kind: '' }, storedVersions: storage ? [storage] : [] };
  },
  async prepareForUpdate(crd) {
    await loadRulesFor(crd);
    const storage = storageVersionOf(crd);
    const stored = crd.status?.storedVersions ?? [];
    if (storage && !stored.includes(storage)) (crd.status ??= {}).storedVersions = [...stored, storage];
  },
  validate: crd => [...validateCrd(crd), ...approvalProblems(apiextensionsGroupOf(crd), crd)],
  validateUpdate: (crd, old) => [...validateCrdUpdate(crd, old), ...approvalProblems(apiextensionsGroupOf(crd), crd, old)],
  // status writes (the server's own and storage version migrations removing versions no object is stored at any more)
  validateStatusUpdate: crd => validateStoredVersions(crd),
  // every CRD takes the two-phase path on its first delete, so its objects can be removed first
  pendingFinalizers: crd => !crd.metadata.deletionTimestamp || (crd.metadata.finalizers?.length ?? 0) > 0,
  prepareForDelete(crd) {
    const finalizer = cleanupFinalizer(parseApiVersion(crd.apiVersion ?? '').group);
    const finalizers = crd.metadata.finalizers ?? [];
    if (!finalizers.includes(finalizer)) crd.metadata.finalizers = [...finalizers, finalizer];
    setCondition(crd, {
      type: 'Terminating', status: 'True', reason: 'InstanceDeletionPending',
      message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
    });
  },
});
