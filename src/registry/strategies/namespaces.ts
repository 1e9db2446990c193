import { defineStrategy } from '../strategy.js';

/** a namespace is Active from creation, carries its name as a well-known label, and is finalized by the server */
export const namespaces = defineStrategy({
  nameRule: 'dns-label',
  generation: false,
  selectableFields: { 'status.phase': o => o.status?.phase },
  prepareForCreate(obj: any, ctx) {
    obj.status = { phase: 'Active' };
    obj.spec = { ...(obj.spec ?? {}), finalizers: obj.spec?.finalizers ?? [ctx.names.vendor] };
    obj.metadata.labels = { ...(obj.metadata.labels ?? {}), [ctx.names.label('metadata.name')]: obj.metadata.name };
  },
  pendingFinalizers: (obj: any) => (obj.metadata.finalizers?.length ?? 0) > 0 || (obj.spec?.finalizers?.length ?? 0) > 0,
  prepareForDelete(obj: any) {
    obj.status = { ...(obj.status ?? {}), phase: 'Terminating' };
  },
  prepareForUpdate(obj: any, old: any, ctx) {
    obj.status = old.status;
    obj.spec = old.spec;
    obj.metadata.labels = { ...(obj.metadata.labels ?? {}), [ctx.names.label('metadata.name')]: obj.metadata.name };
  },
});
