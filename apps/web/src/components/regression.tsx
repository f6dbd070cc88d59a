"use client";

import { regressionChangeText, type TRegression } from "@scalelab/scenarios/analysis";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useId } from "react";
import { historyHref } from "~/lib/history";
import { regressionHeading, regressionWords } from "~/lib/regression-text";
import { formatMs, formatRps } from "~/lib/format";
import { useTRPC } from "~/trpc/client";
import { TableScroll } from "./scroll-region";

/**
 * The check against the baseline of the name: its verdict in words, the baseline linked, and per
 * metric (and variant) the baseline's figure, this one's, the change with its ratio, CI and p.
 * While it is in progress it says it waits for its end.
 */
export function RegressionCard({
  regression,
  kind,
  name,
  ended,
}: {
  regression: TRegression;
  kind: "run" | "experiment";
  name: string;
  ended: boolean;
}) {
  const r = regression;
  const experiment = kind === "experiment";
  const words = regressionWords(r.verdict, kind, ended);
  const heading = regressionHeading(name);
  return (
    <section className="panel" data-testid="regression" data-verdict={r.verdict} data-ended={ended}>
      <h2>
        {heading} <span className={`badge ${words.badge}`}>{words.short}</span>
      </h2>
      <p data-testid="regression-verdict">
        <strong>{words.sentence}.</strong>{" "}
        <span className="muted">
          Compared with the {kind}{" "}
          <Link href={`/${kind}s/${encodeURIComponent(r.baselineId)}`} data-testid="regression-baseline">
            {r.baselineId.slice(0, 8)}
          </Link>{" "}
          that was the baseline of “{name}” when this one was created: a regression is req/s lower or p95 higher by more than {r.worseBy} %
          {experiment ? `, with the difference significant at p < ${r.p} when both sides have 2 or more runs` : ""}.
          {r.reason && ended ? ` ${r.reason}.` : ""} <Link href={historyHref(kind, name)}>History of “{name}”</Link>
        </span>
      </p>
      {r.results.length > 0 && (
        <TableScroll label={heading}>
          <table className="data">
            <thead>
              <tr>
                {experiment && <th>Variant</th>}
                <th>Figure</th>
                <th className="num">Baseline</th>
                <th className="num">This {kind}</th>
                <th>Change</th>
                <th>Result</th>
              </tr>
            </thead>
            <tbody>
              {r.results.map((x, i) => {
                const f = x.metric === "rps" ? formatRps : formatMs;
                return (
                  <tr key={i} data-testid="regression-result" data-regressed={x.regressed}>
                    {experiment && (
                      <td>
                        {x.variant}
                        {x.baselineVariant !== null && x.baselineVariant !== x.variant && (
                          <span className="muted"> (vs {x.baselineVariant})</span>
                        )}
                      </td>
                    )}
                    <td>{x.metric === "rps" ? "req/s" : "p95 latency"}</td>
                    <td className="num">{f(x.baselineFigure)}</td>
                    <td className="num">{f(x.figure)}</td>
                    <td className="wrap" style={{ minWidth: 240 }}>
                      {regressionChangeText(x)}
                      {x.reason && <div className="muted">{x.reason}</div>}
                    </td>
                    <td>
                      <span className={`badge ${x.regressed ? "badge-failed" : "badge-succeeded"}`}>{x.regressed ? "worse" : "ok"}</span>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  );
}

/**
 * Marks the run or experiment as the baseline of its name, or unmarks it. Only a named, succeeded
 * stand-alone run or an experiment whose runs all succeeded can be one; a disabled button has
 * the reason as visible text beside it (and as its accessible description).
 */
export function BaselineButton({
  kind,
  id,
  name,
  marked,
  canMark,
  why,
}: {
  kind: "run" | "experiment";
  id: string;
  name: string | null;
  marked: boolean;
  canMark: boolean;
  why: string;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = kind === "run" ? trpc.runs : trpc.experiments;
  const onSuccess = async () => {
    await queryClient.invalidateQueries({ queryKey: router.get.queryKey({ id }) });
    await queryClient.invalidateQueries({ queryKey: trpc.history.get.pathKey() });
  };
  const mark = useMutation(trpc.runs.markBaseline.mutationOptions({ onSuccess }));
  const unmark = useMutation(trpc.runs.unmarkBaseline.mutationOptions({ onSuccess }));
  const markExperiment = useMutation(trpc.experiments.markBaseline.mutationOptions({ onSuccess }));
  const unmarkExperiment = useMutation(trpc.experiments.unmarkBaseline.mutationOptions({ onSuccess }));
  const [doMark, doUnmark] = kind === "run" ? [mark, unmark] : [markExperiment, unmarkExperiment];
  const pending = doMark.isPending || doUnmark.isPending;
  const error = doMark.error ?? doUnmark.error;
  const whyId = useId();
  return (
    <>
      {marked ? (
        <button
          type="button"
          className="btn"
          data-testid="unmark-baseline"
          disabled={pending}
          title={`Later ${kind}s named “${name}” will have no baseline to be checked against`}
          onClick={() => doUnmark.mutate({ id })}
        >
          {pending ? "Unmarking…" : "Unmark baseline"}
        </button>
      ) : (
        <>
          <button
            type="button"
            className="btn"
            data-testid="mark-baseline"
            disabled={pending || !canMark}
            aria-describedby={canMark ? undefined : whyId}
            title={canMark ? `Later ${kind}s named “${name}” will be checked against this one` : undefined}
            onClick={() => doMark.mutate({ id })}
          >
            {pending ? "Marking…" : "Mark as baseline"}
          </button>
          {!canMark && (
            <span className="muted" id={whyId} data-testid="mark-baseline-why">
              {why}
            </span>
          )}
        </>
      )}
      {error && (
        <span className="error-text" role="alert">
          {error.message}
        </span>
      )}
    </>
  );
}
