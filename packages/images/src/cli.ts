import Docker from "dockerode";
import { requestedImages, USAGE } from "./cli-args";
import { env } from "./env";
import { ensureImages, K6_VERSION, type ImageProgress } from "./index";

async function main(args: string[]): Promise<void> {
  if (args.includes("--help") || args.includes("-h")) {
    console.log(USAGE);
    return;
  }
  const names = requestedImages(args);
  const docker = new Docker({ socketPath: env.dockerSocket });
  await docker.ping().catch((err: Error) => {
    throw new Error(`cannot reach Docker at ${env.dockerSocket}: ${err.message}`);
  });

  const controller = new AbortController();
  process.once("SIGINT", () => controller.abort(new Error("interrupted")));
  process.once("SIGTERM", () => controller.abort(new Error("terminated")));

  const started = Date.now();
  const onProgress = (p: ImageProgress) => {
    const t = ((Date.now() - started) / 1000).toFixed(1).padStart(6);
    const step = p.step !== undefined ? ` ${p.step}/${p.totalSteps}` : "";
    console.log(`[${t}s] ${p.image.padEnd(9)} ${p.phase}${step}  ${p.message}`);
  };
  const tags = await ensureImages(docker, names, { onProgress, signal: controller.signal });
  for (const name of names) console.log(`${name.padEnd(9)} ${tags[name]}${name === "k6" ? ` (k6 ${K6_VERSION})` : ""}`);
}

main(process.argv.slice(2)).catch((err: Error) => {
  console.error(`build-images failed: ${err.message}`);
  process.exit(1);
});
