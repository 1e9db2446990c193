// authorization/v1 definitions (create-only review kinds).
import { apiRef, arr, bool, mapOf, obj, str } from './build.js';
import { kind } from './meta.js';

const ref = (k: string) => apiRef('authorization.v1', k);

const resourceAttributes = obj(ref('ResourceAttributes'), {
  namespace: str(), verb: str(), group: str(), version: str(), resource: str(), subresource: str(), name: str(),
});
const nonResourceAttributes = obj(ref('NonResourceAttributes'), { path: str(), verb: str() });
const subjectAccessReviewSpec = obj(ref('SubjectAccessReviewSpec'), {
  resourceAttributes,
  nonResourceAttributes,
  user: str(),
  groups: arr(str()),
  extra: mapOf(arr(str())),
  uid: str(),
});
const subjectAccessReviewStatus = obj(ref('SubjectAccessReviewStatus'), {
  allowed: bool(), denied: bool(), reason: str(), evaluationError: str(),
}, { required: ['allowed'] });

export const subjectAccessReview = kind(ref('SubjectAccessReview'), {
  spec: subjectAccessReviewSpec, status: subjectAccessReviewStatus,
}, { required: ['spec'] });
export const localSubjectAccessReview = kind(ref('LocalSubjectAccessReview'), {
  spec: subjectAccessReviewSpec, status: subjectAccessReviewStatus,
}, { required: ['spec'] });
export const selfSubjectAccessReview = kind(ref('SelfSubjectAccessReview'), {
  spec: obj(ref('SelfSubjectAccessReviewSpec'), { resourceAttributes, nonResourceAttributes }),
  status: subjectAccessReviewStatus,
}, { required: ['spec'] });
export const selfSubjectRulesReview = kind(ref('SelfSubjectRulesReview'), {
  spec: obj(ref('SelfSubjectRulesReviewSpec'), { namespace: str() }),
  status: obj(ref('SubjectRulesReviewStatus'), {
    resourceRules: arr(obj(ref('ResourceRule'), {
      verbs: arr(str()), apiGroups: arr(str()), resources: arr(str()), resourceNames: arr(str()),
    }, { required: ['verbs'] })),
    nonResourceRules: arr(obj(ref('NonResourceRule'), {
      verbs: arr(str()), nonResourceURLs: arr(str()),
    }, { required: ['verbs'] })),
    incomplete: bool(),
    evaluationError: str(),
  }, { required: ['resourceRules', 'nonResourceRules', 'incomplete'] }),
}, { required: ['spec'] });
