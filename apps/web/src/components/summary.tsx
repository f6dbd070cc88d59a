import { COMPARE_FIGURES, poolMaxBusy, setupRows } from "@scalelab/scenarios/analysis";
import { imageService, type TFaultRecord } from "@scalelab/scenarios/contract";
import type { TRunSummary, TTopology, TWorkload, THostFacts } from "@scalelab/scenarios/contract";
import type { ReactNode } from "react";
import { formatBytes, formatCount, formatMs, formatPct, formatRps } from "~/lib/format";
import { TableScroll } from "./scroll-region";

/** The whole-run figures, laid out like wrk's report. */
export function SummaryTable(props: { summary: TRunSummary }) {
  return (
    <TableScroll label="Summary">
      <SummaryTableContent {...props} />
    </TableScroll>
  );
}

function SummaryTableContent({ summary }: { summary: TRunSummary }) {
  const l = summary.latencyMs;
  return (
    <table className="data" data-testid="summary-table">
      <tbody>
        <tr>
          <td>Requests</td>
          <td className="num">{formatCount(summary.requests)}</td>
        </tr>
        <tr>
          <td>Requests/s</td>
          <td className="num" data-testid="summary-rps">
            {formatRps(summary.rps)}
          </td>
        </tr>
        <tr>
          <td>Errors</td>
          <td className="num">{formatCount(summary.errors)}</td>
        </tr>
        <tr>
          <td>Error rate</td>
          <td className="num">{formatPct(summary.errorRate)}</td>
        </tr>
        {summary.droppedIterations !== undefined && (
          <tr>
            <td>Dropped iterations</td>
            <td className="num">{formatCount(summary.droppedIterations)}</td>
          </tr>
        )}
        <tr>
          <td>Latency avg</td>
          <td className="num">{formatMs(l.avg)}</td>
        </tr>
        <tr>
          <td>Latency p50</td>
          <td className="num">{formatMs(l.p50)}</td>
        </tr>
        <tr>
          <td>Latency p90</td>
          <td className="num">{formatMs(l.p90)}</td>
        </tr>
        <tr>
          <td>Latency p95</td>
          <td className="num">{formatMs(l.p95)}</td>
        </tr>
        <tr>
          <td>Latency p99</td>
          <td className="num">{formatMs(l.p99)}</td>
        </tr>
        <tr>
          <td>Latency max</td>
          <td className="num">{formatMs(l.max)}</td>
        </tr>
        {summary.imbalance && (
          <tr
            data-testid="summary-imbalance"
            title="The busiest replica's requests over the mean per replica: 1 is an even spread, N (the replicas) is everything on one."
          >
            <td>Imbalance (max/mean, 1 = even)</td>
            <td className="num">
              {summary.imbalance.run.toFixed(2)}{" "}
              <span className="muted">(median second {summary.imbalance.medianPerSecond.toFixed(2)})</span>
            </td>
          </tr>
        )}
        {summary.loadgen?.percentiles === "worst instance" && (
          <tr data-testid="summary-percentiles-merge">
            <td colSpan={2} className="muted">
              Percentiles are the worst of the {summary.loadgen.instances} load generators' (an upper bound; the max is exact), the mean is
              weighted by requests: percentiles of separate instances cannot be averaged.
            </td>
          </tr>
        )}
        {summary.loadgen?.percentiles === "merged" && (
          <tr data-testid="summary-percentiles-merge">
            <td colSpan={2} className="muted">
              Percentiles are of all {summary.loadgen.instances} load generators' requests together, from their summed latency histograms
              (within 0.4 %).
            </td>
          </tr>
        )}
      </tbody>
    </table>
  );
}

export function BackendsTable(props: { backends: Record<string, number> }) {
  return (
    <TableScroll label="Requests per backend">
      <BackendsTableContent {...props} />
    </TableScroll>
  );
}

