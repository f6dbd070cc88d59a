import { ALL_IMAGES, CONTROL_PLANE_IMAGES, CORE_LAB_IMAGES, DEPENDENCY_IMAGES, SWARM_IMAGES, type BuildableImage } from "./index";

export const USAGE = `usage: build-images [--lab] [--control-plane] [--dependencies] [--all] [--swarm] [--image NAME]...   (default: --lab --control-plane)
  --lab            ${CORE_LAB_IMAGES.join(", ")}
  --control-plane  ${CONTROL_PLANE_IMAGES.join(", ")}
  --dependencies   what a topology may add: ${DEPENDENCY_IMAGES.join(", ")}
  --swarm          the test Swarm cluster's: ${SWARM_IMAGES.join(", ")}
  --all            every image: ${ALL_IMAGES.join(", ")}
  --image NAME     one image (repeatable)`;

/** The images the arguments ask for, in build order (control plane first, as the lab needs it). */
export function requestedImages(args: string[]): BuildableImage[] {
  const names: BuildableImage[] = [];
  const known = new Set<string>([...ALL_IMAGES, ...SWARM_IMAGES]);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--lab") names.push(...CORE_LAB_IMAGES);
    else if (arg === "--control-plane") names.unshift(...CONTROL_PLANE_IMAGES);
    else if (arg === "--swarm") names.push(...SWARM_IMAGES);
    else if (arg === "--dependencies") names.push(...DEPENDENCY_IMAGES);
    else if (arg === "--all") names.push(...CONTROL_PLANE_IMAGES, ...ALL_IMAGES);
    else if (arg === "--image" || arg.startsWith("--image=")) {
      const name = arg === "--image" ? args[++i] : arg.slice("--image=".length);
      if (!name) throw new Error(`--image needs a name\n${USAGE}`);
      if (!known.has(name)) throw new Error(`unknown image ${name}; known: ${[...known].join(", ")}`);
      names.push(name as BuildableImage);
    } else throw new Error(`unknown argument ${arg}\n${USAGE}`);
  }
  if (args.length === 0) names.push(...CONTROL_PLANE_IMAGES, ...CORE_LAB_IMAGES);
  return [...new Set(names)];
}
