import { expect, test } from "@playwright/test";
import { uniqueName, pageRunEnd } from "./helpers";

// The first async run of a machine may build the Kafka image: several minutes on a cold machine.
const RUN_TIMEOUT = 8 * 60_000;

test("an async topology built in the form shows its broker, fills the lag chart live and produces events", async ({ page }) => {
  test.setTimeout(RUN_TIMEOUT + 2 * 60_000);
  const name = uniqueName("e2e async");

  await page.goto("/runs/new");
  await page.getByTestId("field-name").fill(name);
  await page.getByTestId("field-replicas").fill("1");
  await page.getByTestId("field-cpus").fill("0.2");
  await page.getByTestId("field-endpoint").selectOption("cpu");
  await page.getByTestId("field-downstream.mode").selectOption("async");
  await page.getByTestId("field-downstream.replicas").fill("1");
  await page.getByTestId("field-downstream.cpus").fill("0.2");
  await page.getByTestId("field-broker.kind").selectOption("kafka");
  await page.getByTestId("field-broker.memoryMb").fill("512");
  await page.getByTestId("model-closed").check();
  await page.getByTestId("field-vus").fill("1");
  await page.getByTestId("field-durationSeconds").fill("10");

  // What will be built: one replica handing its events to Kafka, one consumer reading them.
  const planned = page.getByTestId("topology-diagram");
  await expect(planned.getByTestId("diagram-node-app")).toHaveCount(1);
  await expect(planned.getByTestId("diagram-node-kafka")).toHaveCount(1);
  await expect(planned.getByTestId("diagram-node-kafka")).toContainText("512 MB");
  await expect(planned.getByTestId("diagram-node-consumer")).toHaveCount(1);
  await expect(planned.getByTestId("diagram-node-consumer")).toContainText("0.2 CPU");
  await expect(planned.locator('path[data-kind="async"]')).toHaveCount(2);
  await page.getByTestId("preview-tab-server").click();
  await expect(page.getByTestId("preview-server")).toContainText("num.partitions=1");

  await page.getByTestId("submit-run").click();
  await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId("run-name")).toContainText(name);

  // Count the lag chart's seconds from inside the page while the run goes (test round trips are too slow).
  await page.evaluate(() => {
    const seen: number[] = [];
    (window as unknown as { __lagPoints: number[] }).__lagPoints = seen;
    setInterval(() => {
      const n = Number(document.querySelector('[data-testid="chart-lag"]')?.getAttribute("data-points") ?? 0);
      if (seen.at(-1) !== n) seen.push(n);
    }, 100);
  });
  const status = page.getByTestId("run-status");
  await pageRunEnd(page, RUN_TIMEOUT);
  const error = (await page.getByTestId("run-error").count()) > 0 ? await page.getByTestId("run-error").textContent() : "";
  expect(await status.getAttribute("data-status"), error ?? "").toBe("succeeded");

  const counts = (await page.evaluate(() => (window as unknown as { __lagPoints: number[] }).__lagPoints)).filter((n) => n > 0);
  expect(counts.length, `lag chart point counts seen live: ${counts.join(", ")}`).toBeGreaterThanOrEqual(2);
  expect(counts, "the lag chart only ever gains seconds").toEqual([...counts].sort((a, b) => a - b));
  expect(Math.max(...counts)).toBeGreaterThanOrEqual(5);
  const lagChart = page.getByTestId("chart-lag");
  // Charts below the first screen are drawn when scrolled near.
  await lagChart.scrollIntoViewIfNeeded();
  await expect(lagChart.locator(".recharts-line")).toHaveCount(3);
  expect(await lagChart.locator(".recharts-line-dot").count()).toBeGreaterThan(0);

  const produced = page.getByTestId("summary-broker-produced");
  await expect(produced).toBeVisible();
  expect(Number(await produced.getAttribute("data-value"))).toBeGreaterThan(0);
  expect(Number(await page.getByTestId("summary-broker-consumed").getAttribute("data-value"))).toBeGreaterThan(0);

  // The run page's diagram is the run's own plan: its boxes carry the broker's and the consumer's measured CPU.
  const built = page.getByTestId("topology-diagram");
  await expect(built.getByTestId("diagram-node-kafka")).toHaveAttribute("data-cpu", /^\d/);
  await expect(built.getByTestId("diagram-node-consumer")).toHaveAttribute("data-cpu", /^\d/);
});
