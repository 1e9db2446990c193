// DenyServiceExternalIPs: no new external IPs on Services (removing them stays possible), since any user
// able to set them could intercept traffic to those addresses.
import { definePlugin } from '../types.js';
import type { Service } from '../../api/types/core-v1.js';
import { isWriteOf, refuse } from '../util.js';

export default definePlugin({
  name: 'DenyServiceExternalIPs',
  defaultOn: false,
  create: () => ({
    name: 'DenyServiceExternalIPs',
    operations: ['CREATE', 'UPDATE'],
    validate(a) {
      if (!isWriteOf(a, '', 'services')) return;
      const before = new Set<string>((a.oldObject as Service | undefined)?.spec?.externalIPs ?? []);
      const added = ((a.object as Service).spec?.externalIPs ?? []).filter(ip => !before.has(ip));
      if (added.length) throw refuse(a, 'spec.externalIPs: Forbidden: use of external IPs is denied by admission control');
    },
  }),
});
