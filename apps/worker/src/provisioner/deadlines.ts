import { deadline } from "../pipeline/context";
import { STOP_GRACE_SECONDS, Provisioner } from "./types";

/**
 * The provisioner with a deadline on every call but the stats, output and event streams (which end on
 * their own signal): a Docker engine that stops answering fails the step instead of hanging the worker.
 * Removal gets three times as long, since a teardown must finish whenever it can.
 */
export function withDeadlines(p: Provisioner, ms: number, opts: { startFactor?: number } = {}): Provisioner {
  const startFactor = opts.startFactor ?? 2;
  const d = <T>(what: string, promise: Promise<T>, factor = 1) => deadline(promise, ms * factor, `the Docker engine (${what})`);
  return {
    createNetwork: (spec) => d("create network", p.createNetwork(spec)),
    startContainer: (spec, network) => d(`start ${spec.name}`, p.startContainer(spec, network), startFactor),
    putFiles: (id, files) => d("copy files", p.putFiles(id, files)),
    // Create, copy, start, the run itself, logs and removal.
    runIsolated: (spec, timeoutMs) => d(`run ${spec.name}`, p.runIsolated(spec, timeoutMs), 4 + timeoutMs / ms),
    inspect: (id, network) => d("inspect", p.inspect(id, network)),
    dialAddress: (id, network, port) => d("inspect", p.dialAddress(id, network, port)),
    logs: (id, lines) => d("logs", p.logs(id, lines)),
    stats: (id, signal) => p.stats(id, signal),
    followOutput: (id, signal) => p.followOutput(id, signal),
    containerEvents: (labels, actions, since, signal) => p.containerEvents(labels, actions, since, signal),
    waitExit: (id, timeoutMs) => d("wait", p.waitExit(id, timeoutMs), 1 + timeoutMs / ms),
    stop: (id, timeoutSeconds) => d("stop", p.stop(id, timeoutSeconds), 1 + (timeoutSeconds * 1000) / ms),
    // stop and restart wait up to the grace period for the process to exit.
    act: (id, action) => d(action, p.act(id, action), 1 + (STOP_GRACE_SECONDS * 1000) / ms),
    removeByLabel: (labels) => d("remove", p.removeByLabel(labels), 3),
    labelValues: (label, where) => d("list", p.labelValues(label, where)),
    hostFacts: () => d("info", p.hostFacts()),
    nodes: () => d("nodes", p.nodes()),
    // Pushing a run's images to a cluster's registry moves hundreds of MB the first time.
    prepareImages: (images, signal) => d("push images", p.prepareImages(images, signal), 20),
    // A probe per node, each pulled from the registry when its node lacks the image (as a start).
    nodeCpuProbes: (nodes, probe) => d("start the nodes' CPU probes", p.nodeCpuProbes(nodes, probe), startFactor),
  };
}
