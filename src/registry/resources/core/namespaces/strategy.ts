// Namespaces: Active from creation, named by a well-known label, and finalized by the server (spec.finalizers changes
// only through the finalize subresource).
import type { Stored } from '../../../../api/meta.js';
import type { Naming } from '../../../../api/naming.js';
import type { Namespace } from '../../../../api/types/core-v1.js';
import { defineStrategy } from '../../../strategy.js';
import { qualifiedNameErrors } from '../../../../api/selectors.js';

type Ns = Stored<Namespace>;

/** the label that carries the namespace's name, whatever the object says */
function nameLabel(ns: Ns, names: Naming) {
  ns.metadata.labels = { ...(ns.metadata.labels ?? {}), [names.label('metadata.name')]: ns.metadata.name ?? '' };
}

export const strategy = defineStrategy<Ns>({
  nameRule: 'dns-label',
  generation: false,
  selectableFields: { 'status.phase': o => o.status?.phase },
  // a generated name is not known yet when defaults run: prepare sets the label again
  defaults(ns, { names }) { if (ns.metadata.name) nameLabel(ns, names); },
  prepareForCreate(ns, ctx) {
    ns.status = { phase: 'Active' };
    // the server's own finalizer, whatever others the namespace is created with: its content is always removed first
    const finalizers = ns.spec?.finalizers ?? [];
    ns.spec = { ...(ns.spec ?? {}), finalizers: finalizers.includes(ctx.names.vendor) ? finalizers : [...finalizers, ctx.names.vendor] };
    nameLabel(ns, ctx.names);
  },
  prepareForUpdate(ns, old, ctx) {
    ns.status = old.status;
    ns.spec = old.spec;
    nameLabel(ns, ctx.names);
  },
  // each finalizer a qualified name, as the reference checks them: a namespace is not created with one it could never lose
  validate: ns => (ns.spec?.finalizers ?? []).flatMap((f, i) => qualifiedNameErrors(String(f))
    .map(p => ({ reason: 'FieldValueInvalid', field: `spec.finalizers[${i}]`, message: `Invalid value: ${JSON.stringify(f)}: ${p}` }))),
  pendingFinalizers: ns => (ns.metadata.finalizers?.length ?? 0) > 0 || (ns.spec?.finalizers?.length ?? 0) > 0,
  prepareForDelete(ns) {
    ns.status = { ...(ns.status ?? {}), phase: 'Terminating' };
    // a namespace's deletion has a time but no grace period, as the reference marks it
    delete ns.metadata.deletionGracePeriodSeconds;
  },
});
