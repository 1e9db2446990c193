// ImageLocality: image names compared in one form, the score from the sizes of the images a node has scaled by how
// many nodes have them and clamped per container, and a pod placed on the node that has its large image.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newCycleState } from '../framework.js';
import { podInfo } from '../node-info.js';
import { fakeCluster, node, pod } from '../testing/cluster.js';
import { imageScore, maxContainerThreshold, minThreshold, normalizedImageName } from './image-locality.js';

const mib = 1024 * 1024;

test('image names: latest when no tag, Docker Hub\'s registry and library namespace written out', () => {
  assert.equal(normalizedImageName('nginx'), 'docker.io/library/nginx:latest');
  assert.equal(normalizedImageName('nginx:1.25'), 'docker.io/library/nginx:1.25');
  assert.equal(normalizedImageName('docker.io/nginx'), 'docker.io/library/nginx:latest');
  assert.equal(normalizedImageName('index.docker.io/library/nginx:1'), 'docker.io/library/nginx:1');
  assert.equal(normalizedImageName('team/app:2'), 'docker.io/team/app:2');
  assert.equal(normalizedImageName('localhost:5000/app'), 'localhost:5000/app:latest');
  assert.equal(normalizedImageName('registry.example/a/b@sha256:abcd'), 'registry.example/a/b@sha256:abcd');
  assert.equal(normalizedImageName('docker.io/library/busybox:latest'), 'docker.io/library/busybox:latest');
});

test('the score: the thresholds clamp the sum, per container', () => {
  assert.equal(imageScore(0, 1), 0);
  assert.equal(imageScore(minThreshold, 1), 0);
  assert.equal(imageScore(maxContainerThreshold, 1), 100);
  assert.equal(imageScore(5 * maxContainerThreshold, 1), 100);
  assert.equal(imageScore(maxContainerThreshold, 2), Math.trunc((100 * (maxContainerThreshold - minThreshold)) / (2 * maxContainerThreshold - minThreshold)));
  assert.equal(imageScore(0, 0), 0);
});

test('nodes score by the images they have, scaled by the share of nodes that have them; the pod goes where its image is', async () => {
  const c = fakeCluster({
    nodes: [
      node('has-it', { images: [{ names: ['docker.io/library/app@sha256:1234', 'docker.io/library/app:latest'], sizeBytes: 500 * mib }] }),
      node('bare'),
      node('small', { images: [{ names: ['app'], sizeBytes: 10 * mib }] }),
    ],
  });
  const plugin = c.s.frameworks.get('default-scheduler')!.plugins.get('ImageLocality')!;
  const p = pod('p');
  p.spec.containers = [{ name: 'c', image: 'app' }];
  const state = newCycleState();
  const score = (n: string) => plugin.score!(state, podInfo(p), c.s.cache.node(n)!);
  // two of three nodes have it: 500 MiB counts as 2/3 of itself
  const scaled = Math.trunc(500 * mib * (2 / 3));
  assert.equal(score('has-it'), Math.trunc((100 * (scaled - minThreshold)) / (maxContainerThreshold - minThreshold)));
  assert.equal(score('has-it'), 31);
  assert.equal(score('bare'), 0);
  // under the lower threshold
  assert.equal(score('small'), 0);
  c.add(p);
  await c.run();
  assert.equal(c.nodeOf('p'), 'has-it');
});
