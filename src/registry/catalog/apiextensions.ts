// apiextensions/v1: custom resource definitions (default Table: Name and Created At).
import type { ResourceDefinition } from '../types.js';
import * as s from '../../api/schemas/apiextensions-v1.js';
import { define, only, status } from './define.js';

export const apiextensionsResources: ResourceDefinition[] = [
  define({
    group: 'apiextensions', domainGroup: true, resource: 'customresourcedefinitions', kind: 'CustomResourceDefinition',
    shortNames: ['crd', 'crds'], categories: ['api-extensions'], namespaced: false,
    versions: only('v1', s.customResourceDefinition), subresources: status,
  }),
];
