// Schemas for the apply tests, shaped like the reference's ConfigMap, Pod and Deployment with the
// merge markers those types carry. Only tests import this file.
import type { Schema } from '../api/schema.js';

const str: Schema = { type: 'string' };
const int: Schema = { type: 'integer', format: 'int32' };
const bool: Schema = { type: 'boolean' };
const stringMap: Schema = { type: 'object', additionalProperties: str };

export const objectMeta: Schema = {
  type: 'object',
  properties: {
    name: str, generateName: str, namespace: str, uid: str, resourceVersion: str, generation: { type: 'integer', format: 'int64' },
    creationTimestamp: { type: 'string', format: 'date-time' }, deletionTimestamp: { type: 'string', format: 'date-time' },
    labels: stringMap,
    annotations: stringMap,
    finalizers: { type: 'array', items: str, 'x-kubernetes-list-type': 'set', 'x-kubernetes-patch-strategy': 'merge' },
    ownerReferences: {
      type: 'array',
      items: { type: 'object', properties: { apiVersion: str, kind: str, name: str, uid: str, controller: bool, blockOwnerDeletion: bool } },
      'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['uid'], 'x-kubernetes-patch-merge-key': 'uid', 'x-kubernetes-patch-strategy': 'merge',
    },
    managedFields: {
      type: 'array',
      items: { type: 'object', properties: { manager: str, operation: str, apiVersion: str, time: str, fieldsType: str, fieldsV1: { type: 'object' }, subresource: str } },
    },
  },
};

const typeMeta = { apiVersion: str, kind: str, metadata: objectMeta };

export const configMap: Schema = {
  type: 'object',
  properties: { ...typeMeta, data: stringMap, binaryData: { type: 'object', additionalProperties: { type: 'string', format: 'byte' } }, immutable: bool },
};

const quantityMap: Schema = { type: 'object', additionalProperties: { type: 'string', 'x-kubernetes-int-or-string': true } };

export const container: Schema = {
  type: 'object',
  properties: {
    name: str, image: str, imagePullPolicy: str, terminationMessagePath: str,
    command: { type: 'array', items: str },
    args: { type: 'array', items: str },
    env: {
      type: 'array',
      items: { type: 'object', properties: { name: str, value: str } },
      'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge',
    },
    ports: {
      type: 'array',
      items: { type: 'object', properties: { name: str, containerPort: int, protocol: { type: 'string', default: 'TCP' } } },
      'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['containerPort', 'protocol'],
      'x-kubernetes-patch-merge-key': 'containerPort', 'x-kubernetes-patch-strategy': 'merge',
    },
    resources: { type: 'object', properties: { limits: quantityMap, requests: quantityMap } },
    volumeMounts: {
      type: 'array',
      items: { type: 'object', properties: { name: str, mountPath: str, readOnly: bool } },
      'x-kubernetes-patch-merge-key': 'mountPath', 'x-kubernetes-patch-strategy': 'merge',
    },
  },
};

export const podSpec: Schema = {
  type: 'object',
  properties: {
    containers: { type: 'array', items: container, 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge' },
    initContainers: { type: 'array', items: container, 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge' },
    nodeSelector: { type: 'object', additionalProperties: str, 'x-kubernetes-map-type': 'atomic' },
    tolerations: { type: 'array', items: { type: 'object', properties: { key: str, operator: str, value: str, effect: str } } },
    restartPolicy: str,
    serviceAccountName: str,
  },
};

export const pod: Schema = {
  type: 'object',
  properties: { ...typeMeta, spec: podSpec, status: { type: 'object', properties: { phase: str, podIP: str } } },
};

const labelSelector: Schema = {
  type: 'object',
  properties: {
    matchLabels: stringMap,
    matchExpressions: { type: 'array', items: { type: 'object', properties: { key: str, operator: str, values: { type: 'array', items: str } } } },
  },
  'x-kubernetes-map-type': 'atomic',
};

export const deployment: Schema = {
  type: 'object',
  properties: {
    ...typeMeta,
    spec: {
      type: 'object',
      properties: {
        replicas: int,
        selector: labelSelector,
        template: { type: 'object', properties: { metadata: objectMeta, spec: podSpec } },
        strategy: { type: 'object', properties: { type: str, rollingUpdate: { type: 'object', properties: { maxSurge: { 'x-kubernetes-int-or-string': true }, maxUnavailable: { 'x-kubernetes-int-or-string': true } } } } },
        minReadySeconds: int,
      },
    },
    status: { type: 'object', properties: { replicas: int, readyReplicas: int, observedGeneration: { type: 'integer' } } },
  },
};

/** a custom resource whose spec keeps unknown fields: every key a field, every list atomic */
export const unstructuredResource: Schema = {
  type: 'object',
  properties: { ...typeMeta, spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
};
