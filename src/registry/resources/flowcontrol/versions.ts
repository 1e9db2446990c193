// flowcontrol.apiserver: API priority and fairness. 1.27 serves v1beta3 (preferred, stored) and the deprecated v1beta2
// (deprecated in 1.26, removed in 1.29; its warning names the full group, so the server composes it).
import type { Schema } from '../../../api/schema.js';
import type { VersionDefinition } from '../../types.js';

export const flowcontrolVersions = (schema: (v: string) => Schema): VersionDefinition[] => [
  { name: 'v1beta3', served: true, storage: true, schema: schema('v1beta3') },
  { name: 'v1beta2', served: true, storage: false, schema: schema('v1beta2'), deprecated: true, deprecatedIn: '1.26', removedIn: '1.29' },
];
