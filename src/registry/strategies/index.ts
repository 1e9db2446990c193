// Strategies of the built-in resources, by "<group base>/<resource>" as the catalog names them.
import { defaultStrategy, defineStrategy, type Strategy } from '../strategy.js';
import { namespaces } from './namespaces.js';
import { pods } from './pods.js';
import { customResourceDefinitions } from '../crd/crd-strategy.js';

const path = { nameRule: 'path-segment' as const, allowCreateOnUpdate: true, generation: false };
const label = { nameRule: 'dns-label' as const };

const strategies: Record<string, Strategy> = {
  '/namespaces': namespaces,
  '/pods': pods,
  '/services': defineStrategy({ ...label }),
  '/configmaps': defineStrategy({ generation: false }),
  '/secrets': defineStrategy({ generation: false, selectableFields: { type: (o) => o.type } }),
  '/serviceaccounts': defineStrategy({ generation: false }),
  '/endpoints': defineStrategy({ generation: false, allowCreateOnUpdate: true }),
  '/events': defineStrategy({
    generation: false, allowCreateOnUpdate: true, nameRule: 'path-segment',
    selectableFields: Object.fromEntries(['involvedObject.kind', 'involvedObject.namespace', 'involvedObject.name', 'involvedObject.uid',
      'involvedObject.apiVersion', 'involvedObject.resourceVersion', 'involvedObject.fieldPath', 'reason', 'reportingComponent', 'source', 'type']
      .map(f => [f, (o: any) => f === 'source' ? o.source?.component : String(f.split('.').reduce((x: any, k) => x?.[k], o) ?? '')])),
  }),
  '/nodes': defineStrategy({ generation: false, selectableFields: { 'spec.unschedulable': o => String(!!o.spec?.unschedulable) } }),
  'coordination/leases': defineStrategy({ generation: false, allowCreateOnUpdate: true }),
  'rbac.authorization/roles': defineStrategy(path),
  'rbac.authorization/rolebindings': defineStrategy(path),
  'rbac.authorization/clusterroles': defineStrategy(path),
  'rbac.authorization/clusterrolebindings': defineStrategy(path),
  'apiextensions/customresourcedefinitions': customResourceDefinitions,
  'certificates/certificatesigningrequests': defineStrategy({ selectableFields: { 'spec.signerName': o => o.spec?.signerName } }),
};

export function strategyFor(groupBase: string, resource: string): Strategy {
  return strategies[`${groupBase}/${resource}`] ?? defaultStrategy;
}
