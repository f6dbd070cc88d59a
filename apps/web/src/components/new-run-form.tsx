"use client";

import { ZRunCreate, type TRunCreateInput } from "@scalelab/scenarios/contract";
import { keepPreviousData, skipToken, useMutation, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useState, type ReactNode } from "react";
import { FormProvider, useForm, useFormContext, useFormState, type Control } from "react-hook-form";
import { faultFieldPaths } from "~/lib/faults";
import { firstRunForm } from "~/lib/first-run";
import { formatBytes } from "~/lib/format";
import {
  dependencyEnvOf,
  errorMessages,
  fieldId,
  holds,
  includePath,
  initialForm,
  notOffered,
  issueTarget,
  mixFieldPaths,
  offeredField,
  placeIssues,
  placePresetIssue,
  runFormResolver,
  runInputOf,
  scalePatch,
  SCRIPT_NOTE,
  SECTIONS,
  sectionOn,
  sectionOptional,
  sectionShown,
  toRunInput,
  visibleFields,
  type FieldChange,
  type FieldSpec,
  type RunFormValues,
  type SectionSpec,
} from "~/lib/run-form";
import { useDebounced } from "~/lib/use-debounced";
import { formFromRun } from "~/lib/run-form-copy";
import { useTRPC } from "~/trpc/client";
import { engineBounds, pinnableRoles } from "~/lib/engine-form";
import { EngineSection, enginePaths, PinFields } from "./engine-fields";
import { FaultEditor } from "./fault-editor";
import { FilePreview } from "./file-preview";
import { FormField, RunFormHost } from "./form-field";
import { ImageChoices } from "./image-picker";
import { RequestMix } from "./request-mix";
import { RunWarnings } from "./run-warnings";
import { TopologyDiagram } from "./topology-diagram";

/** The scale-my-service preset (@scalelab/scenarios/experiments SCALE_MY_SERVICE). */
const SCALE_PRESET = "scale-my-service";

/** The checkbox of an optional section (a broker beside a user's image). */
function IncludeSection({ section }: { section: SectionSpec }) {
  const { register } = useFormContext<RunFormValues>();
  const id = `f-include-${section.key}`;
  return (
    <div className="field wide">
      <label htmlFor={id} style={{ display: "flex", gap: 8, alignItems: "center" }}>
        <input
          id={id}
          type="checkbox"
          data-testid={`include-${section.key}`}
          {...register(includePath(section), { deps: section.fields.map((f) => f.path) })}
        />
        {section.optional?.label}
      </label>
    </div>
  );
}

function FormSection({ section, values, after }: { section: SectionSpec; values: RunFormValues; after: (id: string) => ReactNode }) {
  if (!sectionShown(section, values)) return null;
  const on = sectionOn(section, values);
  return (
    <section className="panel" data-testid={`section-${section.key}`}>
      <h2>
        {section.title}
        {section.hint && <span className="h2-hint"> — {section.hint}</span>}
      </h2>
      <fieldset className="fields">
        {sectionOptional(section, values) && <IncludeSection section={section} />}
        {on &&
          section.fields
            .filter((f) => holds(f.when, values))
            // Keyed by the field's id, not its path: a path drawn once per kind (the balancer's algorithm) is a new control for each kind,
            // so the new kind's select mounts with the value the form now holds rather than the old one's options' choice.
            .map((f) => <FieldWithSlot key={fieldId(f)} spec={offeredField(f, values)} after={after(f.id ?? f.path)} />)}
      </fieldset>
    </section>
  );
}

function FieldWithSlot({ spec, after }: { spec: FieldSpec; after: ReactNode }) {
  return (
    <>
      <FormField spec={spec} />
      {after}
    </>
  );
}

function FormSectionWithNote(props: { section: SectionSpec; values: RunFormValues; after: (id: string) => ReactNode; note: ReactNode }) {
  return (
    <>
      <FormSection section={props.section} values={props.values} after={props.after} />
      {props.note}
    </>
  );
}

/** The line under the dependency sections of a user's image: the variables the lab hands it. */
function DependencyEnv({ values }: { values: RunFormValues }) {
  const env = Object.entries(dependencyEnvOf(values));
  return (
    <p className="muted" data-testid="dependency-env" style={{ margin: "0 4px" }}>
      Your service gets PORT and SCALELAB_REPLICA
      {env.length > 0 ? (
        <>
          , and for the dependencies chosen above:{" "}
          {env.map(([name, value], i) => (
            <span key={name}>
              {i > 0 && ", "}
              <code>
                {name}={value}
              </code>
            </span>
          ))}
        </>
      ) : (
        " (a store, broker or cache chosen above adds their addresses: DATABASE_URL and PG*, CASSANDRA_*, KAFKA_*, AMQP_*, REDIS_*)"
      )}
      .
    </p>
  );
}

