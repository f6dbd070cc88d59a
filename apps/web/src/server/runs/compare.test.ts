import { describe, expect, it, vi } from "vitest";
import { createRestHandler } from "../rest/handler";
import { appRouter } from "../routers/_app";
import { fakeDeps } from "../testing";
import { createTrpcHandler } from "../trpc-http";

const API = "http://lab.test/api/v1";
const TRPC = "http://lab.test/api/trpc";

function setup() {
  const { deps, calls } = fakeDeps();
  const rest = createRestHandler({ router: appRouter, createContext: () => ({ deps }), log: vi.fn() });
  const trpc = createTrpcHandler({ router: appRouter, createContext: () => ({ deps }), log: () => {} });
  const viaTrpc = (input: unknown) => trpc(new Request(`${TRPC}/runs.compare?input=${encodeURIComponent(JSON.stringify(input))}`));
  return { rest, viaTrpc, calls };
}

const ids = (n: number) => Array.from({ length: n }, (_, i) => `run-${i + 1}`);
const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as Record<string, unknown> });

describe("compare's input errors name the field and its range, in REST and tRPC alike", () => {
  it("more than 20 ids is a 400 naming ids and the range, before any query", async () => {
    const { rest, viaTrpc, calls } = setup();
    const { status, body } = await json(await rest(new Request(`${API}/compare?ids=${ids(21).join(",")}`)));
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: "invalid_input", issues: [{ path: "ids", message: "ids must name between 2 and 20 runs" }] });
    const res = await viaTrpc({ ids: ids(21) });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: { data: { code: "BAD_REQUEST", issues: [{ path: "ids", message: "ids must name between 2 and 20 runs" }] } },
    });
    expect(calls.findMany).toEqual([]);
  });

  it("20 ids pass the range; ids no run has are a 404 naming ids and each unknown id", async () => {
    const { rest, viaTrpc, calls } = setup();
    const { status, body } = await json(await rest(new Request(`${API}/compare?ids=${ids(20).join(",")}`)));
    expect(calls.findMany).toHaveLength(1);
    expect(status).toBe(404);
    expect(body).toMatchObject({
      error: "not_found",
      message: `ids must name existing runs; no run has the id ${ids(20).join(", ")}`,
    });
    const res = await viaTrpc({ ids: ["x", "y"] });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({
      error: { message: "ids must name existing runs; no run has the id x, y", data: { code: "NOT_FOUND" } },
    });
  });

  it("a baseline that is not one of ids is a 400 naming baseline and the id, before any query", async () => {
    const { rest, viaTrpc, calls } = setup();
    const { status, body } = await json(await rest(new Request(`${API}/compare?ids=a,b&baseline=c`)));
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: "invalid_input", issues: [{ path: "baseline", message: "baseline must be one of ids; got c" }] });
    const res = await viaTrpc({ ids: ["a", "b"], baseline: "" });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: { data: { code: "BAD_REQUEST", issues: [{ path: "baseline", message: "baseline must not be blank" }] } },
    });
    expect(calls.findMany).toEqual([]);
  });
});
