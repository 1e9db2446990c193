// The fake runtime: nothing runs. Sandboxes and containers are records that go Running as soon as
// they start; pod annotations make containers exit after a while with a code, or make probes fail
// (see `agentUsage`). One instance per simulated node; they are cheap enough for thousands of pods.

import { randomUUID } from 'node:crypto';
import type { Naming } from '../../api/naming.js';
import { fakeAnnotation } from '../options.js';
import type { ContainerConfig, ContainerInfo, ContainerRuntime, ImageInfo, SandboxConfig, SandboxInfo } from './types.js';

interface FakeContainer extends ContainerInfo {
  annotations: Record<string, string>;
  timer?: NodeJS.Timeout;
}

export function fakeRuntime(nodeName: string, names: Naming): ContainerRuntime {
  const sandboxes = new Map<string, SandboxInfo & { annotations: Record<string, string> }>();
  const containers = new Map<string, FakeContainer>();
  const images = new Map<string, ImageInfo>();

  /** an annotation for one container (`key.<container>`) wins over the pod-wide one */
  const setting = (annotations: Record<string, string>, container: string, what: string) => {
    const key = fakeAnnotation(names, what);
    return annotations[`${key}.${container}`] ?? annotations[key];
  };

  return {
    async version() {
      return { name: 'fake', version: '1.0.0' };
    },
    async ready() {},
    async runSandbox(c: SandboxConfig) {
      const id = randomUUID().replaceAll('-', '');
      sandboxes.set(id, { id, uid: c.uid, name: c.name, namespace: c.namespace, attempt: c.attempt, ready: true, createdAt: Date.now(), ip: undefined, annotations: c.annotations });
      return id;
    },
    async stopSandbox(id) {
      const s = sandboxes.get(id);
      if (s) s.ready = false;
      for (const c of containers.values()) if (c.sandboxId === id) stop(c, 137, 'Error');
    },
    async removeSandbox(id) {
      sandboxes.delete(id);
      for (const c of [...containers.values()]) if (c.sandboxId === id) forget(c);
    },
    async listSandboxes() {
      return [...sandboxes.values()];
    },
    async sandboxInfo(id) {
      return sandboxes.get(id);
    },
    async ensureImage(image) {
      const ref = `sha256:${Buffer.from(image).toString('hex').padEnd(64, '0').slice(0, 64)}`;
      if (!images.has(ref)) images.set(ref, { id: ref, names: [image], size: 1_000_000 + image.length });
      return ref;
    },
    async listImages() {
      return [...images.values()];
    },
    async removeImage(id) {
      images.delete(id);
    },
    async createContainer(sandboxId, sandbox, c: ContainerConfig) {
      if (!sandboxes.has(sandboxId)) throw new Error(`sandbox ${sandboxId} not found`);
      const id = `${nodeName}/${sandbox.uid}/${c.name}/${c.attempt}`;
      containers.set(id, {
        id, sandboxId, name: c.name, attempt: c.attempt, state: 'created', image: c.image, imageRef: await this.ensureImage(c.image),
        createdAt: Date.now(), labels: c.labels, annotations: sandbox.annotations,
      });
      return id;
    },
    async startContainer(id) {
      const c = containers.get(id);
      if (!c) throw new Error(`container ${id} not found`);
      c.state = 'running';
      c.startedAt = Date.now();
      const runFor = setting(c.annotations, c.name, 'run-for');
      if (runFor !== undefined) {
        const { parseDuration } = await import('../../config/flags.js');
        const code = Number(setting(c.annotations, c.name, 'exit-code') ?? 0);
        c.timer = setTimeout(() => stop(c, code, code === 0 ? 'Completed' : 'Error'), parseDuration(runFor));
        c.timer.unref();
      }
    },
    async stopContainer(id) {
      const c = containers.get(id);
      if (c) stop(c, 137, 'Error');
    },
    async removeContainer(id) {
      const c = containers.get(id);
      if (c) forget(c);
    },
    async listContainers(sandboxId) {
      const all = [...containers.values()];
      return (sandboxId ? all.filter((c) => c.sandboxId === sandboxId) : all).map(({ timer: _t, annotations: _a, ...info }) => info);
    },
    async probe(container, _sandbox, kind) {
      const c = containers.get(container.id);
      const value = c && setting(c.annotations, c.name, kind === 'readiness' ? 'ready' : kind);
      return !(value === 'fail' || value === 'false');
    },
    logPath() {
      return undefined;
    },
    close() {
      for (const c of containers.values()) clearTimeout(c.timer);
    },
  };

  function stop(c: FakeContainer, exitCode: number, reason: string) {
    clearTimeout(c.timer);
    if (c.state !== 'running' && c.state !== 'created') return;
    c.state = 'exited';
    c.exitCode = exitCode;
    c.reason = reason;
    c.finishedAt = Date.now();
  }

  function forget(c: FakeContainer) {
    clearTimeout(c.timer);
    containers.delete(c.id);
  }
}
