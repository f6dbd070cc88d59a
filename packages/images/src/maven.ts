import { createHash } from "node:crypto";
import { access, copyFile, mkdir, readdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { childEnv } from "./env";
import { execTool } from "./exec";

export type MavenCoordinate = { groupId: string; artifactId: string };
export type MavenDependency = MavenCoordinate & { version: string; exclusions?: MavenCoordinate[] };

/** The runtime jars of a set of Maven artifacts, resolved from Maven Central and cached by version. */
export type JarSet = { name: string; version: string; dependencies: MavenDependency[] };

export const KAFKA_VERSION = "4.1.1";
export const CASSANDRA_VERSION = "5.0.9";
const LOG4J_VERSION = "2.24.3";

export const KAFKA_JARS: JarSet = {
  name: "kafka",
  version: KAFKA_VERSION,
  dependencies: [
    { groupId: "org.apache.kafka", artifactId: "kafka_2.13", version: KAFKA_VERSION },
    {
      groupId: "org.apache.kafka",
      artifactId: "kafka-tools",
      version: KAFKA_VERSION,
      exclusions: [{ groupId: "org.apache.kafka", artifactId: "connect-runtime" }],
    },
    { groupId: "org.apache.logging.log4j", artifactId: "log4j-core", version: LOG4J_VERSION },
    { groupId: "org.apache.logging.log4j", artifactId: "log4j-slf4j-impl", version: LOG4J_VERSION },
  ],
};

export const CASSANDRA_JARS: JarSet = {
  name: "cassandra",
  version: CASSANDRA_VERSION,
  dependencies: [{ groupId: "org.apache.cassandra", artifactId: "cassandra-all", version: CASSANDRA_VERSION }],
};

// Pinned: without a version Maven 3.8 would pick the super POM's 2.8 from 2013.
export const DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1";

const COORDINATE = /^[A-Za-z0-9_.-]+$/;

function checked(value: string, what: string): string {
  if (!COORDINATE.test(value)) throw new Error(`invalid Maven ${what} ${JSON.stringify(value)}`);
  return value;
}

/** A throwaway pom whose only purpose is to list the dependencies to copy. */
export function mavenPom(set: JarSet): string {
  const coordinate = (c: MavenCoordinate, indent: string) =>
    `${indent}<groupId>${checked(c.groupId, "groupId")}</groupId>\n${indent}<artifactId>${checked(c.artifactId, "artifactId")}</artifactId>\n`;
  const dependency = (d: MavenDependency) => {
    let xml = `    <dependency>\n${coordinate(d, "      ")}      <version>${checked(d.version, "version")}</version>\n`;
    if (d.exclusions?.length) {
      xml += "      <exclusions>\n";
      for (const e of d.exclusions) xml += `        <exclusion>\n${coordinate(e, "          ")}        </exclusion>\n`;
      xml += "      </exclusions>\n";
    }
    return `${xml}    </dependency>\n`;
  };
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<project xmlns="http://maven.apache.org/POM/4.0.0">',
    "  <modelVersion>4.0.0</modelVersion>",
    "  <groupId>scalelab.images</groupId>",
    `  <artifactId>${checked(set.name, "name")}-jars</artifactId>`,
    `  <version>${checked(set.version, "version")}</version>`,
    "  <packaging>pom</packaging>",
    "  <dependencies>",
    `${set.dependencies.map(dependency).join("")}  </dependencies>`,
    "</project>",
    "",
  ].join("\n");
}

const normalArch = (arch: string) => arch.replace(/_/g, "").toLowerCase();
const HOST_ARCH: Record<string, string> = { x64: "x86_64", arm64: "aarch_64", riscv64: "riscv64", ppc64: "ppcle_64", s390x: "s390_64" };

/** The native-library classifier suffix jars carry for a Node `process.arch` (Maven's os-maven-plugin names). */
export function jarArch(nodeArch: string): string {
  return HOST_ARCH[nodeArch] ?? nodeArch;
}

/**
 * Whether a resolved jar belongs in a Linux image for `arch`: jars carrying another platform's
 * native library (`…-osx-x86_64.jar`, `…-linux-aarch_64.jar`, `…-windows-x86_64.jar`) are left out.
 */
export function keepJar(fileName: string, arch: string): boolean {
  if (!fileName.endsWith(".jar")) return false;
  const native = /-(linux|osx|windows|macos)-([a-z0-9_]+)\.jar$/.exec(fileName);
  if (!native) return true;
  return native[1] === "linux" && normalArch(native[2]!) === normalArch(arch);
}

