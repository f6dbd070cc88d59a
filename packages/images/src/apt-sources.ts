import { readdir, readFile } from "node:fs/promises";
import path from "node:path";

export type AptSource = { uri: string; suites: string[]; components: string[] };
export type DebianMirrors = { archive: string; security: string };

const DEFAULT_MIRRORS: DebianMirrors = {
  archive: "http://deb.debian.org/debian",
  security: "http://deb.debian.org/debian-security",
};

/** Parses one-line (`sources.list`) or deb822 (`*.sources`) text into its `deb` entries. */
export function parseAptSources(text: string): AptSource[] {
  // Whole-line comments are dropped rather than blanked: in deb822 a blank line ends a stanza.
  const lines = text
    .split("\n")
    .filter((l) => !/^\s*#/.test(l))
    .map((l) => l.replace(/#.*$/, "").trimEnd());
  const isDeb822 = lines.some((l) => /^(Types|URIs|Suites):/i.test(l));
  return isDeb822 ? parseDeb822(lines) : parseOneLine(lines);
}

function parseOneLine(lines: string[]): AptSource[] {
  const sources: AptSource[] = [];
  for (const line of lines) {
    const words = line
      .replace(/\[[^\]]*\]/, " ")
      .trim()
      .split(/\s+/);
    const [type, uri, suite, ...components] = words;
    if (type === "deb" && uri && suite) sources.push({ uri, suites: [suite], components });
  }
  return sources;
}

function parseDeb822(lines: string[]): AptSource[] {
  const sources: AptSource[] = [];
  let fields = new Map<string, string>();
  const flush = () => {
    const types = (fields.get("types") ?? "").split(/\s+/);
    const enabled = (fields.get("enabled") ?? "yes").toLowerCase() !== "no";
    const suites = (fields.get("suites") ?? "").split(/\s+/).filter(Boolean);
    const components = (fields.get("components") ?? "").split(/\s+/).filter(Boolean);
    if (types.includes("deb") && enabled) {
      for (const uri of (fields.get("uris") ?? "").split(/\s+/).filter(Boolean)) {
        sources.push({ uri, suites, components });
      }
    }
    fields = new Map();
  };
  let last: string | undefined;
  for (const line of lines) {
    if (line.trim() === "") {
      flush();
      last = undefined;
    } else if (/^\s/.test(line) && last) {
      fields.set(last, `${fields.get(last) ?? ""} ${line.trim()}`);
    } else {
      const match = /^([\w-]+):\s*(.*)$/.exec(line);
      if (match?.[1]) {
        last = match[1].toLowerCase();
        fields.set(last, match[2] ?? "");
      }
    }
  }
  flush();
  return sources;
}

/** The Debian archive and security mirrors the host uses for `suite`, with deb.debian.org as the fallback. */
export function pickDebianMirrors(sources: AptSource[], suite: string): DebianMirrors {
  const archive = sources.find((s) => s.suites.includes(suite) && s.components.includes("main"));
  const security = sources.find((s) => s.suites.includes(`${suite}-security`));
  return {
    archive: archive?.uri.replace(/\/+$/, "") ?? DEFAULT_MIRRORS.archive,
    security: security?.uri.replace(/\/+$/, "") ?? DEFAULT_MIRRORS.security,
  };
}

export async function readHostAptSources(root = "/etc/apt"): Promise<AptSource[]> {
  const files = [path.join(root, "sources.list")];
  const dir = path.join(root, "sources.list.d");
  const entries = await readdir(dir).catch(() => [] as string[]);
  files.push(
    ...entries
      .filter((f) => f.endsWith(".list") || f.endsWith(".sources"))
      .sort()
      .map((f) => path.join(dir, f)),
  );
  const texts = await Promise.all(files.map((f) => readFile(f, "utf8").catch(() => "")));
  return texts.flatMap(parseAptSources);
}
