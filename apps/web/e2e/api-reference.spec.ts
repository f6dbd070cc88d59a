import { expect, test } from "@playwright/test";

test("the API reference renders the OpenAPI document with its request examples, from this lab alone", async ({
  page,
  request,
  baseURL,
}) => {
  const origin = new URL(baseURL!).host;
  const elsewhere: string[] = [];
  page.on("request", (r) => {
    const url = new URL(r.url());
    if (!["data:", "blob:"].includes(url.protocol) && url.host !== origin) elsewhere.push(r.url());
  });

  await page.goto("/reference");
  const reference = page.getByTestId("api-reference");
  await expect(reference.locator(".info .title")).toContainText("Scalelab API");
  // Every operation of the document is listed.
  const doc = (await (await request.get("/api/v1/openapi.json")).json()) as { paths: Record<string, Record<string, unknown>> };
  const operations = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
  await expect(reference.locator(".opblock")).toHaveCount(operations);

  // POST /runs: its named examples, each a body that can be sent as it is.
  const create = reference.locator("#operations-runs-runs-create");
  await create.locator(".opblock-summary").first().click();
  const examples = create.locator(".examples-select select");
  // As many as the document names (runs on the lab's service, on an image, with thresholds, …).
  const post = doc.paths["/runs"]!["post"] as { requestBody: { content: { "application/json": { examples: Record<string, unknown> } } } };
  const named = Object.keys(post.requestBody.content["application/json"].examples).length;
  expect(named).toBeGreaterThanOrEqual(4);
  await expect(examples.locator("option")).toHaveCount(named);
  await expect(examples).toHaveAttribute("aria-label", "Example");
  await expect(create.locator(".body-param__example, .highlight-code").first()).toContainText('"round_robin"');
  await examples.selectOption({ label: "HAProxy (least connections) in front of 2 replicas, loaded by wrk" });
  await expect(create.locator(".body-param__example, .highlight-code").first()).toContainText('"leastconn"');

  // The JSON stays at its URL.
  expect((await request.get("/api/v1/openapi.json")).headers()["content-type"]).toContain("application/json");
  expect(elsewhere, "requests that left this lab").toEqual([]);
});
