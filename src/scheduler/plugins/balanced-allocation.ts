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
        // the population standard deviation of the fractions, without building a list (once per pod and node)
        let n = 0;
        let sum = 0;
        let sumOfSquares = 0;
        let first = 0;
        for (const r of resources) {
          const allocatable = node.allocatable[r] ?? 0;
          if (!allocatable) continue;
          const f = Math.min(1, requestedWith(node, pod, r, true) / allocatable);
          if (n === 0) first = f;
          n++;
          sum += f;
          sumOfSquares += f * f;
        }
        let std = 0;
        if (n === 2) std = Math.abs(first - (sum - first)) / 2;
        else if (n > 2) std = Math.sqrt(Math.max(0, sumOfSquares / n - (sum / n) ** 2));
        return Math.trunc((1 - std) * maxNodeScore);
      },
    };
  },
};
