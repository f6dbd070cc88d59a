import { describe, expect, it } from "vitest";
import { parseAptSources, pickDebianMirrors } from "./apt-sources";
import { baseSourcesList } from "./base";

const DEB822 = `Types: deb
# http://snapshot.debian.org/archive/debian/20250520T000000Z
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
`;

const ONE_LINE = `# local mirror
deb [arch=amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://mirror.example.net/debian/ bookworm main contrib
deb-src http://mirror.example.net/debian bookworm main
deb http://mirror.example.net/debian bookworm-updates main
deb http://security.example.net/debian-security bookworm-security main
deb https://packages.cloud.google.com/apt cloud-sdk-bookworm main
`;

describe("parseAptSources", () => {
  it("reads deb822 stanzas, one entry per URI, ignoring comments", () => {
    expect(parseAptSources(DEB822)).toEqual([
      { uri: "http://deb.debian.org/debian", suites: ["bookworm", "bookworm-updates"], components: ["main"] },
      { uri: "http://deb.debian.org/debian-security", suites: ["bookworm-security"], components: ["main"] },
    ]);
  });

  it("reads one-line entries with options, skipping deb-src", () => {
    const sources = parseAptSources(ONE_LINE);
    expect(sources).toHaveLength(4);
    expect(sources[0]).toEqual({ uri: "http://mirror.example.net/debian/", suites: ["bookworm"], components: ["main", "contrib"] });
  });

  it("skips disabled deb822 stanzas", () => {
    expect(parseAptSources(DEB822.replace("Types: deb\n#", "Types: deb\nEnabled: no\n#"))).toHaveLength(1);
  });
});

describe("pickDebianMirrors", () => {
  it("finds the archive and security mirrors of the suite", () => {
    expect(pickDebianMirrors(parseAptSources(DEB822), "bookworm")).toEqual({
      archive: "http://deb.debian.org/debian",
      security: "http://deb.debian.org/debian-security",
    });
    expect(pickDebianMirrors(parseAptSources(ONE_LINE), "bookworm")).toEqual({
      archive: "http://mirror.example.net/debian",
      security: "http://security.example.net/debian-security",
    });
  });

  it("falls back to deb.debian.org when the host has no entry for the suite", () => {
    const sources = parseAptSources("deb http://archive.ubuntu.com/ubuntu jammy main\n");
    expect(pickDebianMirrors(sources, "bookworm")).toEqual({
      archive: "http://deb.debian.org/debian",
      security: "http://deb.debian.org/debian-security",
    });
  });

  it("renders the base image's sources.list from the mirrors", () => {
    expect(baseSourcesList({ archive: "http://m/debian", security: "http://s/debian-security" })).toBe(
      "deb http://m/debian bookworm main\ndeb http://m/debian bookworm-updates main\ndeb http://s/debian-security bookworm-security main\n",
    );
  });
});