/** Cache directory name: the set's name and version, plus a hash of the pom, the plugin and the architecture. */
export function jarSetKey(set: JarSet, arch: string): string {
  const hash = createHash("sha256").update(mavenPom(set)).update(`\0${DEPENDENCY_PLUGIN}\0${arch}`).digest("hex").slice(0, 12);
  return `${set.name}-${set.version}-${hash}`;
}

export type JarOptions = {
  cacheDir: string;
  /** The mvn command; when it cannot be started and `installMaven` is set, `apt-get install maven` first. */
  mvn: string;
  installMaven: boolean;
  arch: string;
  onMessage?: (message: string) => void;
  signal?: AbortSignal;
};

/**
 * Returns a directory holding the runtime jars of `set`, resolved once from Maven Central with
 * `mvn dependency:copy-dependencies` (a generated pom and a private local repository in a temp
 * dir) and kept under the cache dir, so later builds need neither Maven nor the network.
 */
export async function ensureJars(set: JarSet, opts: JarOptions): Promise<string> {
  const dir = path.join(opts.cacheDir, "jars", jarSetKey(set, opts.arch));
  if (await exists(dir)) return dir;

  await ensureMaven(opts);
  const started = Date.now();
  opts.onMessage?.(`mvn: resolving the runtime jars of ${set.name} ${set.version} from Maven Central`);
  const tmp = `${dir}.tmp-${process.pid}`;
  await rm(tmp, { recursive: true, force: true });
  await mkdir(tmp, { recursive: true });
  try {
    const pom = path.join(tmp, "pom.xml");
    const resolved = path.join(tmp, "resolved");
    await writeFile(pom, mavenPom(set));
    await execTool(
      opts.mvn,
      [
        "--batch-mode",
        "--quiet",
        "--file",
        pom,
        `-Dmaven.repo.local=${path.join(tmp, "repository")}`,
        `${DEPENDENCY_PLUGIN}:copy-dependencies`,
        "-DincludeScope=runtime",
        `-DoutputDirectory=${resolved}`,
      ],
      { cwd: tmp, signal: opts.signal },
    );
    const jars = (await readdir(resolved)).filter((f) => keepJar(f, opts.arch)).sort();
    if (jars.length === 0) throw new Error(`mvn resolved no jars for ${set.name} ${set.version}`);
    const out = path.join(tmp, "jars");
    await mkdir(out);
    for (const jar of jars) await copyFile(path.join(resolved, jar), path.join(out, jar));
    // Another process may have finished the same set meanwhile: its copy is as good as ours.
    await rename(out, dir).catch(async (err: Error) => {
      if (!(await exists(dir))) throw err;
    });
    opts.onMessage?.(`mvn: ${jars.length} jars of ${set.name} ${set.version} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } catch (err) {
    if (opts.signal?.aborted) throw opts.signal.reason;
    throw new Error(`fetching the ${set.name} ${set.version} jars with Maven failed: ${(err as Error).message}`, { cause: err });
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  return dir;
}

let installing: Promise<void> | undefined;

async function ensureMaven(opts: JarOptions): Promise<void> {
  const missing = await execTool(opts.mvn, ["--version"], { signal: opts.signal }).then(
    () => false,
    (err: Error) => {
      if (opts.signal?.aborted) throw err;
      if (/failed to start/.test(err.message)) return true;
      throw new Error(`${opts.mvn} --version failed: ${err.message}`, { cause: err });
    },
  );
  if (!missing) return;
  if (!opts.installMaven) {
    throw new Error(
      `Maven (${opts.mvn}) is needed to fetch the Kafka and Cassandra jars from Maven Central: install it (apt-get install maven) or set SCALELAB_MVN to its path`,
    );
  }
  installing ??= installMaven(opts).finally(() => {
    installing = undefined;
  });
  await installing;
}

async function installMaven(opts: JarOptions): Promise<void> {
  opts.onMessage?.("mvn is missing: apt-get install maven");
  const aptEnv = childEnv({ DEBIAN_FRONTEND: "noninteractive" });
  try {
    // Maven needs a JRE, and Debian's fails to configure on minimal systems without this directory.
    await mkdir("/usr/share/man/man1", { recursive: true });
    await execTool("apt-get", ["update"], { env: aptEnv, signal: opts.signal });
    await execTool("apt-get", ["install", "-y", "--no-install-recommends", "maven"], { env: aptEnv, signal: opts.signal });
  } catch (err) {
    if (opts.signal?.aborted) throw err;
    throw new Error(`Maven is missing and installing it with apt-get failed; install Maven (mvn) yourself: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

async function exists(p: string): Promise<boolean> {
  return access(p).then(
    () => true,
    () => false,
  );
}
