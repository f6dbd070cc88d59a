import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CASSANDRA_JARS, ensureJars, jarArch, jarSetKey, KAFKA_JARS, keepJar, mavenPom, type JarSet } from "./maven";

describe("mavenPom", () => {
  it("lists each dependency with its version and exclusions", () => {
    const pom = mavenPom(KAFKA_JARS);
    const deps = [...pom.matchAll(/<dependency>([\s\S]*?)<\/dependency>/g)].map((m) => m[1]!);
    expect(deps.map((d) => /<artifactId>(.*)<\/artifactId>/.exec(d)?.[1])).toEqual([
      "kafka_2.13",
      "kafka-tools",
      "log4j-core",
      "log4j-slf4j-impl",
    ]);
    expect(deps[0]).toContain("<version>4.1.1</version>");
    const tools = deps[1]!;
    expect(tools).toMatch(
      /<exclusions>\s*<exclusion>\s*<groupId>org\.apache\.kafka<\/groupId>\s*<artifactId>connect-runtime<\/artifactId>\s*<\/exclusion>\s*<\/exclusions>/,
    );
    expect(deps[0]).not.toContain("<exclusions>");
    expect(pom).toContain("<packaging>pom</packaging>");
  });

  it("refuses coordinates that are not plain Maven names", () => {
    const bad: JarSet = { name: "x", version: "1", dependencies: [{ groupId: "a</groupId><x>", artifactId: "b", version: "1" }] };
    expect(() => mavenPom(bad)).toThrow(/invalid Maven groupId/);
    expect(() => mavenPom({ ...CASSANDRA_JARS, version: "5.0.9 ; rm" })).toThrow(/invalid Maven version/);
  });
});

describe("keepJar", () => {
  it("keeps plain jars and only the host's own Linux natives", () => {
    const names = [
      "cassandra-all-5.0.9.jar",
      "jffi-1.3.11-native.jar",
      "netty-tcnative-boringssl-static-2.0.70.Final.jar",
      "netty-tcnative-boringssl-static-2.0.70.Final-linux-x86_64.jar",
      "netty-tcnative-boringssl-static-2.0.70.Final-linux-aarch_64.jar",
      "netty-tcnative-boringssl-static-2.0.70.Final-osx-x86_64.jar",
      "netty-tcnative-boringssl-static-2.0.70.Final-windows-x86_64.jar",
      "netty-transport-native-epoll-4.1.130.Final-linux-riscv64.jar",
      "netty-resolver-dns-native-macos-4.1.130.Final-osx-aarch_64.jar",
      "netty-transport-classes-kqueue-4.1.130.Final.jar",
      "README.txt",
    ];
    expect(names.filter((n) => keepJar(n, jarArch("x64")))).toEqual([
      "cassandra-all-5.0.9.jar",
      "jffi-1.3.11-native.jar",
      "netty-tcnative-boringssl-static-2.0.70.Final.jar",
      "netty-tcnative-boringssl-static-2.0.70.Final-linux-x86_64.jar",
      "netty-transport-classes-kqueue-4.1.130.Final.jar",
    ]);
    expect(names.filter((n) => keepJar(n, jarArch("arm64")))).toContain("netty-tcnative-boringssl-static-2.0.70.Final-linux-aarch_64.jar");
    expect(names.filter((n) => keepJar(n, jarArch("arm64")))).not.toContain(
      "netty-tcnative-boringssl-static-2.0.70.Final-linux-x86_64.jar",
    );
  });
});

describe("jarSetKey", () => {
  it("names the set and version and changes with the recipe and the architecture", () => {
    const key = jarSetKey(KAFKA_JARS, "x86_64");
    expect(key).toMatch(/^kafka-4\.1\.1-[0-9a-f]{12}$/);
    expect(jarSetKey(KAFKA_JARS, "x86_64")).toBe(key);
    expect(jarSetKey(KAFKA_JARS, "aarch_64")).not.toBe(key);
    expect(jarSetKey({ ...KAFKA_JARS, dependencies: KAFKA_JARS.dependencies.slice(0, 1) }, "x86_64")).not.toBe(key);
  });
});

