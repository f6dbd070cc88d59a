"use client";

import { BALANCER_ALGORITHMS, ENDPOINTS, LIMITS } from "@scalelab/scenarios/schemas";
import { keepPreviousData, skipToken, useMutation, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useState, type ReactNode } from "react";
import { issuesByPath } from "~/lib/issues";
import { checkRunForm, DEFAULT_FORM, FIELD_PATHS, type FormField, type RunForm } from "~/lib/run-form";
import { useTRPC } from "~/trpc/client";

const ALGORITHM_LABELS: Record<RunForm["algorithm"], string> = { round_robin: "Round robin", least_conn: "Least connections" };
const ENDPOINT_LABELS: Record<RunForm["endpoint"], string> = {
  hostname: "hostname — returns the replica's host name",
  cpu: "cpu — JSON-encodes a random string N times",
};

function useDebounced<T>(value: T, ms: number): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setDebounced(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return debounced;
}

function Field({
  field,
  label,
  hint,
  error,
  wide,
  children,
}: {
  field: string;
  label: string;
  hint?: ReactNode;
  error?: string;
  wide?: boolean;
  children: ReactNode;
}) {
  return (
    <div className={`field${wide ? " wide" : ""}${error ? " invalid" : ""}`}>
      <label htmlFor={`f-${field}`}>{label}</label>
      {children}
      {error ? (
        <div className="field-error" id={`f-${field}-error`} data-testid={`error-${field}`} role="alert">
          {error}
        </div>
      ) : hint ? (
        <div className="hint">{hint}</div>
      ) : null}
    </div>
  );
}

