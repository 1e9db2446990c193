// core/v1 bindings: a create that binds the pod its body names (as pods/<name>/binding does); nothing is stored.
import type { Binding } from '../../../../api/types/core-v1.js';
import * as s from '../../../../api/schemas/core-v1.js';
import { methodNotSupported } from '../../../../api/status.js';
import { createOnly, define, only } from '../../define.js';
import { bind } from '../pods/binding.js';

export const definition = define<Binding>({
  group: '', resource: 'bindings', kind: 'Binding', namespaced: true, verbs: createOnly, versions: only('v1', s.binding),
  rest: {
    async create(req, body) {
      const pods = req.resource('', 'pods', 'binding');
      if (!pods) throw methodNotSupported(req.info.resource, 'POST');
      return bind(pods, req.namespace, '', body, req.dryRun, req.admission());
    },
  },
});
