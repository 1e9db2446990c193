// authentication: create-only reviews, nothing stored.
import type { ResourceDefinition } from '../types.js';
import * as s from '../../api/schemas/authentication.js';
import { createOnly, define } from './define.js';

const group = { group: 'authentication', domainGroup: true, namespaced: false, verbs: createOnly };

export const authenticationResources: ResourceDefinition[] = [
  // beta in 1.27 and enabled by default (APISelfSubjectReview)
  define({
    ...group, resource: 'selfsubjectreviews', kind: 'SelfSubjectReview',
    versions: [{ name: 'v1beta1', served: true, storage: true, schema: s.selfSubjectReview }],
  }),
  define({
    ...group, resource: 'tokenreviews', kind: 'TokenReview',
    versions: [{ name: 'v1', served: true, storage: true, schema: s.tokenReview }],
  }),
];