/** Errors with no field on screen: cross-component rules, the server's, a failed request. */
function FormErrors({
  control,
  values,
  own = [],
}: {
  control: Control<RunFormValues, unknown, TRunCreateInput>;
  values: RunFormValues;
  /** Paths shown by controls outside the sections (the engine, the pins). */
  own?: readonly string[];
}) {
  const { errors, submitCount } = useFormState({ control });
  const shown = new Set<string>([
    ...visibleFields(values).map((f) => f.path),
    ...faultFieldPaths(values.faults),
    ...mixFieldPaths(values),
    ...own,
  ]);
  const all = errorMessages(errors);
  const elsewhere = all.filter((e) => !shown.has(e.path));
  return (
    <>
      {elsewhere.length > 0 && (
        <div className="error-box" data-testid="form-errors" role="alert">
          {elsewhere.map((e) => (
            <div key={e.path}>{e.message}</div>
          ))}
        </div>
      )}
      {submitCount > 0 && all.length > elsewhere.length && <div className="muted">Fix the highlighted fields first.</div>}
    </>
  );
}

/**
 * `kind`: the server the form opens on (`/runs/new?kind=image`, from the presets page); `from`: a
 * run whose definition fills the form ("Copy and change"); `first`: the home page's first run.
 */
export function NewRunForm({ kind, from, first = false }: { kind?: string; from?: string; first?: boolean }) {
  const trpc = useTRPC();
  const router = useRouter();
  const defaultValues = useMemo(() => (first ? firstRunForm() : initialForm(kind)), [kind, first]);
  const form = useForm<RunFormValues, unknown, TRunCreateInput>({ defaultValues, resolver: runFormResolver, mode: "all" });
  const source = useQuery({ ...trpc.runs.get.queryOptions(from ? { id: from } : skipToken), staleTime: Infinity });
  const [copied, setCopied] = useState<string | null>(null);
  useEffect(() => {
    const run = source.data;
    if (!run || copied === run.id) return;
    form.reset(
      formFromRun({
        ...(run.name && { name: run.name }),
        engine: run.engine,
        topology: run.topology,
        workload: run.workload,
        faults: run.faults,
      }),
    );
    setCopied(run.id);
  }, [source.data, copied, form]);
  const values = form.watch();
  const image = values.topology.service.kind === "image";

  // A value no longer offered (the testbed's endpoints for a user's image, a k6-only traffic for wrk) becomes the first one offered.
  const { setValue } = form;
  const unoffered = JSON.stringify(notOffered(values));
  useEffect(() => {
    for (const c of JSON.parse(unoffered) as FieldChange[]) setValue(c.path, c.value as never, { shouldValidate: true });
  }, [unoffered, setValue]);

  const host = useQuery(trpc.host.facts.queryOptions({}));
  const engines = useQuery(trpc.engines.list.queryOptions({}));
  const bounds = engineBounds(engines.data, values.engine, host.data);
  const body = toRunInput(values);
  const bodyKey = JSON.stringify(body);
  const roles = useMemo(() => pinnableRoles(JSON.parse(bodyKey) as TRunCreateInput), [bodyKey]);
  const remoteEngines = (engines.data?.length ?? 0) > 1 || values.engine !== "local";
  const valid = ZRunCreate.safeParse(body).success;
  const previewKey = useDebounced(valid ? JSON.stringify(body) : null, 300);
  const previewInput = useMemo(() => (previewKey ? (JSON.parse(previewKey) as TRunCreateInput) : null), [previewKey]);
  const preview = useQuery({ ...trpc.preview.render.queryOptions(previewInput ?? skipToken), placeholderData: keepPreviousData });

  const create = useMutation(
    trpc.runs.create.mutationOptions({
      onSuccess: (run) => router.push(`/runs/${run.id}`),
      onError: (err) => {
        const issues = placeIssues(err.data?.issues ?? [], form.getValues());
        for (const i of issues) form.setError(issueTarget(i.path), { type: "server", message: i.message });
        if (issues.length === 0) form.setError("root.server", { type: "server", message: err.message });
      },
    }),
  );
  const submit = form.handleSubmit((run) => {
    if (!create.isPending) create.mutate(run);
  });

  // "How does it scale?": the scale-my-service preset with this service and workload; its issues land on the form like a run's.
  const scale = useMutation(
    trpc.presets.run.mutationOptions({
      onSuccess: (ref) => router.push(`/experiments/${ref.id}`),
      onError: (err) => {
        const { lines } = runInputOf(form.getValues());
        const issues = (err.data?.issues ?? []).map((i) => placePresetIssue(i, lines));
        for (const i of issues) form.setError(issueTarget(i.path), { type: "server", message: i.message });
        if (issues.length === 0) form.setError("root.server", { type: "server", message: err.message });
      },
    }),
  );
  const scaleIt = form.handleSubmit((run) => {
    if (scale.isPending) return;
    const name = run.name?.trim();
    scale.mutate({ name: SCALE_PRESET, patch: scalePatch(run), ...(name && { experimentName: name }) });
  });
  const busy = create.isPending || scale.isPending;

  const after = (id: string): ReactNode => {
    if (id === "image")
      return <ImageChoices onPicked={(reference) => setValue("topology.service.image", reference, { shouldValidate: true })} />;
    if (id === "traffic" && values.traffic === "requests") return <RequestMix />;
    if (id === "loadgenSeparate") return <PinFields engine={values.engine} engines={engines.data ?? []} roles={roles} />;
    if (id === "script") {
      return (
        <div className="field wide">
          <div className="hint" data-testid="script-note">
            {SCRIPT_NOTE}
          </div>
        </div>
      );
    }
    return null;
  };

  return (
    <>
      <div className="page-head">
        <div>
          <h1>New run</h1>
          <div className="sub">
            Define a topology and a workload; the worker builds it from real containers and loads it with k6 or wrk.
            {host.data && (
              <span data-testid="host-bounds">
                {" "}
                This host has {host.data.cpus} CPUs and {formatBytes(host.data.memoryBytes)}: limits beyond it are refused when the run is
                created.
              </span>
            )}
          </div>
        </div>
      </div>

      {from && (
        <div className={source.isError ? "error-box" : "notice"} data-testid="copied-from" style={{ marginBottom: 16 }}>
          {source.isError ? (
            <>
              Could not copy run {from}: {source.error.message}
            </>
          ) : copied ? (
            <>
              Filled with the definition of run{" "}
              <a href={`/runs/${encodeURIComponent(copied)}`}>{source.data?.name ?? copied.slice(0, 8)}</a>: change what you like and start
              it as a new run.
            </>
          ) : (
            <>Loading run {from}…</>
          )}
        </div>
      )}

      <section className="panel" data-testid="form-topology">
        <h2>Topology</h2>
        {preview.data ? (
          <div style={{ opacity: valid ? 1 : 0.45 }}>
            <TopologyDiagram diagram={preview.data.diagram} />
          </div>
        ) : (
          <div className="chart-empty" style={{ height: 120 }}>
            {valid ? "Drawing…" : "Fix the form to see the topology."}
          </div>
        )}
      </section>

      <div className="form-grid">
        <FormProvider {...form}>
          <RunFormHost.Provider value={{ host: bounds, values }}>
            <form className="stack" onSubmit={submit} noValidate data-testid="run-form">
              {remoteEngines && engines.data && <EngineSection engines={engines.data} />}
              {SECTIONS.map((s) => (
                <FormSectionWithNote
                  key={s.key}
                  section={s}
                  values={values}
                  after={after}
                  note={image && s.key === "cache" && <DependencyEnv values={values} />}
                />
              ))}
              <FaultEditor values={values} />
              <FormErrors control={form.control} values={values} own={remoteEngines ? enginePaths(roles) : []} />
              {valid && !preview.isPlaceholderData && previewKey === JSON.stringify(body) && (
                <RunWarnings warnings={preview.data?.warnings} />
              )}
              <div className="form-actions">
                <button type="submit" className="btn btn-primary" data-testid="submit-run" disabled={busy}>
                  {create.isPending ? "Queueing…" : "Start run"}
                </button>
                {image && (
                  <button
                    type="button"
                    className="btn"
                    data-testid="scale-my-service"
                    disabled={busy}
                    onClick={() => void scaleIt()}
                    title="An experiment of 9 runs: this service at 1, 2 and 4 replicas, 3 times each, with the USL fit, findings and the report"
                  >
                    {scale.isPending ? "Queueing…" : "How does it scale? (1, 2, 4 replicas × 3)"}
                  </button>
                )}
              </div>
            </form>
          </RunFormHost.Provider>
        </FormProvider>

        <section className="panel sticky" data-testid="preview">
          <h2>Generated files</h2>
          {preview.data ? (
            <FilePreview files={preview.data.files} stale={!valid} />
          ) : preview.isError ? (
            <div className="error-box">{preview.error.message}</div>
          ) : (
            <div className="chart-empty">{valid ? "Rendering…" : "Fix the form to see the configuration."}</div>
          )}
        </section>
      </div>
    </>
  );
}
