// AlwaysAdmit (deprecated): admits everything, the same as no plugin.
import { definePlugin } from '../types.js';

export default definePlugin({
  name: 'AlwaysAdmit',
  defaultOn: false,
  create: () => ({ name: 'AlwaysAdmit', validate() {} }),
});
