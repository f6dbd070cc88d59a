import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// scripts/lib.sh check_compose_settings, as scripts/compose.sh runs it before `docker compose up`:
// Compose would put a bad value into a port mapping or the web's environment as it is.
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

function check(settings: Record<string, string>): { ok: boolean; stderr: string } {
  // Only PATH of this process's environment, and the settings given.
  const assignments = Object.entries({ SCALELAB_COMPOSE_ENV_FILE: "/nonexistent/scalelab-test.env", ...settings }).map(
    ([k, v]) => `${k}=${v}`,
  );
  const r = spawnSync(
    "bash",
    ["-c", 'exec env -i PATH="$PATH" "$@" bash -c "source scripts/lib.sh && check_compose_settings"', "check", ...assignments],
    {
      cwd: ROOT,
      encoding: "utf8",
    },
  );
  return { ok: r.status === 0, stderr: r.stderr };
}

describe("check_compose_settings", () => {
  it("takes an IPv4 address for SCALELAB_WEB_BIND, and nothing else", () => {
    for (const bind of ["127.0.0.1", "0.0.0.0", "192.168.1.40", "255.255.255.255"])
      expect(check({ SCALELAB_WEB_BIND: bind }).ok, bind).toBe(true);
    for (const bind of ["localhost", "::1", "0.0.0.0:3000", "256.1.1.1", "1.2.3", "127.0.0.1 -p 22", "127.0.0.01x"]) {
      const r = check({ SCALELAB_WEB_BIND: bind });
      expect(r.ok, bind).toBe(false);
      expect(r.stderr).toMatch(/SCALELAB_WEB_BIND must be an IPv4 address/);
    }
  });

  it("checks what it passes on to the web: SCALELAB_AUTH and SCALELAB_ALLOWED_HOSTS", () => {
    expect(check({}).ok).toBe(true);
    expect(check({ SCALELAB_AUTH: "required", SCALELAB_ALLOWED_HOSTS: "lab.example.org,10.0.0.5" }).ok).toBe(true);
    expect(check({ SCALELAB_AUTH: "on" }).stderr).toMatch(/SCALELAB_AUTH must be auto or required/);
    expect(check({ SCALELAB_ALLOWED_HOSTS: "https://lab.example.org" }).stderr).toMatch(/SCALELAB_ALLOWED_HOSTS must be host names/);
  });
});
