import { randomUUID } from "node:crypto";
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type APIRequestContext } from "@playwright/test";

// The e2e web listens on loopback: tokens are optional there but checked when sent. No runs.
const TOKEN = /^slb_[A-Za-z0-9_-]{43}$/;

const asBearer = (request: APIRequestContext, token: string) =>
  request.get("/api/v1/tokens", { headers: { authorization: `Bearer ${token}` } });

test("a token made on /tokens is shown once, works, and is refused once revoked", async ({ page, request }) => {
  const name = `e2e token ${randomUUID().slice(0, 8)}`;
  await page.goto("/tokens");
  await expect(page.getByRole("heading", { name: "API tokens" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Tokens" })).toHaveAttribute("aria-current", "page");
  // The list comes from the client's query: once it is there, the form is hydrated.
  await expect(page.getByTestId("tokens").or(page.getByTestId("tokens-empty"))).toBeVisible();

  // A bad name is refused on its field, naming the range.
  await page.getByTestId("token-create").click();
  await expect(page.locator("#token-name-hint")).toHaveText(/1–80 characters/);

  await page.getByTestId("token-name").fill(name);
  await page.getByTestId("token-create").click();
  const shown = page.getByTestId("token-new");
  await expect(shown).toContainText("you will not see it again");
  const token = (await page.getByTestId("token-value").textContent())!.trim();
  expect(token).toMatch(TOKEN);
  expect((await asBearer(request, token)).status()).toBe(200);

  const row = page.getByTestId("token-row").filter({ hasText: name });
  await expect(row).toContainText(`${token.slice(0, 10)}…`);
  await expect(row.getByTestId("token-status")).toHaveText("active");
  const axe = await new AxeBuilder({ page }).analyze();
  expect(axe.violations.map((v) => `${v.id}: ${v.help}`)).toEqual([]);

  // Shown once: after a reload the page holds only its first characters.
  await page.reload();
  await expect(row).toBeVisible();
  await expect(page.getByTestId("token-new")).toHaveCount(0);
  expect(await page.content()).not.toContain(token);

  // Revoke asks first; keeping it keeps it.
  await row.getByTestId("token-revoke").click();
  const dialog = page.getByTestId("confirm-revoke-dialog");
  await expect(dialog).toContainText(`Revoke token “${name}”?`);
  await dialog.getByRole("button", { name: "Keep it" }).click();
  await expect(row.getByTestId("token-status")).toHaveText("active");
  await row.getByTestId("token-revoke").click();
  await page.getByTestId("confirm-revoke").click();
  await expect(row.getByTestId("token-status")).toContainText("revoked");
  await expect(row.getByTestId("token-revoke")).toHaveCount(0);

  const refused = await asBearer(request, token);
  expect(refused.status()).toBe(401);
  expect(refused.headers()["www-authenticate"]).toMatch(/^Bearer/);
  expect(await refused.json()).toMatchObject({ error: "unauthorized" });
});

test("/login opens a session with a token (an HttpOnly, SameSite=Lax cookie) and logs out", async ({ page, request, context }) => {
  const created = await request.post("/api/v1/tokens", { data: { name: `e2e login ${randomUUID().slice(0, 8)}` } });
  expect(created.status()).toBe(201);
  const { token, name } = (await created.json()) as { token: string; name: string };

  await page.goto("/login?next=%2Ftokens");
  // Enabled only by the hydrated form once there is text.
  await page.getByTestId("login-token").fill("x");
  await expect(page.getByTestId("login-submit")).toBeEnabled();
  await page.getByTestId("login-token").fill("slb_not-a-token");
  await page.getByTestId("login-submit").click();
  await expect(page.getByTestId("login-error")).toHaveText(/slb_ and 43 characters/);

  await page.getByTestId("login-token").fill(token);
  await page.getByTestId("login-submit").click();
  await expect(page).toHaveURL(/\/tokens$/);
  const cookie = (await context.cookies()).find((c) => c.name === "scalelab_session");
  expect(cookie).toMatchObject({ value: token, httpOnly: true, sameSite: "Lax", secure: false });

  await page.goto("/login");
  await expect(page.getByTestId("login-session")).toContainText(`“${name}”`);
  await page.getByTestId("logout").click();
  await expect(page.getByTestId("login-session")).toHaveCount(0);
  expect((await context.cookies()).find((c) => c.name === "scalelab_session")).toBeUndefined();
});

test("/login returns only to a page of the lab: /login?next=/%09/evil.com lands on the home page", async ({ page, request, baseURL }) => {
  const created = await request.post("/api/v1/tokens", { data: { name: `e2e next ${randomUUID().slice(0, 8)}` } });
  expect(created.status()).toBe(201);
  const { token } = (await created.json()) as { token: string };
  await page.goto("/login?next=/%09/evil.com");
  await page.getByTestId("login-token").fill(token);
  await page.getByTestId("login-submit").click();
  await expect(page).toHaveURL(new URL("/", baseURL).href);
});
