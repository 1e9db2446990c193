// PKCS #10 certificate requests for tests: a new EC key's request for a common name and organizations, PEM.
import { webcrypto } from 'node:crypto';

export async function certificateRequest(commonName: string, organizations: string[] = []): Promise<string> {
  await import('reflect-metadata');
  const x509 = await import('@peculiar/x509');
  x509.cryptoProvider.set(webcrypto as unknown as Crypto);
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const name = [`CN=${commonName}`, ...organizations.map(o => `O=${o}`)].join(', ');
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name, keys, signingAlgorithm: algorithm });
  return csr.toString('pem');
}
