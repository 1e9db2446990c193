// AlwaysDeny (deprecated, for tests): refuses every write in both phases.
import { definePlugin } from '../types.js';
import { refuse } from '../util.js';

const why = 'admission control is denying all modifications';

export default definePlugin({
  name: 'AlwaysDeny',
  defaultOn: false,
  create: () => ({
    name: 'AlwaysDeny',
    admit(a) { throw refuse(a, why); },
    validate(a) { throw refuse(a, why); },
  }),
});
