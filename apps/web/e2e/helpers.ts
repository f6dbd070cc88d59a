import { randomUUID } from "node:crypto";
import { expect, type APIRequestContext } from "@playwright/test";

export const uniqueName = (prefix: string) => `${prefix} ${randomUUID().slice(0, 8)}`;

export type RunView = { id: string; name: string | null; status: string; step: string; summary: { rps: number } | null };

const TERMINAL = ["succeeded", "failed", "cancelled", "interrupted"];

export async function runsNamed(request: APIRequestContext, name: string): Promise<RunView[]> {
  const res = await request.get("/api/v1/runs?limit=500");
  expect(res.status()).toBe(200);
  return ((await res.json()) as RunView[]).filter((r) => r.name === name);
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
