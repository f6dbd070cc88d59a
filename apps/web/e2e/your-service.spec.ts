import { randomUUID } from "node:crypto";
import { gzipSync } from "node:zlib";
import { expect, test, type Page } from "@playwright/test";
import { pack } from "tar-stream";
import { docker, runsNamed, tagNewest, uniqueName, untag, pageRunEnd } from "./helpers";

/**
 * The run form for a user's own service and workload (issue 15), filled in as a user would: the
 * image and its contract with the lab, its dependencies, and the traffic (one request, a mix or
 * a k6 script), with the schema's messages under the fields they are about.
 */

const CHECK = "cpu answers 200";
const SCRIPT = `import http from "k6/http";
import { check } from "k6";

export default function () {
  const res = http.get(\`\${__ENV.SCALELAB_TARGET}/cpu\`);
  check(res, { "${CHECK}": (r) => r.status === 200 });
}
`;

const radio = (page: Page, id: string) => page.getByTestId(id).locator("input");

/** A build context as a user uploads it: a tar.gz of a folder with a Dockerfile. */
async function buildContext(dockerfile: string): Promise<Buffer> {
  const tar = pack();
  tar.entry({ name: "Dockerfile" }, dockerfile);
  tar.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of tar) chunks.push(chunk as Buffer);
  return gzipSync(Buffer.concat(chunks));
}

test("your image: the form shows every dependency and names each bad field under it", async ({ page, request }) => {
  const name = uniqueName("e2e your image invalid");
  await page.goto("/runs/new?kind=image");

  // The presets page's link opens the form on the user's image, sending one request.
  await expect(page.getByTestId("field-serviceKind")).toHaveValue("image");
  await expect(radio(page, "traffic-request")).toBeChecked();
  await expect(page.getByTestId("traffic-endpoint")).toHaveCount(0);
  for (const field of ["image", "servicePort", "healthPath", "env", "command", "method", "requestPath", "headers", "body"]) {
    await expect(page.getByTestId(`field-${field}`), field).toBeVisible();
  }
  // Its dependencies: a store with its init script, a broker when asked for, a cache; none of the testbed's knobs.
  await expect(page.getByTestId("section-downstream")).toHaveCount(0);
  await expect(page.getByTestId("field-threads")).toHaveCount(0);
  await page.getByTestId("field-storage.kind").selectOption("postgres");
  await expect(page.getByTestId("field-storageInit")).toBeVisible();
  await expect(page.getByTestId("field-storage.poolSize")).toHaveCount(0);
  await expect(page.getByTestId("field-broker.kind")).toHaveCount(0);
  await page.getByTestId("include-broker").check();
  await expect(page.getByTestId("field-broker.kind")).toBeVisible();
  await expect(page.getByTestId("field-cache.kind")).toBeVisible();
  await expect(page.getByTestId("dependency-env")).toContainText("DATABASE_URL");
  await expect(page.getByTestId("scale-my-service")).toHaveText("How does it scale? (1, 2, 4 replicas × 3)");

  await page.getByTestId("field-name").fill(name);
  // A bad environment line is named with its line.
  await page.getByTestId("field-env").fill("LOG_LEVEL=info\nnot a pair");
  await page.getByTestId("field-env").blur();
  await expect(page.getByTestId("error-env")).toHaveText("Environment, line 2: NAME=value expected");
  // A body with GET.
  await page.getByTestId("field-body").fill('{"item":"book"}');
  await page.getByTestId("field-body").blur();
  await expect(page.getByTestId("error-body")).toContainText("Body is not sent with GET or HEAD");
  // A variable the lab sets, on its line.
  await page.getByTestId("field-env").fill("LOG_LEVEL=info\nPORT=9000");
  await page.getByTestId("field-env").blur();
  await expect(page.getByTestId("error-env")).toContainText("Environment, line 2: service.env.PORT is set by the lab");

  // No image: named under the Image field when the run is started; nothing is created.
  await page.getByTestId("submit-run").click();
  await expect(page.getByTestId("error-image")).toContainText("Image must name an image");
  await expect(page).toHaveURL(/\/runs\/new\?kind=image$/);

  // Fixed, the same fields are quiet.
  await page.getByTestId("field-env").fill("LOG_LEVEL=info");
  await page.getByTestId("field-method").selectOption("POST");
  await page.getByTestId("field-image").fill("e2e-nowhere:1");
  await expect(page.getByTestId("error-env")).toHaveCount(0);
  await expect(page.getByTestId("error-body")).toHaveCount(0);
  await expect(page.getByTestId("error-image")).toHaveCount(0);
  expect(await runsNamed(request, name)).toEqual([]);
});

