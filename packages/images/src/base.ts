import { cp, mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type Docker from "dockerode";
import { pickDebianMirrors, readHostAptSources, type DebianMirrors } from "./apt-sources";
import { followStream, imageExists } from "./docker-stream";
import { env } from "./env";
import { execTool } from "./exec";
import { contextHash, readTree } from "./hash";
import type { EnsureOptions } from "./types";

export const BASE_REPO = "scalelab/base";
/**
 * A stable name of the current base, for users' Dockerfiles (`FROM scalelab/base:bookworm`: Debian
 * 12 with the host's apt mirror, where no registry can be reached); moved to each new base.
 */
export const BASE_ALIAS = `${BASE_REPO}:bookworm`;
const UPSTREAM = "debian:bookworm-slim";
const SUITE = "bookworm";
const VARIANT = "minbase";
const OVERLAY_DIR = fileURLToPath(new URL("../contexts/base/rootfs", import.meta.url));

export function baseSourcesList(mirrors: DebianMirrors, suite = SUITE): string {
  return [
    `deb ${mirrors.archive} ${suite} main`,
    `deb ${mirrors.archive} ${suite}-updates main`,
    `deb ${mirrors.security} ${suite}-security main`,
    "",
  ].join("\n");
}

/**
 * Returns the full tag of the lab's Debian base: the upstream slim image when it is present
 * or pullable, otherwise a rootfs bootstrapped from the host's mirror and `docker import`ed.
 * The registry is only tried when neither base exists yet.
 */
export async function ensureBase(docker: Docker, opts: EnsureOptions = {}): Promise<string> {
  const tag = await ensureBaseImage(docker, opts);
  await docker.getImage(tag).tag({ repo: BASE_REPO, tag: BASE_ALIAS.slice(BASE_REPO.length + 1) });
  return tag;
}

async function ensureBaseImage(docker: Docker, opts: EnsureOptions): Promise<string> {
  const emit = (phase: "cached" | "bootstrapping" | "building" | "done", message: string) =>
    opts.onProgress?.({ image: "base", phase, message });

  const local = await imageId(docker, UPSTREAM);
  if (local) return tagUpstream(docker, local, emit);

  const mirrors = pickDebianMirrors(await readHostAptSources(), SUITE);
  const sourcesList = baseSourcesList(mirrors);
  const overlay = await readTree(OVERLAY_DIR);
  const recipe = JSON.stringify({ suite: SUITE, variant: VARIANT, arch: process.arch });
  const hash = contextHash(
    [
      ...overlay.map((f) => ({ ...f, path: `rootfs/${f.path}` })),
      { path: "recipe", content: recipe },
      { path: "sources.list", content: sourcesList },
    ],
    "",
  );
  const tag = `${BASE_REPO}:${hash}`;
  if (await imageExists(docker, tag)) {
    emit("cached", tag);
    return tag;
  }

  const pulled = await pullUpstream(docker);
  if (pulled) return tagUpstream(docker, pulled, emit);

  const tarball = path.join(env.cacheDir, "base", `${hash}.tar`);
  if (await isFile(tarball)) {
    emit("building", `importing cached rootfs ${tarball}`);
  } else {
    emit("bootstrapping", `no ${UPSTREAM} available: debootstrap --variant=${VARIANT} ${SUITE} from ${mirrors.archive} (a minute or more)`);
    await bootstrapRootfs(tarball, mirrors, sourcesList, (line) => emit("bootstrapping", line), opts.signal);
    emit("building", `importing ${tarball}`);
  }
  const stream = await docker.importImage(tarball, {
    repo: BASE_REPO,
    tag: hash,
    changes: ["LABEL scalelab.image=true", 'CMD ["bash"]', "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],
    abortSignal: opts.signal,
  });
  await followStream(docker, stream);
  emit("done", tag);
  return tag;
}

async function tagUpstream(docker: Docker, upstreamId: string, emit: (phase: "cached" | "done", message: string) => void): Promise<string> {
  const hash = contextHash([{ path: "upstream", content: upstreamId }], "");
  const tag = `${BASE_REPO}:${hash}`;
  if (await imageExists(docker, tag)) {
    emit("cached", tag);
  } else {
    await docker.getImage(UPSTREAM).tag({ repo: BASE_REPO, tag: hash });
    emit("done", `${tag} (tagged ${UPSTREAM})`);
  }
  return tag;
}

async function imageId(docker: Docker, ref: string): Promise<string | undefined> {
  try {
    return (await docker.getImage(ref).inspect()).Id;
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) return undefined;
    throw err;
  }
}

async function pullUpstream(docker: Docker): Promise<string | undefined> {
  try {
    await followStream(docker, await docker.pull(UPSTREAM));
  } catch {
    return undefined; // no registry reachable: bootstrap instead
  }
  return imageId(docker, UPSTREAM);
}

async function bootstrapRootfs(
  tarball: string,
  mirrors: DebianMirrors,
  sourcesList: string,
  onLine: (line: string) => void,
  signal?: AbortSignal,
): Promise<void> {
  const rootfs = `${tarball}.rootfs`;
  await removeRootfs(rootfs);
  await mkdir(rootfs, { recursive: true });
  try {
    const seenVerbs = new Set<string>();
    await execTool("debootstrap", [`--variant=${VARIANT}`, SUITE, rootfs, mirrors.archive], {
      signal,
      onLine: (line) => {
        // Per-package lines ("Retrieving libc6 2.36", "Extracting bash...") only once per verb.
        const perPackage = /^I: (\w+) (?:\S+ \S+|[^ ]+\.\.\.)$/.exec(line);
        if (!perPackage) onLine(line);
        else if (!seenVerbs.has(perPackage[1]!)) {
          seenVerbs.add(perPackage[1]!);
          onLine(`${line.replace(/\.\.\.$/, "")} ...`);
        }
      },
    }).catch((err: Error) => {
      if (signal?.aborted) throw err;
      throw new Error(`bootstrapping the base image failed (is debootstrap installed and the mirror reachable?): ${err.message}`);
    });
    await cp(OVERLAY_DIR, rootfs, { recursive: true });
    await writeFile(path.join(rootfs, "etc/apt/sources.list"), sourcesList);
    for (const dir of ["var/lib/apt/lists", "var/cache/apt", "usr/share/man", "usr/share/info", "usr/share/locale"]) {
      await rm(path.join(rootfs, dir), { recursive: true, force: true });
      await mkdir(path.join(rootfs, dir), { recursive: true });
    }
    await mkdir(path.join(rootfs, "var/lib/apt/lists/partial"), { recursive: true });
    await mkdir(path.join(rootfs, "var/cache/apt/archives/partial"), { recursive: true });
    onLine(`packing ${tarball}`);
    await execTool("tar", ["--numeric-owner", "-C", rootfs, "-cf", `${tarball}.tmp`, "."], { signal });
    await rename(`${tarball}.tmp`, tarball);
  } finally {
    await removeRootfs(rootfs);
    await rm(`${tarball}.tmp`, { force: true });
  }
}

/**
 * debootstrap mounts /proc (and, inside a container, binds /dev) into the target; a killed
 * run can leave them mounted, and a plain recursive delete would then walk into the host's.
 */
async function removeRootfs(rootfs: string): Promise<void> {
  const mounts = (await readFile("/proc/self/mounts", "utf8"))
    .split("\n")
    .map((line) => line.split(" ")[1]?.replace(/\\040/g, " "))
    .filter((m): m is string => !!m && (m === rootfs || m.startsWith(`${rootfs}/`)))
    .sort((a, b) => b.length - a.length);
  for (const mount of mounts) await execTool("umount", ["--lazy", mount]);
  await execTool("rm", ["-rf", "--one-file-system", rootfs]);
}

async function isFile(file: string): Promise<boolean> {
  return stat(file).then(
    (s) => s.isFile(),
    () => false,
  );
}
