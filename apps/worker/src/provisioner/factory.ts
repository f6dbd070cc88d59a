import Docker from "dockerode";
import { DockerProvisioner } from "./docker";
import { SwarmProvisioner, TEngineConfig } from "./swarm";
import { Provisioner } from "./types";

/** The engine every run has: the worker's own Docker engine. */
export const LOCAL_ENGINE = "local";

/**
 * The provisioner of a run's engine: the local Docker engine, or a stored Swarm engine's config
 * (`lab engine add`). The pipeline wraps it with its deadlines (withDeadlines).
 */
export function provisionerFor(engine: TEngineConfig | typeof LOCAL_ENGINE, local: Docker): Provisioner {
  return engine === LOCAL_ENGINE ? new DockerProvisioner(local) : new SwarmProvisioner(engine, { host: local });
}