describe("ensureJars with a stand-in mvn", () => {
  let dir: string;
  let mvn: string;
  const set: JarSet = { name: "demo", version: "1.0", dependencies: [{ groupId: "org.example", artifactId: "demo", version: "1.0" }] };

  // Records each invocation, then behaves like copy-dependencies: writes jars into -DoutputDirectory.
  const fakeMvn = (body: string) => `#!/bin/bash
echo "$*" >> "${"$"}(dirname "$0")/calls"
[ "$1" = --version ] && { echo "Apache Maven 3.8.7"; exit 0; }
for a in "$@"; do case "$a" in -DoutputDirectory=*) out="${"$"}{a#-DoutputDirectory=}";; esac; done
${body}
`;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "scalelab-maven-"));
    mvn = path.join(dir, "mvn");
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const calls = async () => (await readFile(path.join(dir, "calls"), "utf8").catch(() => "")).trim().split("\n").filter(Boolean);
  const opts = () => ({ cacheDir: path.join(dir, "cache"), mvn, installMaven: false, arch: "x86_64" });

  it("resolves once, filters foreign natives, and serves the second call from the cache", async () => {
    await writeFile(mvn, fakeMvn('mkdir -p "$out" && touch "$out/demo-1.0.jar" "$out/n-1-linux-x86_64.jar" "$out/n-1-osx-x86_64.jar"'), {
      mode: 0o755,
    });
    const messages: string[] = [];
    const jars = await ensureJars(set, { ...opts(), onMessage: (m) => messages.push(m) });
    expect((await readdir(jars)).sort()).toEqual(["demo-1.0.jar", "n-1-linux-x86_64.jar"]);
    expect(jars).toBe(path.join(dir, "cache", "jars", jarSetKey(set, "x86_64")));
    const copyCall = (await calls()).find((c) => c.includes("copy-dependencies"));
    expect(copyCall).toMatch(/maven-dependency-plugin:3\.8\.1:copy-dependencies -DincludeScope=runtime/);
    expect(copyCall).toMatch(/-Dmaven\.repo\.local=\S+\.tmp-\d+\/repository/);
    expect(messages.at(-1)).toMatch(/2 jars of demo 1\.0/);

    const before = (await calls()).length;
    expect(await ensureJars(set, opts())).toBe(jars);
    expect((await calls()).length).toBe(before);
    expect(await readdir(path.join(dir, "cache", "jars"))).toEqual([path.basename(jars)]);
  });

  it("reports mvn's failure and leaves nothing in the cache", async () => {
    await writeFile(mvn, fakeMvn('echo "[ERROR] Could not resolve dependencies for project" >&2; exit 1'), { mode: 0o755 });
    await expect(ensureJars(set, opts())).rejects.toThrow(
      /fetching the demo 1\.0 jars with Maven failed[\s\S]*Could not resolve dependencies/,
    );
    expect(await readdir(path.join(dir, "cache", "jars"))).toEqual([]);
  });

  it("stops mvn when aborted", async () => {
    await writeFile(mvn, fakeMvn('touch "$(dirname "$0")/started"; sleep 30'), { mode: 0o755 });
    const controller = new AbortController();
    const started = Date.now();
    const pending = ensureJars(set, { ...opts(), signal: controller.signal });
    const poll = setInterval(() => {
      readFile(path.join(dir, "started")).then(
        () => controller.abort(new Error("cancelled by test")),
        () => {},
      );
    }, 20);
    try {
      await expect(pending).rejects.toThrow("cancelled by test");
    } finally {
      clearInterval(poll);
    }
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(await readdir(path.join(dir, "cache", "jars"))).toEqual([]);
  });

  it("says what to install when mvn is missing and may not be installed here", async () => {
    await expect(ensureJars(set, { ...opts(), mvn: path.join(dir, "no-such-mvn") })).rejects.toThrow(/apt-get install maven/);
  });
});
