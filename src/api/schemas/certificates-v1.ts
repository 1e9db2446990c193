// certificates/v1 definitions.
import { apiRef, arr, atomicList, bytes, int32, mapList, mapOf, obj, str, time } from './build.js';
import { kind } from './meta.js';

const ref = (k: string) => apiRef('certificates.v1', k);

export const certificateSigningRequest = kind(ref('CertificateSigningRequest'), {
  spec: obj(ref('CertificateSigningRequestSpec'), {
    request: bytes({ 'x-kubernetes-list-type': 'atomic' }),
    signerName: str(),
    expirationSeconds: int32(),
    usages: atomicList(str()),
    username: str(),
    uid: str(),
    groups: atomicList(str()),
    extra: mapOf(arr(str())),
  }, { required: ['request', 'signerName'] }),
  status: obj(ref('CertificateSigningRequestStatus'), {
    conditions: mapList(obj(ref('CertificateSigningRequestCondition'), {
      type: str(), status: str(), reason: str(), message: str(), lastUpdateTime: time, lastTransitionTime: time,
    }, { required: ['type', 'status'] }), ['type']),
    certificate: bytes({ 'x-kubernetes-list-type': 'atomic' }),
  }),
}, { required: ['spec'] });
