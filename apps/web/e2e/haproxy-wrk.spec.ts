import { expect, test } from "@playwright/test";
import { uniqueName, pageRunEnd } from "./helpers";

// The first wrk or HAProxy run of a machine may build their images: minutes on a cold machine.
const RUN_TIMEOUT = 6 * 60_000;

test("HAProxy leastconn with wrk, picked in the form, previews its configs and runs to a per-backend summary", async ({ page }) => {
  test.setTimeout(RUN_TIMEOUT + 2 * 60_000);
  const name = uniqueName("e2e haproxy wrk");

  await page.goto("/runs/new");
  await page.getByTestId("field-name").fill(name);
  await page.getByTestId("field-replicas").fill("2");
  await page.getByTestId("field-cpus").fill("0.5");
  await page.getByTestId("field-balancer.kind").selectOption("haproxy");
  await page.getByTestId("field-haproxyAlgorithm").selectOption("leastconn");
  await page.getByTestId("field-endpoint").selectOption("hostname");
  await page.getByTestId("loadgen-wrk").check();
  // wrk has connections, not virtual users or an arrival rate.
  await expect(page.getByTestId("field-vus")).toHaveCount(0);
  await expect(page.getByTestId("model-open")).toHaveCount(0);
  await page.getByTestId("field-connections").fill("0");
  await expect(page.getByTestId("error-connections")).toContainText("between 1 and 20000");
  await page.getByTestId("field-connections").fill("20");
  await page.getByTestId("field-wrkThreads").fill("1");
  await page.getByTestId("field-durationSeconds").fill("5");

  await page.getByTestId("preview-tab-haproxy").click();
  await expect(page.getByTestId("preview-haproxy")).toContainText("balance leastconn");
  await page.getByTestId("preview-tab-wrk").click();
  await expect(page.getByTestId("preview-wrk")).toContainText("wrk.method");
  await expect(page.getByTestId("topology-diagram").getByTestId("diagram-node-app")).toHaveCount(2);

  await page.getByTestId("submit-run").click();
  await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId("run-name")).toContainText(name);
  const status = page.getByTestId("run-status");
  await pageRunEnd(page, RUN_TIMEOUT);
  const error = (await page.getByTestId("run-error").count()) > 0 ? await page.getByTestId("run-error").textContent() : "";
  expect(await status.getAttribute("data-status"), error ?? "").toBe("succeeded");

  await expect(page.getByTestId("run-setup")).toContainText("wrk, 1 CPU");
  await expect(page.getByTestId("run-setup")).toContainText("haproxy leastconn");
  expect(Number((await page.getByTestId("summary-rps").textContent())?.replace(/[^\d.]/g, ""))).toBeGreaterThan(0);
  const perBackend = page.getByTestId("summary-backends");
  await expect(perBackend.locator("tbody tr")).toHaveCount(2);
  await expect(page.getByTestId("chart-backends")).toBeVisible();
});
