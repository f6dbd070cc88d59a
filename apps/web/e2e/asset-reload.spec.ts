import { expect, test } from "@playwright/test";

/*
 * A page whose own chunk fails to load (as Chromium drops requests with net::ERR_NETWORK_CHANGED
 * while Docker adds and removes interfaces beside it) reloads itself once and then works, rather
 * than showing "Application error" or never hydrating (src/lib/asset-reload.ts).
 */
for (const { what, path, chunk, ready } of [
  { what: "a page chunk loaded while hydrating", path: "/runs", chunk: /\/_next\/static\/chunks\/app\/runs\/page-/, ready: "runs-search" },
  { what: "the app's main chunk", path: "/presets", chunk: /\/_next\/static\/chunks\/main-app-/, ready: "preset" },
]) {
  test(`a page whose ${what} failed to load once reloads itself and hydrates`, async ({ page }) => {
    let aborted = 0;
    await page.route(chunk, async (route) => {
      if (aborted++ === 0) return route.abort("internetdisconnected");
      return route.continue();
    });
    // The page's document is asked for twice: once, and once more by the reload.
    let documents = 0;
    page.on("request", (r) => void (r.resourceType() === "document" && r.frame() === page.mainFrame() && documents++));
    await page.goto(path);
    const el = page.getByTestId(ready).first();
    await expect(el).toBeVisible();
    // Hydrated: React has taken the server's HTML over (its fiber is on the element).
    await expect
      .poll(() => el.evaluate((node) => Object.keys(node).some((k) => k.startsWith("__reactFiber"))), { timeout: 30_000 })
      .toBe(true);
    await expect(page.getByText("Application error")).toHaveCount(0);
    expect(aborted).toBeGreaterThanOrEqual(2);
    expect(documents).toBe(2);
  });
}
