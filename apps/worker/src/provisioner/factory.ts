import { TEngineConfig } from "@scalelab/scenarios/contract";
import Docker from "dockerode";
import { DockerProvisioner } from "./docker";
import { SwarmProvisioner } from "./swarm";
import { Provisioner } from "./types";

/**
 * The provisioner of a run's engine: the local Docker engine (null, as pipeline/placement.ts
 * engineConfig gives `local`), or a stored Swarm engine's config (`lab engine add`). The pipeline
 * wraps it with its deadlines (withDeadlines).
 */
export function provisionerFor(engine: TEngineConfig | null, local: Docker): Provisioner {
  return engine === null ? new DockerProvisioner(local) : new SwarmProvisioner(engine, { host: local });
}
