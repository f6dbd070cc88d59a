import Docker from "dockerode";
import { env } from "./env";
import { ensureControlPlaneImages, ensureLabImages, type ImageProgress } from "./index";

const USAGE = "usage: build-images [--lab] [--control-plane]   (default: both)";

async function main(args: string[]): Promise<void> {
  const unknown = args.filter((a) => a !== "--lab" && a !== "--control-plane");
  if (unknown.length) throw new Error(`unknown argument ${unknown.join(" ")}\n${USAGE}`);
  const both = args.length === 0;
  const docker = new Docker({ socketPath: env.dockerSocket });
  await docker.ping().catch((err: Error) => {
    throw new Error(`cannot reach Docker at ${env.dockerSocket}: ${err.message}`);
  });

  const started = Date.now();
  const onProgress = (p: ImageProgress) => {
    const t = ((Date.now() - started) / 1000).toFixed(1).padStart(6);
    const step = p.step !== undefined ? ` ${p.step}/${p.totalSteps}` : "";
    console.log(`[${t}s] ${p.image.padEnd(8)} ${p.phase}${step}  ${p.message}`);
  };
  if (both || args.includes("--control-plane")) {
    const images = await ensureControlPlaneImages(docker, { onProgress });
    console.log(`control plane: ${Object.values(images).join(" ")}`);
  }
  if (both || args.includes("--lab")) {
    const images = await ensureLabImages(docker, { onProgress });
    console.log(`lab: ${images.testbed} ${images.nginx} ${images.k6} (k6 ${images.k6Version})`);
  }
}

main(process.argv.slice(2)).catch((err: Error) => {
  console.error(`build-images failed: ${err.message}`);
  process.exit(1);
});