test("your workload: a k6 script loaded from a file, and a request mix row by row", async ({ page }) => {
  await page.goto("/runs/new?kind=image");
  await page.getByTestId("traffic-script").click();
  await expect(page.getByTestId("field-method")).toHaveCount(0);
  await expect(page.getByTestId("section-workload")).toContainText("__ENV.SCALELAB_TARGET");

  await page.getByTestId("file-script").setInputFiles({ name: "load.js", mimeType: "text/javascript", buffer: Buffer.from(SCRIPT) });
  await expect(page.getByTestId("field-script")).toHaveValue(SCRIPT);
  // A script may bring its own scenarios: the VUs may be left empty.
  await page.getByTestId("field-vus").fill("");
  await page.getByTestId("field-vus").blur();
  await expect(page.getByTestId("error-vus")).toHaveCount(0);
  await expect(page.getByTestId("error-script")).toHaveCount(0);

  // The mix: rows added and removed, a row's issue on the row.
  await page.getByTestId("traffic-requests").click();
  await expect(page.getByTestId("field-script")).toHaveCount(0);
  await page.getByTestId("add-mix").click();
  await expect(page.getByTestId("mix-row-1")).toBeVisible();
  await page.getByTestId("mix-weight-1").fill("3");
  await page.getByTestId("mix-method-1").selectOption("POST");
  await page.getByTestId("mix-path-1").fill("/orders");
  await page.getByTestId("mix-body-1").fill('{"item":"pen"}');
  await page.getByTestId("mix-body-0").fill("x");
  await page.getByTestId("mix-body-0").blur();
  await expect(page.getByTestId("mix-error-0")).toContainText("not sent with GET or HEAD");
  await expect(page.getByTestId("mix-error-1")).toHaveCount(0);
  await page.getByTestId("remove-mix-0").click();
  await expect(page.getByTestId("mix-row-1")).toHaveCount(0);
  await expect(page.getByTestId("mix-path-0")).toHaveValue("/orders");
});

// The acceptance of issue 15 in the browser: it needs the worker's side of kind image and of a
// script's checks (image-run, workload); the first run of a fresh machine may build lab images.
const RUN_TIMEOUT = 8 * 60_000;

