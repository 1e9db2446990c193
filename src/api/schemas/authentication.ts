// authentication/v1 and v1beta1 definitions (create-only review kinds).
import { apiRef, arr, bool, mapOf, obj, str } from './build.js';
import { kind } from './meta.js';

const v1 = (k: string) => apiRef('authentication.v1', k);

export const userInfo = obj(v1('UserInfo'), {
  username: str(), uid: str(), groups: arr(str()), extra: mapOf(arr(str())),
});

export const tokenReview = kind(v1('TokenReview'), {
  spec: obj(v1('TokenReviewSpec'), { token: str(), audiences: arr(str()) }),
  status: obj(v1('TokenReviewStatus'), {
    authenticated: bool(), user: userInfo, audiences: arr(str()), error: str(),
  }),
}, { required: ['spec'] });

export const selfSubjectReview = kind(apiRef('authentication.v1beta1', 'SelfSubjectReview'), {
  status: obj(apiRef('authentication.v1beta1', 'SelfSubjectReviewStatus'), { userInfo }),
});
