// Score: nodes whose CPU and memory would be used in similar proportions score higher
// (100 × (1 − the standard deviation of the requested fractions)); requests count as written.
import { maxNodeScore, type PluginSpec } from '../framework.js';
import { defaultScoredResources, requestedWith, type ResourceWeight } from './node-resources-fit.js';

export const balancedAllocation: PluginSpec = {
  name: 'NodeResourcesBalancedAllocation',
  create: (rawArgs) => {
    const resources = ((rawArgs as { resources?: ResourceWeight[] }).resources ?? defaultScoredResources).map((r) => r.name);
    return {
      name: 'NodeResourcesBalancedAllocation',
      score(_state, pod, node) {
        const fractions: number[] = [];
        for (const r of resources) {
          const allocatable = node.allocatable[r] ?? 0;
          if (!allocatable) continue;
          fractions.push(Math.min(1, requestedWith(node, pod, r, true) / allocatable));
        }
        let std = 0;
        if (fractions.length === 2) std = Math.abs(fractions[0]! - fractions[1]!) / 2;
        else if (fractions.length > 2) {
          const mean = fractions.reduce((a, b) => a + b, 0) / fractions.length;
          std = Math.sqrt(fractions.reduce((a, f) => a + (f - mean) ** 2, 0) / fractions.length);
        }
        return Math.trunc((1 - std) * maxNodeScore);
      },
    };
  },
};
