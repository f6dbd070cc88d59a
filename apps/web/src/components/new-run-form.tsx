"use client";

import { ZRunCreate, type TRunCreateInput } from "@scalelab/scenarios/contract";
import { keepPreviousData, skipToken, useMutation, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useMemo } from "react";
import { FormProvider, useForm, useFormState, type Control } from "react-hook-form";
import { faultFieldPaths } from "~/lib/faults";
import { formatBytes } from "~/lib/format";
import {
  DEFAULT_FORM,
  errorMessages,
  holds,
  issueTarget,
  runFormResolver,
  SECTIONS,
  sectionShown,
  toRunInput,
  visibleFields,
  type RunFormValues,
  type SectionSpec,
} from "~/lib/run-form";
import { useDebounced } from "~/lib/use-debounced";
import { useTRPC } from "~/trpc/client";
import { FaultEditor } from "./fault-editor";
import { FilePreview } from "./file-preview";
import { FormField } from "./form-field";
import { TopologyDiagram } from "./topology-diagram";

function FormSection({ section, values }: { section: SectionSpec; values: RunFormValues }) {
  if (!sectionShown(section, values)) return null;
  return (
    <section className="panel" data-testid={`section-${section.key}`}>
      <h2>
        {section.title}
        {section.hint && <span className="h2-hint"> — {section.hint}</span>}
      </h2>
      <fieldset className="fields">
        {section.fields
          .filter((f) => holds(f.when, values))
          .map((f) => (
            <FormField key={f.path} spec={f} />
          ))}
      </fieldset>
    </section>
  );
}

/** Errors with no field on screen: cross-component rules, the server's, a failed request. */
function FormErrors({ control, values }: { control: Control<RunFormValues, unknown, TRunCreateInput>; values: RunFormValues }) {
  const { errors, submitCount } = useFormState({ control });
  const shown = new Set<string>([...visibleFields(values).map((f) => f.path), ...faultFieldPaths(values.faults)]);
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

export function NewRunForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const form = useForm<RunFormValues, unknown, TRunCreateInput>({ defaultValues: DEFAULT_FORM, resolver: runFormResolver, mode: "all" });
  const values = form.watch();

  const host = useQuery(trpc.host.facts.queryOptions({}));
  const body = toRunInput(values);
  const valid = ZRunCreate.safeParse(body).success;
  const previewKey = useDebounced(valid ? JSON.stringify(body) : null, 300);
  const previewInput = useMemo(() => (previewKey ? (JSON.parse(previewKey) as TRunCreateInput) : null), [previewKey]);
  const preview = useQuery({ ...trpc.preview.render.queryOptions(previewInput ?? skipToken), placeholderData: keepPreviousData });

  const create = useMutation(
    trpc.runs.create.mutationOptions({
      onSuccess: (run) => router.push(`/runs/${run.id}`),
      onError: (err) => {
        const issues = err.data?.issues ?? [];
        for (const i of issues) form.setError(issueTarget(i.path), { type: "server", message: i.message });
        if (issues.length === 0) form.setError("root.server", { type: "server", message: err.message });
      },
    }),
  );
  const submit = form.handleSubmit((run) => {
    if (!create.isPending) create.mutate(run);
  });

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
          <form className="stack" onSubmit={submit} noValidate data-testid="run-form">
            {SECTIONS.map((s) => (
              <FormSection key={s.key} section={s} values={values} />
            ))}
            <FaultEditor values={values} />
            <FormErrors control={form.control} values={values} />
            <div className="form-actions">
              <button type="submit" className="btn btn-primary" data-testid="submit-run" disabled={create.isPending}>
                {create.isPending ? "Queueing…" : "Start run"}
              </button>
            </div>
          </form>
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
