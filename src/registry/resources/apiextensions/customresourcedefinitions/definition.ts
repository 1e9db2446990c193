// apiextensions/v1 custom resource definitions (default Table: Name and Created At); the resources they define are
// served from registry/crd.
import type { CustomResourceDefinition } from '../../../../api/types/apiextensions-v1.js';
import * as s from '../../../../api/schemas/apiextensions-v1.js';
import { define, only, status } from '../../define.js';
import { strategy } from './strategy.js';

export const definition = define<CustomResourceDefinition>({
  group: 'apiextensions', domainGroup: true, resource: 'customresourcedefinitions', kind: 'CustomResourceDefinition',
  shortNames: ['crd', 'crds'], categories: ['api-extensions'], namespaced: false,
  versions: only('v1', s.customResourceDefinition), subresources: status, strategy,
});
