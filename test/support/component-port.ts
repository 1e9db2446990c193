// A GET of a component's HTTPS port (controller manager, scheduler) on loopback, with a client certificate or a
// bearer token if given; the port's self-signed certificate is not checked.
import { request as httpsRequest } from 'node:https';

export function componentGet(port: number, path: string, cred: { certPem?: string; keyPem?: string; token?: string } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port, path, rejectUnauthorized: false, cert: cred.certPem, key: cred.keyPem,
      headers: cred.token ? { authorization: `Bearer ${cred.token}` } : {} }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