function BackendsTableContent({ backends }: { backends: Record<string, number> }) {
  const total = Object.values(backends).reduce((a, b) => a + b, 0);
  const rows = Object.entries(backends).sort(([a], [b]) => a.localeCompare(b));
  return (
    <table className="data" data-testid="summary-backends">
      <thead>
        <tr>
          <th>Backend</th>
          <th className="num">Requests</th>
          <th className="num">Share</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([name, n]) => (
          <tr key={name}>
            <td className="mono">{name}</td>
            <td className="num">{formatCount(n)}</td>
            <td className="num">{formatPct(total ? n / total : null)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The run's configuration, with the same rows and labels as the compare page's setup table. */
export function SetupFacts({
  topology,
  workload,
  faults,
  script,
}: {
  topology: TTopology;
  workload: TWorkload;
  faults?: readonly TFaultRecord[];
  /** A script's run: whose scenarios ran, once its summary says. */
  script?: { ownScenarios: boolean };
}) {
  const rows = setupRows([{ topology, workload, faults, ...(script && { script }) }]);
  return (
    <dl className="facts" data-testid="run-setup">
      {rows.map((row) => (
        <Fact key={row.key} label={row.label}>
          {row.values[0]}
        </Fact>
      ))}
      <ImageFacts topology={topology} envShown={rows.some((r) => r.label === "Environment")} />
      {workload.endpoint === "cpu" && <Fact label="CPU work per request">{formatCount(topology.service.cpuIterations)} iterations</Fact>}
      <Fact label="Request timeout">{formatMs(workload.requestTimeoutMs)}</Fact>
    </dl>
  );
}

/**
 * A user's image's contract with the lab (its defaults filled in): the image, port, health path and
 * command, and its environment unless a setup row already shows it.
 */
function ImageFacts({ topology, envShown }: { topology: TTopology; envShown: boolean }) {
  const image = imageService(topology.service);
  if (!image) return null;
  const env = Object.entries(image.env);
  return (
    <>
      <Fact label="Image" testId="setup-image">
        <span className="mono">{image.image}</span>
      </Fact>
      <Fact label="Port" testId="setup-port">
        {image.port}
      </Fact>
      <Fact label="Health path" testId="setup-health-path">
        <span className="mono">{image.healthPath}</span>
      </Fact>
      <Fact label="Command" testId="setup-command">
        {image.command ? <span className="mono">{image.command.map((a) => JSON.stringify(a)).join(" ")}</span> : "the image's own"}
      </Fact>
      {!envShown && (
        <Fact label="Environment" testId="setup-env">
          {env.length === 0 ? (
            "none set (the lab's only)"
          ) : (
            <span className="mono" style={{ whiteSpace: "pre-wrap" }}>
              {env.map(([name, value]) => `${name}=${value}`).join("\n")}
            </span>
          )}
        </Fact>
      )}
    </>
  );
}

function Fact({ label, testId, children }: { label: string; testId?: string; children: ReactNode }) {
  return (
    <>
      <dt>{label}</dt>
      <dd data-testid={testId}>{children}</dd>
    </>
  );
}

type FigureLine = { key: string; label: string; value: number | null; text?: string; title?: string };

/** A compare figure's label and value for one run: the run page and the compare page name a figure alike. */
function compareFigure(key: string, summary: TRunSummary): FigureLine {
  const f = COMPARE_FIGURES.find((x) => x.key === key);
  if (!f) throw new Error(`no compare figure ${key}`);
  return { key, label: f.label, value: f.value(summary) };
}

function FigureTable(props: { testId: string; lines: FigureLine[] }) {
  return (
    <TableScroll label="Figures">
      <FigureTableContent {...props} />
    </TableScroll>
  );
}

function FigureTableContent({ testId, lines }: { testId: string; lines: FigureLine[] }) {
  return (
    <table className="data" data-testid={testId}>
      <tbody>
        {lines.map((l) => (
          <tr key={l.key}>
            <td>{l.label}</td>
            <td className="num" data-testid={`${testId}-${l.key.replace(/^\w+\./, "")}`} data-value={l.value ?? undefined} title={l.title}>
              {l.text ?? formatCount(l.value)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Busy workers the once-a-second reading never caught while requests were served: unknown, not 0 (scenarios poolMaxBusy). */
const maxBusyUnknown = (summary: TRunSummary) => poolMaxBusy(summary) === null;
const busyLine = (l: FigureLine): FigureLine =>
  l.value === null
    ? {
        ...l,
        text: "unknown",
        title: "No reading (once a second) caught a request in flight: the requests were shorter than the gaps between readings.",
      }
    : l;

/** The worker pools over the load: busy workers and queued requests over all replicas. */
export function PoolSummary({ summary, pool }: { summary: TRunSummary; pool: NonNullable<TRunSummary["pool"]> }) {
  return (
    <FigureTable
      testId="summary-pool"
      lines={[
        { key: "pool.size", label: "Pool size (all replicas)", value: pool.size, text: pool.size ? formatCount(pool.size) : "unbounded" },
        busyLine({
          key: "pool.medianBusy",
          label: "Busy workers (median)",
          value: pool.medianBusy === 0 && maxBusyUnknown(summary) ? null : pool.medianBusy,
        }),
        busyLine(compareFigure("pool.maxBusy", summary)),
        { key: "pool.medianQueued", label: "Queued requests (median)", value: pool.medianQueued },
        compareFigure("pool.maxQueued", summary),
        compareFigure("pool.rejected", summary),
      ]}
    />
  );
}

const drainText = (seconds: number | null) =>
  seconds === null ? "did not drain within the window" : seconds === 0 ? "no lag left at the end" : `${formatCount(seconds)} s`;

/** The broker of an async run: events in and out, the consumers' lag, and how long they took to catch up. */
export function BrokerSummary({ summary, broker }: { summary: TRunSummary; broker: NonNullable<TRunSummary["broker"]> }) {
  return (
    <FigureTable
      testId="summary-broker"
      lines={[
        compareFigure("broker.produced", summary),
        compareFigure("broker.consumed", summary),
        compareFigure("broker.maxLag", summary),
        compareFigure("broker.lagAtEnd", summary),
        {
          key: "broker.drainSeconds",
          label: "Time to catch up after the load",
          value: broker.drainSeconds,
          text: drainText(broker.drainSeconds),
        },
      ]}
    />
  );
}

export function HostFacts({ host }: { host: THostFacts }) {
  return (
    <dl className="facts" data-testid="run-host">
      {host.engine && host.engine !== "local" && (
        <>
          <dt>Engine</dt>
          <dd data-testid="run-engine">{host.engine}</dd>
        </>
      )}
      {host.nodes && host.nodes.length > 0 && (
        <>
          <dt>Nodes</dt>
          <dd data-testid="run-nodes">
            {host.nodes.map((n) => `${n.name} (${n.cpus} CPU${n.cpus === 1 ? "" : "s"}, ${formatBytes(n.memoryBytes)})`).join(", ")}
          </dd>
        </>
      )}
      <dt>CPUs</dt>
      <dd>{host.cpus}</dd>
      <dt>Memory</dt>
      <dd>{formatBytes(host.memoryBytes)}</dd>
      <dt>Kernel</dt>
      <dd>{host.kernel}</dd>
      {host.os && (
        <>
          <dt>OS</dt>
          <dd>{host.os}</dd>
        </>
      )}
      <dt>Docker</dt>
      <dd>{host.dockerVersion}</dd>
      {host.k6Version && (
        <>
          <dt>k6</dt>
          <dd>{host.k6Version}</dd>
        </>
      )}
      {host.serviceImage && (
        <>
          <dt>Service image</dt>
          <dd data-testid="service-image" title={host.serviceImage.id}>
            {host.serviceImage.reference} ({host.serviceImage.id.replace(/^sha256:/, "").slice(0, 12)},{" "}
            {formatBytes(host.serviceImage.sizeBytes)})
          </dd>
        </>
      )}
    </dl>
  );
}
