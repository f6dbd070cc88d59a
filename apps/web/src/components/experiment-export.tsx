type ExportLink = { label: string; format: string; testId: string; title: string; open?: boolean };

/** Links to a REST export: data files download; the HTML report opens in a new tab (and saves as one file). */
function ExportLinks({ base, links, live, testId }: { base: string; links: readonly ExportLink[]; live: boolean; testId: string }) {
  return (
    <div
      data-testid={testId}
      style={{ display: "flex", flexWrap: "wrap", alignItems: "baseline", gap: "4px 14px", margin: "-8px 0 16px", fontSize: 13 }}
    >
      <span className="muted">Export{live ? " (what there is so far)" : ""}:</span>
      {links.map((l) => (
        <a
          key={l.testId}
          href={`${base}?${l.format}`}
          {...(l.open ? { target: "_blank", rel: "noopener" } : { download: true })}
          data-testid={l.testId}
          title={l.title}
        >
          {l.label}
        </a>
      ))}
    </div>
  );
}

const EXPERIMENT_LINKS: readonly ExportLink[] = [
  {
    label: "Report (HTML)",
    format: "format=html",
    testId: "export-html",
    title: "One self-contained page with the tables and charts: opens without Scalelab",
    open: true,
  },
  {
    label: "Runs (CSV)",
    format: "format=csv&table=runs",
    testId: "export-runs-csv",
    title: "One row per run: variant, repetition, attempt, status and its whole-run figures",
  },
  { label: "Samples (CSV)", format: "format=csv&table=samples", testId: "export-samples-csv", title: "One row per second of every run" },
  {
    label: "JSON",
    format: "format=json",
    testId: "export-json",
    title: "Everything: the experiment, its statistics and each run with its per-second samples",
  },
];

const RUN_LINKS: readonly ExportLink[] = [
  {
    label: "Samples (CSV)",
    format: "format=csv",
    testId: "export-samples-csv",
    title: "One row per second: requests, errors, latency percentiles, requests per backend",
  },
  {
    label: "JSON",
    format: "format=json",
    testId: "export-json",
    title: "Everything: the run, its per-second samples, container figures and the service's figures",
  },
];

export function ExperimentExport({ id, live }: { id: string; live: boolean }) {
  return (
    <ExportLinks
      base={`/api/v1/experiments/${encodeURIComponent(id)}/export`}
      links={EXPERIMENT_LINKS}
      live={live}
      testId="experiment-export"
    />
  );
}

export function RunExport({ id, live }: { id: string; live: boolean }) {
  return <ExportLinks base={`/api/v1/runs/${encodeURIComponent(id)}/export`} links={RUN_LINKS} live={live} testId="run-export" />;
}
