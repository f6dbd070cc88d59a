export type ImageName =
  | "base"
  | "testbed"
  | "nginx"
  | "haproxy"
  | "k6"
  | "kafka"
  | "rabbitmq"
  | "cassandra"
  | "postgres"
  | "redis"
  | "hotkey-nginx"
  | "ruby"
  | "memcached"
  | "wrk"
  | "toxiproxy"
  | "swarm-node"
  | "registry";

/** The images `ensureImages` builds: every image but the base they are all built on. */
export type BuildableImage = Exclude<ImageName, "base">;

export type ImageProgress = {
  image: ImageName;
  phase: "cached" | "bootstrapping" | "compiling" | "fetching" | "building" | "done";
  step?: number;
  totalSteps?: number;
  message: string;
};

export type EnsureOptions = {
  onProgress?: (p: ImageProgress) => void;
  signal?: AbortSignal;
};
