import { expect, test } from "@playwright/test";
import { uniqueName, waitForRunEnd } from "./helpers";

// The first run of a fresh machine may build the lab images.
const RUN_TIMEOUT = 6 * 60_000;

test("two k6 instances: the run page says the percentiles are of all their requests, merged from histograms", async ({ page, request }) => {
  test.setTimeout(RUN_TIMEOUT + 60_000);
  const res = await request.post("/api/v1/runs", {
    data: {
      name: uniqueName("e2e merged percentiles"),
      topology: { service: { replicas: 1, cpus: 0.5, memoryMb: 128 } },
      workload: { endpoint: "hostname", arrivalRate: 50, durationSeconds: 5, loadgenInstances: 2, loadgenCpus: 0.5 },
    },
  });
  expect(res.status(), await res.text()).toBe(201);
  const { id } = (await res.json()) as { id: string };
  expect((await waitForRunEnd(request, id, RUN_TIMEOUT)).status).toBe("succeeded");
  const run = (await (await request.get(`/api/v1/runs/${id}`)).json()) as { summary: { loadgen: { percentiles?: string } } };
  expect(run.summary.loadgen.percentiles).toBe("merged");

  await page.goto(`/runs/${id}`);
  const note = page.getByTestId("summary-percentiles-merge");
  await expect(note).toContainText("Percentiles are of all 2 load generators' requests together");
  await expect(note).not.toContainText("worst");
});