export function NewRunForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const [form, setForm] = useState<RunForm>(DEFAULT_FORM);
  const [touched, setTouched] = useState<Partial<Record<FormField, true>>>({});
  const [submitted, setSubmitted] = useState(false);
  const [serverIssues, setServerIssues] = useState<Record<string, string>>({});
  const [tab, setTab] = useState<"nginx" | "k6">("nginx");

  const checked = useMemo(() => checkRunForm(form), [form]);
  const host = useQuery(trpc.host.facts.queryOptions({}));
  const previewInput = useDebounced(checked.ok ? checked.input : null, 300);
  const preview = useQuery({
    ...trpc.preview.render.queryOptions(previewInput ?? skipToken),
    placeholderData: keepPreviousData,
  });

  const create = useMutation(
    trpc.runs.create.mutationOptions({
      onSuccess: (run) => router.push(`/runs/${run.id}`),
      onError: (err) => setServerIssues(issuesByPath(err.data?.issues ?? [])),
    }),
  );

  const set = <K extends keyof RunForm>(key: K, value: RunForm[K]) => {
    setForm((f) => ({ ...f, [key]: value }));
    if (key !== "model") {
      const path = FIELD_PATHS[key as FormField];
      setServerIssues(({ [path]: _, ...rest }) => rest);
    }
  };
  const touch = (key: FormField) => setTouched((t) => ({ ...t, [key]: true }));

  const errorOf = (key: FormField): string | undefined => {
    const path = FIELD_PATHS[key];
    const client = !checked.ok && (touched[key] || submitted) ? checked.issues[path] : undefined;
    return client ?? serverIssues[path];
  };
  const fieldPaths = new Set(Object.values(FIELD_PATHS));
  const otherIssues = Object.entries(serverIssues).filter(([path]) => !fieldPaths.has(path));

  const input = (key: FormField, props: { placeholder?: string; step?: string } = {}) => {
    const error = errorOf(key);
    return (
      <input
        id={`f-${key}`}
        name={key}
        data-testid={`field-${key}`}
        type={key === "name" ? "text" : "number"}
        step={props.step ?? "1"}
        placeholder={props.placeholder}
        value={form[key]}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `f-${key}-error` : undefined}
        onChange={(e) => set(key, e.target.value)}
        onBlur={() => touch(key)}
      />
    );
  };

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    if (!checked.ok || create.isPending) return;
    create.mutate(checked.input);
  };

  const hostCpus = host.data?.cpus;
  const range = (r: { min: number; max: number }, unit = "") => `${r.min}–${r.max}${unit}`;

  return (
    <>
      <div className="page-head">
        <div>
          <h1>New run</h1>
          <div className="sub">Define a topology and a workload; the worker builds it from real containers and loads it with k6.</div>
        </div>
      </div>

      <div className="form-grid">
        <form className="stack" onSubmit={submit} noValidate data-testid="run-form">
          <section className="panel">
            <h2>Topology</h2>
            <fieldset className="fields">
              <Field field="name" label="Name (optional)" error={errorOf("name")} wide hint="Shown in lists and comparisons.">
                {input("name", { placeholder: "e.g. 3 replicas at 0.2 CPU" })}
              </Field>
              <Field field="replicas" label="Replicas" error={errorOf("replicas")} hint={range(LIMITS.replicas)}>
                {input("replicas")}
              </Field>
              <Field
                field="cpus"
                label="CPU per replica"
                error={errorOf("cpus")}
                hint={`Empty = unlimited. ${LIMITS.cpus.min}–${hostCpus ?? "host"} CPUs${hostCpus ? " on this host" : ""}.`}
              >
                {input("cpus", { placeholder: "unlimited", step: "0.05" })}
              </Field>
              <Field field="memoryMb" label="Memory per replica (MB)" error={errorOf("memoryMb")} hint={range(LIMITS.memoryMb)}>
                {input("memoryMb")}
              </Field>
              <Field field="threads" label="Threads (GOMAXPROCS)" error={errorOf("threads")} hint="Empty = one per visible CPU; 1 = single-threaded.">
                {input("threads", { placeholder: "per CPU" })}
              </Field>
              <Field field="algorithm" label="Balancer (nginx)" error={errorOf("algorithm")}>
                <select
                  id="f-algorithm"
                  data-testid="field-algorithm"
                  value={form.algorithm}
                  onChange={(e) => set("algorithm", e.target.value as RunForm["algorithm"])}
                >
                  {BALANCER_ALGORITHMS.map((a) => (
                    <option key={a} value={a}>
                      {ALGORITHM_LABELS[a]}
                    </option>
                  ))}
                </select>
              </Field>
              {form.endpoint === "cpu" && (
                <Field field="cpuIterations" label="CPU work per request" error={errorOf("cpuIterations")} hint={`JSON encodes, ${range(LIMITS.cpuIterations)}`}>
                  {input("cpuIterations")}
                </Field>
              )}
            </fieldset>
          </section>

          <section className="panel">
            <h2>Workload</h2>
            <fieldset className="fields">
              <Field field="endpoint" label="Endpoint" error={errorOf("endpoint")} wide>
                <select
                  id="f-endpoint"
                  data-testid="field-endpoint"
                  value={form.endpoint}
                  onChange={(e) => set("endpoint", e.target.value as RunForm["endpoint"])}
                >
                  {ENDPOINTS.map((ep) => (
                    <option key={ep} value={ep}>
                      {ENDPOINT_LABELS[ep]}
                    </option>
                  ))}
                </select>
              </Field>
              <div className="field wide">
                <span className="label">Load model</span>
                <div className="segmented" role="radiogroup" aria-label="Load model">
                  {(["closed", "open"] as const).map((m) => (
                    <label key={m} className={form.model === m ? "on" : ""} data-testid={`model-${m}`}>
                      <input type="radio" name="model" value={m} checked={form.model === m} onChange={() => set("model", m)} />
                      {m === "closed" ? "Closed — fixed virtual users" : "Open — fixed arrival rate"}
                    </label>
                  ))}
                </div>
              </div>
              {form.model === "closed" ? (
                <Field field="vus" label="Virtual users" error={errorOf("vus")} hint={`Concurrent connections looping, ${range(LIMITS.vus)}`}>
                  {input("vus")}
                </Field>
              ) : (
                <>
                  <Field field="arrivalRate" label="Arrival rate (req/s)" error={errorOf("arrivalRate")} hint={range(LIMITS.arrivalRate)}>
                    {input("arrivalRate")}
                  </Field>
                  <Field field="maxVus" label="Max VUs" error={errorOf("maxVus")} hint="Empty = chosen from the rate.">
                    {input("maxVus", { placeholder: "auto" })}
                  </Field>
                </>
              )}
              <Field field="durationSeconds" label="Duration (s)" error={errorOf("durationSeconds")} hint={range(LIMITS.durationSeconds)}>
                {input("durationSeconds")}
              </Field>
            </fieldset>
          </section>

          {otherIssues.length > 0 && (
            <div className="error-box" data-testid="form-errors">
              {otherIssues.map(([path, message]) => (
                <div key={path}>{message}</div>
              ))}
            </div>
          )}
          {create.error && !create.error.data?.issues && (
            <div className="error-box" data-testid="form-errors">
              {create.error.message}
            </div>
          )}

          <div className="form-actions">
            <button type="submit" className="btn btn-primary" data-testid="submit-run" disabled={create.isPending}>
              {create.isPending ? "Queueing…" : "Start run"}
            </button>
            {submitted && !checked.ok && <span className="muted">Fix the highlighted fields first.</span>}
          </div>
        </form>

        <section className="panel" data-testid="preview">
          <h2>Generated configuration</h2>
          <div className="tabs" role="tablist">
            <button type="button" role="tab" className={tab === "nginx" ? "on" : ""} aria-selected={tab === "nginx"} onClick={() => setTab("nginx")}>
              nginx.conf
            </button>
            <button type="button" role="tab" className={tab === "k6" ? "on" : ""} aria-selected={tab === "k6"} onClick={() => setTab("k6")}>
              k6 script
            </button>
          </div>
          {preview.data ? (
            <pre className="code" data-testid={`preview-${tab}`} style={{ opacity: checked.ok ? 1 : 0.45 }}>
              {tab === "nginx" ? preview.data.nginxConf : preview.data.k6Script}
            </pre>
          ) : preview.isError ? (
            <div className="error-box">{preview.error.message}</div>
          ) : (
            <div className="chart-empty">{checked.ok ? "Rendering…" : "Fix the form to see the configuration."}</div>
          )}
        </section>
      </div>
    </>
  );
}
