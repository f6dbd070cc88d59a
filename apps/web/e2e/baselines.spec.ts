import { expect, test } from "@playwright/test";
import { uniqueName, waitForRunEnd } from "./helpers";

// Two 5 s runs; the first run of a fresh machine may build the lab images.
const RUN_TIMEOUT = 6 * 60_000;

/*
 * A baseline through the dashboard: a named run marked as the baseline of its name with its
 * button; the next run of the name, at a quarter of the first's arrival rate (the open model, so
 * its req/s is known), waits for its end and then shows the regression against it; the history page charts both with the
 * baseline marked and lists each verdict.
 */
test("a run marked as the baseline: the next run of its name shows the regression, and the history page marks the baseline", async ({
  page,
  request,
}) => {
  test.setTimeout(2 * RUN_TIMEOUT);
  const name = uniqueName("e2e baseline");
  const create = async (arrivalRate: number) => {
    const res = await request.post("/api/v1/runs", {
      data: {
        name,
        topology: { balancer: { kind: "none" }, service: { replicas: 1, cpus: 0.5, memoryMb: 64 } },
        workload: { endpoint: "hostname", arrivalRate, durationSeconds: 5 },
      },
    });
    expect(res.status(), await res.text()).toBe(201);
    return ((await res.json()) as { id: string }).id;
  };
  const finish = async (id: string) => {
    expect((await waitForRunEnd(request, id, RUN_TIMEOUT)).status).toBe("succeeded");
    return id;
  };
  const start = async (arrivalRate: number) => finish(await create(arrivalRate));

  const base = await start(40);
  await page.goto(`/runs/${base}`);
  await page.getByTestId("mark-baseline").click();
  await expect(page.getByTestId("unmark-baseline")).toBeVisible();
  await expect(page.getByTestId("run-is-baseline")).toBeVisible();
  // A run created before any baseline has no check.
  await expect(page.getByTestId("regression")).toHaveCount(0);

  // While the next one is in progress its check waits for its end, and the disabled button says
  // why beside it (the run takes provisioning plus 5 s of load: long enough for the page to load).
  const slower = await create(10);
  await page.goto(`/runs/${slower}`);
  const card = page.getByTestId("regression");
  await expect(card).toHaveAttribute("data-ended", "false");
  await expect(page.getByTestId("regression-verdict")).toContainText("Waiting for the run to end");
  await expect(page.getByTestId("mark-baseline")).toBeDisabled();
  await expect(page.getByTestId("mark-baseline-why")).toHaveText("Only a run that succeeded can be a baseline");
  await expect(page.getByTestId("mark-baseline")).toHaveAccessibleDescription("Only a run that succeeded can be a baseline");
  await finish(slower);
  await page.reload();
  await expect(card.getByRole("heading", { level: 2 })).toContainText(`Compared with the baseline of \u201c${name}\u201d`);
  await expect(page.getByTestId("mark-baseline-why")).toHaveCount(0);
  await expect(card).toHaveAttribute("data-verdict", "regressed");
  await expect(page.getByTestId("regression-verdict")).toContainText("Regression: worse than the baseline");
  await expect(page.getByTestId("regression-baseline")).toHaveAttribute("href", `/runs/${base}`);
  const rps = card.getByTestId("regression-result").first();
  await expect(rps).toHaveAttribute("data-regressed", "true");
  await expect(rps).toContainText("one run cannot tell noise from a change");

  // Its history: two points, the first the baseline, the second regressed; both charts mark the baseline.
  await page.getByTestId("run-history").click();
  await expect(page).toHaveURL(/\/history\?name=.*&kind=run$/);
  const points = page.getByTestId("history-point");
  await expect(points).toHaveCount(2);
  await expect(points.nth(0)).toHaveAttribute("data-baseline", "true");
  await expect(points.nth(1)).toHaveAttribute("data-verdict", "regressed");
  for (const chart of ["history-rps", "history-p95"]) {
    await expect(page.getByTestId(chart)).toHaveAttribute("data-points", "2");
    await expect(page.getByTestId(chart)).toHaveAttribute("data-baseline", "1");
    await expect(page.getByTestId(chart).locator(".recharts-reference-line")).toHaveCount(1);
  }
});
