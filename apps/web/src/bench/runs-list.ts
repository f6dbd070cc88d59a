/**
 * The runs list through the REST API, end to end (HTTP to a running dashboard), as a user's script
 * would use it; for docs/BENCHMARKS.md:
 *   pnpm --filter @scalelab/web bench:runs [http://127.0.0.1:3000] "needle …" [repetitions]
 * Times (medians of the repetitions) a name search for the needle (seed-runs.ts names one), the
 * first page, and following nextCursor from the newest run to the oldest at 100 and 500 a page.
 */
const base = process.argv[2] ?? "http://127.0.0.1:3000";
const needle = process.argv[3];
const repetitions = Number(process.argv[4] ?? 5);
if (!needle) throw new Error("usage: runs-list.ts BASE_URL NEEDLE_NAME [REPETITIONS]");

type Page = { items: { id: string; name: string | null }[]; nextCursor: string | null };

async function get(path: string): Promise<Page> {
  const res = await fetch(`${base}/api/v1${path}`);
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Page;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function timed<T>(f: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t = performance.now();
  const value = await f();
  return { ms: performance.now() - t, value };
}

async function walk(limit: number): Promise<{ runs: number; pages: number; oldest: string | undefined }> {
  let cursor: string | null = null;
  let runs = 0;
  let pages = 0;
  let oldest: string | undefined;
  do {
    const page: Page = await get(`/runs?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    runs += page.items.length;
    pages++;
    oldest = page.items.at(-1)?.id ?? oldest;
    cursor = page.nextCursor;
  } while (cursor);
  return { runs, pages, oldest };
}

async function main() {
  // One call first, so that a cold server's compile of the route is not measured.
  await get("/runs?limit=1");
  const rows: { what: string; ms: number[]; note: string }[] = [];
  const search = [];
  let found = 0;
  for (let i = 0; i < repetitions; i++) {
    const r = await timed(() => get(`/runs?q=${encodeURIComponent(needle!)}`));
    found = r.value.items.filter((x) => x.name === needle).length;
    search.push(r.ms);
  }
  rows.push({ what: `GET /runs?q=<needle> (name search)`, ms: search, note: `found ${found}` });
  const first = [];
  for (let i = 0; i < repetitions; i++) first.push((await timed(() => get("/runs"))).ms);
  rows.push({ what: "GET /runs (first page, 100)", ms: first, note: "" });
  for (const limit of [100, 500]) {
    const walks = [];
    let note = "";
    for (let i = 0; i < repetitions; i++) {
      const r = await timed(() => walk(limit));
      walks.push(r.ms);
      note = `${r.value.runs} runs in ${r.value.pages} pages, oldest ${r.value.oldest?.slice(0, 8)}`;
    }
    rows.push({ what: `newest → oldest, limit=${limit}`, ms: walks, note });
  }
  console.log(`| what | median | each (ms) | |\n| --- | --- | --- | --- |`);
  for (const r of rows) {
    const m = median(r.ms);
    const fmt = m >= 1000 ? `${(m / 1000).toFixed(2)} s` : `${Math.round(m)} ms`;
    console.log(`| ${r.what} | ${fmt} | ${r.ms.map((x) => Math.round(x)).join(", ")} | ${r.note} |`);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
