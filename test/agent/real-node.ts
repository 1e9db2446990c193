// One real node for the agent's tests: an API server, a private containerd and an agent of the given
// name against both (the pods' ServiceAccount and root-CA ConfigMap made, as controllers would), with the
// helpers the tests share to wait for pods and find their cgroups.
import { join } from 'node:path';
import { startTestServer, type TestServer, type TestServerOptions } from '../../src/testing.js';
import { clientFromFile, type Client, type ResourceClient } from '../../src/client/rest-client.js';
import { parseAgentOptions } from '../../src/agent/options.js';
import { runAgent, type AgentTuning, type RunningAgent } from '../../src/agent/agent.js';
import { podsRef } from '../../src/agent/status-manager.js';
import { startContainerd, type Containerd, type ContainerdOptions } from './containerd.js';
import { ensureDefaultServiceAccount, ensureRootCA, quiet, waitFor } from './helpers.js';

/** how long a condition may take: these machines are shared, and containers start slowly under load */
export const slow = 180_000;

export interface RealNode {
  server: TestServer;
  containerd: Containerd;
  client: Client;
  agent: RunningAgent;
  /** the agent's options as parsed (for its servers) */
  options: Awaited<ReturnType<typeof parseAgentOptions>>['options'];
  pods(): ResourceClient<any>;
  /** the pod once Running with every container running */
  running(name: string): Promise<any>;
  /** a pod's cgroup folder for a controller, or its container's */
  cgroupDir(controller: string, pod: any, container?: string): string;
  stop(): Promise<void>;
}

export async function startRealNode(node: string, flags: string[], tuning: AgentTuning = {}, network: ContainerdOptions = {}, serverOptions: TestServerOptions = {}): Promise<RealNode> {
  // containerd starting under load is the slow part: a second try before giving up
  const containerdOnce = () => startContainerd(network).catch(() => startContainerd(network));
  const [server, containerd] = await Promise.all([startTestServer(serverOptions), containerdOnce()]);
  const client = await clientFromFile(server.kubeconfig);
  await ensureDefaultServiceAccount(client);
  await ensureRootCA(client, server.names.rootCAConfigMap);
  const { options } = await parseAgentOptions([
    `--clusterconfig=${server.kubeconfig}`, `--container-runtime-endpoint=${containerd.endpoint}`, `--hostname-override=${node}`,
    `--root-dir=${containerd.agentRoot}`, `--cert-dir=${join(containerd.dir, 'pki')}`, `--cgroup-root=${containerd.cgroupRoot}`,
    '--node-status-update-frequency=500ms', '--runtime-request-timeout=60s', '--read-only-port=0', '--healthz-port=0', ...flags,
  ]);
  const agent = await runAgent(options, quiet, { leaseDurationSeconds: 5, relistMs: 200, runtimeStatusMs: 300, ...tuning });
  const pods = () => client.resource(podsRef, 'default');
  const idOf = (p: any, container: string) => p.status.containerStatuses.find((s: any) => s.name === container).containerID.replace(/^containerd:\/\//, '');
  return {
    server, containerd, client, agent, options, pods,
    running: (name) => waitFor(`${name} Running`, async () => {
      const p = await pods().get(name);
      return p.status?.phase === 'Running' && p.status.containerStatuses?.every((s: any) => s.state.running) && p;
    }, slow, 200),
    cgroupDir(controller, p, container) {
      const qos = p.status.qosClass === 'Guaranteed' ? '' : `/${p.status.qosClass.toLowerCase()}`;
      return `/sys/fs/cgroup/${controller}${containerd.cgroupRoot}/kubepods${qos}/pod${p.metadata.uid}${container ? `/${idOf(p, container)}` : ''}`;
    },
    async stop() {
      await agent.stop();
      client.close();
      await containerd.stop();
      await server.close();
    },
  };
}
