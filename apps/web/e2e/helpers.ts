import { randomUUID } from "node:crypto";
import { expect, type APIRequestContext, type Page } from "@playwright/test";

export const uniqueName = (prefix: string) => `${prefix} ${randomUUID().slice(0, 8)}`;

export type RunView = { id: string; name: string | null; status: string; step: string; summary: { rps: number } | null };

const TERMINAL = ["succeeded", "failed", "cancelled", "interrupted"];

/** The runs of that exact name (found by the API's name search, newest first). */
export async function runsNamed(request: APIRequestContext, name: string): Promise<RunView[]> {
  const res = await request.get(`/api/v1/runs?limit=500&q=${encodeURIComponent(name)}`);
  expect(res.status()).toBe(200);
  return ((await res.json()) as { items: RunView[] }).items.filter((r) => r.name === name);
}

/** Polls the REST API until the run is terminal and returns it. */
export async function waitForRunEnd(request: APIRequestContext, id: string, timeoutMs: number): Promise<RunView> {
  let run: RunView | undefined;
  await expect
    .poll(
      async () => {
        const res = await request.get(`/api/v1/runs/${id}`);
        run = (await res.json()) as RunView;
        return TERMINAL.includes(run.status);
      },
      { timeout: timeoutMs, intervals: [1_000] },
    )
    .toBe(true);
  return run!;
}

/**
 * One call to the Docker Engine API over its socket (no CLI, no shell): what a spec needs to set
 * up an image of its own, e.g. a user's image made by tagging one the lab already has.
 */
export async function docker(method: string, path: string): Promise<{ status: number; body: unknown }> {
  const { request } = await import("node:http");
  // The engine's default socket, as the worker's (SCALELAB_DOCKER_SOCKET is the worker's to read).
  const socketPath = "/var/run/docker.sock";
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, method, path: `/v1.41${path}` }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : null;
        } catch {
          // Not JSON: the text as it is.
        }
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    req.on("error", reject);
    req.end();
  });
}

/** Tags the newest image of `repository` on the engine as `target` (`name:tag`); returns the source's reference. */
export async function tagNewest(repository: string, target: string): Promise<string> {
  const filters = encodeURIComponent(JSON.stringify({ reference: [repository] }));
  const list = await docker("GET", `/images/json?filters=${filters}`);
  const images = (list.body as { Id: string; Created: number; RepoTags: string[] | null }[]).sort((a, b) => b.Created - a.Created);
  const source = images[0]?.RepoTags?.find((t) => t.startsWith(`${repository}:`));
  expect(source, `an image ${repository} on the engine (scripts/up.sh builds it)`).toBeTruthy();
  const [repo, tag] = target.split(":");
  const tagged = await docker(
    "POST",
    `/images/${encodeURIComponent(source!)}/tag?repo=${encodeURIComponent(repo!)}&tag=${encodeURIComponent(tag!)}`,
  );
  expect(tagged.status, JSON.stringify(tagged.body)).toBe(201);
  return source!;
}

/** Removes the tag `target` (the image itself stays while other tags name it). */
export async function untag(target: string): Promise<void> {
  await docker("DELETE", `/images/${encodeURIComponent(target)}?noprune=true`);
}

/**
 * The run this page shows, to its end: from the API first (up to `timeoutMs`: a fresh machine may
 * build images), then the page's own status within 30 s of it. A page whose live stream stalled
 * fails in half a minute, and is retried, rather than at the run's bound (a suite lost 9 min so).
 */
export async function pageRunEnd(page: Page, timeoutMs: number): Promise<void> {
  const id = new URL(page.url()).pathname.split("/").pop()!;
  await waitForRunEnd(page.request, id, timeoutMs);
  await expect(page.getByTestId("run-status")).toHaveAttribute("data-status", /^(succeeded|failed|cancelled|interrupted)$/, {
    timeout: 30_000,
  });
}