test.describe("a run of your own image", () => {
  const reference = `e2e-your-service:${randomUUID().slice(0, 8)}`;

  // The user's image: the lab's testbed under another name (it serves /cpu and /health on 8080).
  let testbedSource = "";
  const uploaded: string[] = [];
  test.beforeAll(async () => {
    testbedSource = await tagNewest("scalelab/testbed", reference);
  });
  test.afterAll(async () => {
    await untag(reference);
    for (const ref of uploaded) await docker("DELETE", `/images/${encodeURIComponent(ref)}`);
  });

  test("How does it scale? starts the scale-my-service preset with the form's service and workload", async ({ page, request }) => {
    const name = uniqueName("e2e scale my service");
    await page.goto("/runs/new?kind=image");
    // Without an image the preset is not posted: the field says why.
    await page.getByTestId("scale-my-service").click();
    await expect(page.getByTestId("error-image")).toContainText("Image must name an image");
    await expect(page).toHaveURL(/\/runs\/new\?kind=image$/);

    await page.getByTestId("field-name").fill(name);
    await page.getByTestId("field-image").fill(reference);
    await page.getByTestId("field-healthPath").fill("/health");
    await page.getByTestId("field-env").fill("TESTBED_ROLE=service");
    await page.getByTestId("field-requestPath").fill("/cpu");
    await page.getByTestId("scale-my-service").click();
    await page.waitForURL(/\/experiments\/[0-9a-f-]{36}$/);
    const id = new URL(page.url()).pathname.split("/").pop()!;
    // Nine runs are not this test's business: it stops them at once.
    const cancelled = await request.post(`/api/v1/experiments/${id}/cancel`);
    expect(cancelled.status(), await cancelled.text()).toBeLessThan(300);

    const view = (await (await request.get(`/api/v1/experiments/${id}`)).json()) as {
      name: string;
      preset: string;
      repetitions: number;
      definition: { base: { topology: { service: Record<string, unknown> }; workload: Record<string, unknown> }; sweep: unknown[] };
      variants: unknown[];
    };
    expect(view).toMatchObject({ name, preset: "scale-my-service", repetitions: 3 });
    expect(view.variants).toHaveLength(3);
    expect(view.definition.sweep).toEqual([{ field: "topology.service.replicas", values: [1, 2, 4] }]);
    expect(view.definition.base.topology.service).toMatchObject({
      kind: "image",
      image: reference,
      healthPath: "/health",
      env: { TESTBED_ROLE: "service" },
    });
    expect(view.definition.base.workload).toMatchObject({ request: { method: "GET", path: "/cpu" } });
  });

  test("uploaded in the form, with its port, health path and env, under a k6 script: per-backend counts and the script's checks", async ({
    page,
  }) => {
    test.setTimeout(RUN_TIMEOUT + 60_000);
    const name = uniqueName("e2e your image");
    // The user's service: a Dockerfile FROM the lab's testbed (a server on 8080 with /cpu and /health), uploaded and built here.
    const built = `e2e-uploaded:${randomUUID().slice(0, 8)}`;
    const context = await buildContext(`FROM ${testbedSource}\nLABEL org.scalelab.e2e="uploaded in the run form"\n`);
    await page.goto("/runs/new?kind=image");
    await page.getByTestId("field-name").fill(name);
    await page.getByTestId("image-upload").locator("summary").click();
    await page.getByTestId("image-upload-file").setInputFiles({ name: "service.tar.gz", mimeType: "application/gzip", buffer: context });
    await page.getByTestId("image-upload-tag").fill(built);
    await page.getByTestId("image-upload-build").click();
    await expect(page.getByTestId("image-upload-done")).toContainText(`Built ${built}`, { timeout: 120_000 });
    // The built image is the form's, and the engine's list offers it.
    await expect(page.getByTestId("field-image")).toHaveValue(built);
    await expect(page.getByTestId("image-choice").locator("option", { hasText: built })).toHaveCount(1);
    uploaded.push(built);
    await page.getByTestId("field-servicePort").fill("8080");
    await page.getByTestId("field-healthPath").fill("/health");
    await page.getByTestId("field-env").fill("TESTBED_ROLE=service\nTESTBED_GRPC_PORT=0\nTESTBED_CPU_ITERATIONS=1000");
    await page.getByTestId("field-replicas").fill("2");
    await page.getByTestId("traffic-script").click();
    await page.getByTestId("file-script").setInputFiles({ name: "load.js", mimeType: "text/javascript", buffer: Buffer.from(SCRIPT) });
    await page.getByTestId("field-vus").fill("4");
    await page.getByTestId("field-durationSeconds").fill("8");
    await page.getByTestId("submit-run").click();

    await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
    const status = page.getByTestId("run-status");
    await pageRunEnd(page, RUN_TIMEOUT);
    const error = (await page.getByTestId("run-error").count()) > 0 ? await page.getByTestId("run-error").textContent() : "";
    expect(await status.getAttribute("data-status"), error ?? "").toBe("succeeded");

    // The setup shows the image's contract with the lab.
    await expect(page.getByTestId("setup-image")).toHaveText(built);
    await expect(page.getByTestId("setup-port")).toHaveText("8080");
    await expect(page.getByTestId("setup-health-path")).toHaveText("/health");
    await expect(page.getByTestId("run-setup")).toContainText("TESTBED_CPU_ITERATIONS=1000");
    // Both replicas answered, counted without the service's help, and the script's check is on the page.
    await expect(page.getByTestId("chart-backends")).toBeVisible();
    await expect(page.getByTestId("summary-backends")).toContainText("app-0");
    await expect(page.getByTestId("summary-backends")).toContainText("app-1");
    await expect(page.getByTestId("script-checks")).toContainText(CHECK);
  });
});
