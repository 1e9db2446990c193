// ImageLocality: nodes that already have the pod's container images score higher, so less is pulled. A node's score
// is the sum of the sizes of the images it has (from node.status.images), each scaled by the share of all nodes that
// have it (an image everywhere says little about where to go), clamped between 23 MiB and 1000 MiB per container and
// scaled to 0..100. Image names are compared in one form: a tag of latest when none is given, and Docker Hub's
// implied registry and library/ namespace written out, so "nginx" on a pod matches "docker.io/library/nginx:latest"
// on a node.
import { maxNodeScore, type PluginSpec } from '../framework.js';
import type { NodeInfo, PodInfo } from '../node-info.js';
import type { Node } from '../types.js';

const mib = 1024 * 1024;
/** below this a sum counts as nothing: small images are quick to pull anyway */
export const minThreshold = 23 * mib;
/** the most one container's image counts */
export const maxContainerThreshold = 1000 * mib;
const stateKey = 'Score/ImageLocality';
const defaultRegistry = 'docker.io';

/** the image name in the one form pods and nodes are compared in */
export function normalizedImageName(image: string): string {
  let name = image;
  // no tag (a colon after the last slash) and no digest: the runtime pulls latest
  if (!name.includes('@') && name.lastIndexOf(':') <= name.lastIndexOf('/')) name += ':latest';
  const slash = name.indexOf('/');
  const first = slash < 0 ? '' : name.slice(0, slash);
  // the first part names a registry when it looks like a host
  const hasRegistry = slash >= 0 && (first.includes('.') || first.includes(':') || first === 'localhost');
  const registry = !hasRegistry ? defaultRegistry : first === 'index.docker.io' ? defaultRegistry : first;
  const path = hasRegistry ? name.slice(slash + 1) : name;
  return registry === defaultRegistry && !path.includes('/') ? `${registry}/library/${path}` : `${registry}/${path}`;
}

/** a node's images by normalized name, with their sizes; read once per version of the Node object */
const imagesByNode = new WeakMap<Node, ReadonlyMap<string, number>>();
export function nodeImages(node: Node): ReadonlyMap<string, number> {
  let images = imagesByNode.get(node);
  if (!images) {
    const m = new Map<string, number>();
    for (const image of node.status?.images ?? []) {
      for (const name of image.names ?? []) m.set(normalizedImageName(name), image.sizeBytes ?? 0);
    }
    images = m;
    imagesByNode.set(node, images);
  }
  return images;
}

/** for one pod: its containers' images and how many of the cluster's nodes have each */
interface Spread { images: string[]; nodesWith: Map<string, number>; totalNodes: number }

function spreadOf(pod: PodInfo, nodes: readonly NodeInfo[]): Spread {
  const images = pod.pod.spec.containers.map((c) => c.image).filter((i): i is string => !!i).map(normalizedImageName);
  const nodesWith = new Map<string, number>(images.map((i) => [i, 0]));
  for (const n of nodes) {
    const present = nodeImages(n.node);
    for (const image of nodesWith.keys()) if (present.has(image)) nodesWith.set(image, nodesWith.get(image)! + 1);
  }
  return { images, nodesWith, totalNodes: nodes.length };
}

/** the sum of the image sizes scaled to 0..100 between the thresholds */
export function imageScore(sum: number, containers: number): number {
  const max = maxContainerThreshold * containers;
  const clamped = Math.min(Math.max(sum, minThreshold), max);
  if (max <= minThreshold) return 0;
  return Math.trunc((maxNodeScore * (clamped - minThreshold)) / (max - minThreshold));
}

export const imageLocality: PluginSpec = {
  name: 'ImageLocality',
  create: (_args, handle) => ({
    name: 'ImageLocality',
    score(state, pod, node) {
      // worked out with the first node scored: the share of nodes with each image is the same for every node
      let spread = state.data.get(stateKey) as Spread | undefined;
      if (!spread) {
        spread = spreadOf(pod, handle.nodes());
        state.data.set(stateKey, spread);
      }
      const present = nodeImages(node.node);
      let sum = 0;
      for (const image of spread.images) {
        const size = present.get(image);
        if (size !== undefined && spread.totalNodes) sum += Math.trunc(size * (spread.nodesWith.get(image)! / spread.totalNodes));
      }
      return imageScore(sum, pod.pod.spec.containers.length);
    },
  }),
};
