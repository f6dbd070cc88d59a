import os from "node:os";
import path from "node:path";

export const env = {
  cacheDir: process.env.SCALELAB_CACHE_DIR || path.join(os.homedir(), ".cache", "scalelab"),
  dockerSocket: process.env.SCALELAB_DOCKER_SOCKET || "/var/run/docker.sock",
  goBin: process.env.SCALELAB_GO || "go",
  mvnBin: process.env.SCALELAB_MVN || "mvn",
};

/** The environment host tools (go, mvn, debootstrap, tar) run with: this process's, plus overrides. */
export const childEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ ...process.env, ...extra });
