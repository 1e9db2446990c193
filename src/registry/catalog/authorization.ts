// authorization/v1: create-only reviews, nothing stored.
import type { ResourceDefinition } from '../types.js';
import * as s from '../../api/schemas/authorization-v1.js';
import { createOnly, define, only } from './define.js';

const group = { group: 'authorization', domainGroup: true, verbs: createOnly };

export const authorizationResources: ResourceDefinition[] = [
  define({
    ...group, resource: 'localsubjectaccessreviews', kind: 'LocalSubjectAccessReview', namespaced: true,
    versions: only('v1', s.localSubjectAccessReview),
  }),
  define({
    ...group, resource: 'selfsubjectaccessreviews', kind: 'SelfSubjectAccessReview', namespaced: false,
    versions: only('v1', s.selfSubjectAccessReview),
  }),
  define({
    ...group, resource: 'selfsubjectrulesreviews', kind: 'SelfSubjectRulesReview', namespaced: false,
    versions: only('v1', s.selfSubjectRulesReview),
  }),
  define({
    ...group, resource: 'subjectaccessreviews', kind: 'SubjectAccessReview', namespaced: false,
    versions: only('v1', s.subjectAccessReview),
  }),
];
