// A realistic operator's CustomResourceDefinition, as a database operator would ship it: two versions (v1alpha1
// still served and deprecated, v1 stored), status and scale subresources, printer columns, defaults, and CEL
// validation rules including a transition rule.
import type { Manifest } from './support.js';

export const operatorGroup = 'db.example.com';
export const operatorPlural = 'databases';

const conditions = {
  type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'],
  items: {
    type: 'object', required: ['type', 'status'],
    properties: {
      type: { type: 'string' }, status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
      reason: { type: 'string' }, message: { type: 'string' }, lastTransitionTime: { type: 'string', format: 'date-time' },
    },
  },
};

const schema = (rules: boolean) => ({
  type: 'object',
  description: 'Database is a managed database cluster.',
  properties: {
    spec: {
      type: 'object', required: ['engine'],
      description: 'DatabaseSpec is the desired state of the database cluster.',
      properties: {
        engine: { type: 'string', enum: ['postgres', 'mysql'], description: 'Database engine.' },
        version: { type: 'string', default: '16', description: 'Engine version.' },
        replicas: { type: 'integer', minimum: 1, maximum: 9, default: 1, description: 'Number of instances.' },
        storage: { type: 'object', properties: { size: { type: 'string', pattern: '^[0-9]+(Mi|Gi|Ti)$', default: '1Gi' } } },
        backup: { type: 'object', properties: { enabled: { type: 'boolean' }, schedule: { type: 'string' } } },
      },
      ...(rules ? {
        'x-kubernetes-validations': [
          { rule: "self.engine != 'mysql' || self.replicas <= 5", message: 'mysql clusters allow at most 5 replicas' },
          { rule: '!has(self.backup) || !self.backup.enabled || has(self.backup.schedule)', message: 'a schedule is required when backups are enabled' },
          { rule: 'self.engine == oldSelf.engine', message: 'engine is immutable' },
        ],
      } : {}),
    },
    status: {
      type: 'object',
      properties: {
        phase: { type: 'string', enum: ['Pending', 'Provisioning', 'Ready', 'Failed'] },
        readyReplicas: { type: 'integer' },
        selector: { type: 'string' },
        conditions,
      },
    },
  },
});

const columns = [
  { name: 'Engine', type: 'string', jsonPath: '.spec.engine' },
  { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
  { name: 'Ready', type: 'integer', jsonPath: '.status.readyReplicas' },
  { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
];

export function operatorCrd(apiextensionsGroup: string): Manifest {
  const subresources = { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.readyReplicas', labelSelectorPath: '.status.selector' } };
  return {
    apiVersion: `${apiextensionsGroup}/v1`, kind: 'CustomResourceDefinition',
    metadata: { name: `${operatorPlural}.${operatorGroup}` },
    spec: {
      group: operatorGroup, scope: 'Namespaced',
      names: { plural: operatorPlural, singular: 'database', kind: 'Database', listKind: 'DatabaseList', shortNames: ['db'], categories: ['all'] },
      versions: [
        { name: 'v1alpha1', served: true, storage: false, deprecated: true, schema: { openAPIV3Schema: schema(false) }, subresources, additionalPrinterColumns: columns },
        { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema(true) }, subresources, additionalPrinterColumns: columns },
      ],
    },
  };
}

export const database = (namespace: string, name: string, spec: Record<string, unknown>, version = 'v1'): Manifest => ({
  apiVersion: `${operatorGroup}/${version}`, kind: 'Database', metadata: { name, namespace, labels: { team: 'payments' } }, spec,
});
