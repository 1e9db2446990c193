// CertificateSigning: writing the issued certificate into a request's status needs the `sign` verb on its signer.
import { isDeepStrictEqual } from 'node:util';
import { definePlugin } from '../types.js';
import type { CertificateSigningRequest } from '../../api/types/certificates-v1.js';
import { refuse } from '../util.js';
import type { Authorizer, UserInfo } from '../../api/auth.js';

/** the verb on the signer itself, or on every signer of its domain (`example.com/*`) */
export async function signerAllowed(authorizer: Authorizer, group: string, user: UserInfo | undefined, verb: string, signer: string) {
  if (!user) return false;
  const ask = async (name: string) => (await authorizer.authorize({
    user, verb, isResourceRequest: true, path: '', apiGroup: group, apiVersion: '*', namespace: '', resource: 'signers', subresource: '', name,
  })).decision === 'Allow';
  if (await ask(signer)) return true;
  const slash = signer.indexOf('/');
  return slash > 0 && ask(`${signer.slice(0, slash)}/*`);
}

export default definePlugin({
  name: 'CertificateSigning',
  defaultOn: true,
  create: ({ authorizer, names }) => ({
    name: 'CertificateSigning',
    operations: ['UPDATE'],
    resources: [[names.group('certificates'), 'certificatesigningrequests']],
    async validate(a) {
      const group = names.group('certificates');
      if (a.group !== group || a.resource !== 'certificatesigningrequests' || a.subresource !== 'status' || !a.object) return;
      const cert = (a.object as Partial<CertificateSigningRequest>).status?.certificate;
      const before = (a.oldObject as Partial<CertificateSigningRequest> | undefined)?.status?.certificate;
      if (isDeepStrictEqual(cert, before)) return;
      const signer = (a.object as Partial<CertificateSigningRequest>).spec?.signerName ?? '';
      if (!await signerAllowed(authorizer, group, a.user, 'sign', signer))
        throw refuse(a, `user not permitted to sign requests with signerName "${signer}"`);
    },
  }),
});
